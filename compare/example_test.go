package compare_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
)

// A real winner: on 20 queries, bm25 finds what dense misses 16 times and
// never the other way round.
//
// Where the numbers come from: the difference is 16/20 = 0.800, and bm25
// is better for 16 units and the same for the 4 (i = 0, 5, 10, 15) where
// both find it. The sign-flip test's p is (0 + 1)/(2000 + 1) = 0.0005, its
// smallest with 2000 flips: only 2 of the 2¹⁶ sign patterns of the 16
// non-zero differences are as extreme as the observed one (the exact p is
// 2⁻¹⁵ ≈ 3.1·10⁻⁵), so 2000 random flips are expected to find 0.06 of
// them. Each bootstrap mean is K/20 with K ~ Binomial(20, 0.8), whose
// 2.5 % and 97.5 % quantiles are 12 and 19 (scipy 1.10
// binom(20, 0.8).cdf: 0.0100 at 11, 0.0321 at 12, 0.9308 at 18, 0.9885 at
// 19): the interval is [12/20, 19/20] = [0.600, 0.950].
// testdata/examples_reference.py prints these exact values, and
// TestExamplesAgainstExactReferences checks the output against them on
// other seeds.
func ExampleScores_distinguishable() {
	bm25, dense := map[string]float64{}, map[string]float64{}
	for i := range 20 {
		q := fmt.Sprintf("q%02d", i)
		bm25[q] = 1
		dense[q] = 0
		if i%5 == 0 {
			dense[q] = 1
		}
	}
	c, err := compare.Scores(context.Background(), "recall@5", compare.HigherIsBetter, compare.Named{Name: "bm25", Scores: bm25}, compare.Named{Name: "dense", Scores: dense},
		compare.Options{Sentence: report.Verdict})
	if err != nil {
		panic(err)
	}
	r := c.Metrics[0]
	fmt.Printf("distinguishable=%t winner=%s p=%.4f CI=[%.3f, %.3f]\n",
		r.Distinguishable, r.Winner, r.PValue, r.Difference.Low, r.Difference.High)
	fmt.Println(r.Verdict)
	// Output:
	// distinguishable=true winner=baseline p=0.0005 CI=[0.600, 0.950]
	// bm25 beats dense on recall@5 by 0.800 (95% CI 0.600 to 0.950, p < 0.001, n = 20): the interval excludes zero and p is below alpha 0.05. bm25 is better for 16 units, worse for 0 and the same for 4.
}

// A 25-point gap on 8 queries is no winner: q9, scored on one side only,
// is left out, and the rest cannot tell the two apart. The hint sizes the
// sample from the variance of the 8 differences (1, 0, 0, 0, 0.5, 0, 0,
// 0.5), 1/7: (1.960 + 0.842)²·(1/7)/0.25² = 17.9, so 18.
//
// Where the other numbers come from: the means are 5.5/8 = 0.6875 and
// 3.5/8 = 0.4375. p = 0.248 is the sign-flip test's Monte Carlo estimate
// (2000 flips, seed 0, standard error √(0.25·0.75/2000) = 0.0097) of the
// exact p = 2/8 = 0.25: of the 8 sign patterns of the non-zero differences
// 1, 0.5 and 0.5, only the 2 that give them one sign reach |1 + 0.5 + 0.5|.
// The interval is the percentile bootstrap's; the exact distribution of a
// resampled mean, enumerated by testdata/examples_reference.py, has P(0) = (5/8)⁸ = 0.0233,
// P(≤ 0.0625) = 0.0978, P(≤ 0.4375) = 0.9511 and P(≤ 0.5) = 0.9815. So the
// 97.5 % bound is 0.5, and the 2.5 % bound lies between 0 and 0.0625:
// 0.0233 is just under 0.025, and seed 0's 2000 resamples drew a mean of 0
// at least 51 times (46.6 expected), which puts the bound at 0. That is
// seed 0's luck: on about three seeds in four the bound is a little above
// 0 and the interval excludes zero, so the sentence would say "which
// excludes zero, but p = ... is not below alpha". p is far above alpha on
// every seed, so the decision does not depend on the seed
// (TestExamplesAgainstExactReferences). Nor could any 8 units of which 3
// differ be distinguishable: the sign-flip test's smallest p is then 2/2³
// = 0.25, so the result gives no sample size (HintUnattainable).
func ExampleScores_indistinguishable() {
	bm25 := map[string]float64{"q1": 1, "q2": 1, "q3": 0, "q4": 1, "q5": 0.5, "q6": 1, "q7": 0, "q8": 1, "q9": 0}
	dense := map[string]float64{"q1": 0, "q2": 1, "q3": 0, "q4": 1, "q5": 0, "q6": 1, "q7": 0, "q8": 0.5}
	c, err := compare.Scores(context.Background(), "recall@5", compare.HigherIsBetter, compare.Named{Name: "bm25", Scores: bm25}, compare.Named{Name: "dense", Scores: dense},
		compare.Options{Sentence: report.Verdict})
	if err != nil {
		panic(err)
	}
	r := c.Metrics[0]
	fmt.Printf("n=%d means=%.4f/%.4f distinguishable=%t winner=%q n_required=%v min_attainable_p=%g\n",
		r.N, r.BaselineMean, r.CandidateMean, r.Distinguishable, r.Winner, r.NRequired, *r.MinAttainableP)
	fmt.Println(r.Verdict)
	// Output:
	// n=8 means=0.6875/0.4375 distinguishable=false winner="" n_required=<nil> min_attainable_p=0.25
	// bm25 and dense are not distinguishable on recall@5 (n = 8): the difference bm25 − dense is +0.250, with a 95% CI of 0.000 to +0.500, which includes zero, and p = 0.248 is not below alpha 0.05. At n = 8 the smallest p-value the sign-flip test can give is about 0.25, not below alpha 0.05: no result of these units could be distinguishable, whatever the gap; it takes more units that differ.
}

// TestExamplesAgainstExactReferences runs the Examples' data on 100 seeds
// and checks each number against the exact value it estimates (see the
// Examples' comments for the references): the decision, the winner and the
// estimate on every seed, the interval's bounds between the atoms of the
// exact bootstrap distribution around its 2.5 % and 97.5 % quantiles, and
// p near the exact sign-flip p.
func TestExamplesAgainstExactReferences(t *testing.T) {
	t.Parallel()
	const (
		seeds = 100
		// estimateTol is rounding in a mean of 20 or 8 numbers.
		estimateTol = 1e-12
		// pSETimes is how many standard errors of a Monte Carlo p of
		// 2000 flips, √(p(1 − p)/2000), p may lie from the exact one:
		// 4.5 leaves about one seed in 10⁵ outside.
		pSETimes = 4.5
	)
	bm25, dense := map[string]float64{}, map[string]float64{}
	for i := range 20 {
		q := fmt.Sprintf("q%02d", i)
		bm25[q], dense[q] = 1, 0
		if i%5 == 0 {
			dense[q] = 1
		}
	}
	bm25b := map[string]float64{"q1": 1, "q2": 1, "q3": 0, "q4": 1, "q5": 0.5, "q6": 1, "q7": 0, "q8": 1, "q9": 0}
	denseb := map[string]float64{"q1": 0, "q2": 1, "q3": 0, "q4": 1, "q5": 0, "q6": 1, "q7": 0, "q8": 0.5}
	exact, includes := 0, 0
	for seed := range uint64(seeds) {
		opts := compare.Options{Seed: seed}
		c, err := compare.Scores(context.Background(), "recall@5", compare.HigherIsBetter, compare.Named{Name: "bm25", Scores: bm25}, compare.Named{Name: "dense", Scores: dense}, opts)
		require.NoError(t, err)
		r := c.Metrics[0]
		require.True(t, r.Distinguishable, "seed %d", seed)
		require.Equal(t, compare.Baseline, r.Winner, "seed %d", seed)
		require.InDelta(t, 16.0/20, r.Difference.Estimate, estimateTol)
		// The exact p is 2⁻¹⁵: 2000 flips find at most 2 as extreme but
		// about once in 28,000 seeds (scipy binom(2000, 2⁻¹⁵).sf(2)).
		require.LessOrEqual(t, r.PValue, 3.0/2001, "seed %d", seed)
		// The bounds interpolate between resampled means next to the
		// quantiles of K/20: 11/20 to 13/20 below (P(K ≤ 10) = 0.0026 and
		// P(K ≤ 13) = 0.0867 are far from 0.025), and 17/20 to 20/20
		// above (P(K ≤ 17) = 0.7939).
		require.True(t, 0.55 <= r.Difference.Low && r.Difference.Low <= 0.65, "seed %d: low %g", seed, r.Difference.Low)
		require.True(t, 0.85 <= r.Difference.High && r.Difference.High <= 1, "seed %d: high %g", seed, r.Difference.High)
		if math.Abs(r.Difference.Low-0.6) <= estimateTol && math.Abs(r.Difference.High-0.95) <= estimateTol {
			exact++
		}

		c, err = compare.Scores(context.Background(), "recall@5", compare.HigherIsBetter, compare.Named{Name: "bm25", Scores: bm25b}, compare.Named{Name: "dense", Scores: denseb}, opts)
		require.NoError(t, err)
		r = c.Metrics[0]
		require.Equal(t, 8, r.N)
		require.InDelta(t, 5.5/8, r.BaselineMean, estimateTol)
		require.InDelta(t, 3.5/8, r.CandidateMean, estimateTol)
		require.False(t, r.Distinguishable, "seed %d", seed)
		require.Equal(t, compare.Neither, r.Winner, "seed %d", seed)
		require.InDelta(t, 0.25, r.PValue, pSETimes*math.Sqrt(0.25*0.75/2000), "seed %d: the exact p is 2/8", seed)
		// Between the atoms 0 and 1/16 below, 7/16 and 9/16 above.
		require.True(t, 0 <= r.Difference.Low && r.Difference.Low <= 0.0625, "seed %d: low %g", seed, r.Difference.Low)
		if !r.IntervalExcludesZero {
			includes++
		}
		require.True(t, 0.4375 <= r.Difference.High && r.Difference.High <= 0.5625, "seed %d: high %g", seed, r.Difference.High)
		// Three units differ: the sign-flip test's smallest p is 2/2³.
		require.Nil(t, r.NRequired)
		require.Equal(t, compare.HintUnattainable, r.Hint)
		require.Equal(t, 0.25, *r.MinAttainableP)
	}
	// 12/20 and 19/20 themselves on most seeds: the 2000 resamples miss
	// them only when fewer than 51 land at or below K = 12 (64 expected).
	t.Logf("the distinguishable example's interval is [0.60, 0.95] on %d of %d seeds", exact, seeds)
	t.Logf("the indistinguishable example's interval includes zero on %d of %d seeds", includes, seeds)
	require.Greater(t, exact, seeds/2)
}
