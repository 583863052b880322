package compare

import (
	"cmp"
	"context"
	"math"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// hintPower is the power at which a comparison sizes the sample a gap of
// the observed size would need.
const hintPower = 0.8

// conclude finishes a comparison in the transaction that paired it: it
// spends the experiment's online FDR wealth (Options.FDR), decides each
// metric, and records each with its method, methodOf(i) for metric i.
func conclude(ctx context.Context, tx *store.Tx, c *Comparison, opts Options, methodOf func(int) Method) error {
	if opts.FDR != nil {
		if err := spendFDR(ctx, tx, c, opts.FDR); err != nil {
			return err
		}
	}
	if err := decide(c, opts); err != nil {
		return err
	}
	if !opts.Record {
		return nil
	}
	for i, r := range c.Metrics {
		id, err := tx.RecordComparison(ctx, record(c.BaselineEval, c.CandidateEval, r, opts, methodOf(i)))
		if err != nil {
			return err
		}
		r.ComparisonID = &id
	}
	return nil
}

// decide adjusts the p-values across the metrics, decides each metric,
// names the winner for its direction, sizes the hint and writes the
// sentence.
func decide(c *Comparison, opts Options) error {
	metrics := make([]string, len(c.Metrics))
	for i, r := range c.Metrics {
		metrics[i] = r.Metric
	}
	if err := checkMargins(opts, metrics); err != nil {
		return err
	}
	adj := opts.Adjust.resolve(len(c.Metrics))
	if opts.FDR != nil {
		adj = AdjustNone // the online procedure sees every test
	}
	for _, r := range c.Metrics {
		r.PAdjusted = r.PValue
	}
	if adj != AdjustNone {
		ps := make([]float64, len(c.Metrics))
		for i, r := range c.Metrics {
			ps[i] = r.PValue
		}
		res, err := stats.AdjustPValues(ps, stats.AdjustMethod(adj))
		if err != nil {
			return err
		}
		for i, r := range c.Metrics {
			r.PAdjusted, r.Adjustment, r.AdjustedN = res.Adjusted[i], string(adj), len(ps)
		}
	}
	for _, r := range c.Metrics {
		d := stats.Decide(r.PAdjusted, r.Alpha, r.Difference)
		r.Distinguishable, r.PBelowAlpha, r.IntervalExcludesZero = d.Distinguishable, d.PBelowAlpha, d.ExcludesZero
		r.Winner = Neither
		if d.Distinguishable {
			// Difference is baseline − candidate.
			if r.Direction.Gain(r.Difference.Estimate) > 0 {
				r.Winner = Baseline
			} else {
				r.Winner = Candidate
			}
		}
		decideMargin(r)
		if opts.Sentence != nil {
			r.Verdict = opts.Sentence(c, r)
		}
	}
	return nil
}

// hint sizes the sample a gap of the observed size would need: the paired
// test's normal approximation n = (z_{1−α/2} + z_{0.8})²·Var(d)/δ², with
// Var(d) the observed variance of the per-unit differences (from
// variance), rounded up to two significant figures. It is an order of
// magnitude, not a count.
func hint(r *MetricResult, method Method, variance func() (float64, error)) {
	r.NRequired, r.Hint = nil, HintNone
	if !method.hasHint() {
		return
	}
	scale := (math.Abs(r.BaselineMean) + math.Abs(r.CandidateMean)) / 2
	if math.Abs(r.BaselineMean-r.CandidateMean) <= float32Resolution*scale || r.Difference.Estimate == 0 {
		r.Hint = HintEqualMeans
		return
	}
	v, err := variance()
	if err != nil || !(v > 0) {
		r.Hint = HintNoVariance
		return
	}
	size, err := stats.SampleSize(stats.SampleSizeOptions{Delta: r.Difference.Estimate, Alpha: r.Alpha, Power: hintPower, Variance: v})
	if err != nil { // past 2³¹ units: delta, alpha and power are in range here
		r.Hint = HintTooLarge
		return
	}
	n := twoSignificant(size.N)
	r.NRequired, r.Hint = &n, HintCount
}

// hintFromSE sizes the sample for a comparison whose test is a bootstrap
// of a whole-set metric (a metric of predictions): with the bootstrap's
// standard error se of the difference at the current n units, the
// variance per unit is about n·se², so
//
//	n_required ≈ n·(z_{1−α/2} + z_{0.8})²·se²/δ²
//
// with δ the observed difference, rounded up to two significant figures.
// It takes the whole-set metric to scale as a mean does, which is an
// order of magnitude, not a count.
func hintFromSE(r *MetricResult, se float64) {
	r.NRequired, r.Hint = nil, HintNone
	scale := (math.Abs(r.BaselineMean) + math.Abs(r.CandidateMean)) / 2
	if math.Abs(r.BaselineMean-r.CandidateMean) <= float32Resolution*scale || r.Difference.Estimate == 0 {
		r.Hint = HintEqualMeans
		return
	}
	if !(se > 0) || r.N < 1 {
		r.Hint = HintNoVariance
		return
	}
	v := float64(r.N) * se * se
	size, err := stats.SampleSize(stats.SampleSizeOptions{Delta: r.Difference.Estimate, Alpha: r.Alpha, Power: hintPower, Variance: v})
	if err != nil {
		r.Hint = HintTooLarge
		return
	}
	n := twoSignificant(size.N)
	r.NRequired, r.Hint = &n, HintCount
}

// attainable replaces the hint with HintUnattainable where the method's
// test cannot give a p-value below alpha at this n, whatever the values:
// the exact Wilcoxon test of few differences, McNemar's exact test of few
// discordant pairs, the sign-flip test of few differing units (or too few
// flips for alpha). resamples is the number of sign flips.
func attainable(r *MetricResult, method Method, resamples int) {
	minP := math.NaN()
	switch {
	case r.Wilcoxon != nil:
		if r.Wilcoxon.Mode == stats.WilcoxonExact {
			minP = stats.WilcoxonMinP(r.Wilcoxon.N)
		}
	case r.McNemar != nil:
		if r.McNemar.Mode == stats.McNemarExact {
			minP = stats.McNemarMinP(r.McNemar.B + r.McNemar.C)
		}
	case method == Bootstrap && r.Bootstrap == nil && r.DeLong == nil:
		// The sign-flip test: units with no difference flip nothing.
		minP = stats.SignFlipMinP(r.CandidateBetter+r.CandidateWorse, resamples)
	}
	if !(minP >= r.Alpha) || r.Hint == HintEqualMeans {
		return
	}
	r.NRequired, r.Hint, r.MinAttainableP = nil, HintUnattainable, &minP
}

// twoSignificant rounds n up to two significant figures: 3616 → 3700,
// 95 → 95, 101 → 110.
func twoSignificant(n int) int {
	step := 1
	for n/step >= 100 {
		step *= 10
	}
	return (n + step - 1) / step * step
}

// record is the history row of one metric's result.
func record(base, cand *store.Evaluation, r *MetricResult, opts Options, method Method) store.ComparisonRecord {
	winner := map[Side]string{Baseline: "left", Candidate: "right"}[r.Winner]
	rec := store.ComparisonRecord{
		LeftID: base.ID, RightID: cand.ID, Metric: r.Metric, LowerIsBetter: r.LowerIsBetter,
		Method: r.Method, Resamples: opts.resamples(), Seed: opts.Seed, Confidence: r.Difference.Confidence,
		Alpha: r.Alpha, Adjustment: r.Adjustment, N: int64(r.N), LeftOnly: r.BaselineOnly, RightOnly: r.CandidateOnly,
		LeftMean: r.BaselineMean, RightMean: r.CandidateMean, Estimate: r.Difference.Estimate,
		Low: r.Difference.Low, High: r.Difference.High, PValue: r.PValue, PAdjusted: r.PAdjusted,
		Distinguishable: r.Distinguishable, Winner: winner,
		// The history counts from the baseline's side: wins are units
		// where the baseline is better.
		Wins: int64(r.CandidateWorse), Losses: int64(r.CandidateBetter), Ties: int64(r.Same),
		Verdict: r.Verdict,
		Parameters: map[string]any{"method": string(method), "resamples": opts.resamples(), "seed": opts.Seed,
			"alpha": r.Alpha, "confidence": r.Difference.Confidence, "adjustment": r.Adjustment},
		Outputs: r,
		FDR:     fdrRecord(r),
	}
	if r.Bootstrap != nil {
		rec.Parameters["stratified"] = r.Bootstrap.Stratified
	}
	if pi := base.Predictions; pi != nil && pi.Task == store.TaskBinary {
		rec.Parameters["threshold"], rec.Parameters["bins"] = pi.Threshold, pi.Bins
	}
	if f := r.FDR; f != nil {
		rec.Parameters["fdr"] = map[string]any{"method": f.Method, "fdr": f.Alpha, "w0": opts.FDR.options().W0}
	}
	if opts.Rope != nil {
		rec.Parameters["rope"] = *opts.Rope
		rec.Parameters["decide_at"] = cmp.Or(opts.DecideAt, stats.DefaultDecideAt)
	}
	if r.Margin != nil {
		rec.Margin = r.Margin
		rec.Parameters["margin"] = *r.Margin
	}
	if r.RhoAssumed {
		rec.Parameters["rho"] = r.Rho
	}
	if r.Statistic != nil {
		v := r.Statistic.Value
		rec.Statistic = &v
	}
	if r.NRequired != nil {
		n := int64(*r.NRequired)
		rec.NRequired = &n
	}
	return rec
}
