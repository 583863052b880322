package compare_test

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

// A run logged with its aggregates only is ranked by its mean, in the
// metric's direction, next to runs with per-unit values; the reference is
// the best of those, and nothing pairs with it. A whole-set metric, which
// no run has per unit, ranks by means alone.
func TestLeaderboardWithoutUnits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, d := range directions {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			f := setup(t, d)
			// "monitor" is better than "good" by another 0.05 on two users
			// in three, and keeps only its aggregates.
			good, err := f.st.GetEvaluation(ctx, f.good.ID)
			require.NoError(t, err)
			ids, vals := make([]string, 300), make([]float64, 300)
			for u := range ids {
				ids[u] = fmt.Sprintf("user-%03d", u)
				vals[u] = 0.2 + 0.5*float64((u*37)%100)/100
				if u%3 != 0 {
					vals[u] += map[bool]float64{false: 0.1, true: -0.1}[d.lower]
				}
			}
			ev := store.NewEvaluation{Experiment: "exp", Run: "monitor", EvalSet: "test", AggregatesOnly: true,
				WholeSet: map[string]float64{"coverage@10": 0.4}}
			if d.lower {
				ev.LowerIsBetter = []string{d.metric}
			}
			mon, err := f.st.LogEvaluation(ctx, ev, &memRows{metric: d.metric, ids: ids, vals: vals})
			require.NoError(t, err)
			require.Equal(t, good.EvalSetID, mon.EvalSetID, "the same users: the same evaluation set")

			lb, err := compare.NewLeaderboard(ctx, f.st, compare.LeaderboardQuery{Experiment: "exp", Metric: d.metric})
			require.NoError(t, err)
			runs := make([]string, len(lb.Rows))
			for i, r := range lb.Rows {
				runs[i] = r.Run
			}
			require.Equal(t, []string{"monitor", "good"}, runs[:2], "best first in the metric's direction")
			require.Equal(t, "good", lb.Reference, "the best run with per-unit values")
			m := lb.Rows[0]
			require.True(t, m.AggregatesOnly)
			require.Nil(t, m.Difference)
			require.Nil(t, m.PValue)
			require.False(t, m.IsReference())
			require.InDelta(t, mon.Aggregates[d.metric], m.Mean.Estimate, 1e-12)
			for _, r := range lb.Rows[1:] {
				require.False(t, r.AggregatesOnly, r.Run)
			}
			require.NotContains(t, lb.Group, "monitor")

			var b bytes.Buffer
			require.NoError(t, report.Leaderboard(&b, "table", lb))
			require.Contains(t, b.String(), "differences are good minus each run")
			require.Contains(t, b.String(), "(aggregates only: not paired)")
			require.Contains(t, b.String(), "ranked by the mean alone, without per-unit values to pair (aggregates only): monitor")
			fig, err := report.LeaderboardForest(lb)
			require.NoError(t, err)
			require.NotNil(t, fig)

			_, err = compare.NewLeaderboard(ctx, f.st, compare.LeaderboardQuery{Experiment: "exp", Metric: d.metric, Baseline: "monitor"})
			require.ErrorIs(t, err, store.ErrNoUnits)

			// Paired commands refuse it, and say why.
			_, err = compare.Evaluations(ctx, f.st, good, &mon.Evaluation, compare.Options{})
			require.ErrorIs(t, err, store.ErrNoUnits)
			_, err = compare.Rank(ctx, f.st, compare.RankQuery{Evaluations: []*store.Evaluation{good, f.poor, &mon.Evaluation}, Metric: d.metric})
			require.ErrorIs(t, err, store.ErrNoUnits)

			// The whole-set metric ranks by means alone.
			lb, err = compare.NewLeaderboard(ctx, f.st, compare.LeaderboardQuery{Experiment: "exp", Metric: "coverage@10"})
			require.NoError(t, err)
			require.Len(t, lb.Rows, 1)
			require.Empty(t, lb.Reference)
			require.True(t, lb.Rows[0].AggregatesOnly)
			b.Reset()
			require.NoError(t, report.Leaderboard(&b, "table", lb))
			require.Contains(t, b.String(), "no run has per-unit values of it, so runs are ranked by their means alone")
			require.False(t, slices.Contains(lb.Group, "monitor"))
		})
	}
}
