package input

import (
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

// MaxItemBytes bounds the size of one element of a .npy array. A header
// may claim any dtype, such as '<U1000000000'; it is refused before any
// buffer is sized by it. 64 KiB is a string of 16,384 characters, far more
// than any sample ID or metric name the store keeps.
const MaxItemBytes = 1 << 16

// batchBytes bounds the buffer of one batch of one array (see BatchRows).
const batchBytes = 4 << 20

// BatchRows is how many elements of itemBytes each to read at a time from
// an array, at most want: fewer when the elements are large, so that a
// batch holds at most a few megabytes.
func BatchRows(want, itemBytes int) int {
	return max(1, min(want, batchBytes/max(itemBytes, 1)))
}

// NPYType is a NumPy dtype the readers decode.
type NPYType struct {
	Order binary.ByteOrder
	Kind  byte // 'f' float, 'i' signed, 'u' unsigned, 'U' unicode, 'S' bytes
	// (and 'b' for booleans, which a caller that reads them sets itself)
	Size int // bytes per element
}

// String names a dtype as NumPy does, for messages.
func (t NPYType) String() string {
	switch t.Kind {
	case 'f':
		return "float" + strconv.Itoa(8*t.Size)
	case 'i':
		return "int" + strconv.Itoa(8*t.Size)
	case 'u':
		return "uint" + strconv.Itoa(8*t.Size)
	case 'b':
		return "bool"
	case 'U':
		return "<U" + strconv.Itoa(t.Size/4)
	}
	return "|S" + strconv.Itoa(t.Size)
}

// Int is element k of buf, of a signed or unsigned integer dtype, as int64;
// unsigned ones above its range wrap around to negative numbers.
func (t NPYType) Int(buf []byte, k int) int64 {
	if t.Kind == 'u' {
		return int64(t.Uint(buf, k))
	}
	switch t.Size {
	case 1:
		return int64(int8(buf[k]))
	case 2:
		return int64(int16(t.Order.Uint16(buf[2*k:])))
	case 4:
		return int64(int32(t.Order.Uint32(buf[4*k:])))
	}
	return int64(t.Order.Uint64(buf[8*k:]))
}

// Uint is element k of buf, of an integer dtype, as uint64.
func (t NPYType) Uint(buf []byte, k int) uint64 {
	switch t.Size {
	case 1:
		return uint64(buf[k])
	case 2:
		return uint64(t.Order.Uint16(buf[2*k:]))
	case 4:
		return uint64(t.Order.Uint32(buf[4*k:]))
	}
	return t.Order.Uint64(buf[8*k:])
}

// IntText formats element k of an integer dtype as stored.
func (t NPYType) IntText(buf []byte, k int) string {
	if t.Kind == 'u' {
		return strconv.FormatUint(t.Uint(buf, k), 10)
	}
	return strconv.FormatInt(t.Int(buf, k), 10)
}

// Floats appends the elements of buf, of a float or integer dtype, to dst
// as float64s.
func (t NPYType) Floats(dst []float64, buf []byte) []float64 {
	n := len(buf) / t.Size
	switch {
	case t.Kind == 'f' && t.Size == 8:
		for k := range n {
			dst = append(dst, math.Float64frombits(t.Order.Uint64(buf[8*k:])))
		}
	case t.Kind == 'f':
		for k := range n {
			dst = append(dst, float64(math.Float32frombits(t.Order.Uint32(buf[4*k:]))))
		}
	case t.Kind == 'u':
		for k := range n {
			dst = append(dst, float64(t.Uint(buf, k)))
		}
	default:
		for k := range n {
			dst = append(dst, float64(t.Int(buf, k)))
		}
	}
	return dst
}

// Ints appends the elements of buf, of an integer dtype, to dst; unsigned
// ones above the int64 range become -1, which no caller accepts.
func (t NPYType) Ints(dst []int64, buf []byte) []int64 {
	for k := range len(buf) / t.Size {
		v := t.Int(buf, k)
		if t.Kind == 'u' && v < 0 {
			v = -1
		}
		dst = append(dst, v)
	}
	return dst
}

// AppendText appends element k of buf, of a string dtype, to dst: UTF-32
// code points for 'U', bytes for 'S', without NumPy's trailing NUL padding.
// A 'U' code point that is no Unicode character (a surrogate, or one above
// U+10FFFF) is appended as the byte 0xFF, which UTF-8 never holds, so that
// the text is valid UTF-8 exactly when the element is valid Unicode, and
// the callers' check of UTF-8 (TextProblem) refuses both kinds of string.
func (t NPYType) AppendText(dst, buf []byte, k int) []byte {
	item := buf[k*t.Size : (k+1)*t.Size]
	if t.Kind == 'S' {
		return append(dst, bytes.TrimRight(item, "\x00")...)
	}
	end := len(item)
	for end >= 4 && t.Order.Uint32(item[end-4:end]) == 0 {
		end -= 4
	}
	for j := 0; j < end; j += 4 {
		r := t.Order.Uint32(item[j:])
		if r > utf8.MaxRune || !utf8.ValidRune(rune(r)) {
			dst = append(dst, 0xff)
			continue
		}
		dst = utf8.AppendRune(dst, rune(r))
	}
	return dst
}

// AppendIDs appends the elements of buf to dst as IDs: strings as they
// are, integers as decimal text.
func (t NPYType) AppendIDs(dst []string, buf []byte, ids *IDs) []string {
	var scratch []byte
	for k := range len(buf) / t.Size {
		scratch = scratch[:0]
		switch t.Kind {
		case 'i':
			scratch = strconv.AppendInt(scratch, t.Int(buf, k), 10)
		case 'u':
			scratch = strconv.AppendUint(scratch, t.Uint(buf, k), 10)
		default:
			scratch = t.AppendText(scratch, buf, k)
		}
		dst = append(dst, ids.FromBytes(scratch))
	}
	return dst
}

// AppendNames appends the elements of buf, of a string dtype, to dst, one
// string per distinct name.
func (t NPYType) AppendNames(dst []string, buf []byte, names Interner) []string {
	var scratch []byte
	for k := range len(buf) / t.Size {
		scratch = t.AppendText(scratch[:0], buf, k)
		dst = append(dst, names.InternBytes(scratch))
	}
	return dst
}

// NPY is a .npy array read in order, a batch of elements at a time: a file
// of its own, or a member of an .npz archive.
type NPY struct {
	// At locates the array in messages: the file, and for a member of an
	// archive its name as an array.
	At Location
	// Descr is the header's dtype as written, such as "<f8"; "" for a
	// structured dtype.
	Descr string
	// Type is the dtype, with Kind 0 when the reader does not decode it;
	// Problem then says why, for the caller to report if it uses the array.
	Type    NPYType
	Problem string
	Shape   []int64
	Fortran bool
	// Count is the number of elements the shape holds, -1 when that
	// overflows an int64.
	Count int64

	r     io.Reader
	avail int64 // bytes of data after the header; -1 unknown
	done  int64 // elements read so far
	buf   []byte
	kind  error
}

// npyMagic starts every .npy file.
const npyMagic = "\x93NUMPY"

// truncatedHeader is the error of a .npy header that ends early, or that
// could not be read.
func truncatedHeader(kind error, at Location, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return at.Errorf(kind, "the .npy header is truncated")
	}
	return ReadError(kind, at, err)
}

// ReadNPY reads the header of a .npy array from r: the magic string, the
// format version, and a Python dict literal such as
// {'descr': '<f8', 'fortran_order': False, 'shape': (1000,), }. size is
// the bytes of the whole array, header included, or -1 when unknown. Its
// errors locate the array at at and wrap kind.
//
// A dtype the reader cannot decode is not an error here: Type.Kind is 0
// and Problem says why, to be reported if the array is used.
func ReadNPY(r io.Reader, size int64, at Location, kind error) (*NPY, error) {
	a := &NPY{At: at, r: r, avail: -1, kind: kind}
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, at.Errorf(kind, "not a .npy array: the member is too short")
		}
		return nil, ReadError(kind, at, err)
	}
	if string(pre[:6]) != npyMagic {
		return nil, at.Errorf(kind, "not a .npy array: it does not start with the NumPy magic string")
	}
	var n int
	read := int64(len(pre))
	switch major := pre[6]; major {
	case 1:
		var l [2]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, truncatedHeader(kind, at, err)
		}
		n, read = int(binary.LittleEndian.Uint16(l[:])), read+2
	case 2, 3:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, truncatedHeader(kind, at, err)
		}
		n, read = int(binary.LittleEndian.Uint32(l[:])), read+4
	default:
		return nil, at.Errorf(kind, ".npy format version %d.%d is not supported", major, pre[7])
	}
	if n > 1<<20 {
		return nil, at.Errorf(kind, "the .npy header claims %d bytes; it is corrupt", n)
	}
	hdr := make([]byte, n)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return nil, truncatedHeader(kind, at, err)
	}
	if size >= 0 {
		a.avail = size - read - int64(n)
	}
	dict, err := parsePyDict(string(hdr))
	if err != nil {
		return nil, at.Errorf(kind, "unreadable .npy header %q: %v", strings.TrimSpace(string(hdr)), err)
	}
	shape, ok := dict["shape"].([]int64)
	if !ok {
		return nil, at.Errorf(kind, "the .npy header has no shape")
	}
	a.Shape = shape
	a.Fortran, _ = dict["fortran_order"].(bool)
	switch descr := dict["descr"].(type) {
	case string:
		a.Descr = descr
		a.Type, a.Problem = parseDescr(descr)
	case nil:
		return nil, at.Errorf(kind, "the .npy header has no descr")
	default:
		a.Problem = "is a structured array (a record dtype); save each field as its own array"
	}
	a.Count = 1
	for _, d := range a.Shape {
		if d != 0 && a.Count > math.MaxInt64/d {
			a.Count = -1
			break
		}
		a.Count *= d
	}
	return a, nil
}

// ShapeText formats the shape as Python does: (3,), (3, 2), ().
func (a *NPY) ShapeText() string {
	parts := make([]string, len(a.Shape))
	for i, n := range a.Shape {
		parts[i] = strconv.FormatInt(n, 10)
	}
	if len(parts) == 1 {
		return "(" + parts[0] + ",)"
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// DtypeName names the array's dtype for a message, decoded or not.
func (a *NPY) DtypeName() string {
	switch {
	case a.Type.Kind != 0:
		return a.Type.String()
	case a.Descr == "|b1":
		return "bool"
	case a.Descr != "":
		return a.Descr
	}
	return "of records (a structured array)"
}

// Errorf returns an error about the array, wrapping the reader's sentinel.
func (a *NPY) Errorf(format string, args ...any) error {
	return a.At.Errorf(a.kind, format, args...)
}

// CheckData checks, before any buffer is sized by the array's shape, that
// the file or member holds the data the shape claims. The array's dtype
// must be decoded.
func (a *NPY) CheckData() error {
	size := int64(a.Type.Size)
	switch {
	case a.Count < 0 || a.Count > math.MaxInt64/size:
		return a.Errorf("has shape %s, too large to be real; the header is corrupt", a.ShapeText())
	case a.avail >= 0 && a.Count > a.avail/size:
		return a.Errorf("is truncated: it holds %d bytes of data, less than the %d of its shape %s",
			a.avail, a.Count*size, a.ShapeText())
	}
	return nil
}

// Next reads the next n elements of the array and returns their bytes,
// valid until the following call. Reading past the end of the shape is a
// programmer's error and panics.
//
// The buffer grows with the data read, not with n: a zip member may
// claim more data than it holds, so a caller that asks for many elements
// at once (the stored values of a row of a sparse matrix) costs memory
// for those that are there.
func (a *NPY) Next(n int) ([]byte, error) {
	if left := a.Count - a.done; int64(n) > left {
		panic("input: reading past the end of an array")
	}
	size := n * a.Type.Size
	if cap(a.buf) < min(size, batchBytes) {
		a.buf = make([]byte, min(size, batchBytes))
	}
	buf := a.buf[:min(size, cap(a.buf))]
	got, err := io.ReadFull(a.r, buf)
	for err == nil && got < size {
		// Double what was read, at most up to size.
		buf = append(buf, make([]byte, min(size-got, got))...)
		a.buf = buf
		var more int
		more, err = io.ReadFull(a.r, buf[got:])
		got += more
	}
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, a.Errorf("the array ends after %d of its %d values", a.done+int64(got/a.Type.Size), a.Count)
		}
		return nil, ReadError(a.kind, a.At, err)
	}
	a.done += int64(n)
	return buf, nil
}

// Finish checks that the array's data ends where its shape says, which also
// makes the zip reader verify a member's checksum.
func (a *NPY) Finish() error {
	var one [1]byte
	n, err := io.ReadFull(a.r, one[:])
	switch {
	case n > 0:
		return a.Errorf("holds more data than its shape %s says", a.ShapeText())
	case err != io.EOF:
		return ReadError(a.kind, a.At, err)
	}
	return nil
}

// parseDescr parses a dtype string such as "<f8", ">i4", "<U8", "|S5".
// For a dtype the reader does not decode it returns a zero NPYType
// and the reason.
func parseDescr(descr string) (NPYType, string) {
	unsupported := func(name, hint string) (NPYType, string) {
		return NPYType{}, fmt.Sprintf("has dtype %s, which is not supported%s", name, hint)
	}
	if len(descr) < 2 || strings.IndexByte("<>|=", descr[0]) < 0 {
		return unsupported(descr, "")
	}
	t := NPYType{Order: binary.LittleEndian, Kind: descr[1]}
	switch descr[0] {
	case '>':
		t.Order = binary.BigEndian
	case '=':
		t.Order = binary.NativeEndian
	}
	if t.Kind == 'O' {
		return NPYType{}, "holds Python objects (dtype object), which only pickle can read; save it with .astype(str), or .astype(float) for numbers"
	}
	size, err := strconv.Atoi(descr[2:])
	if err != nil || size <= 0 {
		return unsupported(descr, "")
	}
	t.Size = size
	switch {
	case t.Kind == 'f' && (size == 4 || size == 8):
	case (t.Kind == 'i' || t.Kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8):
	case (t.Kind == 'U' && size > MaxItemBytes/4) || (t.Kind == 'S' && size > MaxItemBytes):
		return NPYType{}, fmt.Sprintf("has dtype %s, strings longer than the %d bytes supported", descr, MaxItemBytes)
	case t.Kind == 'U':
		t.Size = 4 * size
	case t.Kind == 'S':
	case t.Kind == 'f' && size == 2:
		return unsupported("float16", "; save it with .astype('float32')")
	case t.Kind == 'b':
		return unsupported("bool", "; save it with .astype(float)")
	default:
		return unsupported(descr, "")
	}
	return t, ""
}
