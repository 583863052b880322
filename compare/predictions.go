package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// Methods recorded for comparisons of predictions.
const (
	// methodStratified is the stratified paired bootstrap: its percentile
	// interval and its bootstrap p-value.
	methodStratified = "stratified-bootstrap"
	// methodUnstratified is the same without strata (Options.Unstratified).
	methodUnstratified = "paired-bootstrap"
)

// predictionMethod is the test a metric of two evaluations of predictions
// gets: DeLong for roc_auc and McNemar for accuracy by default, the paired
// bootstrap for the rest; an explicit method must fit the metric.
func predictionMethod(metric string, method Method) (Method, error) {
	switch method {
	case "":
		switch metric {
		case "roc_auc":
			return DeLong, nil
		case "accuracy":
			return McNemar, nil
		}
		return Bootstrap, nil
	case Bootstrap:
		return Bootstrap, nil
	case DeLong:
		if metric != "roc_auc" {
			return "", fmt.Errorf("%w: DeLong's test compares AUCs (roc_auc), not %s", ErrNotApplicable, metric)
		}
		return DeLong, nil
	case McNemar:
		if metric != "accuracy" {
			return "", fmt.Errorf("%w: McNemar's test compares paired correctness (accuracy), not %s", ErrNotApplicable, metric)
		}
		return McNemar, nil
	}
	return "", fmt.Errorf("%w: evaluations of predictions are compared with bootstrap, delong (roc_auc) or mcnemar (accuracy), not %s", ErrNotApplicable, method)
}

// comparePredictions compares two evaluations of predictions on each of
// metrics, pairing their predictions once in tx. Each metric is recomputed
// on the paired samples, so the means are those of the samples both hold.
func comparePredictions(ctx context.Context, tx *store.Tx, c *Comparison, metrics []string, opts Options) ([]Method, error) {
	base, cand := c.BaselineEval, c.CandidateEval
	if base.Predictions == nil || cand.Predictions == nil {
		return nil, fmt.Errorf("%w: evaluation %d holds %s and evaluation %d %s; only two evaluations of predictions, or two of per-unit values, pair",
			ErrNotApplicable, base.ID, holds(base), cand.ID, holds(cand))
	}
	p, err := tx.PairPredictions(ctx, base.ID, cand.ID, opts.AllowDifferentTargets)
	if err != nil {
		return nil, err
	}
	if len(p.SampleIDs) == 0 {
		return nil, fmt.Errorf("%w: the evaluations share no sample", ErrNothingShared)
	}
	bi, ci := base.Predictions, cand.Predictions
	// Each metric is checked, in order, up to the first refused; the
	// bootstraps of those checked share their draws (the same ones each
	// would draw alone); then each metric is compared, in order.
	methods := make([]Method, len(metrics))
	checked, refused := 0, error(nil)
	for i, m := range metrics {
		if methods[i], refused = predictionCheck(base, cand, bi, ci, m, opts); refused != nil {
			break
		}
		checked++
	}
	boots := sharedPredictionBootstraps(ctx, p, bi, metrics[:checked], methods[:checked], opts)
	for i, m := range metrics[:checked] {
		r, err := comparePredictionMetric(ctx, c, p, m, methods[i], opts, boots)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m, err)
		}
		c.Metrics = append(c.Metrics, r)
	}
	if refused != nil {
		return nil, refused
	}
	return methods, nil
}

// predictionCheck refuses a metric the two evaluations of predictions
// cannot be compared on, and returns the method that compares them.
func predictionCheck(base, cand *store.Evaluation, bi, ci *store.PredictionInfo, m string, opts Options) (Method, error) {
	for _, e := range []*store.Evaluation{base, cand} {
		if _, ok := e.Aggregates[m]; !ok {
			return "", fmt.Errorf("%w: evaluation %d has no %q (it has %v)", store.ErrUnknownMetric, e.ID, m, e.Metrics)
		}
	}
	if bi.Task == store.TaskBinary && usesThreshold(m) && bi.Threshold != ci.Threshold {
		return "", fmt.Errorf("%s: %w: the evaluations were logged at thresholds %g and %g; log both at one --threshold to compare %s",
			m, ErrNotApplicable, bi.Threshold, ci.Threshold, m)
	}
	if m == "ece" && bi.Bins != ci.Bins {
		return "", fmt.Errorf("%s: %w: the evaluations were logged with %d and %d bins; log both with one --bins to compare ece",
			m, ErrNotApplicable, bi.Bins, ci.Bins)
	}
	method, err := predictionMethod(m, opts.Method)
	if err != nil {
		return "", fmt.Errorf("%s: %w", m, err)
	}
	return method, nil
}

// bootOutcome is a classifier bootstrap's result or error.
type bootOutcome struct {
	res classify.BootstrapResult
	err error
}

// sharedPredictionBootstraps runs the bootstraps the metrics' methods
// read (the metric's own for the bootstrap, accuracy's for McNemar's
// interval) at once, sharing their draws: by name, each the result the
// bootstrap gives alone.
func sharedPredictionBootstraps(ctx context.Context, p *store.PredictionPairs, info *store.PredictionInfo, metrics []string, methods []Method, opts Options) map[string]bootOutcome {
	var names []string
	for i, m := range metrics {
		switch methods[i] {
		case Bootstrap:
		case McNemar:
			m = "accuracy"
		default:
			continue
		}
		if !slices.Contains(names, m) {
			names = append(names, m)
		}
	}
	res, errs := classify.PairedBootstrapsOf(names, p.Labels, p.LeftScores, p.RightScores, p.K, predictionBootstrap(ctx, info, opts))
	out := make(map[string]bootOutcome, len(names))
	for i, m := range names {
		out[m] = bootOutcome{res[i], errs[i]}
	}
	return out
}

func holds(e *store.Evaluation) string {
	if e.Predictions != nil {
		return "predictions"
	}
	return "per-unit values"
}

func usesThreshold(metric string) bool {
	switch metric {
	case "accuracy", "precision", "recall", "f1":
		return true
	}
	return false
}

// comparePredictionMetric runs method on one metric of paired predictions.
func comparePredictionMetric(ctx context.Context, c *Comparison, p *store.PredictionPairs, metric string, method Method, opts Options, boots map[string]bootOutcome) (*MetricResult, error) {
	info := c.BaselineEval.Predictions
	binary := info.Task == store.TaskBinary
	r := &MetricResult{
		Metric: metric, Baseline: c.Baseline, Candidate: c.Candidate,
		N: len(p.SampleIDs), BaselineOnly: p.LeftOnly, CandidateOnly: p.RightOnly,
		Alpha:     opts.alpha(),
		Direction: DirectionOf(metric, c.BaselineEval.LowerIsBetter, c.CandidateEval.LowerIsBetter),
	}
	r.LowerIsBetter = r.Direction.Lower()
	// sharedPredictionBootstraps ran every bootstrap the methods read.
	boot := func(metric string) (classify.BootstrapResult, error) {
		b, ok := boots[metric]
		if !ok {
			panic("compare: no bootstrap of " + metric + " was run")
		}
		return b.res, b.err
	}
	bootLabel := methodStratified
	if opts.Unstratified {
		bootLabel = methodUnstratified
	}
	switch method {
	case Bootstrap:
		b, err := boot(metric)
		if err != nil {
			return nil, bootstrapError(err)
		}
		r.Method = bootLabel
		r.BaselineMean, r.CandidateMean = b.Left, b.Right
		r.Difference = b.Interval()
		r.PValue, r.Bootstrap = b.PValue, &b
	case DeLong:
		y := make([]float64, len(p.Labels))
		for i, l := range p.Labels {
			y[i] = float64(l)
		}
		d, err := stats.DeLong(y, p.LeftScores, p.RightScores, stats.DeLongOptions{Confidence: opts.confidence()})
		if err != nil {
			return nil, err
		}
		r.Method = string(DeLong)
		r.BaselineMean, r.CandidateMean = d.AUCLeft, d.AUCRight
		r.Difference = stats.Interval{Estimate: d.Diff, Low: d.CILow, High: d.CIHigh, Confidence: opts.confidence()}
		r.PValue, r.DeLong = d.PValue, &d
		r.Statistic = statistic("z", d.Z, math.NaN())
	case McNemar:
		left, right := correctness(p, info, p.LeftScores), correctness(p, info, p.RightScores)
		m, err := stats.McNemar(left, right, stats.McNemarOptions{})
		if err != nil {
			return nil, err
		}
		b, err := boot("accuracy")
		if err != nil {
			return nil, bootstrapError(err)
		}
		r.Method = "mcnemar+" + bootLabel + "-interval"
		r.BaselineMean, r.CandidateMean = b.Left, b.Right
		r.Difference = b.Interval()
		r.PValue, r.McNemar = m.PValue, &m
		name := "chi2"
		if m.Mode == stats.McNemarExact {
			name = "b"
		}
		r.Statistic = statistic(name, m.Statistic, math.NaN())
		for i := range left {
			switch {
			case right[i] > left[i]:
				r.CandidateBetter++
			case right[i] < left[i]:
				r.CandidateWorse++
			default:
				r.Same++
			}
		}
	default:
		return nil, invalidf("method %q", method)
	}
	if r.Bootstrap != nil {
		hintFromSE(r, r.Bootstrap.SE)
		attainable(r, method, opts.resamples())
	}
	if r.McNemar != nil && r.N > 0 {
		// Per-sample correctness is a per-unit value: its effect sizes are
		// those of accuracy, without an interval (the classifier
		// bootstrap draws its own way).
		left, right := correctness(p, info, p.LeftScores), correctness(p, info, p.RightScores)
		if dz, err := stats.EffectSizeDz(left, right); err == nil && !math.IsNaN(dz) {
			r.EffectSizeDz = &dz
		}
		ps := (float64(r.CandidateBetter) + float64(r.Same)/2) / float64(r.N)
		r.ProbSuperiority = &ps
	}
	if a := oneSidedAlpha(r, opts); a > 0 && r.Bootstrap != nil || a > 0 && r.McNemar != nil {
		// The same seed draws the same replicates: their quantiles at
		// the one-sided level.
		one := opts
		one.Confidence = 1 - 2*a
		bm := metric
		if r.McNemar != nil {
			bm = "accuracy"
		}
		b, err := classify.PairedBootstrapOf(bm, p.Labels, p.LeftScores, p.RightScores, p.K, predictionBootstrap(ctx, info, one))
		if err != nil {
			return nil, bootstrapError(err)
		}
		iv := b.Interval()
		marginFromInterval(r, &iv, marginBootstrap, opts)
	}
	if r.DeLong != nil {
		marginFromNormal(r, r.Difference, opts)
	}
	shape := dataShape{method: method, metric: metric, n: r.N, predictions: true}
	if binary {
		pos := 0
		for _, l := range p.Labels {
			pos += int(l)
		}
		shape.positives = min(pos, r.N-pos)
	}
	warn(r, shape)
	return r, nil
}

// predictionBootstrap is the classifier bootstrap the options ask for, at
// the threshold and bins the predictions were logged with.
func predictionBootstrap(ctx context.Context, info *store.PredictionInfo, opts Options) classify.BootstrapOptions {
	return classify.BootstrapOptions{
		Options:      classify.Options{Threshold: info.Threshold, Bins: info.Bins},
		Unstratified: opts.Unstratified,
		BootstrapOptions: stats.BootstrapOptions{
			Confidence: opts.confidence(), Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx,
		},
	}
}

// correctness is 1 for each paired sample that scores predicts right, else
// 0: a binary score at or above the threshold predicts the positive class,
// and a multi-class row predicts its most probable class (the first of
// equals).
func correctness(p *store.PredictionPairs, info *store.PredictionInfo, scores []float64) []float64 {
	out := make([]float64, len(p.Labels))
	for i, l := range p.Labels {
		var predicted int32
		if info.Task == store.TaskBinary {
			if scores[i] >= info.Threshold {
				predicted = 1
			}
		} else {
			predicted = int32(classify.Argmax(scores[i*p.K : (i+1)*p.K]))
		}
		if predicted == l {
			out[i] = 1
		}
	}
	return out
}

// bootstrapError marks a metric that is undefined on the paired samples
// (one class) as not applicable.
func bootstrapError(err error) error {
	if errors.Is(err, classify.ErrSingleClass) {
		return fmt.Errorf("%w: %w", ErrNotApplicable, err)
	}
	return err
}

// predictionRows is leaderboardRows for evaluations of predictions: each
// shown run is paired with the reference by sample ID, its metric gets the
// stratified bootstrap interval, and its difference to the reference the
// stratified paired bootstrap's interval and p-value, on the same draws.
func predictionRows(ctx context.Context, st *store.Store, ranked []store.RunMean, shown []int, ref int, metric string, opts Options) ([]LeaderboardRow, error) {
	rows := make([]LeaderboardRow, len(shown))
	for k, i := range shown {
		row, err := predictionEntry(ctx, st, &ranked[ref], &ranked[i], metric, opts)
		if err != nil {
			return nil, err
		}
		row.Rank = i + 1
		rows[k] = row
	}
	return rows, nil
}

// predictionEntry is leaderboardEntry for an evaluation of predictions.
func predictionEntry(ctx context.Context, st *store.Store, ref, e *store.RunMean, metric string, opts Options) (LeaderboardRow, error) {
	row := LeaderboardRow{Run: e.Run, EvaluationID: e.EvaluationID, Units: e.Units, LoggedAt: e.CreatedAt}
	refID := e.EvaluationID
	if ref != nil {
		refID = ref.EvaluationID
	}
	p, err := st.PairPredictions(ctx, refID, e.EvaluationID, false)
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, err)
	}
	bo := predictionBootstrap(ctx, p.Left.Predictions, opts)
	one, err := classify.Bootstrap(metric, p.Labels, p.RightScores, p.K, bo)
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, bootstrapError(err))
	}
	row.Mean = stats.Interval{Estimate: one.Left, Low: one.Low, High: one.High, Confidence: one.Confidence}
	if ref == nil || refID == e.EvaluationID {
		row.SameGroup = ref != nil
		return row, nil
	}
	b, err := classify.PairedBootstrapOf(metric, p.Labels, p.LeftScores, p.RightScores, p.K, bo)
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, bootstrapError(err))
	}
	d := b.Interval()
	row.Difference, row.PValue = &d, &b.PValue
	return row, nil
}
