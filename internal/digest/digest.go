// Package digest computes an evaluation's content digest: SHA-256 over its
// values as stored, in input order, by which logging the same content twice
// is recognised. The encoding is fixed: digests already stored in a
// database must keep matching, so a change to any method below is a change
// of the schema.
package digest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math"
)

// Content accumulates a digest. The zero value is not usable; call New.
type Content struct {
	h   hash.Hash
	buf []byte
}

// New returns an empty digest.
func New() Content { return Content{h: sha256.New()} }

// Metrics digests the metric names, each as its length and bytes.
func (c *Content) Metrics(names []string) {
	c.buf = c.buf[:0]
	for _, n := range names {
		c.buf = binary.LittleEndian.AppendUint32(c.buf, uint32(len(n)))
		c.buf = append(c.buf, n...)
	}
	c.h.Write(c.buf)
}

// Row digests one row: its sample ID, draw and float4 values.
func (c *Content) Row(id []byte, draw int64, vals []float32) {
	c.buf = binary.LittleEndian.AppendUint32(c.buf[:0], uint32(len(id)))
	c.buf = append(c.buf, id...)
	c.buf = binary.LittleEndian.AppendUint16(c.buf, uint16(draw))
	for _, v := range vals {
		c.buf = binary.LittleEndian.AppendUint32(c.buf, math.Float32bits(v))
	}
	c.h.Write(c.buf)
}

// Step folds an evaluation's step into the digest: the same values logged
// at two steps are two evaluations. Evaluations without a step digest as
// they always did.
func (c *Content) Step(step int64) {
	c.buf = append(c.buf[:0], "step"...)
	c.buf = binary.LittleEndian.AppendUint64(c.buf, uint64(step))
	c.h.Write(c.buf)
}

// Means digests the values of keys.
func (c *Content) Means(keys []string, vals map[string]float64) {
	c.buf = c.buf[:0]
	for _, k := range keys {
		c.buf = binary.LittleEndian.AppendUint64(c.buf, math.Float64bits(vals[k]))
	}
	c.h.Write(c.buf)
}

// Counts digests an evaluation's counts.
func (c *Content) Counts(n ...int64) {
	c.buf = c.buf[:0]
	for _, v := range n {
		c.buf = binary.LittleEndian.AppendUint64(c.buf, uint64(v))
	}
	c.h.Write(c.buf)
}

// AggregatesOnly marks the digest of an evaluation stored without per-unit
// values, so that logging the same rows in full is not mistaken for it.
func (c *Content) AggregatesOnly() { c.h.Write([]byte("aggregates only")) }

// Predictions digests a prediction evaluation's task, threshold, bins and
// classes, before its rows.
func (c *Content) Predictions(task string, threshold float64, bins int, classes []string) {
	c.buf = append(c.buf[:0], "predictions/v1\x00"...)
	c.buf = append(c.buf, task...)
	c.buf = binary.LittleEndian.AppendUint64(c.buf, math.Float64bits(threshold))
	c.buf = binary.LittleEndian.AppendUint64(c.buf, uint64(bins))
	c.h.Write(c.buf)
	c.Metrics(classes)
}

// Prediction digests one sample's label and scores.
func (c *Content) Prediction(id string, label int32, scores []float64) {
	c.buf = binary.LittleEndian.AppendUint32(c.buf[:0], uint32(len(id)))
	c.buf = append(c.buf, id...)
	c.buf = binary.LittleEndian.AppendUint32(c.buf, uint32(label))
	for _, v := range scores {
		c.buf = binary.LittleEndian.AppendUint64(c.buf, math.Float64bits(v))
	}
	c.h.Write(c.buf)
}

// Sum is the digest in hexadecimal.
func (c *Content) Sum() string { return hex.EncodeToString(c.h.Sum(nil)) }
