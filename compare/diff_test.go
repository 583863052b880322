package compare_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// logUnits logs one run's per-user values of one metric, lower-is-better
// when lower is set, in its own experiment.
func logUnits(t *testing.T, st *store.Store, experiment, run, metric string, lower bool, vals map[string]float64) *store.Evaluation {
	t.Helper()
	ids := slices.Sorted(maps.Keys(vals))
	r := &memRows{metric: metric}
	for _, id := range ids {
		r.ids, r.vals = append(r.ids, id), append(r.vals, vals[id])
	}
	ev := store.NewEvaluation{Experiment: experiment, Run: run, EvalSet: "test"}
	if lower {
		ev.LowerIsBetter = []string{metric}
	}
	l, err := st.LogEvaluation(context.Background(), ev, r)
	require.NoError(t, err)
	return &l.Evaluation
}

// TestDiffDirection checks, for each direction, the sign of each user's
// change (baseline − candidate), which users Diff counts as improved,
// regressed or the same, the order it lists them in, worst first and best
// first, and the words report.Diff prints next to them. Every value is a
// multiple of 1/16, exact in the single precision the store keeps, so the
// expected differences are exact too.
func TestDiffDirection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)

	// Five users: the candidate is higher for u1 and u5, lower for u2 and
	// u4, and equal for u3.
	base := map[string]float64{"u1": 0.5, "u2": 0.625, "u3": 0.375, "u4": 0.875, "u5": 0.125}
	cand := map[string]float64{"u1": 0.8125, "u2": 0.5, "u3": 0.375, "u4": 0.1875, "u5": 0.25}
	// diffs is baseline − candidate, by hand.
	diffs := map[string]float64{"u1": -0.3125, "u2": 0.125, "u3": 0, "u4": 0.6875, "u5": -0.125}

	tests := []struct {
		name       string
		metric     string
		lower      bool
		base, cand map[string]float64
		allow      bool // AllowDifferentTargets
		// wantDiff is each paired user's baseline − candidate.
		wantDiff map[string]float64
		// improved, regressed and same are the users for whom the
		// candidate is better, worse and the same, for the direction.
		improved, regressed, same []string
		// worst and best are the users in the order Diff lists them:
		// the candidate's smallest gain first, and its largest.
		worst, best []string
		// words is report.Diff's heading's direction.
		words string
	}{
		{
			name: "higher is better", metric: "ndcg@10", base: base, cand: cand, wantDiff: diffs,
			improved: []string{"u1", "u5"}, regressed: []string{"u2", "u4"}, same: []string{"u3"},
			worst: []string{"u4", "u2", "u3", "u5", "u1"}, best: []string{"u1", "u5", "u3", "u2", "u4"},
			words: "ndcg@10 (higher is better)",
		},
		{
			// The same values as a loss: a lower candidate is better, so
			// improved and regressed trade places, and so do the orders.
			name: "lower is better", metric: "logloss", lower: true, base: base, cand: cand, wantDiff: diffs,
			improved: []string{"u2", "u4"}, regressed: []string{"u1", "u5"}, same: []string{"u3"},
			worst: []string{"u1", "u5", "u3", "u2", "u4"}, best: []string{"u4", "u2", "u3", "u5", "u1"},
			words: "logloss (lower is better)",
		},
		{
			// u1 is the baseline's only and u6 the candidate's only:
			// neither is paired, counted or listed.
			name: "units on one side only", metric: "ndcg@10", allow: true,
			base:     map[string]float64{"u1": 0.5, "u2": 0.625, "u3": 0.375, "u4": 0.875},
			cand:     map[string]float64{"u2": 0.5, "u3": 0.375, "u4": 0.9375, "u6": 1},
			wantDiff: map[string]float64{"u2": 0.125, "u3": 0, "u4": -0.0625},
			improved: []string{"u4"}, regressed: []string{"u2"}, same: []string{"u3"},
			worst: []string{"u2", "u3", "u4"}, best: []string{"u4", "u3", "u2"},
			words: "ndcg@10 (higher is better)",
		},
		{
			name: "units on one side only, lower is better", metric: "mae", lower: true, allow: true,
			base:     map[string]float64{"u1": 0.5, "u2": 0.625, "u3": 0.375, "u4": 0.875},
			cand:     map[string]float64{"u2": 0.5, "u3": 0.375, "u4": 0.9375, "u6": 1},
			wantDiff: map[string]float64{"u2": 0.125, "u3": 0, "u4": -0.0625},
			improved: []string{"u2"}, regressed: []string{"u4"}, same: []string{"u3"},
			worst: []string{"u4", "u3", "u2"}, best: []string{"u2", "u3", "u4"},
			words: "mae (lower is better)",
		},
		{
			// Every user ties: nobody improved or regressed, and the
			// listing keeps sample ID order.
			name: "ties", metric: "recall@10",
			base:     map[string]float64{"u1": 0.25, "u2": 0.5, "u3": 1},
			cand:     map[string]float64{"u1": 0.25, "u2": 0.5, "u3": 1},
			wantDiff: map[string]float64{"u1": 0, "u2": 0, "u3": 0},
			same:     []string{"u1", "u2", "u3"},
			worst:    []string{"u1", "u2", "u3"}, best: []string{"u1", "u2", "u3"},
			words: "recall@10 (higher is better)",
		},
		{
			name: "ties, lower is better", metric: "logloss", lower: true,
			base:     map[string]float64{"u1": 0.25, "u2": 0.5, "u3": 1},
			cand:     map[string]float64{"u1": 0.25, "u2": 0.5, "u3": 1},
			wantDiff: map[string]float64{"u1": 0, "u2": 0, "u3": 0},
			same:     []string{"u1", "u2", "u3"},
			worst:    []string{"u1", "u2", "u3"}, best: []string{"u1", "u2", "u3"},
			words: "logloss (lower is better)",
		},
		{
			name: "one user, higher is better", metric: "ndcg@10",
			base: map[string]float64{"u1": 0.25}, cand: map[string]float64{"u1": 0.75},
			wantDiff: map[string]float64{"u1": -0.5},
			improved: []string{"u1"}, worst: []string{"u1"}, best: []string{"u1"},
			words: "ndcg@10 (higher is better)",
		},
		{
			name: "one user, lower is better", metric: "logloss", lower: true,
			base: map[string]float64{"u1": 0.25}, cand: map[string]float64{"u1": 0.75},
			wantDiff:  map[string]float64{"u1": -0.5},
			regressed: []string{"u1"}, worst: []string{"u1"}, best: []string{"u1"},
			words: "logloss (lower is better)",
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			experiment := fmt.Sprintf("diff-%d", i)
			b := logUnits(t, st, experiment, "base", tt.metric, tt.lower, tt.base)
			c := logUnits(t, st, experiment, "cand", tt.metric, tt.lower, tt.cand)
			if tt.allow {
				_, err := compare.Diff(ctx, st, b, c, compare.DiffQuery{Metric: tt.metric})
				require.ErrorIs(t, err, store.ErrNotComparable, "units on one side only need AllowDifferentTargets")
			}
			q := compare.DiffQuery{Metric: tt.metric, N: len(tt.wantDiff), AllowDifferentTargets: tt.allow}
			res, err := compare.Diff(ctx, st, b, c, q)
			require.NoError(t, err)
			require.Equal(t, tt.lower, res.Direction.Lower())
			require.Equal(t, len(tt.wantDiff), res.Units)

			// Each user's change, with its sign, and the bucket it falls in
			// for the direction.
			var improved, regressed, same []string
			require.Len(t, res.All, len(tt.wantDiff))
			for _, row := range res.All {
				want, ok := tt.wantDiff[row.SampleID]
				require.True(t, ok, "%s is not paired", row.SampleID)
				require.Equal(t, tt.base[row.SampleID], row.Baseline, row.SampleID)
				require.Equal(t, tt.cand[row.SampleID], row.Candidate, row.SampleID)
				require.InDelta(t, want, row.Difference, 0, "%s: baseline − candidate, multiples of 1/16 exactly", row.SampleID)
				gain := -row.Difference // the candidate's change, higher is better
				if tt.lower {
					gain = row.Difference
				}
				switch {
				case gain > 0:
					improved = append(improved, row.SampleID)
				case gain < 0:
					regressed = append(regressed, row.SampleID)
				default:
					same = append(same, row.SampleID)
				}
			}
			require.Equal(t, tt.improved, improved, "by hand")
			require.Equal(t, tt.regressed, regressed, "by hand")
			require.Equal(t, tt.same, same, "by hand")
			require.Equal(t, len(tt.improved), res.CandidateBetter, "improved")
			require.Equal(t, len(tt.regressed), res.CandidateWorse, "regressed")
			require.Equal(t, len(tt.same), res.Same, "same")

			ids := func(rows []compare.DiffRow) []string {
				var out []string
				for _, r := range rows {
					out = append(out, r.SampleID)
				}
				return out
			}
			require.Equal(t, tt.worst, ids(res.Top), "worst first")
			best, err := compare.Diff(ctx, st, b, c, compare.DiffQuery{Metric: tt.metric, N: len(tt.wantDiff), Best: true, AllowDifferentTargets: tt.allow})
			require.NoError(t, err)
			require.Equal(t, tt.best, ids(best.Top), "best first")
			// The first user listed worst is one the candidate made worse,
			// when there is one, and the first listed best one it made
			// better.
			if len(tt.regressed) > 0 {
				require.Contains(t, tt.regressed, res.Top[0].SampleID)
			}
			if len(tt.improved) > 0 {
				require.Contains(t, tt.improved, best.Top[0].SampleID)
			}

			// The words next to the numbers.
			var out strings.Builder
			require.NoError(t, report.Diff(&out, "table", res))
			text := out.String()
			require.True(t, strings.HasPrefix(text, tt.words+": evaluation "), text)
			require.Contains(t, text, fmt.Sprintf("%s; difference = baseline − candidate", paired(len(tt.wantDiff))))
			require.Contains(t, text, fmt.Sprintf("%s for whom the candidate did worst:", the(len(tt.wantDiff))))
			require.Contains(t, text, fmt.Sprintf("\n%s for ", these(len(tt.wantDiff))))
			require.NotContains(t, text, " 1 users")
			require.Contains(t, text, fmt.Sprintf("the candidate is better for %s, worse for %d, the same for %d\n",
				users(len(tt.improved)), len(tt.regressed), len(tt.same)))
			// The table lists the users in the order Diff gave.
			at := -1
			for _, id := range tt.worst {
				i := strings.Index(text, "\n"+id+" ")
				require.Greater(t, i, at, "%s listed out of order:\n%s", id, text)
				at = i
			}
			out.Reset()
			require.NoError(t, report.Diff(&out, "table", best))
			require.Contains(t, out.String(), fmt.Sprintf("%s for whom the candidate did best:", the(len(tt.wantDiff))))
		})
	}
}

// paired, the and these are how report.Diff counts n users, in the
// singular for one.
func paired(n int) string {
	if n == 1 {
		return "1 paired user"
	}
	return fmt.Sprintf("%d paired users", n)
}

func the(n int) string {
	if n == 1 {
		return "the user"
	}
	return fmt.Sprintf("the %d users", n)
}

func these(n int) string {
	if n == 1 {
		return "this user accounts"
	}
	return fmt.Sprintf("these %d users account", n)
}

// users is n users, as report.Diff says it.
func users(n int) string {
	if n == 1 {
		return "1 user"
	}
	return fmt.Sprintf("%d users", n)
}
