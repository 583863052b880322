package compare_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// TestLeaderboardAdjustedPDecides checks that a leaderboard decides each
// run with its p Holm-adjusted across the runs, at the alpha asked for.
//
// Four runs on the same 30 users: "best", the reference; "far" and
// "near", worse than best by 1/4 and 1/8 on every user; and "same", equal
// to best. With every
// difference the same, no sign flip but the identity (and its mirror,
// 2 of 2³⁰) is as extreme, so with B = 39 resamples the sign-flip p of far
// and of near is exactly (0 + 1)/(39 + 1) = 1/40 = 0.025, below alpha 0.05,
// and every bootstrap replicate of the difference is that constant gap, so
// the interval excludes zero. same's p is 1. Holm across the three,
// p̃₍ᵢ₎ = max_{j≤i} min(1, (m − j + 1)·p₍ⱼ₎), gives far and near
// 3·0.025 = 0.075: not below 0.05, so nothing is told apart from best, but
// below 0.1, where both are. Values are multiples of 1/64, exact in the
// single precision the store keeps.
func TestLeaderboardAdjustedPDecides(t *testing.T) {
	t.Parallel()
	const (
		// pTol is rounding in (m − j + 1)·p of numbers exact in binary
		// but for the last bit.
		pTol    = 1e-15
		rawP    = 1.0 / 40
		holmP   = 3 * rawP
		sameP   = 1.0
		units   = 30
		samples = 39
	)
	for _, d := range directions {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
			require.NoError(t, err)
			t.Cleanup(st.Close)
			// worse moves a value by gap in the metric's worse direction.
			worse := func(v, gap float64) float64 {
				if d.lower {
					return v + gap
				}
				return v - gap
			}
			runs := map[string]float64{"best": 0, "far": 0.25, "near": 0.125, "same": 0}
			for _, run := range []string{"best", "far", "near", "same"} {
				vals := map[string]float64{}
				for u := range units {
					vals[fmt.Sprintf("u%02d", u)] = worse(0.5+float64(u%7)/64, runs[run])
				}
				logUnits(t, st, "lb", run, d.metric, d.lower, vals)
			}

			for _, tt := range []struct {
				alpha float64
				// told is whether far and near are told apart from best.
				told bool
			}{
				{alpha: 0.05, told: false},
				{alpha: 0.1, told: true},
			} {
				lb, err := compare.NewLeaderboard(ctx, st, compare.LeaderboardQuery{Experiment: "lb", Metric: d.metric, Baseline: "best",
					Options: compare.Options{Alpha: tt.alpha, Resamples: samples}})
				require.NoError(t, err)
				require.Equal(t, "best", lb.Reference)
				require.Equal(t, d.lower, lb.LowerIsBetter)
				var order []string
				for _, r := range lb.Rows {
					order = append(order, r.Run)
				}
				require.ElementsMatch(t, []string{"best", "same"}, order[:2], "best and same tie")
				require.Equal(t, []string{"near", "far"}, order[2:], "alpha %g: worst last", tt.alpha)
				var group []string
				for _, r := range lb.Rows {
					if r.Run == "best" {
						require.True(t, r.IsReference())
						continue
					}
					require.NotNil(t, r.PValue, r.Run)
					require.NotNil(t, r.PAdjusted, r.Run)
					if r.Run == "same" {
						require.InDelta(t, sameP, *r.PValue, pTol)
						require.InDelta(t, sameP, *r.PAdjusted, pTol)
						require.False(t, r.Distinguishable)
						require.Equal(t, compare.Neither, r.Better)
						group = append(group, r.Run)
						continue
					}
					gap := runs[r.Run]
					require.InDelta(t, gap, r.Difference.Estimate*d.sign(), pTol, r.Run)
					require.InDelta(t, gap, r.Difference.Low*d.sign(), pTol, "%s: every replicate is the gap", r.Run)
					require.InDelta(t, gap, r.Difference.High*d.sign(), pTol, r.Run)
					require.InDelta(t, rawP, *r.PValue, pTol, "%s: (0 + 1)/(B + 1)", r.Run)
					require.Less(t, *r.PValue, 0.05, "%s: raw p is below either alpha", r.Run)
					require.InDelta(t, holmP, *r.PAdjusted, pTol, "%s: Holm, 3·p", r.Run)
					require.Equal(t, tt.told, r.Distinguishable, "%s at alpha %g: adjusted p %g", r.Run, tt.alpha, *r.PAdjusted)
					require.Equal(t, !tt.told, r.SameGroup, r.Run)
					if tt.told {
						require.Equal(t, compare.Baseline, r.Better, "%s: the reference, best, is better", r.Run)
					} else {
						require.Equal(t, compare.Neither, r.Better, r.Run)
						group = append(group, r.Run)
					}
				}
				slices.Sort(group)
				got := slices.Clone(lb.Group)
				slices.Sort(got)
				require.Equal(t, group, got, "alpha %g: the runs that cannot be told from best", tt.alpha)
			}
		})
	}
}

// sign is +1 for a higher-is-better metric and −1 for a lower-is-better
// one: the sign of reference − run when the reference is better.
func (d direction) sign() float64 {
	if d.lower {
		return -1
	}
	return 1
}
