package compare

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// DiffQuery is what Diff is asked for.
type DiffQuery struct {
	Metric string
	// N is how many units to list; 0 means 10.
	N int
	// Best lists the units where the candidate did best; otherwise those
	// where it did worst.
	Best                  bool
	AllowDifferentTargets bool
	// Pairs keeps every pair in DiffResult.All, for --out and a histogram.
	// Without it, a distributed database lists the units and ranks the
	// differences on its workers, and All is nil.
	Pairs bool
}

// DiffRow is one unit's values and their difference, baseline − candidate.
type DiffRow struct {
	SampleID   string  `json:"sample_id"`
	Baseline   float64 `json:"baseline"`
	Candidate  float64 `json:"candidate"`
	Difference float64 `json:"difference"`
}

// DiffQuantiles are the probabilities of DiffResult.Quantiles, between the
// minimum and the maximum.
var DiffQuantiles = []float64{0.05, 0.25, 0.5, 0.75, 0.95}

// shareFloor is how large the net difference must be, relative to the sum
// of the absolute differences, for a share of it to mean something: below
// 1 %, gains and losses all but cancel and any share is noise.
const shareFloor = 0.01

// DiffResult is the per-unit drill-down of two evaluations on one metric.
type DiffResult struct {
	Metric    string `json:"metric"`
	Baseline  string `json:"baseline"`
	Candidate string `json:"candidate"`
	// Units counts the paired units.
	Units           int `json:"n"`
	CandidateBetter int `json:"candidate_better"`
	CandidateWorse  int `json:"candidate_worse"`
	Same            int `json:"same"`
	// Quantiles of the per-unit differences (baseline − candidate): the
	// minimum, DiffQuantiles, the maximum. A q-quantile is the smallest
	// difference with at least a fraction q of the differences at or below
	// it (the inverse of the empirical distribution function, without
	// interpolation).
	Quantiles []float64 `json:"difference_quantiles_min_5_25_50_75_95_max"`
	// Top are the units listed: where the candidate did worst (or best),
	// for the metric's direction.
	Top             []DiffRow `json:"top"`
	TopDifference   float64   `json:"top_difference"`
	TotalDifference float64   `json:"total_difference"`
	// Share is TopDifference / TotalDifference, or nil when the total is
	// under 1 % of the summed absolute differences: gains and losses then
	// all but cancel, and a share of almost nothing means nothing.
	Share *float64 `json:"share_of_total"`

	// All holds every pair in sample ID order, for export, when the query
	// asked for them (DiffQuery.Pairs) or they were read anyway.
	All       []DiffRow         `json:"-"`
	Best      bool              `json:"-"`
	Direction Direction         `json:"-"`
	BaseEval  *store.Evaluation `json:"-"`
	CandEval  *store.Evaluation `json:"-"`
}

// Diff pairs two evaluations unit by unit on q.Metric and finds the units
// that moved most: each unit's mean value on either side, the difference
// baseline − candidate, counts of units where the candidate is better,
// worse or the same for the metric's direction, and quantiles of the
// differences.
func Diff(ctx context.Context, st *store.Store, base, cand *store.Evaluation, q DiffQuery) (*DiffResult, error) {
	if q.Metric == "" {
		return nil, invalidf("name the metric to drill into")
	}
	n := q.N
	if n <= 0 {
		n = 10
	}
	dir := DirectionOf(q.Metric, base.LowerIsBetter, cand.LowerIsBetter)
	res := &DiffResult{Metric: q.Metric, Baseline: base.Run, Candidate: cand.Run,
		Best: q.Best, Direction: dir, BaseEval: base, CandEval: cand}
	if base.Run == cand.Run {
		res.Baseline, res.Candidate = evaluationName(base), evaluationName(cand)
	}
	if !q.Pairs && store.OneRowPerUnit(base, cand) {
		distributed, err := st.Distributed(ctx)
		if err != nil {
			return nil, err
		}
		if distributed || diffLimitsOf(ctx).oneServer {
			gross, ok, err := diffOnWorkers(ctx, st, res, q, n)
			if err != nil {
				return nil, err
			}
			if ok {
				res.share(gross)
				return res, nil
			}
		}
	}
	p, err := st.Pair(ctx, base.ID, cand.ID, q.Metric, q.AllowDifferentTargets)
	if err != nil {
		return nil, err
	}
	if len(p.SampleIDs) == 0 {
		return nil, nothingShared(base, cand)
	}
	res.Units = len(p.SampleIDs)
	res.All = make([]DiffRow, len(p.SampleIDs))
	diffs := make([]float64, len(p.SampleIDs))
	bs, cs := make([]float64, len(p.SampleIDs)), make([]float64, len(p.SampleIDs))
	for i, id := range p.SampleIDs {
		b, c := p.LeftSum[i]/float64(p.LeftRows[i]), p.RightSum[i]/float64(p.RightRows[i])
		if equalWithinStorage(b, c) {
			c = b
		}
		res.All[i] = DiffRow{SampleID: id, Baseline: b, Candidate: c, Difference: b - c}
		diffs[i], bs[i], cs[i] = b-c, b, c
		switch {
		case dir.Better(c, b):
			res.CandidateBetter++
		case dir.Better(b, c):
			res.CandidateWorse++
		default:
			res.Same++
		}
	}
	// Worst first: the smallest gain of the candidate over the baseline.
	order := slices.Clone(res.All)
	slices.SortStableFunc(order, func(a, b DiffRow) int {
		ga, gb := dir.Gain(-a.Difference), dir.Gain(-b.Difference)
		if q.Best {
			ga, gb = -ga, -gb
		}
		switch {
		case ga < gb:
			return -1
		case ga > gb:
			return 1
		}
		return 0
	})
	res.Top = order[:min(n, len(order))]
	var gross float64
	res.TotalDifference, gross = stats.DifferenceSums(bs, cs)
	slices.Sort(diffs)
	res.Quantiles = append(res.Quantiles, diffs[0])
	for _, q := range DiffQuantiles {
		res.Quantiles = append(res.Quantiles, stat.Quantile(q, stat.Empirical, diffs, nil))
	}
	res.Quantiles = append(res.Quantiles, diffs[len(diffs)-1])
	res.share(gross)
	return res, nil
}

// share sums the listed units' differences and sets their share of the
// total, whose units' absolute differences sum to gross.
func (res *DiffResult) share(gross float64) {
	for _, r := range res.Top {
		res.TopDifference += r.Difference
	}
	if math.Abs(res.TotalDifference) >= shareFloor*gross && res.TotalDifference != 0 {
		s := res.TopDifference / res.TotalDifference
		res.Share = &s
	}
}

// nothingShared is the error of two evaluations with no unit in common.
func nothingShared(base, cand *store.Evaluation) error {
	return fmt.Errorf("%w: evaluations %d and %d share no unit", ErrNothingShared, base.ID, cand.ID)
}
