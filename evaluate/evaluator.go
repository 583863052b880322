package evaluate

import (
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"sync"
)

// ErrBadValue is wrapped by the errors of Evaluator.Score when a metric
// implemented outside this package gives a NaN or infinite value for a row
// with targets. The message names the row, its sample ID and the key:
//
//	row 12 (sample "u0000012"), key "coverage@10": metric value is not finite: NaN
var ErrBadValue = errors.New("metric value is not finite")

// Evaluator applies a set of metrics to batches of ranked rows. Each batch's
// hit ranks are extracted once and shared by every built-in metric. An
// Evaluator is immutable, so one may score batches on several goroutines at
// once.
type Evaluator struct {
	metrics []Metric
	keys    []string
	offset  []int          // column of each metric's first key
	builtin []placedMetric // the built-in metrics, computed together
	scanK   int            // largest cutoff of the built-in metrics
	reqK    int
	custom  []int        // indices of the metrics implemented elsewhere
	seed    maphash.Seed // for the unit hashes of its summaries
	scratch sync.Pool    // *[]float64 for metrics implemented elsewhere
}

// NewEvaluator returns an evaluator of metrics, whose keys become the
// columns of Score's output in the order given. It returns an error
// wrapping ErrBadMetric if there are no metrics, if one is nil, or if a key
// is empty or appears twice, within a metric or across two (NDCG(10) and
// NDCG(10, 20), say; ParseMetrics merges such specs).
func NewEvaluator(metrics []Metric) (*Evaluator, error) {
	if len(metrics) == 0 {
		return nil, fmt.Errorf("%w: no metrics to evaluate", ErrBadMetric)
	}
	e := &Evaluator{
		metrics: slices.Clone(metrics),
		offset:  make([]int, len(metrics)),
		seed:    maphash.MakeSeed(),
	}
	seen := make(map[string]bool)
	for i, m := range metrics {
		if m == nil {
			return nil, fmt.Errorf("%w: metric %d of %d is nil", ErrBadMetric, i+1, len(metrics))
		}
		e.offset[i] = len(e.keys)
		for _, k := range m.Keys() {
			if k == "" {
				return nil, fmt.Errorf("%w: metric %d of %d has an empty key", ErrBadMetric, i+1, len(metrics))
			}
			if seen[k] {
				return nil, fmt.Errorf("%w %q: key computed twice; give each metric and cutoff once", ErrBadMetric, k)
			}
			seen[k] = true
			e.keys = append(e.keys, k)
		}
		e.reqK = max(e.reqK, m.RequiredK())
		if c, ok := m.(*cutoffMetric); ok {
			e.builtin = append(e.builtin, placedMetric{c, e.offset[i]})
			e.scanK = max(e.scanK, c.RequiredK())
		} else {
			e.custom = append(e.custom, i)
		}
	}
	return e, nil
}

// Keys returns the keys of every metric, in order: the columns of Score's
// output and the keys of Summary.Means. The caller must not modify it.
func (e *Evaluator) Keys() []string { return e.keys }

// RequiredK is the largest rank any metric looks at: how many predictions
// per row the evaluation needs. Batches may be narrower; the missing ranks
// count as misses.
func (e *Evaluator) RequiredK() int { return e.reqK }

// Score computes every metric for every row of b and returns the values
// row-major: the value of key j (of Keys) for row r is at
// out[r*len(Keys())+j]. It reuses out's storage when it has the capacity.
//
// Rows without targets (b.Relevant[r] ≤ 0) keep their place but are 0 in
// every column, whatever a metric wrote there. For a row with targets, a
// NaN or infinite value from a metric implemented outside this package is an
// error wrapping ErrBadValue that names the row (b.First + r), its sample ID
// and the key. The built-in metrics give values in [0, 1] as long as no row
// has more hits than relevant items, which the input readers guarantee.
//
// Score may be called from several goroutines at once on different batches;
// it allocates nothing per row, and nothing at all in the steady state.
// It panics if the batch's slices disagree with its length and width.
func (e *Evaluator) Score(b *Batch, out []float64) ([]float64, error) {
	n, nk := b.Len(), len(e.keys)
	out = slices.Grow(out[:0], n*nk)[:n*nk]
	scoreRows(b, out, nk, e.scanK, e.builtin)
	if len(e.custom) == 0 {
		return out, nil
	}
	buf, _ := e.scratch.Get().(*[]float64)
	if buf == nil {
		buf = new([]float64)
	}
	defer e.scratch.Put(buf)
	for _, i := range e.custom {
		m := e.metrics[i]
		mk := len(m.Keys())
		vals := slices.Grow((*buf)[:0], n*mk)[:n*mk]
		*buf = vals
		clear(vals)
		m.Compute(b, vals)
		off := e.offset[i]
		for r := range n {
			src, dst := vals[r*mk:(r+1)*mk], out[r*nk+off:r*nk+off+mk]
			if b.Relevant[r] <= 0 {
				clear(dst)
				continue
			}
			for j, v := range src {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return out, fmt.Errorf("row %d (sample %q), key %q: %w: %v",
						b.First+int64(r), b.SampleIDs[r], e.keys[off+j], ErrBadValue, v)
				}
			}
			copy(dst, src)
		}
	}
	return out, nil
}
