// Package fingerprint computes the digests that guard comparisons: a
// fingerprint of an evaluation set's targets (each sample ID with its sorted
// relevant items), of a classifier's labels (each sample ID with its label,
// and the class names) or, when the targets are unknown, of its sample IDs
// alone.
//
// Both are order-independent multiset hashes: the sum, modulo 2^256, of the
// SHA-256 of every element, finished with the element count. They can be
// computed while streaming, in constant memory, and give the same digest for
// the same set in any order, from any input format. Each element must be
// added once.
package fingerprint

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"math/bits"
	"slices"
	"strconv"
)

// Kinds of fingerprint, as recorded with an evaluation set.
const (
	KindTargets = "targets"
	KindSamples = "samples"
	KindLabels  = "labels"
)

// Set accumulates a fingerprint. The zero value is ready for samples; use
// NewTargets for targets.
type Set struct {
	kind string
	sum  [4]uint64
	n    uint64
	h    hash.Hash
	buf  []byte
	keys []uint64 // AddTargetIndices' sort keys
}

// NewSamples returns an empty samples fingerprint: one element per sample ID.
func NewSamples() *Set { return &Set{kind: KindSamples} }

// NewTargets returns an empty targets fingerprint: one element per sample ID
// with its relevant items.
func NewTargets() *Set { return &Set{kind: KindTargets} }

// NewLabels returns an empty labels fingerprint of a classifier's
// evaluation set: one element per sample ID with its label (AddLabel), and
// one for the class names (AddClasses).
func NewLabels() *Set { return &Set{kind: KindLabels} }

// Kind is KindTargets, KindLabels or KindSamples.
func (s *Set) Kind() string {
	if s.kind == "" {
		return KindSamples
	}
	return s.kind
}

// Len is the number of elements added.
func (s *Set) Len() uint64 { return s.n }

// AddSample adds one sample ID.
func (s *Set) AddSample(id []byte) {
	s.begin("verdict/sample-id/v1\x00")
	s.h.Write(id)
	s.end()
}

// AddTargets adds one sample ID with its relevant items, given as their IDs'
// text (integer item indices in decimal). The items may come in any order and
// with repeats; they are sorted and deduplicated first, which reorders items.
// A sample without relevant items is not part of the targets: add nothing.
func (s *Set) AddTargets(id []byte, items []string) {
	slices.Sort(items)
	items = slices.Compact(items)
	s.begin("verdict/targets/v1\x00")
	s.buf = binary.LittleEndian.AppendUint32(s.buf[:0], uint32(len(id)))
	s.buf = append(s.buf, id...)
	s.buf = binary.LittleEndian.AppendUint32(s.buf, uint32(len(items)))
	for _, it := range items {
		s.buf = binary.LittleEndian.AppendUint32(s.buf, uint32(len(it)))
		s.buf = append(s.buf, it...)
	}
	s.h.Write(s.buf)
	s.end()
}

// AddTargetIndices adds one sample ID with its relevant items given as
// item indices, each at least 0, whose IDs are their decimal text: the
// element AddTargets adds for that text, computed without making strings.
// The items may come in any order and with repeats.
func (s *Set) AddTargetIndices(id string, items []int32) {
	// Sort by text: a key puts each index's digits at the top of ten
	// (scaled) and breaks ties by length, so "1" < "10" < "100" < "11".
	keys := s.keys[:0]
	sorted := true
	for _, it := range items {
		d := decimalDigits(uint32(it))
		k := uint64(it)*pow10[maxDigits-d]<<4 | uint64(d)
		if len(keys) > 0 && k <= keys[len(keys)-1] {
			sorted = false
		}
		keys = append(keys, k)
	}
	if !sorted {
		slices.Sort(keys)
		keys = slices.Compact(keys)
	}
	s.keys = keys
	s.begin("verdict/targets/v1\x00")
	s.buf = binary.LittleEndian.AppendUint32(s.buf[:0], uint32(len(id)))
	s.buf = append(s.buf, id...)
	s.buf = binary.LittleEndian.AppendUint32(s.buf, uint32(len(keys)))
	for _, k := range keys {
		d := int(k & 0xf)
		s.buf = binary.LittleEndian.AppendUint32(s.buf, uint32(d))
		s.buf = strconv.AppendUint(s.buf, (k>>4)/pow10[maxDigits-d], 10)
	}
	s.h.Write(s.buf)
	s.end()
}

// maxDigits is the most decimal digits of an int32 at least 0.
const maxDigits = 10

// pow10[i] is 10 to the i.
var pow10 = [maxDigits + 1]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10}

// decimalDigits is the number of decimal digits of v: 1 for 0.
func decimalDigits(v uint32) int {
	d := 1
	for d < maxDigits && uint64(v) >= pow10[d] {
		d++
	}
	return d
}

// AddLabel adds one sample ID with its class label, the class's name.
func (s *Set) AddLabel(id []byte, label string) {
	s.begin("verdict/label/v1\x00")
	s.buf = binary.LittleEndian.AppendUint32(s.buf[:0], uint32(len(id)))
	s.buf = append(s.buf, id...)
	s.buf = append(s.buf, label...)
	s.h.Write(s.buf)
	s.end()
}

// AddClasses adds the class names of a labels fingerprint, in their order:
// the same labels with other classes declared (a model that predicts a
// class more) make another evaluation set. Add them once.
func (s *Set) AddClasses(classes []string) {
	s.begin("verdict/classes/v1\x00")
	s.buf = binary.LittleEndian.AppendUint32(s.buf[:0], uint32(len(classes)))
	for _, c := range classes {
		s.buf = binary.LittleEndian.AppendUint32(s.buf, uint32(len(c)))
		s.buf = append(s.buf, c...)
	}
	s.h.Write(s.buf)
	s.end()
}

func (s *Set) begin(domain string) {
	if s.h == nil {
		s.h = sha256.New()
	}
	s.h.Reset()
	s.h.Write([]byte(domain))
}

func (s *Set) end() {
	var d [32]byte
	s.h.Sum(d[:0])
	var c uint64
	for i := range s.sum {
		s.sum[i], c = bits.Add64(s.sum[i], binary.LittleEndian.Uint64(d[8*i:]), c)
	}
	s.n++
}

// Merge adds the elements of o, a fingerprint of the same kind computed
// separately (on another goroutine, say).
func (s *Set) Merge(o *Set) {
	var c uint64
	for i := range s.sum {
		s.sum[i], c = bits.Add64(s.sum[i], o.sum[i], c)
	}
	s.n += o.n
}

// Sum returns the fingerprint: the hex SHA-256 of its kind, the element count
// and the sum of the elements' digests.
func (s *Set) Sum() string {
	d := sha256.New()
	d.Write([]byte("verdict/" + s.Kind() + "-fingerprint/v1\x00"))
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], s.n)
	d.Write(b[:])
	for _, w := range s.sum {
		binary.LittleEndian.PutUint64(b[:], w)
		d.Write(b[:])
	}
	return hex.EncodeToString(d.Sum(nil))
}
