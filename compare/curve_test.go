package compare_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// curveValues are the per-user values of run at each of three steps:
// user i has (i+1)/8 at step 100, plus 1/8 a step after; run "wide" has
// twice the spread. Every value is a multiple of 1/16, exact in the single
// precision the store keeps, so the means are exact.
func curveValues(run string, step int) map[string]float64 {
	vals := map[string]float64{}
	for i := range 4 {
		v := float64(i+1)/8 + float64(step)/8
		if run == "wide" {
			v = float64(2*i+1)/8 + float64(step)/8
		}
		vals[fmt.Sprintf("u%d", i)] = v
	}
	return vals
}

func logStep(t *testing.T, st *store.Store, run string, step int64, vals map[string]float64) {
	t.Helper()
	r := &memRows{metric: "ndcg"}
	for i := range len(vals) {
		id := fmt.Sprintf("u%d", i)
		r.ids, r.vals = append(r.ids, id), append(r.vals, vals[id])
	}
	_, err := st.LogEvaluation(context.Background(), store.NewEvaluation{Experiment: "train", Run: run, EvalSet: "test", Step: &step}, r)
	require.NoError(t, err)
}

func TestCurve(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	for _, run := range []string{"narrow", "wide"} {
		for _, step := range []int64{300, 100, 200} { // logged out of order
			logStep(t, st, run, step, curveValues(run, int(step/100)-1))
		}
	}
	// An evaluation without a step is no point of the curve.
	r := &memRows{metric: "ndcg", ids: []string{"u0"}, vals: []float64{1}}
	_, err = st.LogEvaluation(ctx, store.NewEvaluation{Experiment: "train", Run: "narrow", EvalSet: "test"}, r)
	require.NoError(t, err)

	req := compare.CurveRequest{Experiment: "train", Runs: []string{"narrow", "wide"}, Metric: "ndcg",
		Intervals: compare.Intervals{Confidence: 0.9, Resamples: new(500), Seed: 3}}
	c, err := compare.Curve(ctx, st, req)
	require.NoError(t, err)
	require.Equal(t, "test", c.EvalSet)
	require.Equal(t, []string{"narrow", "wide"}, c.Runs)
	require.Len(t, c.Points, 6)
	// narrow at steps 100, 200, 300: means 5/16, 7/16, 9/16; wide 1/2,
	// 5/8, 3/4.
	want := []struct {
		run  string
		step int64
		mean float64
	}{{"narrow", 100, 5.0 / 16}, {"narrow", 200, 7.0 / 16}, {"narrow", 300, 9.0 / 16}, {"wide", 100, 0.5}, {"wide", 200, 0.625}, {"wide", 300, 0.75}}
	for i, w := range want {
		p := c.Points[i]
		require.Equal(t, w.run, p.Run, i)
		require.Equal(t, w.step, p.Step, i)
		require.Equal(t, w.mean, p.Mean, i)
		require.Equal(t, int64(4), p.Units)
		// The interval is the bootstrap of the per-unit values, in the
		// order the store pairs them, with the request's settings.
		pairs, err := st.Pair(ctx, p.EvaluationID, p.EvaluationID, "ndcg", false)
		require.NoError(t, err)
		boot, err := stats.Bootstrap(pairs.RightSum, stats.BootstrapOptions{Confidence: 0.9, Resamples: 500, Seed: 3})
		require.NoError(t, err)
		require.Equal(t, boot.Low, p.Low, i)
		require.Equal(t, boot.High, p.High, i)
		require.Less(t, p.Low, p.Mean)
		require.Greater(t, p.High, p.Mean)
	}
	// The wider run has the wider intervals.
	require.Greater(t, c.Points[3].High-c.Points[3].Low, c.Points[0].High-c.Points[0].Low)
	// The same seed, the same curve.
	again, err := compare.Curve(ctx, st, req)
	require.NoError(t, err)
	require.Equal(t, c.Points, again.Points)

	_, err = compare.Curve(ctx, st, compare.CurveRequest{Experiment: "train", Runs: []string{"narrow"}, Metric: "recall"})
	require.ErrorIs(t, err, compare.ErrNoEvaluations)
	require.ErrorContains(t, err, `no evaluation with a step of run "narrow" has recall; its metrics: ndcg`)
	_, err = compare.Curve(ctx, st, compare.CurveRequest{Experiment: "train", Runs: []string{"nobody"}, Metric: "ndcg"})
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = compare.Curve(ctx, st, compare.CurveRequest{Experiment: "train", Runs: []string{"narrow"}, Metric: "ndcg", Intervals: compare.Intervals{Confidence: 2}})
	require.ErrorIs(t, err, compare.ErrInvalid)
}
