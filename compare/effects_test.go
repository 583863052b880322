package compare_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
)

// Five units, every one better for the candidate: the sign-flip test's
// smallest p at n = 5 is 2/2⁵ = 0.0625, not below 0.05, so the result
// says so instead of sizing a sample. IDs of one side only are counted.
// By hand: d = baseline − candidate = −0.1, −0.2, −0.1, −0.3, −0.1; d̄ =
// −0.16, s² = (0.0036 + 0.0016 + 0.0036 + 0.0196 + 0.0036)/4 = 0.008,
// d_z = −0.16/√0.008 = −1.78885; P(sup) = 5/5 = 1 with a zero-width
// interval.
func TestScoresEffectsAndUnattainableHint(t *testing.T) {
	base := compare.Named{Name: "b", Scores: map[string]float64{"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.5, "e": 0.5, "x": 1, "y": 2}}
	cand := compare.Named{Name: "c", Scores: map[string]float64{"a": 0.6, "b": 0.7, "c": 0.6, "d": 0.8, "e": 0.6, "z": 3}}
	c, err := compare.Scores(context.Background(), "m", compare.HigherIsBetter, base, cand, compare.Options{Seed: 1})
	require.NoError(t, err)
	r := c.Metrics[0]
	require.Equal(t, int64(2), r.BaselineOnly)
	require.Equal(t, int64(1), r.CandidateOnly)
	require.Equal(t, compare.HintUnattainable, r.Hint)
	require.Nil(t, r.NRequired)
	require.NotNil(t, r.MinAttainableP)
	require.Equal(t, 0.0625, *r.MinAttainableP)
	require.False(t, r.Distinguishable)
	require.NotNil(t, r.EffectSizeDz)
	require.InDelta(t, -0.16/math.Sqrt(0.008), *r.EffectSizeDz, 1e-6)
	require.Equal(t, 1.0, *r.ProbSuperiority)
	require.Equal(t, 1.0, *r.ProbSuperiorityLow)
	require.Equal(t, 1.0, *r.ProbSuperiorityHigh)
}

// At 10,000 units and more a negligible |d_z| is warned about; the
// interval of P(sup) is reproducible with the seed.
func TestScoresNegligibleEffect(t *testing.T) {
	base := compare.Named{Scores: map[string]float64{}}
	cand := compare.Named{Scores: map[string]float64{}}
	for i := range 20000 {
		id := string(rune('a'+i%26)) + string(rune(i))
		base.Scores[id] = float64(i % 7)
		cand.Scores[id] = float64((i*3)%7) + 0.001*float64(i%2)
	}
	run := func() *compare.MetricResult {
		c, err := compare.Scores(context.Background(), "m", compare.HigherIsBetter, base, cand, compare.Options{Seed: 9, Resamples: 500})
		require.NoError(t, err)
		return c.Metrics[0]
	}
	r := run()
	require.NotNil(t, r.EffectSizeDz)
	require.Less(t, math.Abs(*r.EffectSizeDz), 0.01)
	require.NotEmpty(t, r.Warnings)
	require.Equal(t, "negligible-effect", r.Warnings[len(r.Warnings)-1].Code)
	require.Equal(t, 20000, r.Warnings[len(r.Warnings)-1].Units)
	again := run()
	require.Equal(t, *r.ProbSuperiorityLow, *again.ProbSuperiorityLow)
	require.Equal(t, *r.ProbSuperiorityHigh, *again.ProbSuperiorityHigh)
	require.Less(t, *r.ProbSuperiorityLow, *r.ProbSuperiority)
}
