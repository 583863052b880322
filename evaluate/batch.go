package evaluate

import (
	"math"
	"strconv"

	"github.com/verdict-ml/verdict/fingerprint"
	"github.com/verdict-ml/verdict/internal/input"
)

// Batch is a run of ranked rows ready to be scored: for each row, which of
// its top predictions are relevant, and how many relevant items it has. The
// input readers build batches from predictions and targets; the metrics read
// them. A batch's hit matrix is computed once and shared by every metric.
//
// The readers of this package also put on each batch the predicted items of
// every row's Width positions and, when the input has them, their scores:
// see Item and Score. They keep them in the form they read them (NumPy
// indices stay the integers of the file, and are written in decimal only
// when asked), so that carrying them costs a copy of the bytes and no
// conversion.
type Batch struct {
	// SampleIDs identifies the rows. The same ID may appear on several rows
	// (several evaluation draws of one user).
	SampleIDs []string
	// First is the input position (0-based row index) of the batch's first
	// row.
	First int64
	// Width is the number of rank positions Hits holds per row.
	Width int
	// Hits has len(SampleIDs)*Width flags, row-major: Hits[r*Width+i] is
	// true when the item at rank i+1 of row r is relevant. Positions past the
	// end of a row's predictions are false.
	Hits []bool
	// Relevant is R, the number of distinct relevant items of each row. Zero
	// marks a row without targets: it keeps its place, so values stay aligned
	// with sample IDs, but no mean counts it.
	Relevant []int32

	items batchItems
	// kept holds the relevant items of the rows a debug selection asked a
	// reader for (see keepTargets), by row of the batch.
	kept []keptTargets
}

// batchItems holds the predicted items and scores of a batch's rows, Width
// positions per row, in one of three forms: NumPy integers as stored
// (raw), integers (nums), or text (text and ends).
type batchItems struct {
	raw    []byte // NumPy items, row-major with Width per row, of type typ
	typ    input.NPYType
	nums   []int64 // integer items, Width per row
	text   []byte  // text items, one after another
	ends   []int32 // end of each position's item in text, Width per row
	ranked []int32 // predictions of each row, at most Width; nil: Width each

	scoreRaw []byte // NumPy scores as stored, Width per row, of type scoreTyp
	scoreTyp input.NPYType
	scores   []float64 // scores, Width per row
}

// keptTargets is the relevant items of row r of a batch, as the input names
// them.
type keptTargets struct {
	r     int
	items []string
}

// Len is the number of rows.
func (b *Batch) Len() int { return len(b.SampleIDs) }

// Row returns the hit flags of row r, best rank first.
func (b *Batch) Row(r int) []bool { return b.Hits[r*b.Width : (r+1)*b.Width] }

// HasItems reports whether the batch carries its predicted items: always for
// the readers of this package, never for a batch built without them.
func (b *Batch) HasItems() bool {
	it := &b.items
	return it.raw != nil || it.nums != nil || it.ends != nil
}

// HasScores reports whether the batch carries the predictions' scores: when
// the input has them (a NumPy scores array that is validated, a TREC run, a
// table ordered by its score column).
func (b *Batch) HasScores() bool { return b.items.scoreRaw != nil || b.items.scores != nil }

// Ranked is the number of predictions of row r among its Width positions:
// fewer than Width when the row's ranking is shorter, 0 when the batch
// carries no items.
func (b *Batch) Ranked(r int) int {
	switch {
	case !b.HasItems():
		return 0
	case b.items.ranked == nil:
		return b.Width
	}
	return int(b.items.ranked[r])
}

// Item returns the ID of the item at rank i+1 of row r as the input names
// it: a NumPy column index or an in-memory item in decimal, a TREC document
// number, a table's item text. It is "" past the row's predictions
// (i ≥ Ranked(r)). It allocates the string; AppendItem does not.
func (b *Batch) Item(r, i int) string {
	if n, ok := b.ItemNumber(r, i); ok {
		return strconv.FormatInt(n, 10)
	}
	return string(b.AppendItem(nil, r, i))
}

// AppendItem appends the ID of the item at rank i+1 of row r, as Item
// returns it, to dst.
func (b *Batch) AppendItem(dst []byte, r, i int) []byte {
	if i >= b.Ranked(r) {
		return dst
	}
	it := &b.items
	p := r*b.Width + i
	switch {
	case it.raw != nil:
		if it.typ.Kind == 'u' {
			return strconv.AppendUint(dst, it.typ.Uint(it.raw, p), 10)
		}
		return strconv.AppendInt(dst, it.typ.Int(it.raw, p), 10)
	case it.nums != nil:
		return strconv.AppendInt(dst, it.nums[p], 10)
	}
	start := int32(0)
	if p > 0 {
		start = it.ends[p-1]
	}
	return append(dst, it.text[start:it.ends[p]]...)
}

// ItemNumber returns the item at rank i+1 of row r as an integer when the
// input names items by integers (NumPy column indices, in-memory items),
// and false otherwise, past the row's predictions, or for an unsigned NumPy
// index above the range of int64.
func (b *Batch) ItemNumber(r, i int) (int64, bool) {
	if i >= b.Ranked(r) {
		return 0, false
	}
	it := &b.items
	p := r*b.Width + i
	switch {
	case it.raw != nil:
		if it.typ.Kind == 'u' {
			u := it.typ.Uint(it.raw, p)
			return int64(u), u <= math.MaxInt64
		}
		return it.typ.Int(it.raw, p), true
	case it.nums != nil:
		return it.nums[p], true
	}
	return 0, false
}

// Score returns the score of the item at rank i+1 of row r, and false when
// the batch has no scores (HasScores) or i is past the row's predictions.
func (b *Batch) Score(r, i int) (float64, bool) {
	if i >= b.Ranked(r) {
		return 0, false
	}
	it := &b.items
	p := r*b.Width + i
	switch {
	case it.scoreRaw != nil:
		if it.scoreTyp.Size == 4 {
			return float64(math.Float32frombits(it.scoreTyp.Order.Uint32(it.scoreRaw[4*p:]))), true
		}
		return math.Float64frombits(it.scoreTyp.Order.Uint64(it.scoreRaw[8*p:])), true
	case it.scores != nil:
		return it.scores[p], true
	}
	return 0, false
}

// targetsOf returns the relevant items a reader kept for row r, and false
// when it kept none for it.
func (b *Batch) targetsOf(r int) ([]string, bool) {
	for _, k := range b.kept {
		if k.r == r {
			return k.items, true
		}
	}
	return nil, false
}

// resetItems empties the items of b for a reader to fill, keeping their
// storage.
func (b *Batch) resetItems() {
	it := &b.items
	it.raw, it.nums, it.text, it.ends, it.ranked = it.raw[:0], it.nums[:0], it.text[:0], it.ends[:0], it.ranked[:0]
	it.scoreRaw, it.scores = it.scoreRaw[:0], it.scores[:0]
	b.kept = b.kept[:0]
}

// appendText adds the next position's item, in text form; "" marks a
// position past the row's predictions.
func (it *batchItems) appendText(id []byte) {
	it.text = append(it.text, id...)
	it.ends = append(it.ends, int32(len(it.text)))
}

// appendName is appendText for an ID held as a string.
func (it *batchItems) appendName(id string) {
	it.text = append(it.text, id...)
	it.ends = append(it.ends, int32(len(it.text)))
}

// copyItems copies the items of src into b, which must have none.
func (b *Batch) copyItems(src *Batch) {
	s, d := &src.items, &b.items
	d.typ, d.scoreTyp = s.typ, s.scoreTyp
	d.raw = clonePresent(d.raw, s.raw)
	d.nums = clonePresent(d.nums, s.nums)
	d.text = clonePresent(d.text, s.text)
	d.ends = clonePresent(d.ends, s.ends)
	d.ranked = clonePresent(d.ranked, s.ranked)
	d.scoreRaw = clonePresent(d.scoreRaw, s.scoreRaw)
	d.scores = clonePresent(d.scores, s.scores)
}

// clonePresent returns a copy of src in new storage, nil for nil.
func clonePresent[T any](dst, src []T) []T {
	if src == nil {
		return nil
	}
	return append(make([]T, 0, len(src)), src...)
}

// Rankings is a stream of batches read from predictions and targets.
type Rankings interface {
	// Next returns the next batch, or io.EOF after the last one. The batch
	// is valid until the following call. Input problems are errors wrapping
	// ErrBadInput that name the row index and sample ID.
	Next() (*Batch, error)
	// Width is the number of predictions per row (K).
	Width() int
	// Targets is the fingerprint of the targets read so far: complete once
	// Next has returned io.EOF.
	Targets() *fingerprint.Set
	// Progress reports bytes of input consumed and their total, for a
	// progress bar; cheap and safe from another goroutine.
	Progress() (done, total int64)
	// Missing is the number of samples with targets that the predictions
	// do not have, each scored as a row with no hits, and what they are,
	// as "samples of the targets have no predictions: scored as rows with
	// no hits"; 0 and "" when every row has predictions. It is complete
	// once Next has returned io.EOF.
	Missing() (rows int, what string)
	Close() error
}
