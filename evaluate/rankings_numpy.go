package evaluate

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/verdict-ml/verdict/fingerprint"
)

// NumPyRankings reads rankings saved with NumPy and SciPy by a Python
// training job:
//
//   - items: a .npy file of n×K integers in C order, each row a sample's
//     top K item indices, best first;
//   - scores (optional): a .npy file of n×K floats, the items' scores, only
//     used to validate the rankings: finite, and in descending order along
//     each row (ties are fine);
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
// per target column for matching.
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
	validate bool
	files    []*os.File
	closers  []io.Closer
	size     int64
	read     atomic.Int64

	items  *npyStream
	scores *npyStream // nil without scores, or when not validating
	tg     *csrReader

	n     int64 // rows
	k     int   // predictions per row
	width int
	cols  int64 // the targets' columns
	row   int64 // rows filled so far

	itemBuf []int32 // the first Width items of each row, unless raw32
	raw32   bool    // the items are little-endian int32, read as stored
	stamps  itemStamps

	stop   chan struct{}
	tch    chan *targetRows // from the targets goroutine
	tfree  chan *targetRows // back to it
	ahead  *ahead
	b      *Batch // the batch being filled
	closed bool
}

// maxBatchValues bounds the predictions of a batch when
// RankingOptions.BatchSize is not set.
const maxBatchValues = defaultRankingBatch * 1024

// maxColumnText is the number of column indices whose decimal text is kept
// for the fingerprint; the text of larger ones is made each time.
const maxColumnText = 1 << 20

// OpenNumPyRankings opens the NumPy rankings: items and targets are
// required, scores and sampleIDs may be empty. It reads every header and the
// targets' format and shape, and checks that the arrays agree in shape.
//
// It returns an error wrapping ErrBadInput when a file is not what it should
// be (not a .npy array, a dtype or shape that does not fit, row counts that
// differ, targets that are not a CSR matrix), and the *os.PathError of
// os.Open when a file cannot be opened.
func OpenNumPyRankings(items, scores, targets, sampleIDs string, opts RankingOptions) (_ *NumPyRankings, err error) {
	r := &NumPyRankings{
		validate: !opts.SkipValidation,
		tg:       &csrReader{path: targets, batchSize: opts.batchSize(), fp: fingerprint.NewTargets()},
	}
	defer func() {
		if err != nil {
			r.Close()
		}
	}()

	if r.items, err = r.openNpy(items); err != nil {
		return nil, err
	}
	a := r.items.arr
	whole := at{path: items}
	if len(a.shape) != 2 {
		return nil, whole.errorf("has shape %s; the predictions must be a 2-D array, one row of item indices per sample", a.shapeText())
	}
	if a.typ.kind != 'i' && a.typ.kind != 'u' {
		return nil, whole.errorf("has dtype %s; item indices must be integers", a.dtypeName())
	}
	if a.fortran {
		return nil, whole.errorf("is in Fortran order; save np.ascontiguousarray(items) instead")
	}
	if err := r.items.checkData(); err != nil {
		return nil, err
	}
	r.n, r.k = a.shape[0], int(a.shape[1])
	r.raw32 = a.typ.kind == 'i' && a.typ.size == 4 && a.typ.order == binary.LittleEndian
	r.width = opts.width(r.k)
	if opts.BatchSize == 0 && r.k > 0 {
		// Very wide rows come in fewer per batch, to keep batches to a
		// few megabytes.
		r.tg.batchSize = max(1, min(defaultRankingBatch, maxBatchValues/r.k))
	}

	if scores != "" {
		s, err := r.openNpy(scores)
		if err != nil {
			return nil, err
		}
		b := s.arr
		switch {
		case len(b.shape) != 2 || b.shape[0] != r.n || b.shape[1] != int64(r.k):
			return nil, at{path: scores}.errorf("has shape %s, but %s has shape %s", b.shapeText(), items, a.shapeText())
		case b.typ.kind != 'f':
			return nil, at{path: scores}.errorf("has dtype %s; scores must be floats", b.dtypeName())
		case b.fortran:
			return nil, at{path: scores}.errorf("is in Fortran order; save np.ascontiguousarray(scores) instead")
		}
		if err := s.checkData(); err != nil {
			return nil, err
		}
		if r.validate {
			r.scores = s
		} else {
			// Scores only serve validation: leave them unread.
			r.size -= s.size
		}
	}

	if sampleIDs != "" {
		if r.tg.ids, err = r.openNpy(sampleIDs); err != nil {
			return nil, err
		}
		b := r.tg.ids.arr
		switch {
		case len(b.shape) != 1:
			return nil, at{path: sampleIDs}.errorf("has shape %s; sample IDs must be a 1-D array", b.shapeText())
		case b.typ.kind == 0 && (b.dtype == "" || strings.HasSuffix(b.dtype, "O")):
			return nil, at{path: sampleIDs}.errorf("%s", b.descr)
		case b.typ.kind == 0 || b.typ.kind == 'f':
			return nil, at{path: sampleIDs}.errorf("has dtype %s; sample IDs must be integers or strings", b.dtypeName())
		case b.shape[0] != r.n:
			return nil, at{path: sampleIDs}.errorf("has %d sample IDs, but %s has %d rows", b.shape[0], items, r.n)
		}
		if err := r.tg.ids.checkData(); err != nil {
			return nil, err
		}
	}

	if err := r.openTargets(targets, items); err != nil {
		return nil, err
	}
	r.cols = r.tg.cols
	r.stamps.grow(int(r.cols))
	r.tg.n = r.n
	r.tg.texts = make([]string, min(r.tg.cols, maxColumnText))
	return r, nil
}

// npyStream is an array read in order, a batch of elements at a time.
type npyStream struct {
	arr   *npyArray
	loc   at    // the file, and the member of an .npz archive
	size  int64 // bytes on disk, for Progress
	avail int64 // bytes of data after the header
	buf   []byte
	count int64 // elements in the array
	done  int64 // elements read so far
}

// openNpy opens a .npy file and reads its header.
func (r *NumPyRankings) openNpy(path string) (*npyStream, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r.files = append(r.files, f)
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if info.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a .npy file", path)
	}
	r.size += info.Size()
	s := &npyStream{
		arr:  &npyArray{name: path, rc: io.NopCloser(countingReader{f, &r.read})},
		loc:  at{path: path},
		size: info.Size(),
	}
	if err := s.arr.readHeader(s.loc); err != nil {
		return nil, err
	}
	s.count = s.arr.elements()
	off, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, err
	}
	s.avail = info.Size() - off
	return s, nil
}

// checkData checks, before any buffer is sized by the array's shape, that
// the file or member holds the data the shape claims.
func (s *npyStream) checkData() error {
	size := int64(s.arr.typ.size)
	if s.count < 0 {
		return s.loc.errorf("has shape %s, too large to be real; the header is corrupt", s.arr.shapeText())
	}
	if s.count > s.avail/size {
		return s.loc.errorf("is truncated: it holds %d bytes of data, less than the %d of its shape %s",
			s.avail, s.count*size, s.arr.shapeText())
	}
	return nil
}

// elements is the number of elements that the array's shape holds, or -1
// when that overflows an int64.
func (a *npyArray) elements() int64 {
	n := int64(1)
	for _, d := range a.shape {
		if d != 0 && n > math.MaxInt64/d {
			return -1
		}
		n *= d
	}
	return n
}

// dtypeName names the array's dtype for a message.
func (a *npyArray) dtypeName() string {
	switch {
	case a.typ.kind != 0:
		return a.typ.String()
	case a.dtype == "|b1":
		return "bool"
	case a.dtype != "":
		return a.dtype
	}
	return "of records (a structured array)"
}

// openTargets opens a scipy.sparse .npz file, checks that it holds a CSR
// matrix of as many rows as the predictions, and reads the start of indptr.
func (r *NumPyRankings) openTargets(path, items string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	r.files = append(r.files, f)
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.IsDir() {
		return fmt.Errorf("%s: is a directory, not an .npz file", path)
	}
	r.size += info.Size()
	t := r.tg
	whole := at{path: path}
	zr, err := zip.NewReader(countingReaderAt{f, &r.read}, info.Size())
	if err != nil {
		return &inputError{msg: fmt.Sprintf("%s: not an .npz file of scipy.sparse.save_npz: %v", path, err), cause: err}
	}
	members := map[string]*zip.File{}
	for _, m := range zr.File {
		members[m.Name] = m
	}
	open := func(name string) (*npyStream, error) {
		m := members[name+".npy"]
		if m == nil {
			return nil, whole.errorf("has no array %q; save the targets with scipy.sparse.save_npz", name)
		}
		rc, err := m.Open()
		loc := at{path: path, kind: "array", name: name}
		if err != nil {
			return nil, zipError(loc, err)
		}
		r.closers = append(r.closers, rc)
		header := &countingReader{rc, new(atomic.Int64)}
		s := &npyStream{arr: &npyArray{name: name, rc: io.NopCloser(header)}, loc: loc}
		if err := s.arr.readHeader(loc); err != nil {
			return nil, err
		}
		s.arr.rc = rc
		s.count = s.arr.elements()
		s.avail = int64(min(m.UncompressedSize64, math.MaxInt64)) - header.n.Load()
		return s, nil
	}

	format, err := open("format")
	if err != nil {
		return err
	}
	if k := format.arr.typ.kind; (k != 'U' && k != 'S') || format.count != 1 {
		return format.loc.errorf("has dtype %s and shape %s; scipy.sparse.save_npz writes one string", format.arr.dtypeName(), format.arr.shapeText())
	}
	raw, err := format.next(1)
	if err != nil {
		return err
	}
	if name := string(format.arr.text(nil, raw, 0)); name != "csr" {
		return whole.errorf("holds a sparse matrix in %s format; only CSR is supported, so save targets.tocsr()", name)
	}

	shape, err := open("shape")
	if err != nil {
		return err
	}
	if k := shape.arr.typ.kind; (k != 'i' && k != 'u') || shape.count != 2 {
		return shape.loc.errorf("has dtype %s and shape %s; it must hold the matrix's two dimensions", shape.arr.dtypeName(), shape.arr.shapeText())
	}
	if raw, err = shape.next(2); err != nil {
		return err
	}
	rows, cols := shape.arr.signed(raw, 0), shape.arr.signed(raw, 1)
	switch {
	case rows < 0 || cols < 0:
		return shape.loc.errorf("holds the negative dimensions (%d, %d)", rows, cols)
	case cols > math.MaxInt32:
		return whole.errorf("has %d columns; at most %d are supported", cols, math.MaxInt32)
	case rows != r.n:
		return whole.errorf("has %d rows, but %s has %d", rows, items, r.n)
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
	for _, s := range []*npyStream{t.indptr, t.indices} {
		if k := s.arr.typ.kind; (k != 'i' && k != 'u') || len(s.arr.shape) != 1 {
			return s.loc.errorf("has dtype %s and shape %s; it must be a 1-D array of integers", s.arr.dtypeName(), s.arr.shapeText())
		}
	}
	if len(t.data.arr.shape) != 1 || (t.data.arr.typ.kind == 0 && t.data.arr.dtype != "|b1") || t.data.arr.typ.kind == 'U' || t.data.arr.typ.kind == 'S' {
		return t.data.loc.errorf("has dtype %s and shape %s; it must be a 1-D array of numbers or booleans", t.data.arr.dtypeName(), t.data.arr.shapeText())
	}
	if t.data.arr.typ.kind == 0 {
		t.data.arr.typ = npyType{order: binary.LittleEndian, kind: 'b', size: 1}
	}
	if t.indptr.count != r.n+1 {
		return t.indptr.loc.errorf("has %d values; a matrix of %d rows needs %d", t.indptr.count, r.n, r.n+1)
	}
	if t.indices.count != t.data.count {
		return whole.errorf("arrays %q and %q differ in length: %d and %d", "indices", "data", t.indices.count, t.data.count)
	}
	for _, s := range []*npyStream{t.indptr, t.indices, t.data} {
		if err := s.checkData(); err != nil {
			return err
		}
	}
	t.nnz = t.indices.count
	if raw, err = t.indptr.next(1); err != nil {
		return err
	}
	if p := t.indptr.arr.signed(raw, 0); p != 0 {
		return t.indptr.loc.errorf("starts at %d instead of 0", p)
	}
	t.ptrBuf = append(t.ptrBuf, 0)
	return nil
}

// next reads the next n elements of the array and returns their bytes,
// valid until the following call.
func (s *npyStream) next(n int) ([]byte, error) {
	size := n * s.arr.typ.size
	if cap(s.buf) < size {
		s.buf = make([]byte, size)
	}
	buf := s.buf[:size]
	if left := s.count - s.done; int64(n) > left {
		panic("evaluate: reading past the end of an array")
	}
	got, err := io.ReadFull(s.arr.rc, buf)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, s.loc.errorf("the file is truncated: it ends after %d of the array's %d values", s.done+int64(got/s.arr.typ.size), s.count)
		}
		return nil, zipError(s.loc, err)
	}
	s.done += int64(n)
	return buf, nil
}

// finish checks that the array's data ends where its shape says, which also
// makes the zip reader verify a member's checksum.
func (s *npyStream) finish() error {
	var one [1]byte
	n, err := io.ReadFull(s.arr.rc, one[:])
	switch {
	case n > 0:
		return s.loc.errorf("holds more data than its shape %s says", s.arr.shapeText())
	case err != io.EOF:
		return zipError(s.loc, err)
	}
	return nil
}

// Width is the number of rank positions of each row's hits: K, or the
// requested width when that is smaller.
func (r *NumPyRankings) Width() int { return r.width }

// K is the number of predictions per row in the items array.
func (r *NumPyRankings) K() int { return r.k }

// Rows is the number of rows, as the arrays' shapes say.
func (r *NumPyRankings) Rows() int64 { return r.n }

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

// Progress reports the bytes read from the files and their total size;
// compressed targets count as their compressed size.
func (r *NumPyRankings) Progress() (done, total int64) {
	return min(r.read.Load(), r.size), r.size
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
	for _, c := range r.closers {
		errs = append(errs, c.Close())
	}
	for _, f := range r.files {
		errs = append(errs, f.Close())
	}
	r.closers, r.files = nil, nil
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
	start := 0
	for i := range n {
		r.stamps.newRow()
		for _, c := range tr.cols[start:tr.ends[i]] {
			r.stamps.addTarget(c) // distinct already
		}
		R := int32(tr.ends[i] - start)
		start = tr.ends[i]
		b.Relevant[i] = R

		hits := b.Hits[i*w : (i+1)*w]
		bad := -1
		switch {
		case r.raw32 && r.validate:
			bad = r.checkedHits32(r.items.buf[4*i*r.k:4*(i*r.k+w)], hits)
		case r.validate:
			bad = r.checkedHits(r.itemBuf[i*w:(i+1)*w], hits)
		case R == 0: // no hits
		case r.raw32:
			r.hits32(r.items.buf[4*i*r.k:4*(i*r.k+w)], hits)
		default:
			r.hits(r.itemBuf[i*w:(i+1)*w], hits)
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
		for _, s := range []*npyStream{r.items, r.scores} {
			if s != nil {
				if err := s.finish(); err != nil {
					return err
				}
			}
		}
		r.read.Store(r.size)
		return io.EOF
	case tr.err != nil:
		return tr.err
	}
	return nil
}

// readPredictions reads the items, and the scores when they are validated,
// of the next n rows.
func (r *NumPyRankings) readPredictions(n int) error {
	raw, err := r.items.next(n * r.k)
	if err != nil {
		return err
	}
	if r.scores != nil {
		if _, err := r.scores.next(n * r.k); err != nil {
			return err
		}
	}
	if r.raw32 {
		return nil
	}
	// Decode the first Width items of each row to int32. An index that
	// does not fit becomes -1, which no matrix has as a column; item
	// recovers it for a message.
	k, w := r.k, r.width
	if cap(r.itemBuf) < n*w {
		r.itemBuf = make([]int32, n*w)
	}
	out := r.itemBuf[:n*w]
	a := r.items.arr
	if a.typ.kind == 'i' && a.typ.size == 8 && a.typ.order == binary.LittleEndian {
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
		if uint32(it) >= cols {
			return j
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

// checkedHits32 is checkedHits on little-endian int32 items as stored, the
// common case, which it spares a decoding pass.
func (r *NumPyRankings) checkedHits32(raw []byte, hits []bool) int {
	base, mark := r.stamps.base, r.stamps.mark
	cols := uint32(r.cols)
	for j := range hits {
		it := binary.LittleEndian.Uint32(raw[4*j:])
		if it >= cols {
			return j
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

// hits32 is hits on little-endian int32 items as stored.
func (r *NumPyRankings) hits32(raw []byte, hits []bool) {
	cols := uint32(r.cols)
	for j := range hits {
		if it := binary.LittleEndian.Uint32(raw[4*j:]); it < cols {
			hits[j] = r.stamps.isTarget(int32(it))
		}
	}
}

// badItem reports the item at rank j+1 of batch row i, which is outside
// the targets' columns or there twice.
func (r *NumPyRankings) badItem(i, j int) error {
	loc := r.at(r.items.loc.path, i)
	first := -1
	for k := range j {
		if r.item(i, k) == r.item(i, j) {
			first = k
			break
		}
	}
	if first < 0 {
		return loc.errorf("item %s at rank %d is outside the targets' %d columns", r.itemText(i, j), j+1, r.cols)
	}
	return loc.errorf("item %s appears twice, at rank %d and rank %d", r.itemText(i, j), first+1, j+1)
}

// item is the item at rank j+1 of batch row i, as int64; unsigned ones
// above its range become -1.
func (r *NumPyRankings) item(i, j int) int64 {
	a := r.items.arr
	k := i*r.k + j
	if a.typ.kind == 'u' {
		u := a.unsigned(r.items.buf, k)
		if u > math.MaxInt64 {
			return -1
		}
		return int64(u)
	}
	return a.signed(r.items.buf, k)
}

// checkScores validates the scores of batch row i, the first Width of
// them: finite, and in descending order.
func (r *NumPyRankings) checkScores(i int) error {
	a := r.scores.arr
	raw := r.scores.buf[i*r.k*a.typ.size:]
	w := r.width
	if a.typ.order == binary.LittleEndian && a.typ.size == 4 {
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
	a := r.scores.arr
	k := i*r.k + j
	if a.typ.size == 4 {
		return float64(math.Float32frombits(a.typ.order.Uint32(r.scores.buf[4*k:])))
	}
	return math.Float64frombits(a.typ.order.Uint64(r.scores.buf[8*k:]))
}

// badScore reports the score at rank j+1 of batch row i, which is not
// finite or greater than the one before.
func (r *NumPyRankings) badScore(i, j int) error {
	loc := r.at(r.scores.loc.path, i)
	s := r.score(i, j)
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return loc.errorf("the score at rank %d is %v; scores must be finite", j+1, s)
	}
	return loc.errorf("the scores are not in descending order: rank %d has %s, rank %d has %s",
		j, r.scoreText(r.score(i, j-1)), j+1, r.scoreText(s))
}

func (r *NumPyRankings) scoreText(s float64) string {
	return strconv.FormatFloat(s, 'g', -1, 8*r.scores.arr.typ.size)
}

// at locates batch row i in the file at path.
func (r *NumPyRankings) at(path string, i int) rowAt {
	return rowAt{path: path, row: r.row + int64(i), id: r.b.SampleIDs[i], hasID: true}
}

// csrReader reads the targets, a batch of rows at a time: the sample IDs
// and the CSR arrays. For each row it keeps the distinct relevant columns
// (stored values that are not zero) in ascending order, and it adds them to
// the fingerprint.
type csrReader struct {
	path      string
	batchSize int
	ids       *npyStream // nil without sample IDs
	indptr    *npyStream
	indices   *npyStream
	data      *npyStream
	n         int64 // rows
	cols      int64 // columns
	nnz       int64 // stored values
	row       int64 // rows read so far
	lastID    string

	ptrBuf []int64 // indptr of the batch's rows and the one after; starts as [0]
	colBuf []int64
	nzBuf  []bool

	texts []string // decimal text of columns, filled on first use
	found []string // a row's relevant columns as text

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
				tr.err = rowAt{path: t.path, row: t.row + int64(i), id: id, hasID: true}.
					errorf("column %d is outside the matrix's %d columns", c, t.cols)
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
			found := t.found[:0]
			for _, c := range tr.cols[start:] {
				found = append(found, t.columnText(c))
			}
			t.fp.AddTargets([]byte(tr.ids[i]), found)
			t.found = found
		}
	}
	t.row += int64(n)
	t.ptrBuf = append(t.ptrBuf[:0], t.ptrBuf[n])
}

// finish checks the ends of the arrays after the last row, and returns
// io.EOF when they are right.
func (t *csrReader) finish() error {
	if p := t.ptrBuf[0]; p != t.nnz {
		return t.indptr.loc.errorf("ends at %d, but the matrix stores %d values", p, t.nnz)
	}
	for _, s := range []*npyStream{t.ids, t.indptr, t.indices, t.data} {
		if s != nil {
			if err := s.finish(); err != nil {
				return err
			}
		}
	}
	return io.EOF
}

// columnText is the decimal text of a column, the item's ID in the
// fingerprint.
func (t *csrReader) columnText(c int32) string {
	if int(c) >= len(t.texts) {
		return strconv.Itoa(int(c))
	}
	s := t.texts[c]
	if s == "" {
		s = strconv.Itoa(int(c))
		t.texts[c] = s
	}
	return s
}

// readIDs reads the sample IDs of the next n rows.
func (t *csrReader) readIDs(tr *targetRows, n int) error {
	if t.ids == nil {
		for i := range int64(n) {
			tr.ids = append(tr.ids, strconv.FormatInt(t.row+i, 10))
		}
		return nil
	}
	raw, err := t.ids.next(n)
	if err != nil {
		return err
	}
	t.lastID = t.ids.arr.decodeIDs(raw, t.lastID)
	tr.ids = append(tr.ids, t.ids.arr.s...)
	return nil
}

// readCSR reads the CSR arrays of the next n rows: n row pointers, and the
// column indices and values between the first and the last. When a pointer
// is wrong it reads the rows before it, and returns how many and the
// problem.
func (t *csrReader) readCSR(tr *targetRows, n int) (good int, problem error) {
	raw, err := t.indptr.next(n)
	if err != nil {
		return 0, err
	}
	a := t.indptr.arr
	for i := range n {
		p := a.signed(raw, i)
		if a.typ.kind == 'u' && p < 0 {
			p = math.MaxInt64
		}
		if prev := t.ptrBuf[i]; p < prev || p > t.nnz {
			what := fmt.Sprintf("decreases from %d to %d", prev, p)
			if p >= prev {
				what = fmt.Sprintf("points to %d, past the %d stored values", p, t.nnz)
			}
			problem = rowAt{path: t.path, row: t.row + int64(i), id: tr.ids[i], hasID: true}.errorf("array %q %s", "indptr", what)
			n = i
			tr.ids = tr.ids[:n]
			break
		}
		t.ptrBuf = append(t.ptrBuf, p)
	}
	m := int(t.ptrBuf[n] - t.ptrBuf[0])
	if raw, err = t.indices.next(m); err != nil {
		return 0, err
	}
	t.colBuf = t.colBuf[:0]
	a = t.indices.arr
	if a.typ.size == 4 && a.typ.kind == 'i' && a.typ.order == binary.LittleEndian {
		for j := range m {
			t.colBuf = append(t.colBuf, int64(int32(binary.LittleEndian.Uint32(raw[4*j:]))))
		}
	} else {
		for j := range m {
			c := a.signed(raw, j)
			if a.typ.kind == 'u' && c < 0 {
				c = math.MaxInt64
			}
			t.colBuf = append(t.colBuf, c)
		}
	}
	if raw, err = t.data.next(m); err != nil {
		return 0, err
	}
	t.nzBuf = t.nzBuf[:0]
	a = t.data.arr
	switch {
	case a.typ.kind == 'f' && a.typ.size == 4:
		for j := range m {
			t.nzBuf = append(t.nzBuf, math.Float32frombits(a.typ.order.Uint32(raw[4*j:])) != 0)
		}
	case a.typ.kind == 'f':
		for j := range m {
			t.nzBuf = append(t.nzBuf, math.Float64frombits(a.typ.order.Uint64(raw[8*j:])) != 0)
		}
	default: // integers and booleans: any byte set
		size := a.typ.size
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
	a := r.items.arr
	k := i*r.k + j
	if a.typ.kind == 'u' {
		return strconv.FormatUint(a.unsigned(r.items.buf, k), 10)
	}
	return strconv.FormatInt(a.signed(r.items.buf, k), 10)
}
