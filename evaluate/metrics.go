package evaluate

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unsafe"
)

// Metric computes per-row values from the hit matrix of a batch. The
// built-in metrics come from NDCG, Recall, CalibratedRecall, Precision,
// HitRate, MRR and MAP; a Go program can implement Metric for a metric of its
// own and pass it to NewEvaluator next to them.
type Metric interface {
	// Keys names the values the metric computes for each row, such as
	// ["ndcg@10", "ndcg@20"]. They must be non-empty and distinct, and must
	// not change between calls.
	Keys() []string
	// RequiredK is the largest rank the metric looks at: the number of
	// predictions per row it needs.
	RequiredK() int
	// Compute writes the value of key j for row r of b to
	// out[r*len(Keys())+j], for every row, rows without targets
	// (b.Relevant[r] == 0) included: they keep their place so that values
	// stay aligned with sample IDs. out has exactly b.Len()*len(Keys())
	// elements. Compute must not keep b or out, and must be safe to call
	// from several goroutines at once on different batches.
	Compute(b *Batch, out []float64)
}

// MaxCutoff is the largest cutoff k a built-in metric accepts.
const MaxCutoff = 1_000_000

// family is one of the built-in metrics.
type family uint8

const (
	familyNDCG family = iota
	familyRecall
	familyCalibratedRecall
	familyPrecision
	familyHitRate
	familyMRR
	familyMAP
	numFamilies
)

// name is the family's name, the part of its keys before '@'.
func (f family) name() string {
	switch f {
	case familyNDCG:
		return "ndcg"
	case familyRecall:
		return "recall"
	case familyCalibratedRecall:
		return "calibrated_recall"
	case familyPrecision:
		return "precision"
	case familyHitRate:
		return "hit_rate"
	case familyMRR:
		return "mrr"
	case familyMAP:
		return "map"
	}
	panic("evaluate: unknown metric family " + strconv.Itoa(int(f)))
}

// NDCG returns binary-relevance normalised discounted cumulative gain at
// each cutoff k, reported as ndcg@k:
//
//	ndcg@k = Σ_{i≤k} hit_i / log2(i+1)  /  Σ_{i≤min(k,R)} 1/log2(i+1)
//
// where hit_i says whether the item at rank i is relevant and R is the
// row's number of distinct relevant items. The denominator is the gain of
// an ideal ranking, which puts min(k, R) relevant items first, so a perfect
// ranking scores 1 even when R > k.
//
// Every built-in metric shares these conventions. Cutoffs may be given in
// any order and with repeats; keys come in increasing order of k, once each.
// Ranks past the end of a row's predictions (k > Batch.Width) count as
// misses. A row without targets (R = 0) gets 0 at every cutoff, a
// placeholder that no mean counts: Summary skips such rows, and so must any
// other consumer of per-row values. The constructors panic if no cutoff is
// given or one is outside [1, MaxCutoff].
func NDCG(ks ...int) Metric { return newCutoffMetric(familyNDCG, ks) }

// Recall returns hits@k / R at each cutoff k, reported as recall@k, where
// hits@k is the number of relevant items among the first k predictions and
// R the row's number of distinct relevant items. It is the usual definition,
// the one published tables use. It cannot exceed k/R, so a row with more
// relevant items than k stays below 1 even when ranked perfectly;
// CalibratedRecall removes that cap. Conventions are those of NDCG.
func Recall(ks ...int) Metric { return newCutoffMetric(familyRecall, ks) }

// CalibratedRecall returns hits@k / min(k, R) at each cutoff k, reported as
// calibrated_recall@k. Like NDCG's ideal ranking, the truncated denominator
// lets a perfect ranking score 1 whatever R is. It equals Recall when R ≤ k
// and exceeds it otherwise, so the two must not share a column of a results
// table. Conventions are those of NDCG.
func CalibratedRecall(ks ...int) Metric { return newCutoffMetric(familyCalibratedRecall, ks) }

// Precision returns hits@k / k at each cutoff k, reported as precision@k.
// The denominator is k even when the row has fewer than k predictions
// (k > Batch.Width) or fewer than k relevant items, so its maximum is
// min(k, R)/k. Conventions are those of NDCG.
func Precision(ks ...int) Metric { return newCutoffMetric(familyPrecision, ks) }

// HitRate returns 1 when at least one of the first k predictions is
// relevant and 0 otherwise, at each cutoff k, reported as hit_rate@k.
// Conventions are those of NDCG.
func HitRate(ks ...int) Metric { return newCutoffMetric(familyHitRate, ks) }

// MRR returns the reciprocal rank of the first relevant prediction, 1/rank,
// when that rank is at most k, and 0 otherwise, at each cutoff k, reported as
// mrr@k. Conventions are those of NDCG.
func MRR(ks ...int) Metric { return newCutoffMetric(familyMRR, ks) }

// MAP returns average precision at each cutoff k, reported as map@k (its
// mean over rows is the mean average precision):
//
//	map@k = Σ_{i≤k, hit_i} precision@i  /  min(k, R)
//
// Dividing by min(k, R) is the convention of Spark's RankingMetrics and of
// RecBole: a ranking that puts min(k, R) relevant items first scores 1.
// trec_eval's map_cut divides by R instead, so for rows with R > k its
// values are smaller by the factor k/R; multiply by min(k, R)/R to compare.
// Conventions are those of NDCG.
func MAP(ks ...int) Metric { return newCutoffMetric(familyMAP, ks) }

// cutoffMetric is a built-in metric at one or more cutoffs.
type cutoffMetric struct {
	family family
	ks     []int // increasing, distinct
	keys   []string
	// NDCG only: disc[i] = 1/log2(i+1) and ideal[n] = Σ_{i≤n} disc[i],
	// for i and n up to the largest cutoff.
	disc, ideal []float64
}

func newCutoffMetric(f family, ks []int) *cutoffMetric {
	if len(ks) == 0 {
		panic("evaluate: " + f.name() + " needs at least one cutoff")
	}
	for _, k := range ks {
		if k < 1 || k > MaxCutoff {
			panic(fmt.Sprintf("evaluate: %s cutoff %d is outside [1, %d]", f.name(), k, MaxCutoff))
		}
	}
	ks = slices.Compact(slices.Sorted(slices.Values(ks)))
	m := &cutoffMetric{family: f, ks: ks, keys: make([]string, len(ks))}
	for j, k := range ks {
		m.keys[j] = f.name() + "@" + strconv.Itoa(k)
	}
	if f == familyNDCG {
		m.disc, m.ideal = discountTables(ks[len(ks)-1])
	}
	return m
}

// discountTables returns the rank discounts 1/log2(i+1) and their running
// sums, the ideal DCG of i relevant items, for ranks 1 to n (index 0 of both
// is 0).
func discountTables(n int) (disc, ideal []float64) {
	disc = make([]float64, n+1)
	ideal = make([]float64, n+1)
	for i := 1; i <= n; i++ {
		disc[i] = 1 / math.Log2(float64(i+1))
		ideal[i] = ideal[i-1] + disc[i]
	}
	return disc, ideal
}

func (m *cutoffMetric) Keys() []string { return m.keys }

func (m *cutoffMetric) RequiredK() int { return m.ks[len(m.ks)-1] }

func (m *cutoffMetric) Compute(b *Batch, out []float64) {
	if len(out) != b.Len()*len(m.keys) {
		panic(fmt.Sprintf("evaluate: %s: out has %d values, want %d rows × %d keys",
			m.family.name(), len(out), b.Len(), len(m.keys)))
	}
	scoreRows(b, out, len(m.keys), m.RequiredK(), []placedMetric{{m, 0}})
}

// placedMetric is a built-in metric whose values go to the columns of a
// row starting at offset.
type placedMetric struct {
	*cutoffMetric
	offset int
}

// scoreRows computes metrics for every row of b, writing row r to
// out[r*stride:(r+1)*stride] and zeroing that whole span for rows without
// targets. Each row's flags are read once, up to rank limit (at least every
// metric's largest cutoff), into the list of its hit ranks, which every
// metric then reads: rows are mostly misses, so the list is short. Rows are
// the outer loop so that each row's output is written while in cache.
func scoreRows(b *Batch, out []float64, stride, limit int, metrics []placedMetric) {
	n, w := b.Len(), b.Width
	if len(b.Hits) != n*w || len(b.Relevant) != n {
		panic(fmt.Sprintf("evaluate: batch of %d rows × width %d has %d hit flags and %d relevant counts",
			n, w, len(b.Hits), len(b.Relevant)))
	}
	limit = min(limit, w)
	var buf [256]int32
	ranks := buf[:0]
	for r := range n {
		o := out[r*stride : (r+1)*stride]
		rel := int(b.Relevant[r])
		if rel <= 0 {
			clear(o)
			continue
		}
		ranks = appendHitRanks(ranks[:0], b.Hits[r*w:r*w+limit])
		for _, m := range metrics {
			m.row(ranks, rel, o[m.offset:m.offset+len(m.ks)])
		}
	}
}

// row writes the values of a row with rel > 0 relevant items whose hits are
// at ranks (increasing, listed at least up to the largest cutoff) to o,
// one per cutoff. Each family makes one pass over the ranks, merged with the
// increasing cutoffs, so a row costs O(hits + cutoffs) whatever its width.
// The recall, calibrated recall and precision cases repeat one loop with
// another divisor: a deliberate copy, so that the hot loop of every
// evaluation has no branch or call per cell to choose its divisor.
func (m *cutoffMetric) row(ranks []int32, rel int, o []float64) {
	o = o[:len(m.ks)]
	switch m.family {
	case familyNDCG:
		var dcg float64
		i := 0
		for j, k := range m.ks {
			for ; i < len(ranks) && int(ranks[i]) <= k; i++ {
				dcg += m.disc[ranks[i]]
			}
			o[j] = dcg / m.ideal[min(k, rel)]
		}
	case familyRecall:
		hits := 0
		for j, k := range m.ks {
			hits = countHits(ranks, hits, k)
			o[j] = float64(hits) / float64(rel)
		}
	case familyCalibratedRecall:
		hits := 0
		for j, k := range m.ks {
			hits = countHits(ranks, hits, k)
			o[j] = float64(hits) / float64(min(k, rel))
		}
	case familyPrecision:
		hits := 0
		for j, k := range m.ks {
			hits = countHits(ranks, hits, k)
			o[j] = float64(hits) / float64(k)
		}
	case familyHitRate:
		first := math.MaxInt
		if len(ranks) > 0 {
			first = int(ranks[0])
		}
		for j, k := range m.ks {
			o[j] = 0
			if first <= k {
				o[j] = 1
			}
		}
	case familyMRR:
		first, rr := math.MaxInt, 0.0
		if len(ranks) > 0 {
			first = int(ranks[0])
			rr = 1 / float64(first)
		}
		for j, k := range m.ks {
			o[j] = 0
			if first <= k {
				o[j] = rr
			}
		}
	case familyMAP:
		var sum float64 // Σ precision@i over the hits i so far
		hits := 0
		for j, k := range m.ks {
			for ; hits < len(ranks) && int(ranks[hits]) <= k; hits++ {
				sum += float64(hits+1) / float64(ranks[hits])
			}
			o[j] = sum / float64(min(k, rel))
		}
	default:
		panic("evaluate: unknown metric family " + strconv.Itoa(int(m.family)))
	}
}

// countHits returns the number of ranks up to k, given that the first
// from of them are.
func countHits(ranks []int32, from, k int) int {
	for from < len(ranks) && int(ranks[from]) <= k {
		from++
	}
	return from
}

// appendHitRanks appends the 1-based ranks of the true flags of row.
//
// It reads the flags eight at a time as the bytes of a uint64, which Go
// stores as 0 and 1, and skips all-false words with one comparison: rows
// are mostly misses, and a flag-by-flag loop spent more time than every
// metric together. Within a word, each set lowest byte is a hit.
func appendHitRanks(ranks []int32, row []bool) []int32 {
	p := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(row))), len(row))
	i := 0
	for ; i+8 <= len(p); i += 8 {
		for word := binary.LittleEndian.Uint64(p[i:]); word != 0; word &= word - 1 {
			ranks = append(ranks, int32(i+bits.TrailingZeros64(word)/8+1))
		}
	}
	for ; i < len(p); i++ {
		if p[i] != 0 {
			ranks = append(ranks, int32(i+1))
		}
	}
	return ranks
}
