package evaluate

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/verdict-ml/verdict/fingerprint"
	"github.com/verdict-ml/verdict/internal/input"
)

// NumPyRankings reads rankings saved with NumPy and SciPy by a Python
// training job:
//
//   - items: a .npy file of n×K integers in C order, each row a sample's
//     top K item indices, best first;
//   - scores (optional): a .npy file of n×K floats, the items' scores,
//     validated (finite, and in descending order along each row; ties are
//     fine) and carried on the batches (Batch.Score). With
//     RankingOptions.SkipValidation they are left unread, and the batches
//     have none;
//   - targets: the .npz file that scipy.sparse.save_npz writes for a CSR
//     matrix of n rows, one column per item (compressed or not). A stored
//     value that is not zero makes the item relevant; explicit zeros are
//     not. Column indices may be unsorted and repeated; R counts distinct
//     relevant items. Other sparse formats (CSC, COO, ...) are refused:
//     convert them with .tocsr() first;
//   - sample IDs (optional): a .npy file of n integers or strings ('U' or
//     'S'). Without it a row's sample ID is its row index in decimal.
//
// Every array is read from disk in step, a batch of rows at a time, so
// memory holds a few batches of each and never a whole array, plus 4 bytes
// per target column for matching, for the columns up to the largest that
// a row uses (and at most 64 MiB: the columns above 2^24 are matched in a
// map of the row's own). Nothing is allocated by what a header or the
// matrix's shape claims: a matrix of two billion columns costs memory for
// the columns its rows use.
//
// With validation on, every item index of the first Width positions of a row
// must be a column of the targets (from 0 to columns−1), and no item may
// appear twice in them. A target column outside the matrix, a decreasing
// indptr and arrays whose lengths disagree are errors either way.
//
// Reading runs on two goroutines besides the caller's: one decompresses and
// decodes the targets and computes their fingerprint, the other reads the
// predictions and matches them against the targets, a batch ahead of the
// caller.
type NumPyRankings struct {
	readerCore
	closers []io.Closer

	items  *input.NPY
	scores *input.NPY // nil without scores, or when not validating
	tg     *csrReader

	n    int64 // rows
	k    int   // predictions per row
	cols int64 // the targets' columns

	itemRaw  []byte  // the batch's items as stored
	scoreRaw []byte  // the batch's scores as stored, when validated
	itemBuf  []int32 // the first Width items of each row, decoded
	rowItems []int32 // the batch's items: itemBuf, or itemRaw in place
	stride   int     // items per row of rowItems: Width, or K in place
	raw32    bool    // the items are little-endian int32

	stop   chan struct{}
	tch    chan *targetRows // from the targets goroutine
	tfree  chan *targetRows // back to it
	ahead  *ahead
	closed bool
}

// maxBatchValues bounds the predictions of a batch when
// RankingOptions.BatchSize is not set.
const maxBatchValues = defaultRankingBatch * 1024

// OpenNumPyRankings opens the NumPy rankings: items and targets are
// required, scores and sampleIDs may be empty. It reads every header and the
// targets' format and shape, and checks that the arrays agree in shape.
//
// It returns an error wrapping ErrBadInput when a file is not what it should
// be (not a .npy array, a dtype or shape that does not fit, row counts that
// differ, targets that are not a CSR matrix), and the *os.PathError of
// os.Open when a file cannot be opened.
func OpenNumPyRankings(items, scores, targets, sampleIDs string, opts RankingOptions) (_ *NumPyRankings, err error) {
	r := &NumPyRankings{readerCore: newReaderCore(opts)}
	r.tg = &csrReader{path: targets, batchSize: r.batchSize, fp: r.fp}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()

	if r.items, err = r.openNpy(items, &r.meter); err != nil {
		return nil, err
	}
	a := r.items
	switch {
	case len(a.Shape) != 2:
		return nil, a.Errorf("has shape %s; the predictions must be a 2-D array, one row of item indices per sample", a.ShapeText())
	case a.Type.Kind != 'i' && a.Type.Kind != 'u':
		return nil, a.Errorf("has dtype %s; item indices must be integers", a.DtypeName())
	case a.Fortran:
		return nil, a.Errorf("is in Fortran order; save np.ascontiguousarray(items) instead")
	}
	if err := a.CheckData(); err != nil {
		return nil, err
	}
	r.n, r.k = a.Shape[0], int(a.Shape[1])
	r.raw32 = a.Type.Kind == 'i' && a.Type.Size == 4 && a.Type.Order == binary.LittleEndian
	r.width = opts.width(r.k)
	if opts.BatchSize == 0 && r.k > 0 {
		// Very wide rows come in fewer per batch, to keep batches to a
		// few megabytes.
		r.tg.batchSize = max(1, min(defaultRankingBatch, maxBatchValues/r.k))
	}

	if scores != "" {
		// Scores only serve validation: without it they are left unread,
		// and out of the progress.
		m := &r.meter
		if !r.validate {
			m = nil
		}
		b, err := r.openNpy(scores, m)
		if err != nil {
			return nil, err
		}
		switch {
		case len(b.Shape) != 2 || b.Shape[0] != r.n || b.Shape[1] != int64(r.k):
			return nil, b.Errorf("has shape %s, but %s has shape %s", b.ShapeText(), items, a.ShapeText())
		case b.Type.Kind != 'f':
			return nil, b.Errorf("has dtype %s; scores must be floats", b.DtypeName())
		case b.Fortran:
			return nil, b.Errorf("is in Fortran order; save np.ascontiguousarray(scores) instead")
		}
		if err := b.CheckData(); err != nil {
			return nil, err
		}
		if r.validate {
			r.scores = b
		}
	}

	if sampleIDs != "" {
		if err := r.openSampleIDs(sampleIDs, r.n, items+" has %d rows"); err != nil {
			return nil, err
		}
	}

	if err := r.openTargets(targets, items); err != nil {
		return nil, err
	}
	r.cols = r.tg.cols
	r.stamps.grow(int(r.cols))
	r.tg.n = r.n
	return r, nil
}

// openNpy opens a .npy file and reads its header, with the file's size on m.
func (r *NumPyRankings) openNpy(path string, m *input.Meter) (*input.NPY, error) {
	f, err := input.Open(path, "a .npy file", m)
	if err != nil {
		return nil, err
	}
	r.closers = append(r.closers, f)
	return input.ReadNPY(f.Reader(), f.Size(), input.Location{Path: path}, ErrBadInput)
}

// openSampleIDs opens the sample IDs, which must be n, one per row; rows
// says where the number of rows comes from, as "items.npy has %d rows".
func (r *NumPyRankings) openSampleIDs(path string, n int64, rows string) error {
	b, err := r.openNpy(path, &r.meter)
	if err != nil {
		return err
	}
	switch {
	case len(b.Shape) != 1:
		return b.Errorf("has shape %s; sample IDs must be a 1-D array", b.ShapeText())
	case b.Type.Kind == 0 && (b.Descr == "" || len(b.Descr) > 1 && strings.IndexByte("OUS", b.Descr[1]) >= 0):
		// A structured array, objects, or strings too long to read.
		return b.Errorf("%s", b.Problem)
	case b.Type.Kind == 0 || b.Type.Kind == 'f':
		return b.Errorf("has dtype %s; sample IDs must be integers or strings", b.DtypeName())
	case b.Shape[0] != n:
		return b.Errorf("has %d sample IDs, but "+rows, b.Shape[0], n)
	}
	if err := b.CheckData(); err != nil {
		return err
	}
	r.tg.ids = b
	r.tg.batchSize = input.BatchRows(r.tg.batchSize, b.Type.Size)
	return nil
}

// openTargets opens a scipy.sparse .npz file, checks that it holds a CSR
// matrix of as many rows as the predictions, and reads the start of indptr.
func (r *NumPyRankings) openTargets(path, items string) error {
	f, err := input.Open(path, "an .npz file", &r.meter)
	if err != nil {
		return err
	}
	r.closers = append(r.closers, f)
	t := r.tg
	whole := input.Location{Path: path}
	zr, err := zip.NewReader(f.ReaderAt(), f.Size())
	if err != nil {
		return whole.Wrap(ErrBadInput, err, "not an .npz file of scipy.sparse.save_npz: %v", err)
	}
	members := map[string]*zip.File{}
	for _, m := range zr.File {
		members[m.Name] = m
	}
	open := func(name string) (*input.NPY, error) {
		m := members[name+".npy"]
		if m == nil {
			return nil, whole.Errorf(ErrBadInput, "has no array %q; save the targets with scipy.sparse.save_npz", name)
		}
		at := whole.WithColumn(name)
		at.ColumnNoun = "array"
		rc, err := m.Open()
		if err != nil {
			return nil, input.ReadError(ErrBadInput, at, err)
		}
		r.closers = append(r.closers, rc)
		return input.ReadNPY(rc, int64(min(m.UncompressedSize64, math.MaxInt64)), at, ErrBadInput)
	}

	format, err := open("format")
	if err != nil {
		return err
	}
	if k := format.Type.Kind; (k != 'U' && k != 'S') || format.Count != 1 {
		return format.Errorf("has dtype %s and shape %s; scipy.sparse.save_npz writes one string", format.DtypeName(), format.ShapeText())
	}
	raw, err := format.Next(1)
	if err != nil {
		return err
	}
	if name := string(format.Type.AppendText(nil, raw, 0)); name != "csr" {
		return whole.Errorf(ErrBadInput, "holds a sparse matrix in %s format; only CSR is supported, so save targets.tocsr()", name)
	}

	shape, err := open("shape")
	if err != nil {
		return err
	}
	if k := shape.Type.Kind; (k != 'i' && k != 'u') || shape.Count != 2 {
		return shape.Errorf("has dtype %s and shape %s; it must hold the matrix's two dimensions", shape.DtypeName(), shape.ShapeText())
	}
	if raw, err = shape.Next(2); err != nil {
		return err
	}
	rows, cols := shape.Type.Int(raw, 0), shape.Type.Int(raw, 1)
	if r.n < 0 {
		r.n = rows // no predictions: the matrix sets the rows
	}
	switch {
	case rows < 0 || cols < 0:
		return shape.Errorf("holds the negative dimensions (%d, %d)", rows, cols)
	case cols > math.MaxInt32:
		return whole.Errorf(ErrBadInput, "has %d columns; at most %d are supported", cols, math.MaxInt32)
	case rows != r.n:
		return whole.Errorf(ErrBadInput, "has %d rows, but %s has %d", rows, items, r.n)
	}
	t.cols = cols

	if t.indptr, err = open("indptr"); err != nil {
		return err
	}
	if t.indices, err = open("indices"); err != nil {
		return err
	}
	if t.data, err = open("data"); err != nil {
		return err
	}
	for _, a := range []*input.NPY{t.indptr, t.indices} {
		if k := a.Type.Kind; (k != 'i' && k != 'u') || len(a.Shape) != 1 {
			return a.Errorf("has dtype %s and shape %s; it must be a 1-D array of integers", a.DtypeName(), a.ShapeText())
		}
	}
	d := t.data
	if len(d.Shape) != 1 || (d.Type.Kind == 0 && d.Descr != "|b1") || d.Type.Kind == 'U' || d.Type.Kind == 'S' {
		return d.Errorf("has dtype %s and shape %s; it must be a 1-D array of numbers or booleans", d.DtypeName(), d.ShapeText())
	}
	if d.Type.Kind == 0 {
		d.Type = input.NPYType{Order: binary.LittleEndian, Kind: 'b', Size: 1}
	}
	if t.indptr.Count != r.n+1 {
		return t.indptr.Errorf("has %d values; a matrix of %d rows needs %d", t.indptr.Count, r.n, r.n+1)
	}
	if t.indices.Count != d.Count {
		return whole.Errorf(ErrBadInput, "arrays %q and %q differ in length: %d and %d", "indices", "data", t.indices.Count, d.Count)
	}
	for _, a := range []*input.NPY{t.indptr, t.indices, d} {
		if err := a.CheckData(); err != nil {
			return err
		}
	}
	t.nnz = t.indices.Count
	if raw, err = t.indptr.Next(1); err != nil {
		return err
	}
	if p := t.indptr.Type.Int(raw, 0); p != 0 {
		return t.indptr.Errorf("starts at %d instead of 0", p)
	}
	t.ptrBuf = append(t.ptrBuf, 0)
	return nil
}

// K is the number of predictions per row in the items array.
func (r *NumPyRankings) K() int { return r.k }

// Rows is the number of rows, as the arrays' shapes say.
func (r *NumPyRankings) Rows() int64 { return r.n }

// CatalogueSize is the number of columns of the targets matrix, the second
// dimension of its shape: the items a prediction may name (CatalogueSizer).
func (r *NumPyRankings) CatalogueSize() int { return int(r.cols) }

// Targets returns the fingerprint of the targets read so far, complete
// once Next has returned io.EOF.
func (r *NumPyRankings) Targets() *fingerprint.Set {
	t := r.tg
	t.mu.Lock()
	defer t.mu.Unlock()
	s := fingerprint.NewTargets()
	s.Merge(t.fp)
	return s
}

// Close stops reading and closes the files. Next must not be called
// afterwards.
func (r *NumPyRankings) Close() error {
	r.closed = true
	if r.stop != nil {
		close(r.stop)
		r.ahead.halt()
		for range r.tch { // until the targets goroutine is done
		}
		r.stop = nil
	}
	var errs []error
	for i := len(r.closers) - 1; i >= 0; i-- {
		errs = append(errs, r.closers[i].Close())
	}
	r.closers = nil
	return errors.Join(errs...)
}

// Next returns the next batch of rows, or io.EOF after the last one.
func (r *NumPyRankings) Next() (*Batch, error) {
	if r.closed {
		return nil, errClosed
	}
	if r.ahead == nil {
		const buffers = 3
		r.stop = make(chan struct{})
		r.tch = make(chan *targetRows, 1)
		r.tfree = make(chan *targetRows, buffers)
		for range buffers {
			r.tfree <- new(targetRows)
		}
		go r.tg.run(r.tfree, r.tch, r.stop)
		r.ahead = startAhead(r.fill)
	}
	return r.ahead.next()
}

// columnName is the ID of the item of a column: its index in decimal.
func columnName(c int32) string { return strconv.Itoa(int(c)) }

// errClosed ends the predictions goroutine when Close stops the targets
// one first.
var errClosed = errors.New("evaluate: rankings closed")

// fill reads the predictions of the next batch of targets into b, or checks
// the ends of the arrays and returns io.EOF after the last row.
func (r *NumPyRankings) fill(b *Batch) error {
	tr, ok := <-r.tch
	if !ok {
		return errClosed
	}
	defer func() { r.tfree <- tr }()
	n := len(tr.ids)
	r.b = b
	b.First, b.Width = r.row, r.width
	b.SampleIDs = append(b.SampleIDs[:0], tr.ids...)
	if n > 0 {
		if err := r.readPredictions(n); err != nil {
			return err
		}
	}
	w := r.width
	b.Hits = append(b.Hits[:0], make([]bool, n*w)...)
	b.Relevant = append(b.Relevant[:0], make([]int32, n)...)
	b.resetItems()
	if !r.noItems {
		b.items.typ = r.items.Type
		b.items.raw = r.keepRows(b.items.raw, r.itemRaw, n, r.items.Type.Size)
		if r.scores != nil {
			b.items.scoreTyp = r.scores.Type
			b.items.scoreRaw = r.keepRows(b.items.scoreRaw, r.scoreRaw, n, r.scores.Type.Size)
		}
	}
	start := 0
	for i := range n {
		r.stamps.newRow()
		for _, c := range tr.cols[start:tr.ends[i]] {
			r.stamps.addTarget(c) // distinct already
		}
		R := int32(tr.ends[i] - start)
		if r.keep != nil {
			keepRow(b, r.keep, i, b.SampleIDs[i], tr.cols[start:tr.ends[i]], columnName)
		}
		start = tr.ends[i]
		b.Relevant[i] = R

		hits := b.Hits[i*w : (i+1)*w]
		items := r.rowItems[i*r.stride : i*r.stride+w]
		bad := -1
		switch {
		case r.validate:
			bad = r.checkedHits(items, hits)
		case R > 0: // else no hits
			r.hits(items, hits)
		}
		if bad >= 0 {
			return r.badItem(i, bad)
		}
		if r.scores != nil {
			if err := r.checkScores(i); err != nil {
				return err
			}
		}
	}
	r.row += int64(n)
	switch {
	case tr.err == io.EOF:
		for _, a := range []*input.NPY{r.items, r.scores} {
			if a != nil {
				if err := a.Finish(); err != nil {
					return err
				}
			}
		}
		r.meter.Finish()
		return io.EOF
	case tr.err != nil:
		return tr.err
	}
	return nil
}

// keepRows appends to dst the first Width values of each of n rows of K
// values of size bytes in raw: the part of the batch's items or scores that
// its rows carry. It is one copy when Width is K.
func (r *NumPyRankings) keepRows(dst, raw []byte, n, size int) []byte {
	if dst == nil {
		dst = []byte{} // not nil: the batch has items, even without rows
	}
	if r.width == r.k {
		return append(dst, raw[:n*r.k*size]...)
	}
	row, stride := r.width*size, r.k*size
	dst = slices.Grow(dst, n*row)[:n*row]
	for i := range n {
		copy(dst[i*row:(i+1)*row], raw[i*stride:])
	}
	return dst
}

// readPredictions reads the items, and the scores when they are validated,
// of the next n rows.
func (r *NumPyRankings) readPredictions(n int) error {
	raw, err := r.items.Next(n * r.k)
	if err != nil {
		return err
	}
	r.itemRaw = raw
	if r.scores != nil {
		if r.scoreRaw, err = r.scores.Next(n * r.k); err != nil {
			return err
		}
	}
	if r.raw32 {
		if items, ok := int32sInPlace(raw); ok {
			r.rowItems, r.stride = items, r.k
			return nil
		}
	}
	// Decode the first Width items of each row to int32. An index that
	// does not fit becomes -1, which no matrix has as a column; item
	// recovers it for a message.
	k, w := r.k, r.width
	if cap(r.itemBuf) < n*w {
		r.itemBuf = make([]int32, n*w)
	}
	out := r.itemBuf[:n*w]
	r.rowItems, r.stride = out, w
	if t := r.items.Type; t.Kind == 'i' && t.Size == 8 && t.Order == binary.LittleEndian {
		for i := range n {
			src := raw[8*i*k : 8*(i*k+w)]
			dst := out[i*w : (i+1)*w]
			for j := range dst {
				v := int64(binary.LittleEndian.Uint64(src[8*j:]))
				if v != int64(int32(v)) {
					v = -1
				}
				dst[j] = int32(v)
			}
		}
		return nil
	}
	for i := range n {
		dst := out[i*w : (i+1)*w]
		for j := range dst {
			v := r.item(i, j)
			if v != int64(int32(v)) {
				v = -1
			}
			dst[j] = int32(v)
		}
	}
	return nil
}

// checkedHits sets the hits of a row and validates its items: each a
// column of the targets, none twice. It returns the index of the first bad
// item, or -1.
func (r *NumPyRankings) checkedHits(items []int32, hits []bool) int {
	base, mark := r.stamps.base, r.stamps.mark
	cols := uint32(r.cols)
	for j, it := range items {
		if uint32(it) >= uint32(len(mark)) {
			// Outside the array: a bad item, or one that the array
			// grows for or keeps aside.
			if uint32(it) >= cols {
				return j
			}
			hit, again := r.stamps.seen(it)
			if again {
				return j
			}
			hits[j] = hit
			mark = r.stamps.mark
			continue
		}
		v := mark[it]
		if v < base {
			mark[it] = base | stampSeen
			continue
		}
		if v&stampSeen != 0 {
			return j
		}
		mark[it] = v | stampSeen
		hits[j] = v&stampTarget != 0
	}
	return -1
}

// hits sets the hits of a row without validating it: an item outside the
// targets' columns is never a hit.
func (r *NumPyRankings) hits(items []int32, hits []bool) {
	cols := uint32(r.cols)
	for j, it := range items {
		if uint32(it) < cols {
			hits[j] = r.stamps.isTarget(it)
		}
	}
}

// int32sInPlace returns raw, little-endian int32 values, as []int32
// without a copy, when the machine is little-endian and raw is aligned for
// int32 (as a .npy file's data and its batches of whole rows are). It is
// why checkedHits and hits need no copy for bytes: on 4096 rows of 100
// items, checkedHits on items in place took 0.6 to 0.9 times the time of a
// copy that decoded each item from the bytes, and half that of decoding
// the batch first.
func int32sInPlace(raw []byte) ([]int32, bool) {
	p := unsafe.Pointer(unsafe.SliceData(raw))
	if len(raw) == 0 || !littleEndian || uintptr(p)%unsafe.Alignof(int32(0)) != 0 {
		return nil, false
	}
	return unsafe.Slice((*int32)(p), len(raw)/4), true
}

// littleEndian reports whether the machine stores integers little-endian,
// as NumPy's '<i4' stores them.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// badItem reports the item at rank j+1 of batch row i, which is outside
// the targets' columns or there twice.
func (r *NumPyRankings) badItem(i, j int) error {
	loc := r.at(r.items.At.Path, i)
	first := -1
	for k := range j {
		if r.item(i, k) == r.item(i, j) {
			first = k
			break
		}
	}
	if first < 0 {
		return loc.Errorf(ErrBadInput, "item %s at rank %d is outside the targets' %d columns", r.itemText(i, j), j+1, r.cols)
	}
	return loc.Errorf(ErrBadInput, "item %s appears twice, at rank %d and rank %d", r.itemText(i, j), first+1, j+1)
}

// item is the item at rank j+1 of batch row i, as int64; unsigned ones
// above its range become -1.
func (r *NumPyRankings) item(i, j int) int64 {
	t := r.items.Type
	k := i*r.k + j
	if t.Kind == 'u' && t.Uint(r.itemRaw, k) > math.MaxInt64 {
		return -1
	}
	return t.Int(r.itemRaw, k)
}

// checkScores validates the scores of batch row i, the first Width of
// them: finite, and in descending order.
func (r *NumPyRankings) checkScores(i int) error {
	t := r.scores.Type
	raw := r.scoreRaw[i*r.k*t.Size:]
	w := r.width
	if t.Order == binary.LittleEndian && t.Size == 4 {
		// The common case, on the raw bytes: an exponent of all ones is
		// NaN or ±Inf.
		prev := float32(math.Inf(1))
		for j := range w {
			bits := binary.LittleEndian.Uint32(raw[4*j:])
			s := math.Float32frombits(bits)
			if bits&0x7f800000 == 0x7f800000 || s > prev {
				return r.badScore(i, j)
			}
			prev = s
		}
		return nil
	}
	prev := math.Inf(1)
	for j := range w {
		s := r.score(i, j)
		if math.IsNaN(s) || math.IsInf(s, 0) || s > prev {
			return r.badScore(i, j)
		}
		prev = s
	}
	return nil
}

// score is the score at rank j+1 of batch row i.
func (r *NumPyRankings) score(i, j int) float64 {
	t := r.scores.Type
	k := i*r.k + j
	if t.Size == 4 {
		return float64(math.Float32frombits(t.Order.Uint32(r.scoreRaw[4*k:])))
	}
	return math.Float64frombits(t.Order.Uint64(r.scoreRaw[8*k:]))
}

// badScore reports the score at rank j+1 of batch row i, which is not
// finite or greater than the one before.
func (r *NumPyRankings) badScore(i, j int) error {
	loc := r.at(r.scores.At.Path, i)
	s := r.score(i, j)
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return loc.Errorf(ErrBadInput, "the score at rank %d is %v; scores must be finite", j+1, s)
	}
	return loc.Errorf(ErrBadInput, "the scores are not in descending order: rank %d has %s, rank %d has %s",
		j, r.scoreText(r.score(i, j-1)), j+1, r.scoreText(s))
}

func (r *NumPyRankings) scoreText(s float64) string {
	return strconv.FormatFloat(s, 'g', -1, 8*r.scores.Type.Size)
}

// at locates batch row i in the file at path.
func (r *NumPyRankings) at(path string, i int) input.Location {
	return rowAt(path, r.row+int64(i), r.b.SampleIDs[i])
}

// csrReader reads the targets, a batch of rows at a time: the sample IDs
// and the CSR arrays. For each row it keeps the distinct relevant columns
// (stored values that are not zero) in ascending order, and it adds them to
// the fingerprint.
type csrReader struct {
	path      string
	batchSize int
	ids       *input.NPY // nil without sample IDs
	indptr    *input.NPY
	indices   *input.NPY
	data      *input.NPY
	n         int64 // rows
	cols      int64 // columns
	nnz       int64 // stored values
	row       int64 // rows read so far
	idText    input.IDs

	ptrBuf []int64 // indptr of the batch's rows and the one after; starts as [0]
	colBuf []int64
	nzBuf  []bool

	mu sync.Mutex // guards fp
	fp *fingerprint.Set
}

// targetRows is a batch of rows' targets: row i has sample ID ids[i] and the
// distinct relevant columns cols[ends[i-1]:ends[i]].
type targetRows struct {
	ids  []string
	ends []int
	cols []int32
	// err ends the stream after these rows: a problem with the next row,
	// or io.EOF after the last.
	err error
}

// run sends batches of targets on out, taking empty ones from free, until
// the end of the input, a problem, or stop; then it closes out.
func (t *csrReader) run(free <-chan *targetRows, out chan<- *targetRows, stop <-chan struct{}) {
	defer close(out)
	for {
		var tr *targetRows
		select {
		case tr = <-free:
		case <-stop:
			return
		}
		t.fill(tr)
		select {
		case out <- tr:
		case <-stop:
			return
		}
		if tr.err != nil {
			return
		}
	}
}

// fill reads the next batch of targets into tr.
func (t *csrReader) fill(tr *targetRows) {
	tr.ids, tr.ends, tr.cols, tr.err = tr.ids[:0], tr.ends[:0], tr.cols[:0], nil
	if t.row == t.n {
		tr.err = t.finish()
		return
	}
	n := int(min(t.n-t.row, int64(t.batchSize)))
	if tr.err = t.readIDs(tr, n); tr.err != nil {
		return
	}
	n, rowErr := t.readCSR(tr, n)
	if n == 0 && rowErr != nil {
		tr.ids, tr.err = tr.ids[:0], rowErr
		return
	}
	defer func() {
		if tr.err == nil {
			tr.err = rowErr
		}
	}()
	t.mu.Lock()
	defer t.mu.Unlock()
	ptr0 := t.ptrBuf[0]
	for i := range n {
		// The row's relevant columns, distinct and sorted: scipy keeps
		// them sorted unless it was told otherwise, so sorting is rare.
		start := len(tr.cols)
		sorted := true
		for j := t.ptrBuf[i] - ptr0; j < t.ptrBuf[i+1]-ptr0; j++ {
			c := t.colBuf[j]
			if c < 0 || c >= t.cols {
				id := tr.ids[i]
				tr.ids, tr.cols = tr.ids[:i], tr.cols[:start]
				tr.err = rowAt(t.path, t.row+int64(i), id).Errorf(ErrBadInput, "column %d is outside the matrix's %d columns", c, t.cols)
				return
			}
			if t.nzBuf[j] {
				if len(tr.cols) > start && int32(c) <= tr.cols[len(tr.cols)-1] {
					sorted = false
				}
				tr.cols = append(tr.cols, int32(c))
			}
		}
		if !sorted {
			slices.Sort(tr.cols[start:])
			tr.cols = tr.cols[:start+len(slices.Compact(tr.cols[start:]))]
		}
		tr.ends = append(tr.ends, len(tr.cols))
		if len(tr.cols) > start {
			t.fp.AddTargetIndices(tr.ids[i], tr.cols[start:])
		}
	}
	t.row += int64(n)
	t.ptrBuf = append(t.ptrBuf[:0], t.ptrBuf[n])
}

// finish checks the ends of the arrays after the last row, and returns
// io.EOF when they are right.
func (t *csrReader) finish() error {
	if p := t.ptrBuf[0]; p != t.nnz {
		return t.indptr.Errorf("ends at %d, but the matrix stores %d values", p, t.nnz)
	}
	for _, a := range []*input.NPY{t.ids, t.indptr, t.indices, t.data} {
		if a != nil {
			if err := a.Finish(); err != nil {
				return err
			}
		}
	}
	return io.EOF
}

// readIDs reads the sample IDs of the next n rows.
func (t *csrReader) readIDs(tr *targetRows, n int) error {
	if t.ids == nil {
		for i := range int64(n) {
			tr.ids = append(tr.ids, strconv.FormatInt(t.row+i, 10))
		}
		return nil
	}
	raw, err := t.ids.Next(n)
	if err != nil {
		return err
	}
	first := len(tr.ids)
	tr.ids = t.ids.Type.AppendIDs(tr.ids, raw, &t.idText)
	for i, id := range tr.ids[first:] {
		if problem := input.IDProblem("sample ID", id); problem != "" {
			tr.ids = tr.ids[:first]
			return rowAt(t.ids.At.Path, t.row+int64(i), id).Errorf(ErrBadInput, "%s", problem)
		}
	}
	return nil
}

// readCSR reads the CSR arrays of the next n rows: n row pointers, and the
// column indices and values between the first and the last. When a pointer
// is wrong it reads the rows before it, and returns how many and the
// problem.
func (t *csrReader) readCSR(tr *targetRows, n int) (good int, problem error) {
	raw, err := t.indptr.Next(n)
	if err != nil {
		return 0, err
	}
	a := t.indptr.Type
	for i := range n {
		p := a.Int(raw, i)
		if a.Kind == 'u' && p < 0 {
			p = math.MaxInt64
		}
		if prev := t.ptrBuf[i]; p < prev || p > t.nnz {
			what := fmt.Sprintf("decreases from %d to %d", prev, p)
			if p >= prev {
				what = fmt.Sprintf("points to %d, past the %d stored values", p, t.nnz)
			}
			problem = rowAt(t.path, t.row+int64(i), tr.ids[i]).Errorf(ErrBadInput, "array %q %s", "indptr", what)
			n = i
			tr.ids = tr.ids[:n]
			break
		}
		t.ptrBuf = append(t.ptrBuf, p)
	}
	m := int(t.ptrBuf[n] - t.ptrBuf[0])
	if raw, err = t.indices.Next(m); err != nil {
		return 0, err
	}
	t.colBuf = t.colBuf[:0]
	a = t.indices.Type
	if a.Size == 4 && a.Kind == 'i' && a.Order == binary.LittleEndian {
		for j := range m {
			t.colBuf = append(t.colBuf, int64(int32(binary.LittleEndian.Uint32(raw[4*j:]))))
		}
	} else {
		for j := range m {
			c := a.Int(raw, j)
			if a.Kind == 'u' && c < 0 {
				c = math.MaxInt64
			}
			t.colBuf = append(t.colBuf, c)
		}
	}
	if raw, err = t.data.Next(m); err != nil {
		return 0, err
	}
	t.nzBuf = t.nzBuf[:0]
	a = t.data.Type
	switch {
	case a.Kind == 'f' && a.Size == 4:
		for j := range m {
			t.nzBuf = append(t.nzBuf, math.Float32frombits(a.Order.Uint32(raw[4*j:])) != 0)
		}
	case a.Kind == 'f':
		for j := range m {
			t.nzBuf = append(t.nzBuf, math.Float64frombits(a.Order.Uint64(raw[8*j:])) != 0)
		}
	default: // integers and booleans: any byte set
		size := a.Size
		for j := range m {
			nz := false
			for _, c := range raw[j*size : (j+1)*size] {
				nz = nz || c != 0
			}
			t.nzBuf = append(t.nzBuf, nz)
		}
	}
	return n, problem
}

// itemText formats the item at rank j+1 of batch row i as stored.
func (r *NumPyRankings) itemText(i, j int) string {
	return r.items.Type.IntText(r.itemRaw, i*r.k+j)
}
