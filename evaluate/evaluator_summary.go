package evaluate

import (
	"fmt"
	"hash/maphash"
	"math"
	"slices"
)

// Summary accumulates the aggregates of an evaluation from scored batches:
// the mean of every key over rows with targets, and the row and unit counts
// stored with it. Build one per goroutine with Evaluator.NewSummary and
// combine them with Merge; a Summary itself is not safe for concurrent use.
type Summary struct {
	keys []string
	seed maphash.Seed
	// sum and carry are Neumaier compensated sums of each key's values:
	// the mean of a million values in [0, 1] then keeps every digit a
	// float64 can show, whatever order the batches come in.
	sum, carry []float64
	rows       int64
	scored     int64
	units      unitSet
}

// NewSummary returns an empty summary of e's keys.
func (e *Evaluator) NewSummary() *Summary {
	return &Summary{
		keys:  e.keys,
		seed:  e.seed,
		sum:   make([]float64, len(e.keys)),
		carry: make([]float64, len(e.keys)),
	}
}

// Add accumulates a batch and its values as returned by Evaluator.Score.
// Rows without targets count in Rows only. It panics if values does not hold
// one value per row and key.
func (s *Summary) Add(b *Batch, values []float64) {
	n, nk := b.Len(), len(s.keys)
	if len(values) != n*nk || len(b.Relevant) != n {
		panic(fmt.Sprintf("evaluate: summary of %d keys given %d values and %d relevant counts for %d rows",
			nk, len(values), len(b.Relevant), n))
	}
	s.rows += int64(n)
	last, haveLast := "", false
	for r := range n {
		if b.Relevant[r] <= 0 {
			continue
		}
		s.scored++
		// Rows of one unit (several draws) usually come together: hash
		// each run once.
		if id := b.SampleIDs[r]; !haveLast || id != last {
			s.units.add(maphash.String(s.seed, id))
			last, haveLast = id, true
		}
		for j, v := range values[r*nk : (r+1)*nk] {
			s.sum[j], s.carry[j] = neumaier(s.sum[j], s.carry[j], v)
		}
	}
}

// neumaier adds v to the compensated sum (sum, carry).
func neumaier(sum, carry, v float64) (float64, float64) {
	t := sum + v
	if math.Abs(sum) >= math.Abs(v) {
		carry += (sum - t) + v
	} else {
		carry += (v - t) + sum
	}
	return t, carry
}

// Merge adds the rows of o, a summary of the same evaluator filled on
// another goroutine, to s. Both must have seen disjoint rows; a unit seen by
// both counts once. It panics if o comes from another evaluator.
func (s *Summary) Merge(o *Summary) {
	if s.seed != o.seed || !slices.Equal(s.keys, o.keys) {
		panic("evaluate: merging summaries of different evaluators")
	}
	for j := range s.sum {
		s.sum[j], s.carry[j] = neumaier(s.sum[j], s.carry[j], o.sum[j])
		s.sum[j], s.carry[j] = neumaier(s.sum[j], s.carry[j], o.carry[j])
	}
	s.rows += o.rows
	s.scored += o.scored
	s.units.merge(&o.units)
}

// Keys returns the summarised keys, those of the evaluator. The caller must
// not modify it.
func (s *Summary) Keys() []string { return s.keys }

// Means returns the mean of each key over the rows with targets. With no
// such rows, every mean is NaN: there is nothing to average.
func (s *Summary) Means() map[string]float64 {
	m := make(map[string]float64, len(s.keys))
	for j, k := range s.keys {
		m[k] = s.Mean(j)
	}
	return m
}

// Mean returns the mean of the key at index j of Keys over the rows with
// targets, or NaN if there are none.
func (s *Summary) Mean(j int) float64 {
	if s.scored == 0 {
		return math.NaN()
	}
	return (s.sum[j] + s.carry[j]) / float64(s.scored)
}

// Rows is the number of rows added, with targets or not: n_rows.
func (s *Summary) Rows() int64 { return s.rows }

// ScoredRows is the number of rows with at least one target, those the
// means average over: n_scored_rows.
func (s *Summary) ScoredRows() int64 { return s.scored }

// Units is the number of distinct sample IDs among the rows with targets:
// n_units, the independent units a paired comparison resamples. It is
// smaller than ScoredRows when a protocol scores a unit several times.
//
// IDs are counted by a 64-bit hash, 8 bytes each rather than the IDs
// themselves. Two of n distinct IDs share a hash with probability about
// n²/2^65: 3·10⁻⁶ for ten million units, 3·10⁻⁴ for a hundred
// million, and then the count is one short.
func (s *Summary) Units() int64 { return int64(s.units.len()) }

// unitSet is a set of 64-bit hashes. It appends them to a slice and, when
// the slice has doubled since it was last deduplicated, sorts and
// deduplicates it: appends are sequential and the sorts are radix sorts,
// where a hash table, Go's map or an open-addressing one, missed the cache
// on every insert, at 250 to 500 ns a row over a million units. Memory stays
// below 16 bytes per unit or 8 MB, whichever is more, and twice that during
// a sort.
type unitSet struct {
	hashes []uint64 // hashes[:distinct] are sorted and distinct
	// distinct is the number of distinct hashes at the last
	// deduplication.
	distinct int
}

// minDedup is the number of hashes below which unitSet does not bother to
// deduplicate before it is asked for its size.
const minDedup = 1 << 20

func (s *unitSet) add(h uint64) {
	s.hashes = append(s.hashes, h)
	if len(s.hashes) >= max(2*s.distinct, minDedup) {
		s.dedup()
	}
}

func (s *unitSet) merge(o *unitSet) {
	s.hashes = append(s.hashes, o.hashes...)
	if len(s.hashes) >= max(2*s.distinct, minDedup) {
		s.dedup()
	}
}

// len returns the number of distinct hashes.
func (s *unitSet) len() int {
	if len(s.hashes) > s.distinct {
		s.dedup()
	}
	return s.distinct
}

func (s *unitSet) dedup() {
	radixSort(s.hashes, make([]uint64, len(s.hashes)))
	s.hashes = slices.Compact(s.hashes)
	s.distinct = len(s.hashes)
}

// radixSort sorts a in increasing order by its eight bytes, least
// significant first, with tmp (as long as a) as the other buffer of each
// pass. An even number of passes leaves the result in a.
func radixSort(a, tmp []uint64) {
	for shift := 0; shift < 64; shift += 8 {
		var start [256]int
		for _, v := range a {
			start[byte(v>>shift)]++
		}
		pos := 0
		for d, c := range start {
			start[d], pos = pos, pos+c
		}
		for _, v := range a {
			d := byte(v >> shift)
			tmp[start[d]] = v
			start[d]++
		}
		a, tmp = tmp, a
	}
}
