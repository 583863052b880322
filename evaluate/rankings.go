package evaluate

import (
	"errors"

	"github.com/verdict-ml/verdict/internal/input"
)

// The ranking readers turn a model's top-K predictions and the test targets
// into Batches for the metrics, one reader per way that rankings are
// commonly saved:
//
//   - OpenNumPyRankings: items.npy (n×K item indices, best first), an
//     optional scores.npy, targets.npz as scipy.sparse.save_npz writes a CSR
//     matrix, and optional sample IDs;
//   - OpenTRECRankings: a TREC run and its qrels, ranked the way trec_eval
//     ranks them (by score, ties by document ID descending);
//   - OpenTableRankings: long tables in CSV, TSV or Parquet, one predicted
//     item (with its rank or score) or one relevant item per line.
//
// Each streams its predictions in batches of rows, validates them unless
// told not to, and computes the targets' fingerprint on the way, so that the
// same targets give the same fingerprint whatever the input format: each
// row's relevant items are fingerprinted by their IDs' text, and a NumPy
// column index is an ID written in decimal.

// ErrBadInput is wrapped by every error about the content of a ranking
// input: the errors of OpenNumPyRankings, OpenTRECRankings,
// OpenTableRankings and FingerprintTargets about a file's header, schema,
// shape or records, of the readers' Next about a row, and of
// NewInMemoryRankings. Callers use errors.Is(err, ErrBadInput) to tell a
// user's data error from an I/O failure. The message never repeats this
// sentinel's text; it names the file, the line or record, the row and the
// sample ID where they apply, as in
//
//	items.npy: row 2 (sample "u2"): item 10 at rank 3 is outside the targets' 10 columns
var ErrBadInput = errors.New("malformed ranking input")

// ErrUnknownFormat is wrapped by the errors of OpenTableRankings and
// FingerprintTargets for a file whose format they cannot tell from its name
// or the format argument. The message names the file and the formats.
var ErrUnknownFormat = errors.New("unknown input format")

// CatalogueSizer is a Rankings that knows the size of the catalogue its
// items come from: NumPyRankings, whose item indices are the columns of the
// targets matrix, so its size is their number. Run makes the coverage of
// RunOptions.WholeSetSpecs with it. A size of 0 is unknown.
type CatalogueSizer interface {
	CatalogueSize() int
}

// defaultRankingBatch is the number of rows of a batch unless
// RankingOptions.BatchSize says otherwise.
const defaultRankingBatch = 4096

// RankingOptions tune a ranking reader. The zero value reads every rank
// position, validates, reads batches of 4096 rows, and holds at most 2 GiB.
type RankingOptions struct {
	// Width caps the rank positions read per row: hits are built, and
	// predictions validated, for the first min(K, Width) positions only, so
	// a smaller Width is less work. It is the largest cutoff of the metrics
	// to compute (their required k). 0 reads every position.
	Width int
	// SkipValidation turns off the checks of the predictions: item indices
	// within the targets' columns, no item twice in a row, finite scores in
	// descending order, no sample with more predictions than the width. The
	// checks cost little; turn them off only for input known to be good.
	// Without them an out-of-range item is never a hit, a repeated item
	// counts at each of its ranks, and extra predictions are dropped.
	// Structural problems, such as arrays of different lengths or an
	// unreadable file, are reported either way.
	SkipValidation bool
	// BatchSize is the number of rows per batch; 0 means 4096.
	BatchSize int
	// MaxHeldBytes bounds the memory that a TREC or table reader holds, as
	// it estimates it: what it holds whole (the qrels, a targets table, a
	// run whose queries are not grouped), the IDs it keeps while it
	// streams, and the query or sample it ranks. Past it, the reader
	// refuses the input with an error wrapping ErrBadInput that names the
	// line where it passed the bound and what to do. 0 means
	// DefaultMaxHeldBytes (2 GiB). The NumPy reader streams every array,
	// a batch of rows at a time, and needs no such bound.
	MaxHeldBytes int64
}

func (o RankingOptions) batchSize() int {
	if o.BatchSize < 0 || o.Width < 0 {
		panic("evaluate: negative RankingOptions.BatchSize or Width")
	}
	if o.BatchSize == 0 {
		return defaultRankingBatch
	}
	return o.BatchSize
}

// width returns the number of rank positions to read of k predictions.
func (o RankingOptions) width(k int) int {
	if o.Width > 0 && o.Width < k {
		return o.Width
	}
	return k
}

// itemStamps records, for the row being built, which items are relevant
// and which have been predicted, in one array indexed by item ID. Instead of
// clearing the array for each row, every row has its own base, a multiple of
// 4; an entry below the base is stale, and an entry at or above it holds the
// flags stampTarget and stampSeen of the current row. So starting a row costs
// nothing, and a lookup is one load from an array that, for catalogues of up
// to some hundred thousand items, stays in cache.
//
// The array grows with the items a row touches, not with the catalogue's
// size as an input declares it (a sparse matrix's shape may claim two
// billion columns), and up to maxDenseItems: the stamps of items above it
// are kept in a map that holds the current row's only.
type itemStamps struct {
	mark  []uint32
	limit int // the items below it may go in mark
	far   map[int32]uint32
	base  uint32
}

// maxDenseItems bounds the array of itemStamps: 2^24 items, 64 MiB.
const maxDenseItems = 1 << 24

const (
	stampTarget = 1 // the item is relevant for the row
	stampSeen   = 2 // the item has been predicted in the row
)

// grow makes room for item IDs below n, as the rows touch them.
func (s *itemStamps) grow(n int) {
	s.limit = max(s.limit, min(n, maxDenseItems))
}

// newRow forgets the marks of the previous row.
func (s *itemStamps) newRow() {
	s.base += 4
	if s.base == 0 { // wrapped after 2^30 rows
		clear(s.mark)
		s.base = 4
	}
	if len(s.far) > 0 {
		clear(s.far)
	}
}

// get returns the stamp of item.
func (s *itemStamps) get(item int32) uint32 {
	if int(item) < len(s.mark) {
		return s.mark[item]
	}
	return s.far[item] // 0, stale, when absent
}

// set sets the stamp of item, growing the array when the item is below
// the limit.
func (s *itemStamps) set(item int32, v uint32) {
	switch i := int(item); {
	case i < len(s.mark):
	case i < s.limit:
		n := min(max(2*len(s.mark), i+1, 1<<12), s.limit)
		s.mark = append(s.mark, make([]uint32, n-len(s.mark))...)
	default:
		if s.far == nil {
			s.far = map[int32]uint32{}
		}
		s.far[item] = v
		return
	}
	s.mark[item] = v
}

// addTarget marks item as relevant and reports whether it was not already.
func (s *itemStamps) addTarget(item int32) bool {
	v := s.get(item)
	if v < s.base {
		s.set(item, s.base|stampTarget)
		return true
	}
	s.set(item, v|stampTarget)
	return v&stampTarget == 0
}

// seen marks item as predicted and reports whether it is relevant and
// whether it was predicted before in the row.
func (s *itemStamps) seen(item int32) (hit, again bool) {
	v := s.get(item)
	if v < s.base {
		s.set(item, s.base|stampSeen)
		return false, false
	}
	s.set(item, v|stampSeen)
	return v&stampTarget != 0, v&stampSeen != 0
}

// isTarget reports whether item is relevant for the current row.
func (s *itemStamps) isTarget(item int32) bool {
	v := s.get(item)
	return v >= s.base && v&stampTarget != 0
}

// rowAt locates row (0-based, in the order rows are returned) of the input
// file at path, with its sample ID.
func rowAt(path string, row int64, id string) input.Location {
	return input.Location{Path: path, Row: row, HasRow: true, Sample: id, HasSample: true}
}

// ahead produces a reader's batches on a goroutine of its own, while the
// caller scores the previous one: reading and matching overlap with the
// metrics. It cycles through three batches: one held by the caller, one
// ready, one being filled.
type ahead struct {
	ready chan aheadResult
	free  chan *Batch
	stop  chan struct{}
	done  chan struct{}
	held  *Batch
	err   error // the error that ended the stream, io.EOF at its end
}

type aheadResult struct {
	b   *Batch
	err error
}

// startAhead calls fill on its own goroutine, over and over, until it
// returns an error (io.EOF at the end of the input) or stop is called.
func startAhead(fill func(*Batch) error) *ahead {
	const buffers = 3
	a := &ahead{
		ready: make(chan aheadResult, 1),
		free:  make(chan *Batch, buffers),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	for range buffers {
		a.free <- new(Batch)
	}
	go func() {
		defer close(a.done)
		for {
			var b *Batch
			select {
			case b = <-a.free:
			case <-a.stop:
				return
			}
			err := fill(b)
			select {
			case a.ready <- aheadResult{b, err}:
			case <-a.stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return a
}

// next hands the previous batch back and returns the next one.
func (a *ahead) next() (*Batch, error) {
	if a.err != nil {
		return nil, a.err
	}
	if a.held != nil {
		a.free <- a.held
		a.held = nil
	}
	res := <-a.ready
	if res.err != nil {
		a.err = res.err
		return nil, res.err
	}
	a.held = res.b
	return res.b, nil
}

// halt stops the goroutine and waits for it to return.
func (a *ahead) halt() {
	select {
	case <-a.stop:
	default:
		close(a.stop)
	}
	<-a.done
}
