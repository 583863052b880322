package compare_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// logBinary computes the binary metrics of scores as `verdict log
// --predictions` does and logs them as run.
func logBinary(t *testing.T, st *store.Store, run string, labels []int8, scores []float64) *store.Evaluation {
	t.Helper()
	ev, err := classify.EvaluateBinary(labels, scores, classify.DefaultOptions())
	require.NoError(t, err)
	set := &store.PredictionSet{
		PredictionInfo: store.PredictionInfo{Task: store.TaskBinary, Classes: []string{"0", "1"}, Threshold: 0.5, Bins: 10},
		Metrics:        ev.Metrics, Values: ev.Values,
	}
	for i, l := range labels {
		set.SampleIDs = append(set.SampleIDs, fmt.Sprintf("s%04d", i))
		set.Labels = append(set.Labels, int32(l))
	}
	set.Scores = scores
	logged, err := st.LogPredictions(context.Background(), store.NewEvaluation{
		Experiment: "clf", Run: run, EvalSet: "test", LowerIsBetter: ev.LowerIsBetter}, set)
	require.NoError(t, err)
	return &logged.Evaluation
}

// twoClassifiers is 600 samples, 20 % positive, scored by a sharp model
// ("good": probabilities that separate the classes well) and a blurred one
// ("poor"), both calibrated-looking probabilities from a fixed seed.
func twoClassifiers() (labels []int8, good, poor []float64) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 600 {
		y := int8(0)
		if i%5 == 0 {
			y = 1
		}
		signal := float64(2*y - 1)
		z := rng.NormFloat64()
		labels = append(labels, y)
		good = append(good, 1/(1+math.Exp(-(2.0*signal+z))))
		poor = append(poor, 1/(1+math.Exp(-(0.6*signal+1.2*z+0.3*rng.NormFloat64()))))
	}
	return labels, good, poor
}

func TestComparePredictionsDefaultsPerMetric(t *testing.T) {
	t.Parallel()
	st, err := store.Open(context.Background(), storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	labels, good, poor := twoClassifiers()
	g := logBinary(t, st, "good", labels, good)
	p := logBinary(t, st, "poor", labels, poor)

	res, err := compare.Evaluations(context.Background(), st, p, g, compare.Options{
		Metrics: []string{"roc_auc", "accuracy", "log_loss", "ece"}, Record: true, Sentence: report.Verdict})
	require.NoError(t, err)
	byName := map[string]*compare.MetricResult{}
	for _, r := range res.Metrics {
		byName[r.Metric] = r
		require.NotNil(t, r.ComparisonID, r.Metric)
	}

	// roc_auc: DeLong from the stored predictions, equal to stats.DeLong
	// on the same arrays (in sample ID order, which is input order here).
	y := make([]float64, len(labels))
	for i, l := range labels {
		y[i] = float64(l)
	}
	d, err := stats.DeLong(y, poor, good, stats.DeLongOptions{Confidence: 0.95})
	require.NoError(t, err)
	auc := byName["roc_auc"]
	require.Equal(t, "delong", auc.Method)
	require.Equal(t, d.PValue, auc.PValue)
	require.Equal(t, d.AUCLeft, auc.BaselineMean)
	require.Equal(t, g.Aggregates["roc_auc"], auc.CandidateMean, "DeLong's AUC is the stored one")

	// accuracy: McNemar on correctness at the threshold, with the
	// stratified bootstrap's interval.
	acc := byName["accuracy"]
	require.Equal(t, "mcnemar+stratified-bootstrap-interval", acc.Method)
	require.Equal(t, g.Aggregates["accuracy"], acc.CandidateMean)
	require.Equal(t, len(labels), acc.CandidateBetter+acc.CandidateWorse+acc.Same)

	// log_loss and ece: the stratified bootstrap, whose result is
	// classify.PairedBootstrap's with the same seed.
	b, err := classify.PairedBootstrap("log_loss", labels, poor, good, classify.DefaultBootstrapOptions())
	require.NoError(t, err)
	ll := byName["log_loss"]
	require.Equal(t, "stratified-bootstrap", ll.Method)
	require.Equal(t, b.PValue, ll.PValue)
	require.Equal(t, b.Low, ll.Difference.Low)
	require.True(t, ll.LowerIsBetter)

	// "good" wins every metric, lower-is-better ones included, and the
	// sentence says so.
	for _, m := range []string{"roc_auc", "accuracy", "log_loss"} {
		r := byName[m]
		require.Equal(t, compare.Candidate, r.Winner, m)
		require.True(t, strings.HasPrefix(r.Verdict, "good beats poor on "+m), "%s: %s", m, r.Verdict)
	}
	require.Contains(t, ll.Verdict, "lower is better")
	require.Contains(t, ll.Verdict, "Stratified paired bootstrap")
	require.Greater(t, ll.BaselineMean, ll.CandidateMean, "the winner has the lower log loss")

	// The history records the method and the strata.
	hist, err := st.History(context.Background(), store.HistoryFilter{Experiment: "clf", Metric: "log_loss"})
	require.NoError(t, err)
	require.Len(t, hist, 1)
	require.Equal(t, "candidate", hist[0].Winner)

	// --no-stratify, and explicit methods that do not fit.
	un, err := compare.Evaluations(context.Background(), st, p, g, compare.Options{Metrics: []string{"average_precision"}, Unstratified: true})
	require.NoError(t, err)
	require.Equal(t, "paired-bootstrap", un.Metrics[0].Method)
	require.False(t, un.Metrics[0].Bootstrap.Stratified)
	_, err = compare.Evaluations(context.Background(), st, p, g, compare.Options{Metrics: []string{"brier"}, Method: compare.DeLong})
	require.ErrorIs(t, err, compare.ErrNotApplicable)
	_, err = compare.Evaluations(context.Background(), st, p, g, compare.Options{Metrics: []string{"f1"}, Method: compare.PairedT})
	require.ErrorIs(t, err, compare.ErrNotApplicable)
}

func TestComparePredictionsRefusesMixedAndDifferentLabels(t *testing.T) {
	t.Parallel()
	st, err := store.Open(context.Background(), storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	labels, good, poor := twoClassifiers()
	g := logBinary(t, st, "good", labels, good)
	flipped := append([]int8(nil), labels...)
	flipped[1] = 1
	f := logBinary(t, st, "flipped", flipped, poor)
	_, err = compare.Evaluations(context.Background(), st, g, f, compare.Options{Metrics: []string{"roc_auc"}})
	require.ErrorIs(t, err, store.ErrNotComparable)

	logged, err := st.LogEvaluation(context.Background(), store.NewEvaluation{Experiment: "clf", Run: "values", EvalSet: "test"},
		&memRows{metric: "roc_auc", ids: []string{"s0000"}, vals: []float64{1}})
	require.NoError(t, err)
	_, err = compare.Evaluations(context.Background(), st, g, &logged.Evaluation, compare.Options{Metrics: []string{"roc_auc"}})
	require.ErrorIs(t, err, compare.ErrNotApplicable)
	require.ErrorContains(t, err, "holds predictions and evaluation")
}

func TestLeaderboardOfPredictions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	labels, good, poor := twoClassifiers()
	logBinary(t, st, "poor", labels, poor)
	g := logBinary(t, st, "good", labels, good)
	for _, m := range []string{"roc_auc", "log_loss"} {
		lb, err := compare.NewLeaderboard(ctx, st, compare.LeaderboardQuery{Experiment: "clf", Metric: m})
		require.NoError(t, err, m)
		require.Len(t, lb.Rows, 2)
		require.Equal(t, "good", lb.Rows[0].Run, "%s: the better model ranks first, whatever the direction", m)
		require.Equal(t, g.Aggregates[m], lb.Rows[0].Mean.Estimate, m)
		require.Less(t, lb.Rows[0].Mean.Low, lb.Rows[0].Mean.Estimate)
		require.Greater(t, lb.Rows[0].Mean.High, lb.Rows[0].Mean.Estimate)
		require.True(t, lb.Rows[1].Distinguishable, m)
		require.Equal(t, compare.Baseline, lb.Rows[1].Better, "%s: the reference (good) is better", m)
	}
}

// TestComparePredictionsWarnsWithFewSamples compares 20 predictions, 4 of
// them positive: the calibration study found the stratified bootstrap of
// log loss liberal there (entry 10) and its AUC bootstrap too (entry 7),
// where DeLong, the default, is calibrated.
func TestComparePredictionsWarnsWithFewSamples(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	labels, good, poor := twoClassifiers()
	g := logBinary(t, st, "good", labels[:20], good[:20])
	p := logBinary(t, st, "poor", labels[:20], poor[:20])
	codes := func(method compare.Method, metric string) []string {
		res, err := compare.Evaluations(ctx, st, p, g, compare.Options{Metrics: []string{metric}, Method: method, Resamples: 200})
		require.NoError(t, err)
		var out []string
		for _, w := range res.Metrics[0].Warnings {
			out = append(out, w.Code)
			require.Equal(t, 4, w.Units)
		}
		return out
	}
	require.Equal(t, []string{"classifier-bootstrap-few-samples"}, codes("", "log_loss"))
	require.Empty(t, codes("", "roc_auc"), "DeLong is calibrated with few positives")
	require.Equal(t, []string{"auc-bootstrap-few-positives"}, codes(compare.Bootstrap, "roc_auc"))
}
