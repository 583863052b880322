package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
	"math/bits"
)

// multisetHash is an order-independent digest of a set of sample IDs: the sum,
// modulo 2^256, of the SHA-256 of each ID, finished with the count. It is
// computed while streaming, in constant memory, and gives the same result for
// the same IDs in any order. The store adds each ID once.
type multisetHash struct {
	sum [4]uint64
	n   uint64
}

const samplesDomain = "verdict/sample-id/v1\x00"

func (h *multisetHash) add(id []byte) {
	d := sha256.New()
	d.Write([]byte(samplesDomain))
	d.Write(id)
	var b [32]byte
	d.Sum(b[:0])
	var c uint64
	for i := range h.sum {
		h.sum[i], c = bits.Add64(h.sum[i], binary.LittleEndian.Uint64(b[8*i:]), c)
	}
	h.n++
}

// fingerprint is the hex SHA-256 of the domain, the count and the sum.
func (h *multisetHash) fingerprint() string {
	d := sha256.New()
	d.Write([]byte("verdict/samples-fingerprint/v1\x00"))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], h.n)
	d.Write(b[:])
	for _, w := range h.sum {
		binary.LittleEndian.PutUint64(b[:], w)
		d.Write(b[:])
	}
	return hex.EncodeToString(d.Sum(nil))
}

// contentHash digests an evaluation's values as stored, in input order, so
// that logging the same file twice is recognised.
type contentHash struct {
	h   hash.Hash
	buf []byte
}

func newContentHash() contentHash { return contentHash{h: sha256.New()} }

func (c *contentHash) metrics(names []string) {
	c.buf = c.buf[:0]
	for _, n := range names {
		c.buf = binary.LittleEndian.AppendUint32(c.buf, uint32(len(n)))
		c.buf = append(c.buf, n...)
	}
	c.h.Write(c.buf)
}

func (c *contentHash) row(id []byte, draw int64, vals []float32) {
	c.buf = binary.LittleEndian.AppendUint32(c.buf[:0], uint32(len(id)))
	c.buf = append(c.buf, id...)
	c.buf = binary.LittleEndian.AppendUint16(c.buf, uint16(draw))
	for _, v := range vals {
		c.buf = binary.LittleEndian.AppendUint32(c.buf, math.Float32bits(v))
	}
	c.h.Write(c.buf)
}

func (c *contentHash) sum() string { return hex.EncodeToString(c.h.Sum(nil)) }

// neumaier is a compensated sum (Kahan–Babuška–Neumaier), so that the mean of
// millions of values does not drift with their order.
type neumaier struct{ s, c float64 }

func (n *neumaier) add(x float64) {
	t := n.s + x
	if math.Abs(n.s) >= math.Abs(x) {
		n.c += (n.s - t) + x
	} else {
		n.c += (x - t) + n.s
	}
	n.s = t
}

func (n *neumaier) sum() float64 { return n.s + n.c }
