package evaluate

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// npzBatch is how many rows the NumPy reader decodes at a time from each
// array.
const npzBatch = 8192

// npzDecoder reads a NumPy .npz file: a zip archive of .npy arrays, as
// np.savez and np.savez_compressed write it. Each member is opened on its
// own (zip.File.Open returns independent readers over the file), and the
// arrays are read in step, a batch of rows at a time, so that no array is
// ever loaded whole.
type npzDecoder struct {
	path   string
	arrays []*npyArray // every member, for close
	id     *npyArray
	draw   *npyArray
	metric *npyArray
	values []*npyArray
	used   []*npyArray
	n      int64 // rows in every array
	row    int64 // rows returned so far
	batch  int
	next   int
	lastID string
	names  interner
}

// npyArray is one member of an .npz file and its current batch.
type npyArray struct {
	name    string
	rc      io.ReadCloser
	descr   string
	typ     npyType
	shape   []int64
	dtype   string // the header's descr as written, such as "<f8"
	fortran bool   // the header's fortran_order
	raw     []byte
	f       []float64
	i       []int64
	s       []string
}

// npyType is a NumPy dtype the reader understands.
type npyType struct {
	order binary.ByteOrder
	kind  byte // 'f' float, 'i' signed, 'u' unsigned, 'U' unicode, 'S' bytes
	size  int  // bytes per element
}

// openNPZ opens every member of an .npz file and reads its .npy header.
func openNPZ(path string, r io.ReaderAt, size int64) (_ *npzDecoder, _ layout, err error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, layout{}, &inputError{msg: fmt.Sprintf("%s: not a NumPy .npz file: %v", path, err), cause: err}
	}
	d := &npzDecoder{path: path, names: interner{}}
	defer func() {
		if err != nil {
			d.close()
		}
	}()
	file := at{path: path, kind: "array"}
	var names []string
	for _, f := range zr.File {
		name, ok := strings.CutSuffix(f.Name, ".npy")
		if !ok {
			return nil, layout{}, file.errorf("member %q is not a .npy array", f.Name)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, layout{}, &inputError{msg: fmt.Sprintf("%s: %v", file.column(name), err), cause: err}
		}
		a := &npyArray{name: name, rc: rc}
		d.arrays = append(d.arrays, a)
		names = append(names, name)
		if err := a.readHeader(file.column(name)); err != nil {
			return nil, layout{}, err
		}
	}
	if len(d.arrays) == 0 {
		return nil, layout{}, file.errorf("the archive holds no arrays")
	}
	cols, problem := findColumns(names, "array")
	if problem != "" {
		if cols.id < 0 {
			problem += `; save the arrays by name, as np.savez(path, sample_id=ids, **metrics)`
		}
		return nil, layout{}, file.errorf("%s", problem)
	}
	use := func(i int, want string) (*npyArray, error) {
		a := d.arrays[i]
		if len(a.shape) != 1 {
			return nil, file.column(a.name).errorf("has shape %s; only 1-D arrays are supported, so save one array per metric", a.shapeText())
		}
		if a.typ.kind == 0 {
			return nil, file.column(a.name).errorf("%s", a.descr)
		}
		ok := false
		switch want {
		case "string":
			ok = a.typ.kind != 'f'
		case "integer":
			ok = a.typ.kind == 'i' || a.typ.kind == 'u'
		case "number":
			ok = a.typ.kind == 'f' || a.typ.kind == 'i' || a.typ.kind == 'u'
		case "text":
			ok = a.typ.kind == 'U' || a.typ.kind == 'S'
		}
		if !ok {
			return nil, file.column(a.name).errorf("has dtype %s; it must be %s", a.typ, map[string]string{
				"string":  "strings or integers",
				"integer": "integers",
				"number":  "floats or integers",
				"text":    "strings",
			}[want])
		}
		a.raw = make([]byte, npzBatch*a.typ.size)
		d.used = append(d.used, a)
		return a, nil
	}
	b, lay, err := bindColumns(cols, names, use)
	if err != nil {
		return nil, layout{}, err
	}
	d.id, d.draw, d.metric, d.values = b.id, b.draw, b.metric, b.values
	d.n = d.id.shape[0]
	for _, a := range d.used {
		if a.shape[0] != d.n {
			return nil, layout{}, file.errorf("arrays differ in length: %q has %d values, %q has %d",
				d.id.name, d.n, a.name, a.shape[0])
		}
	}
	return d, lay, nil
}

func (d *npzDecoder) decode(rec *record) error {
	if d.next >= d.batch {
		if err := d.readBatch(); err != nil {
			return err
		}
	}
	i := d.next
	d.next++
	d.row++
	rec.pos = d.row
	rec.id = d.id.s[i]
	if d.draw != nil {
		if dr := d.draw.i[i]; dr < 0 || dr > maxDraw {
			return at{path: d.path, unit: "row", pos: d.row, kind: "array", name: d.draw.name}.withSample(rec.id).
				errorf("draw %s is not a whole number from 0 to %d", d.draw.intText(i), maxDraw)
		}
		rec.draw = d.draw.i[i]
	}
	if d.metric != nil {
		if d.metric.s[i] == "" {
			return at{path: d.path, unit: "row", pos: d.row, kind: "array", name: d.metric.name}.withSample(rec.id).
				errorf("metric name missing")
		}
		rec.metric = d.metric.s[i]
		rec.value = d.values[0].f[i]
		return nil
	}
	for m, v := range d.values {
		rec.values[m] = v.f[i]
	}
	return nil
}

// readBatch reads the next rows of every array.
func (d *npzDecoder) readBatch() error {
	left := d.n - d.row
	if left == 0 {
		return d.checkEnds()
	}
	n := int(min(left, npzBatch))
	for _, a := range d.used {
		buf := a.raw[:n*a.typ.size]
		got, err := io.ReadFull(a.rc, buf)
		if err != nil {
			loc := at{path: d.path, unit: "row", pos: d.row + int64(got/a.typ.size) + 1, kind: "array", name: a.name}
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return loc.errorf("the array ends after %d of its %d values", d.row+int64(got/a.typ.size), d.n)
			}
			return zipError(loc, err)
		}
		switch a {
		case d.id:
			d.lastID = a.decodeIDs(buf, d.lastID)
		case d.metric:
			a.decodeNames(buf, d.names)
		case d.draw:
			a.decodeInts(buf)
		default:
			a.decodeFloats(buf)
		}
	}
	d.batch, d.next = n, 0
	return nil
}

// checkEnds reads each array to its end, which makes the zip reader verify
// the member's checksum.
func (d *npzDecoder) checkEnds() error {
	var one [1]byte
	for _, a := range d.used {
		n, err := io.ReadFull(a.rc, one[:])
		switch {
		case n > 0:
			return at{path: d.path, kind: "array", name: a.name}.errorf("holds more data than its shape %s says", a.shapeText())
		case err != io.EOF:
			return zipError(at{path: d.path, unit: "row", pos: d.row, kind: "array", name: a.name}, err)
		}
	}
	return io.EOF
}

// zipError reports a failure to read a member of the archive.
func zipError(a at, err error) error {
	if errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrAlgorithm) {
		return &inputError{msg: a.String() + ": " + err.Error(), cause: err}
	}
	return readError(a, err)
}

func (a *npyArray) decodeFloats(buf []byte) {
	n := len(buf) / a.typ.size
	a.f = a.f[:0]
	o := a.typ.order
	switch a.typ.kind {
	case 'f':
		if a.typ.size == 8 {
			for k := range n {
				a.f = append(a.f, math.Float64frombits(o.Uint64(buf[8*k:])))
			}
		} else {
			for k := range n {
				a.f = append(a.f, float64(math.Float32frombits(o.Uint32(buf[4*k:]))))
			}
		}
	case 'i':
		for k := range n {
			a.f = append(a.f, float64(a.signed(buf, k)))
		}
	case 'u':
		for k := range n {
			a.f = append(a.f, float64(a.unsigned(buf, k)))
		}
	}
}

// decodeInts decodes a batch of integers; unsigned ones above the int64
// range become -1, which no caller accepts.
func (a *npyArray) decodeInts(buf []byte) {
	n := len(buf) / a.typ.size
	a.i = a.i[:0]
	for k := range n {
		if a.typ.kind == 'u' {
			u := a.unsigned(buf, k)
			a.i = append(a.i, int64(min(u, math.MaxInt64)))
			if u > math.MaxInt64 {
				a.i[len(a.i)-1] = -1
			}
		} else {
			a.i = append(a.i, a.signed(buf, k))
		}
	}
}

func (a *npyArray) signed(buf []byte, k int) int64 {
	o := a.typ.order
	switch a.typ.size {
	case 1:
		return int64(int8(buf[k]))
	case 2:
		return int64(int16(o.Uint16(buf[2*k:])))
	case 4:
		return int64(int32(o.Uint32(buf[4*k:])))
	}
	return int64(o.Uint64(buf[8*k:]))
}

func (a *npyArray) unsigned(buf []byte, k int) uint64 {
	o := a.typ.order
	switch a.typ.size {
	case 1:
		return uint64(buf[k])
	case 2:
		return uint64(o.Uint16(buf[2*k:]))
	case 4:
		return uint64(o.Uint32(buf[4*k:]))
	}
	return o.Uint64(buf[8*k:])
}

// intText formats a draw of the batch for a message.
func (a *npyArray) intText(i int) string {
	if a.i[i] < 0 && a.typ.kind == 'u' {
		return "above 2^63"
	}
	return strconv.FormatInt(a.i[i], 10)
}

// text appends element k of a string array to dst: UTF-32 code points for
// 'U', bytes for 'S', without NumPy's trailing NUL padding.
func (a *npyArray) text(dst, buf []byte, k int) []byte {
	item := buf[k*a.typ.size : (k+1)*a.typ.size]
	if a.typ.kind == 'S' {
		return append(dst, bytes.TrimRight(item, "\x00")...)
	}
	end := len(item)
	for end >= 4 && a.typ.order.Uint32(item[end-4:end]) == 0 {
		end -= 4
	}
	for j := 0; j < end; j += 4 {
		dst = utf8.AppendRune(dst, rune(a.typ.order.Uint32(item[j:])))
	}
	return dst
}

// decodeIDs decodes a batch of sample IDs: strings as they are, integers as
// decimal text. A run of equal IDs shares one string.
func (a *npyArray) decodeIDs(buf []byte, last string) string {
	n := len(buf) / a.typ.size
	a.s = a.s[:0]
	var scratch []byte
	for k := range n {
		scratch = scratch[:0]
		switch a.typ.kind {
		case 'i':
			scratch = strconv.AppendInt(scratch, a.signed(buf, k), 10)
		case 'u':
			scratch = strconv.AppendUint(scratch, a.unsigned(buf, k), 10)
		default:
			scratch = a.text(scratch, buf, k)
		}
		if string(scratch) != last || len(scratch) == 0 {
			last = string(scratch)
		}
		a.s = append(a.s, last)
	}
	return last
}

// decodeNames decodes a batch of metric names, one string per name.
func (a *npyArray) decodeNames(buf []byte, names interner) {
	n := len(buf) / a.typ.size
	a.s = a.s[:0]
	var scratch []byte
	for k := range n {
		scratch = a.text(scratch[:0], buf, k)
		a.s = append(a.s, names.intern(scratch))
	}
}

func (a *npyArray) shapeText() string {
	parts := make([]string, len(a.shape))
	for i, n := range a.shape {
		parts[i] = strconv.FormatInt(n, 10)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// String names a dtype as NumPy does, for messages.
func (t npyType) String() string {
	switch t.kind {
	case 'f':
		return "float" + strconv.Itoa(8*t.size)
	case 'i':
		return "int" + strconv.Itoa(8*t.size)
	case 'u':
		return "uint" + strconv.Itoa(8*t.size)
	case 'U':
		return "<U" + strconv.Itoa(t.size/4)
	}
	return "|S" + strconv.Itoa(t.size)
}

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// readHeader reads the .npy header of a member: the magic string, the
// format version, and a Python dict literal such as
// {'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }.
// A dtype the reader cannot use is left with kind 0 and the reason in descr,
// to be reported if the array is used.
func (a *npyArray) readHeader(loc at) error {
	var pre [10]byte
	if _, err := io.ReadFull(a.rc, pre[:8]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return loc.errorf("not a .npy array: the member is too short")
		}
		return zipError(loc, err)
	}
	if string(pre[:6]) != npyMagic {
		return loc.errorf("not a .npy array: it does not start with the NumPy magic string")
	}
	var n int
	switch major := pre[6]; major {
	case 1:
		if _, err := io.ReadFull(a.rc, pre[8:10]); err != nil {
			return zipError(loc, err)
		}
		n = int(binary.LittleEndian.Uint16(pre[8:10]))
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(a.rc, l[:]); err != nil {
			return zipError(loc, err)
		}
		n = int(binary.LittleEndian.Uint32(l[:]))
	default:
		return loc.errorf(".npy format version %d.%d is not supported", major, pre[7])
	}
	if n > 1<<20 {
		return loc.errorf("the .npy header claims %d bytes; it is corrupt", n)
	}
	hdr := make([]byte, n)
	if _, err := io.ReadFull(a.rc, hdr); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return loc.errorf("the .npy header is truncated")
		}
		return zipError(loc, err)
	}
	dict, err := parsePyDict(string(hdr))
	if err != nil {
		return loc.errorf("unreadable .npy header %q: %v", strings.TrimSpace(string(hdr)), err)
	}
	shape, ok := dict["shape"].([]int64)
	if !ok {
		return loc.errorf("the .npy header has no shape")
	}
	a.shape = shape
	a.fortran, _ = dict["fortran_order"].(bool)
	switch descr := dict["descr"].(type) {
	case string:
		a.dtype = descr
		a.typ, a.descr = parseDescr(descr)
	case nil:
		return loc.errorf("the .npy header has no descr")
	default:
		a.descr = "is a structured array (a record dtype); save each field as its own array"
	}
	return nil
}

// parseDescr parses a dtype string such as "<f8", ">i4", "<U8", "|S5".
// For a dtype the reader does not handle it returns a zero npyType and the
// reason.
func parseDescr(descr string) (npyType, string) {
	unsupported := func(name, hint string) (npyType, string) {
		return npyType{}, fmt.Sprintf("has dtype %s, which is not supported%s", name, hint)
	}
	if len(descr) < 2 || strings.IndexByte("<>|=", descr[0]) < 0 {
		return unsupported(descr, "")
	}
	t := npyType{order: binary.LittleEndian, kind: descr[1]}
	switch descr[0] {
	case '>':
		t.order = binary.BigEndian
	case '=':
		t.order = binary.NativeEndian
	}
	if t.kind == 'O' {
		return npyType{}, "holds Python objects (dtype object), which only pickle can read; save it with .astype(str), or .astype(float) for numbers"
	}
	size, err := strconv.Atoi(descr[2:])
	if err != nil || size <= 0 {
		return unsupported(descr, "")
	}
	t.size = size
	switch {
	case t.kind == 'f' && (size == 4 || size == 8):
	case (t.kind == 'i' || t.kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8):
	case t.kind == 'U':
		t.size = 4 * size
	case t.kind == 'S':
	case t.kind == 'f' && size == 2:
		return unsupported("float16", "; save it with .astype('float32')")
	case t.kind == 'b':
		return unsupported("bool", "; save it with .astype(float)")
	default:
		return unsupported(descr, "")
	}
	return t, ""
}

// parsePyDict parses the Python dict literal of a .npy header. Values are
// strings, booleans, tuples of integers (as []int64), or a list, which
// stands for a structured dtype and is returned as a []any placeholder.
func parsePyDict(s string) (map[string]any, error) {
	p := pyParser{s: s}
	p.space()
	if !p.eat('{') {
		return nil, errors.New("expected '{'")
	}
	dict := map[string]any{}
	for {
		p.space()
		if p.eat('}') {
			return dict, nil
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if !p.eat(':') {
			return nil, errors.New("expected ':'")
		}
		p.space()
		var v any
		switch {
		case p.peek() == '\'' || p.peek() == '"':
			v, err = p.str()
		case strings.HasPrefix(p.s[p.i:], "True"):
			v, p.i = true, p.i+4
		case strings.HasPrefix(p.s[p.i:], "False"):
			v, p.i = false, p.i+5
		case p.peek() == '(':
			v, err = p.tuple()
		case p.peek() == '[':
			v, err = []any{}, p.skipList()
		default:
			err = fmt.Errorf("unexpected %q", p.s[p.i:min(p.i+10, len(p.s))])
		}
		if err != nil {
			return nil, err
		}
		dict[key] = v
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat('}') {
				return nil, errors.New("expected ',' or '}'")
			}
			return dict, nil
		}
	}
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *pyParser) eat(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

// str parses a quoted string without escapes, which is all a .npy header
// holds.
func (p *pyParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", errors.New("expected a quoted string")
	}
	end := strings.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	s := p.s[p.i+1 : p.i+1+end]
	p.i += end + 2
	return s, nil
}

// tuple parses a tuple of integers such as (), (3,) or (3, 2). Python 2
// wrote long integers with an L suffix, as in (3L,).
func (p *pyParser) tuple() ([]int64, error) {
	p.i++ // '('
	dims := []int64{}
	for {
		p.space()
		if p.eat(')') {
			return dims, nil
		}
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		n, err := strconv.ParseInt(p.s[start:p.i], 10, 64)
		if err != nil {
			return nil, errors.New("expected a dimension")
		}
		dims = append(dims, n)
		p.eat('L')
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.eat(')') {
				return nil, errors.New("expected ',' or ')'")
			}
			return dims, nil
		}
	}
}

// skipList skips a list literal, brackets nested or not.
func (p *pyParser) skipList() error {
	depth := 0
	for ; p.i < len(p.s); p.i++ {
		switch p.s[p.i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
			if depth == 0 {
				p.i++
				return nil
			}
		}
	}
	return errors.New("unterminated list")
}

func (d *npzDecoder) close() error {
	var errs []error
	for _, a := range d.arrays {
		errs = append(errs, a.rc.Close())
	}
	return errors.Join(errs...)
}
