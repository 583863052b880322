package compare

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// A drill-down on a distributed database that need not hold every pair
// (no --out, no histogram) leaves the pairs on the workers: the counts and
// exact sums come from one aggregate query, the units listed from each
// shard's own first N, and the quantiles from counting the differences in
// buckets, narrowing the buckets that hold a quantile's rank until they
// hold few enough units to read value by value. The numbers are the ones
// Diff computes from the pairs, bit for bit.
const (
	// diffBuckets is the number of buckets a counting pass splits a range
	// of differences into: at most that many rows a shard reach the
	// coordinator.
	diffBuckets = 1024
	// diffFetch is the most units a bucket may hold to be read value by
	// value (its distinct differences with their counts) rather than
	// split again.
	diffFetch = 1 << 16
	// diffPasses bounds the counting passes before the ranges left are
	// read value by value whatever their size.
	diffPasses = 16
)

// diffLimits are diffBuckets and diffFetch, and whether one server runs
// the workers' path too: tests change them through the context.
type diffLimits struct {
	buckets   int
	fetch     int64
	oneServer bool
}

type diffLimitsKey struct{}

func diffLimitsOf(ctx context.Context) diffLimits {
	if l, ok := ctx.Value(diffLimitsKey{}).(diffLimits); ok {
		return l
	}
	return diffLimits{buckets: diffBuckets, fetch: diffFetch}
}

// diffOnWorkers fills res (units, counts, total, listed units, quantiles)
// from the workers' reductions of the pairs and returns the sum of the
// absolute differences. ok is false, with nothing filled, when a value is
// outside fixed point: the caller pairs the units then.
func diffOnWorkers(ctx context.Context, st *store.Store, res *DiffResult, q DiffQuery, n int) (gross float64, ok bool, err error) {
	base, cand := res.BaseEval, res.CandEval
	err = st.InTx(ctx, func(tx *store.Tx) error {
		s, err := tx.SummarizeDifferences(ctx, base.ID, cand.ID, q.Metric, q.AllowDifferentTargets)
		switch {
		case err != nil:
			return err
		case s.N == 0:
			return nothingShared(base, cand)
		case s.Outside > 0:
			return nil
		}
		ok = true
		res.Units = int(s.N)
		// Greater is baseline > candidate: better for the candidate where
		// lower is better.
		res.CandidateBetter, res.CandidateWorse = int(s.Less), int(s.Greater)
		if res.Direction == LowerIsBetter {
			res.CandidateBetter, res.CandidateWorse = res.CandidateWorse, res.CandidateBetter
		}
		res.Same = res.Units - res.CandidateBetter - res.CandidateWorse
		res.TotalDifference, gross = stats.MeanOfSum(s.Sum, stats.FixedScale, 1), stats.MeanOfSum(s.SumAbs, stats.FixedScale, 1)

		// Worst first is the largest difference baseline − candidate where
		// higher is better, the smallest where lower is.
		ascending := (res.Direction == LowerIsBetter) != q.Best
		top, err := tx.TopDifferences(ctx, base.ID, cand.ID, q.Metric, q.AllowDifferentTargets, n, ascending)
		if err != nil {
			return err
		}
		res.Top = make([]DiffRow, len(top))
		for i, u := range top {
			res.Top[i] = DiffRow{SampleID: u.SampleID, Baseline: u.Left, Candidate: u.Right, Difference: u.Left - u.Right}
		}

		ranks := make([]int64, len(DiffQuantiles))
		for i, p := range DiffQuantiles {
			ranks[i] = empiricalRank(p, s.N)
		}
		within, err := differencesAtRanks(ctx, tx, res, q, s, ranks)
		if err != nil {
			return err
		}
		res.Quantiles = append(append([]float64{s.Min}, within...), s.Max)
		return nil
	})
	return gross, ok, err
}

// empiricalRank is the rank (1 for the smallest) of the p-quantile of n
// sorted values as stat.Quantile's Empirical kind takes it: the first
// whose cumulative count reaches p·n.
func empiricalRank(p float64, n int64) int64 {
	return max(1, int64(math.Ceil(p*float64(n))))
}

// differencesAtRanks returns the differences of the given ranks (1 for
// the smallest) among s's paired units.
func differencesAtRanks(ctx context.Context, tx *store.Tx, res *DiffResult, q DiffQuery, s *store.DifferenceSums, ranks []int64) ([]float64, error) {
	base, cand := res.BaseEval, res.CandEval
	limits := diffLimitsOf(ctx)
	out := make([]float64, len(ranks))
	// A span is a range of differences [lo, hi] with below units under
	// it, and the indexes of the ranks inside it, in rank order.
	type span struct {
		lo, hi float64
		below  int64
		idx    []int
	}
	all := make([]int, len(ranks))
	for i := range all {
		all[i] = i
	}
	slices.SortFunc(all, func(a, b int) int { return int(ranks[a] - ranks[b]) })
	changed := fmt.Errorf("the differences of evaluations %d and %d changed while they were read", base.ID, cand.ID)

	spans, fetch := []span{{s.Min, s.Max, 0, all}}, []span(nil)
	for pass := 0; len(spans) > 0; pass++ {
		sp := spans[0]
		spans = spans[1:]
		switch {
		case sp.lo == sp.hi:
			for _, i := range sp.idx {
				out[i] = sp.lo
			}
			continue
		case pass >= diffPasses:
			fetch = append(fetch, sp)
			continue
		}
		buckets, err := tx.DifferenceBuckets(ctx, base.ID, cand.ID, q.Metric, q.AllowDifferentTargets, sp.lo, sp.hi, limits.buckets)
		if err != nil {
			return nil, err
		}
		below, j := sp.below, 0
		for _, b := range buckets {
			first := j
			for j < len(sp.idx) && ranks[sp.idx[j]] <= below+b.N {
				j++
			}
			if in := sp.idx[first:j]; len(in) > 0 {
				next := span{b.Min, b.Max, below, in}
				switch {
				case b.Min == b.Max:
					for _, i := range in {
						out[i] = b.Min
					}
				case b.N <= limits.fetch:
					fetch = append(fetch, next)
				default:
					spans = append(spans, next)
				}
			}
			below += b.N
		}
		if j < len(sp.idx) {
			return nil, changed
		}
	}
	if len(fetch) == 0 {
		return out, nil
	}
	lo, hi := make([]float64, len(fetch)), make([]float64, len(fetch))
	for i, f := range fetch {
		lo[i], hi[i] = f.lo, f.hi
	}
	values, err := tx.DifferenceValues(ctx, base.ID, cand.ID, q.Metric, q.AllowDifferentTargets, lo, hi)
	if err != nil {
		return nil, err
	}
	for _, f := range fetch {
		cum, j := f.below, 0
		for _, v := range values {
			if v.D < f.lo || v.D > f.hi {
				continue
			}
			cum += v.N
			for ; j < len(f.idx) && ranks[f.idx[j]] <= cum; j++ {
				out[f.idx[j]] = v.D
			}
		}
		if j < len(f.idx) {
			return nil, changed
		}
	}
	return out, nil
}
