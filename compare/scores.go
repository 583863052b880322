package compare

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/verdict-ml/verdict/stats"
)

// Named is one side's per-unit scores, keyed by unit ID, under a name.
type Named struct {
	Name   string
	Scores map[string]float64
}

// Scores compares per-unit scores given directly rather than logged: the
// paired bootstrap interval and sign-flip randomisation test of
// Evaluations, on the IDs both sides have, in ID order, decided the same
// way. It records nothing. Names default to "left" and "right"; metric
// may be empty.
//
// Errors: ErrNothingShared when no ID is shared, ErrInvalid for a NaN or
// ±Inf score of a shared ID (naming it) and for bad options.
func Scores(ctx context.Context, metric string, dir Direction, baseline, candidate Named, opts Options) (*Comparison, error) {
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	c := &Comparison{Baseline: cmp.Or(baseline.Name, "left"), Candidate: cmp.Or(candidate.Name, "right")}
	var ids []string
	for id := range baseline.Scores {
		if _, ok := candidate.Scores[id]; ok {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w: %s has %d ids and %s %d, none shared", ErrNothingShared,
			c.Baseline, len(baseline.Scores), c.Candidate, len(candidate.Scores))
	}
	slices.Sort(ids)
	left, right := make([]float64, len(ids)), make([]float64, len(ids))
	for i, id := range ids {
		left[i], right[i] = baseline.Scores[id], candidate.Scores[id]
		for _, v := range []float64{left[i], right[i]} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, invalidf("the score of id %q is %v", id, v)
			}
		}
	}
	equalizeWithinStorage(left, right)
	r := &MetricResult{
		Metric: metric, Method: Bootstrap.label(), Baseline: c.Baseline, Candidate: c.Candidate,
		N: len(ids), Alpha: opts.alpha(), Direction: dir, LowerIsBetter: dir.Lower(),
		// IDs of one side only are left out, and counted.
		BaselineOnly: int64(len(baseline.Scores) - len(ids)), CandidateOnly: int64(len(candidate.Scores) - len(ids)),
	}
	units := stats.PairedUnits{LeftSum: left, RightSum: right}
	red, err := newGoUnits(ids, left, right)
	if err != nil {
		return nil, err
	}
	if err := measure(ctx, r, units, red, ids, nil, Bootstrap, opts, opts.Resampling == Poisson, nil); err != nil {
		return nil, err
	}
	hint(r, Bootstrap, red.summary().Variance)
	attainable(r, Bootstrap, opts.resamples())
	if err := effects(ctx, r, &units, red.summary().Variance, opts, nil); err != nil {
		return nil, err
	}
	shape := shapeOf(units, Bootstrap, false)
	shape.metric = metric
	warn(r, shape)
	for i := range r.Warnings {
		// Scores runs the default test alone: it has no method to switch
		// to, so its warnings say what the study measured, not what to use.
		r.Warnings[i].Alternative = ""
	}
	c.Metrics = []*MetricResult{r}
	opts.Adjust = AdjustNone
	if err := decide(c, opts); err != nil {
		return nil, err
	}
	return c, nil
}
