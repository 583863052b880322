package input

import (
	"encoding/binary"
	"fmt"
	"io"
)

// parquet-go decodes a file's metadata (its footer, and each page's header)
// by what the metadata declares: a list sized by its declared count, up to
// 2^31 elements, a byte string by its declared length. A footer of a few
// bytes could so make it allocate hundreds of gigabytes before it found the
// footer too short. checkFooter walks the footer's Thrift encoding first,
// without decoding it, and refuses a count or length that the bytes left
// cannot hold, and a footer that would cost parquet-go more memory than a
// file of its size plausibly needs.

// footerBudget bounds the memory that decoding a footer may cost, as
// thriftCheck estimates it: 64 MiB, and 16 bytes more for each byte of the
// file, since large files have large footers.
func footerBudget(size int64) int64 { return 64<<20 + 16*size }

// checkFooter checks the footer of the Parquet file r of size bytes, and
// returns a problem for the user, or "".
func checkFooter(r io.ReaderAt, size int64) string {
	const frame = 4 + 4 + 4 // "PAR1" at the start, the footer's length and "PAR1" at the end
	if size < frame {
		return "" // parquet-go says it is too short
	}
	var head, tail [4]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return "" // parquet-go reports the failure to read
	}
	var end [8]byte
	if _, err := r.ReadAt(end[:], size-8); err != nil {
		return ""
	}
	copy(tail[:], end[4:])
	switch {
	case string(head[:]) == "PARE" || string(tail[:]) == "PARE":
		return "the file is encrypted, which verdict does not read"
	case string(head[:]) != "PAR1" || string(tail[:]) != "PAR1":
		return "" // parquet-go says which magic bytes are wrong
	}
	n := int64(binary.LittleEndian.Uint32(end[:4]))
	if n > size-frame {
		return fmt.Sprintf("the footer claims %d bytes, more than the file holds", n)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return ""
	}
	c := thriftCheck{b: footer, budget: footerBudget(size)}
	if !c.structure(0) {
		return "the footer is corrupt: " + c.problem
	}
	return ""
}

// Thrift compact protocol types.
const (
	thriftTrue   = 1
	thriftFalse  = 2
	thriftI8     = 3
	thriftI16    = 4
	thriftI32    = 5
	thriftI64    = 6
	thriftDouble = 7
	thriftBinary = 8
	thriftList   = 9
	thriftSet    = 10
	thriftMap    = 11
	thriftStruct = 12
	thriftUUID   = 13
)

// Estimates of what parquet-go allocates when it decodes a value, for the
// budget: the largest struct of its metadata (a column chunk) is about 560
// bytes; a list element or a byte string's header takes a slice's or a
// string's header at most.
const (
	structCost  = 640
	elementCost = 24
	maxNesting  = 64
)

// thriftCheck walks a Thrift compact-protocol value in b without decoding
// it.
type thriftCheck struct {
	b       []byte
	i       int
	cost    int64
	budget  int64
	problem string
}

func (c *thriftCheck) fail(format string, args ...any) bool {
	if c.problem == "" {
		c.problem = fmt.Sprintf(format, args...)
	}
	return false
}

func (c *thriftCheck) left() int { return len(c.b) - c.i }

// spend adds to the estimated cost.
func (c *thriftCheck) spend(n int64) bool {
	c.cost += n
	if c.cost > c.budget {
		return c.fail("it declares more than a file of its size can hold")
	}
	return true
}

func (c *thriftCheck) byte() (byte, bool) {
	if c.i >= len(c.b) {
		return 0, c.fail("it ends early")
	}
	c.i++
	return c.b[c.i-1], true
}

func (c *thriftCheck) varint() (uint64, bool) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		b, ok := c.byte()
		if !ok {
			return 0, false
		}
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, true
		}
	}
	return 0, c.fail("a number is too long")
}

func (c *thriftCheck) skip(n int) bool {
	if n > c.left() {
		return c.fail("it ends early")
	}
	c.i += n
	return true
}

// structure walks a struct: fields until a stop byte.
func (c *thriftCheck) structure(depth int) bool {
	if depth > maxNesting {
		return c.fail("it nests too deep")
	}
	if !c.spend(structCost) {
		return false
	}
	for {
		h, ok := c.byte()
		if !ok {
			return false
		}
		if h == 0 {
			return true
		}
		if h>>4 == 0 { // the field's ID follows, as a varint
			if _, ok := c.varint(); !ok {
				return false
			}
		}
		switch t := h & 0x0f; t {
		case thriftTrue, thriftFalse: // the value is in the type
		default:
			if !c.value(t, depth) {
				return false
			}
		}
	}
}

// value walks a value of type t.
func (c *thriftCheck) value(t byte, depth int) bool {
	switch t {
	case thriftTrue, thriftFalse, thriftI8:
		return c.skip(1)
	case thriftI16, thriftI32, thriftI64:
		_, ok := c.varint()
		return ok
	case thriftDouble:
		return c.skip(8)
	case thriftUUID:
		return c.skip(16)
	case thriftBinary:
		n, ok := c.varint()
		switch {
		case !ok:
			return false
		case n > uint64(c.left()):
			return c.fail("a string claims %d bytes, more than are left", n)
		}
		return c.spend(elementCost+int64(n)) && c.skip(int(n))
	case thriftList, thriftSet:
		h, ok := c.byte()
		if !ok {
			return false
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, ok = c.varint(); !ok {
				return false
			}
		}
		// Every element takes a byte at least.
		if n > uint64(c.left()) {
			return c.fail("a list claims %d elements, more than the bytes left", n)
		}
		if !c.spend(int64(n) * elementCost) {
			return false
		}
		for range n {
			if !c.value(h&0x0f, depth+1) {
				return false
			}
		}
		return true
	case thriftMap:
		n, ok := c.varint()
		if !ok || n == 0 {
			return ok
		}
		kv, ok := c.byte()
		switch {
		case !ok:
			return false
		case n > uint64(c.left())/2:
			return c.fail("a map claims %d entries, more than the bytes left", n)
		}
		if !c.spend(2 * int64(n) * elementCost) {
			return false
		}
		for range n {
			if !c.value(kv>>4, depth+1) || !c.value(kv&0x0f, depth+1) {
				return false
			}
		}
		return true
	case thriftStruct:
		return c.structure(depth + 1)
	}
	return c.fail("unknown type %d", t)
}
