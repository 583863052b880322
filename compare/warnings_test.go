package compare_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// TestWarningsFollowTheCalibrationStudy logs pairs of evaluations shaped
// like the configurations docs/calibration.md lists as liberal, and checks
// that compare warns on each, with the study's entry and the calibrated
// alternative, and not on data the study found calibrated.
func TestWarningsFollowTheCalibrationStudy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	rng := rand.New(rand.NewPCG(5, 5))
	pair := func(name string, n int, value func(i, side int) float64) (*store.Evaluation, *store.Evaluation) {
		var out [2]*store.Evaluation
		for side := range 2 {
			ids, vals := make([]string, n), make([]float64, n)
			for i := range n {
				ids[i], vals[i] = fmt.Sprintf("u%05d", i), value(i, side)
			}
			logged, err := st.LogEvaluation(ctx, store.NewEvaluation{Experiment: name, Run: fmt.Sprint(side), EvalSet: "test"},
				&memRows{metric: "m", ids: ids, vals: vals})
			require.NoError(t, err)
			out[side] = &logged.Evaluation
		}
		return out[0], out[1]
	}
	codes := func(base, cand *store.Evaluation, method compare.Method) []string {
		res, err := compare.Evaluations(ctx, st, base, cand, compare.Options{Method: method, Resamples: 200})
		require.NoError(t, err)
		var out []string
		for _, w := range res.Metrics[0].Warnings {
			out = append(out, w.Code)
			require.Contains(t, report.WarningText(w), fmt.Sprintf("entry %d; docs/%s", w.Entry, w.Figure))
		}
		return out
	}

	// 15 users of ndcg-like values: the percentile interval is short
	// (entry 1); the t interval is the alternative.
	a, b := pair("small", 15, func(int, int) float64 { return rng.Float64() })
	require.Equal(t, []string{"short-interval"}, codes(a, b, ""))
	require.Empty(t, codes(a, b, compare.PairedT))

	// 200 users: nothing to warn of with the default; Wilcoxon's p-value
	// is not a test of means (entry 3).
	a, b = pair("wide", 200, func(int, int) float64 { return rng.Float64() })
	require.Empty(t, codes(a, b, ""))
	require.Equal(t, []string{"wilcoxon-not-means"}, codes(a, b, compare.Wilcoxon))

	// 20 users of 0/1 values of which 3 differ (entries 1 and 8).
	a, b = pair("ties", 20, func(i, side int) float64 {
		if i < 3 {
			return float64(side)
		}
		return float64(i % 2)
	})
	require.Equal(t, []string{"short-interval", "few-differing-units"}, codes(a, b, ""))
	res, err := compare.Evaluations(ctx, st, a, b, compare.Options{Resamples: 200})
	require.NoError(t, err)
	require.Contains(t, report.WarningText(res.Metrics[0].Warnings[1]), "only 3 units differ")
}

// TestScoresSayTheIntervalsCoverage: scores given directly (verdict stats
// compare) on 15 users get the short-interval warning the study's entry 1
// gives compare, worded with the coverage measured, and no method to
// switch to, which stats compare has not; 200 users get none.
func TestScoresSayTheIntervalsCoverage(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 15))
	named := func(n int) (compare.Named, compare.Named) {
		l, r := compare.Named{Scores: map[string]float64{}}, compare.Named{Scores: map[string]float64{}}
		for i := range n {
			id := fmt.Sprintf("u%03d", i)
			x := rng.Float64()
			l.Scores[id], r.Scores[id] = x, x+0.03+0.05*rng.NormFloat64()
		}
		return l, r
	}
	l, r := named(15)
	c, err := compare.Scores(context.Background(), "ndcg", compare.HigherIsBetter, l, r, compare.Options{})
	require.NoError(t, err)
	ws := c.Metrics[0].Warnings
	require.Len(t, ws, 1)
	require.Equal(t, "short-interval", ws[0].Code)
	require.Equal(t, 15, ws[0].Units)
	require.Empty(t, ws[0].Alternative)
	text := report.WarningText(ws[0])
	require.Contains(t, text, "with about 15 effective units, the bootstrap percentile interval held the true difference in as few as 87 % of the calibration study's data sets, not 95 %")
	require.NotContains(t, text, "--method")
	// JSON carries the words beside the code, for a script to show.
	var b strings.Builder
	require.NoError(t, report.WriteJSON(&b, c.Metrics))
	require.Contains(t, b.String(), `"text": "with about 15 effective units, the bootstrap percentile interval held`)

	l, r = named(200)
	c, err = compare.Scores(context.Background(), "ndcg", compare.HigherIsBetter, l, r, compare.Options{})
	require.NoError(t, err)
	require.Empty(t, c.Metrics[0].Warnings)
}
