package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
)

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

// step folds an evaluation's step into the digest: the same values logged
// at two steps are two evaluations. Evaluations without a step digest as
// they always did.
func (c *contentHash) step(step int64) {
	c.buf = append(c.buf[:0], "step"...)
	c.buf = binary.LittleEndian.AppendUint64(c.buf, uint64(step))
	c.h.Write(c.buf)
}

func (c *contentHash) sum() string { return hex.EncodeToString(c.h.Sum(nil)) }
