package compare_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
)

// TestDecideAtItsEdges puts each half of the rule exactly on its edge,
// through Scores, so that the rule as compare applies it is pinned and not
// only as package stats writes it.
//
// The p-value: on 30 units that all differ by +0.25 no sign flip but the
// observed one is as extreme, so the randomisation test's p is
// (0 + 1)/(B + 1): with B = 19 resamples exactly 1/20 = 0.05, and with
// B = 39 exactly 1/40 = 0.025. Every bootstrap replicate's mean is 0.25,
// so the interval is [0.25, 0.25], which excludes zero, and p decides
// alone: a p equal to alpha is not below it, the same p below a larger
// alpha is.
//
// The interval: on 20 units, 3 of which differ by 0.25 and 17 not at all,
// a bootstrap replicate draws none of the 3 with probability
// (17/20)²⁰ = 0.039, above the 0.025 a 95 % percentile interval cuts off,
// so one bound of the interval is exactly zero. The sign-flip p is about
// 2/8 = 0.25 (only the two vectors that give the 3 units one sign are as
// extreme), below alpha 0.5: the interval decides alone, and a bound at
// zero does not exclude zero.
func TestDecideAtItsEdges(t *testing.T) {
	t.Parallel()
	constant := func() (map[string]float64, map[string]float64) {
		a, b := map[string]float64{}, map[string]float64{}
		for i := range 30 {
			id := fmt.Sprintf("u%02d", i)
			a[id] = 0.5 + 0.01*float64(i%7)
			b[id] = a[id] - 0.25
		}
		return a, b
	}
	threeOf20 := func() (map[string]float64, map[string]float64) {
		a, b := map[string]float64{}, map[string]float64{}
		for i := range 20 {
			id := fmt.Sprintf("u%02d", i)
			a[id], b[id] = 0.5, 0.5
			if i < 3 {
				b[id] = 0.25
			}
		}
		return a, b
	}
	type data func() (map[string]float64, map[string]float64)
	swap := func(d data) data {
		return func() (map[string]float64, map[string]float64) { a, b := d(); return b, a }
	}
	tests := []struct {
		name      string
		data      data
		dir       compare.Direction
		resamples int
		alpha     float64
		// wantP is the p-value exactly, or 0 where it is a Monte Carlo
		// estimate; wantLow and wantHigh the interval's bounds exactly.
		wantP, wantLow, wantHigh float64
		pBelow, excludes         bool
		winner                   compare.Side
		// sentence is the verdict's start, and clause what it says of
		// the halves of the rule.
		sentence, clause string
	}{
		{
			name: "p equal to alpha", data: constant, resamples: 19, alpha: 0.05,
			wantP: 1.0 / 20, wantLow: 0.25, wantHigh: 0.25, excludes: true,
			sentence: "a and b are not distinguishable on m (n = 30)", clause: "which excludes zero, but p = 0.050 is not below alpha 0.05.",
		},
		{
			name: "the same p below a larger alpha", data: constant, resamples: 19, alpha: 0.1,
			wantP: 1.0 / 20, wantLow: 0.25, wantHigh: 0.25, pBelow: true, excludes: true, winner: compare.Baseline,
			sentence: "a beats b on m by 0.250 (95% CI 0.250 to 0.250, p = 0.050, n = 30)", clause: "the interval excludes zero and p is below alpha 0.1.",
		},
		{
			name: "the same p below a larger alpha, lower is better", data: constant, dir: compare.LowerIsBetter, resamples: 19, alpha: 0.1,
			wantP: 1.0 / 20, wantLow: 0.25, wantHigh: 0.25, pBelow: true, excludes: true, winner: compare.Candidate,
			sentence: "b beats a on m by 0.250 (lower is better; 95% CI 0.250 to 0.250, p = 0.050, n = 30)", clause: "the interval excludes zero and p is below alpha 0.1.",
		},
		{
			name: "p equal to a smaller alpha", data: constant, resamples: 39, alpha: 0.025,
			wantP: 1.0 / 40, wantLow: 0.25, wantHigh: 0.25, excludes: true,
			sentence: "a and b are not distinguishable on m (n = 30)", clause: "which excludes zero, but p = 0.025 is not below alpha 0.025.",
		},
		{
			name: "p below alpha, negative difference", data: swap(constant), resamples: 19, alpha: 0.1,
			wantP: 1.0 / 20, wantLow: -0.25, wantHigh: -0.25, pBelow: true, excludes: true, winner: compare.Candidate,
			sentence: "b beats a on m by 0.250 (95% CI 0.250 to 0.250, p = 0.050, n = 30)", clause: "the interval excludes zero and p is below alpha 0.1.",
		},
		{
			name: "low bound at zero", data: threeOf20, alpha: 0.5,
			wantLow: 0, wantHigh: 0.075, pBelow: true,
			sentence: "a and b are not distinguishable on m (n = 20)", clause: "with a 95% CI of 0.0000 to +0.0750, which includes zero, although p = ",
		},
		{
			name: "high bound at zero", data: swap(threeOf20), alpha: 0.5,
			wantLow: -0.075, wantHigh: 0, pBelow: true,
			sentence: "a and b are not distinguishable on m (n = 20)", clause: "with a 95% CI of -0.0750 to 0.0000, which includes zero, although p = ",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, b := tt.data()
			c, err := compare.Scores(context.Background(), "m", tt.dir, compare.Named{Name: "a", Scores: a}, compare.Named{Name: "b", Scores: b},
				compare.Options{Resamples: tt.resamples, Alpha: tt.alpha, Sentence: report.Verdict})
			require.NoError(t, err)
			r := c.Metrics[0]
			if tt.wantP != 0 {
				require.Equal(t, tt.wantP, r.PValue, "(0 + 1)/(B + 1), the same division")
			}
			require.Equal(t, r.PValue, r.PAdjusted, "one metric: no adjustment")
			// The bounds are means of resampled values, exact here: 0.25
			// and 0.075 = 6·0.25/20 are sums of multiples of 2⁻² divided
			// once; zero is a sum of zeros.
			require.InDelta(t, tt.wantLow, r.Difference.Low, 1e-15)
			require.InDelta(t, tt.wantHigh, r.Difference.High, 1e-15)
			if tt.wantLow == 0 {
				require.Equal(t, 0.0, r.Difference.Low, "exactly zero")
			}
			if tt.wantHigh == 0 {
				require.Equal(t, 0.0, r.Difference.High, "exactly zero")
			}
			require.Equal(t, tt.alpha, r.Alpha)
			require.Equal(t, tt.pBelow, r.PBelowAlpha, "p %.17g, alpha %g", r.PValue, r.Alpha)
			require.Equal(t, tt.excludes, r.IntervalExcludesZero)
			require.Equal(t, tt.pBelow && tt.excludes, r.Distinguishable)
			require.Equal(t, tt.winner, r.Winner)
			require.True(t, strings.HasPrefix(r.Verdict, tt.sentence), r.Verdict)
			require.Contains(t, r.Verdict, tt.clause)
			if tt.winner == compare.Neither {
				require.NotContains(t, r.Verdict, "beats")
			}
		})
	}
}
