package store_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// binarySet is four binary predictions with made-up metric values: the
// store keeps what it is given and computes no metric itself.
func binarySet() *store.PredictionSet {
	return &store.PredictionSet{
		PredictionInfo: store.PredictionInfo{Task: store.TaskBinary, Classes: []string{"0", "1"}, Threshold: 0.5, Bins: 10},
		SampleIDs:      []string{"s1", "s2", "s3", "s4"},
		Labels:         []int32{1, 0, 1, 0},
		Scores:         []float64{0.9, 0.1, 0.4, 0.35},
		Metrics:        []string{"roc_auc", "log_loss"},
		Values:         map[string]float64{"roc_auc": 0.75, "log_loss": 0.42},
	}
}

func TestLogPredictionsStoresDoublesAndPairs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	ev := newEval("clf", "a")
	ev.LowerIsBetter = []string{"log_loss"}
	a, err := s.LogPredictions(ctx, ev, binarySet())
	require.NoError(t, err)
	require.Equal(t, "labels", a.FingerprintKind)
	require.Equal(t, int64(4), a.Units)
	require.Equal(t, map[string]float64{"roc_auc": 0.75, "log_loss": 0.42}, a.Aggregates)

	got, err := s.GetEvaluation(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, &store.PredictionInfo{Task: "binary", Classes: []string{"0", "1"}, Threshold: 0.5, Bins: 10}, got.Predictions)
	require.Equal(t, []string{"log_loss"}, got.LowerIsBetter)
	// Scores keep double precision: 0.1 is not rounded to a float4.
	require.Equal(t, 0.1, storetest.Scalar[float64](t, url, `SELECT scores[1] FROM predictions WHERE evaluation_id = $1 AND sample_id = 's2'`, a.ID))
	require.Equal(t, "binary", storetest.Scalar[string](t, url, `SELECT task FROM evaluation_overview WHERE evaluation_id = $1`, a.ID))

	// The same predictions again are the same evaluation.
	again, err := s.LogPredictions(ctx, ev, binarySet())
	require.NoError(t, err)
	require.True(t, again.Existing)
	require.Equal(t, a.ID, again.ID)

	// Another model on the same labels pairs with it, by sample ID.
	other := binarySet()
	other.SampleIDs = []string{"s4", "s3", "s2", "s1"}
	other.Labels = []int32{0, 1, 0, 1}
	other.Scores = []float64{0.2, 0.7, 0.3, 0.6}
	b, err := s.LogPredictions(ctx, newEval("clf", "b"), other)
	require.NoError(t, err)
	require.Equal(t, a.EvalSetID, b.EvalSetID, "the same labels in another order are the same evaluation set")
	p, err := s.PairPredictions(ctx, a.ID, b.ID, false)
	require.NoError(t, err)
	require.Equal(t, []string{"s1", "s2", "s3", "s4"}, p.SampleIDs)
	require.Equal(t, []int32{1, 0, 1, 0}, p.Labels)
	require.Equal(t, []float64{0.9, 0.1, 0.4, 0.35}, p.LeftScores)
	require.Equal(t, []float64{0.6, 0.3, 0.7, 0.2}, p.RightScores)

	// One label changed makes another evaluation set, which does not pair.
	flipped := binarySet()
	flipped.Labels[3] = 1
	c, err := s.LogPredictions(ctx, newEval("clf", "c"), flipped)
	require.NoError(t, err)
	require.NotEqual(t, a.EvalSetID, c.EvalSetID)
	_, err = s.PairPredictions(ctx, a.ID, c.ID, false)
	require.ErrorIs(t, err, store.ErrNotComparable)
	_, err = s.PairPredictions(ctx, a.ID, c.ID, true)
	require.ErrorIs(t, err, store.ErrNotComparable)
	require.ErrorContains(t, err, `sample "s4" is labelled 0 in evaluation`)

	// Per-unit values do not pair with predictions.
	v, err := s.LogEvaluation(ctx, newEval("clf", "v"), twoMetricRows())
	require.NoError(t, err)
	_, err = s.PairPredictions(ctx, a.ID, v.ID, true)
	require.ErrorIs(t, err, store.ErrNotPredictions)
}

func TestLogPredictionsRefusesBadSetsAndWritesNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	for name, tc := range map[string]struct {
		change func(*store.PredictionSet)
		want   string
	}{
		"duplicate": {func(p *store.PredictionSet) { p.SampleIDs[2] = "s1" }, `rows 1 and 3 (sample "s1"): the sample ID appears twice`},
		"label":     {func(p *store.PredictionSet) { p.Labels[1] = 2 }, `row 2 (sample "s2"): label 2 is not a class index from 0 to 1`},
		"nan":       {func(p *store.PredictionSet) { p.Scores[3] = nan() }, `row 4 (sample "s4"): score NaN is not a finite number`},
		"empty id":  {func(p *store.PredictionSet) { p.SampleIDs[0] = "" }, `row 1`},
		"lengths":   {func(p *store.PredictionSet) { p.Scores = p.Scores[:3] }, `4 sample IDs, 4 labels and 3 scores`},
		"classes":   {func(p *store.PredictionSet) { p.Classes = []string{"no", "yes"} }, `a binary task's classes are 0 and 1`},
		"no value":  {func(p *store.PredictionSet) { p.Metrics = append(p.Metrics, "f1") }, `metric "f1" has no value`},
		"multi dup": {func(p *store.PredictionSet) {
			p.Task, p.Classes, p.Scores = store.TaskMulticlass, []string{"a", "a"}, make([]float64, 8)
		}, `class "a" appears twice`},
	} {
		p := binarySet()
		tc.change(p)
		_, err := s.LogPredictions(ctx, newEval("clf", name), p)
		require.ErrorIs(t, err, store.ErrBadInput, name)
		require.ErrorContains(t, err, tc.want, name)
	}
	require.Zero(t, storetest.Scalar[int64](t, url, `SELECT count(*) FROM evaluations`))
	require.Zero(t, storetest.Scalar[int64](t, url, `SELECT count(*) FROM pg_class WHERE relname ~ '^predictions_[0-9g]' AND relkind IN ('r', 'p')`))

	ev := newEval("clf", "x")
	ev.TargetFingerprint = "ab"
	_, err := s.LogPredictions(ctx, ev, binarySet())
	require.ErrorIs(t, err, store.ErrBadInput)
}

func TestLogPredictionsMulticlass(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	set := &store.PredictionSet{
		PredictionInfo: store.PredictionInfo{Task: store.TaskMulticlass, Classes: []string{"cat", "dog", "eel"}, Threshold: 0.3, Bins: 4},
		SampleIDs:      []string{"x", "y"},
		Labels:         []int32{2, 0},
		Scores:         []float64{0.1, 0.2, 0.7, 0.5, 0.25, 0.25},
		Metrics:        []string{"accuracy"},
		Values:         map[string]float64{"accuracy": 1},
	}
	a, err := s.LogPredictions(ctx, newEval("clf", "m"), set)
	require.NoError(t, err)
	got, err := s.GetEvaluation(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, &store.PredictionInfo{Task: "multiclass", Classes: []string{"cat", "dog", "eel"}}, got.Predictions,
		"threshold and bins belong to binary tasks")
	p, err := s.PairPredictions(ctx, a.ID, a.ID, false)
	require.NoError(t, err)
	require.Equal(t, 3, p.K)
	require.Equal(t, []float64{0.1, 0.2, 0.7, 0.5, 0.25, 0.25}, p.LeftScores)
}

func nan() float64 { return math.NaN() }
