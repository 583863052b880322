package evaluate

import (
	"fmt"
	"strconv"
)

// WholeSetMetric is a metric of the whole evaluation rather than of each
// row: catalogue coverage, say, which counts the distinct items recommended
// to all users together. It has one value per key for the evaluation and
// none per user, so its keys are aggregates only: they are not columns of
// the per-user output, not stored per unit, and a comparison cannot pair
// them user by user (see the package documentation).
//
// Run calls Reset before the first batch, Update once for every batch in
// input order, never two at once, after the batch's per-user metrics are
// computed, and Aggregate after the last. A batch holds every row of the
// input, those without targets too (Relevant[r] == 0); a metric over the
// scored users skips those. The batch carries its predicted items (Item,
// ItemNumber) and scores (Score) when the input has them, and is valid only
// during the call.
type WholeSetMetric interface {
	// Keys names the values of Aggregate, such as "coverage@10".
	Keys() []string
	// RequiredK is the largest rank the metric looks at.
	RequiredK() int
	// Reset forgets every batch seen.
	Reset()
	// Update takes a batch into account.
	Update(b *Batch)
	// Aggregate returns one value per key, in the order of Keys, over
	// every batch since Reset. A value that is not finite is an error of
	// Run wrapping ErrBadValue.
	Aggregate() []float64
}

// CatalogueCoverage is the share of a catalogue of size items that appear
// in the top k of at least one scored user (a row with targets):
//
//	coverage@k = |⋃_u top_k(u)| / size
//
// It is 0 when no row has targets or predictions. Items are told apart by
// their IDs as the input names them; the catalogue's size is the caller's
// to give (the number of columns of the targets matrix, the number of items
// a model may recommend), and the items recommended are not checked
// against it, so an input that recommends more distinct items than size
// gives a value above 1, a sign that size is wrong. Its key is
// "coverage@k". It panics if k or size is not positive.
//
// Memory grows with the distinct items recommended: a bit per item for
// integer IDs below size, a map entry for the others.
func CatalogueCoverage(k, size int) WholeSetMetric {
	if k <= 0 || size <= 0 {
		panic(fmt.Sprintf("evaluate: CatalogueCoverage(%d, %d): k and size must be positive", k, size))
	}
	c := &coverage{k: k, size: size, key: "coverage@" + strconv.Itoa(k)}
	c.Reset()
	return c
}

type coverage struct {
	k, size int
	key     string
	dense   []uint64            // bit i: integer item i seen, for 0 ≤ i < size
	sparse  map[string]struct{} // other items seen, by ID
	n       int                 // distinct items seen
	buf     []byte
}

func (c *coverage) Keys() []string { return []string{c.key} }
func (c *coverage) RequiredK() int { return c.k }
func (c *coverage) Reset()         { c.dense, c.sparse, c.n = nil, map[string]struct{}{}, 0 }
func (c *coverage) Aggregate() []float64 {
	return []float64{float64(c.n) / float64(c.size)}
}

func (c *coverage) Update(b *Batch) {
	for r := range b.Len() {
		if b.Relevant[r] <= 0 {
			continue
		}
		for i := range min(c.k, b.Ranked(r)) {
			if n, ok := b.ItemNumber(r, i); ok && n >= 0 && n < int64(c.size) {
				if c.dense == nil {
					c.dense = make([]uint64, (c.size+63)/64)
				}
				w, bit := n/64, uint64(1)<<(n%64)
				if c.dense[w]&bit == 0 {
					c.dense[w] |= bit
					c.n++
				}
				continue
			}
			c.buf = b.AppendItem(c.buf[:0], r, i)
			if _, seen := c.sparse[string(c.buf)]; !seen {
				c.sparse[string(c.buf)] = struct{}{}
				c.n++
			}
		}
	}
}
