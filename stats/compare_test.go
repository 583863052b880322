package stats_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-ml/verdict/stats"
)

// idScores builds an id → score map from values, ids "q0", "q1", ….
func idScores(values ...float64) map[string]float64 {
	m := make(map[string]float64, len(values))
	for i, v := range values {
		m["q"+strconv.Itoa(i)] = v
	}
	return m
}

// twentyOf returns 20 scores: one everywhere, or one on every fifth id and
// zero elsewhere.
func twentyOf(everyFifth bool) map[string]float64 {
	v := make([]float64, 20)
	for i := range v {
		if !everyFifth || i%5 == 0 {
			v[i] = 1
		}
	}
	return idScores(v...)
}

// TestCompareVerdicts checks the rule, the winner, the counts and the
// sentence. The p-values are Monte Carlo estimates (count + 1)/2001 with
// seed 0; the comments give the exact ones. The intervals are percentile
// bootstrap bounds from 2000 resamples; the sample sizes are SampleSize's
// ⌈2·(z_{0.975} + z_{0.8})²·¼ / δ²⌉ = ⌈3.924/δ²⌉.
func TestCompareVerdicts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		left, right map[string]float64
		opts        stats.CompareOptions
		want        stats.Comparison
	}{
		{
			// 16 wins and 4 ties: exact p = 2/2¹⁶ (only all signs alike
			// are as extreme), so no flip is counted and p = 1/2001.
			name:  "left wins",
			left:  twentyOf(false),
			right: twentyOf(true),
			opts:  stats.CompareOptions{LeftName: "bm25", RightName: "dense", Metric: "recall@5"},
			want: stats.Comparison{
				N: 20, LeftMean: 1, RightMean: 0.2,
				Difference: stats.Interval{Estimate: 0.8, Low: 0.65, High: 0.95, Confidence: 0.95},
				PValue:     1.0 / 2001, Alpha: 0.05, Distinguishable: true, Winner: stats.Left,
				Wins: 16, Losses: 0, Ties: 4, NRequired: new(7),
				Verdict: "bm25 beats dense on recall@5 by 0.800 (95% CI 0.650 to 0.950, p = 0.0005, n = 20): " +
					"the interval excludes zero and p is below alpha 0.05. bm25 scores higher on 16 units, lower on 0 and the same on 4.",
			},
		},
		{
			name:  "right wins",
			left:  twentyOf(true),
			right: twentyOf(false),
			want: stats.Comparison{
				N: 20, LeftMean: 0.2, RightMean: 1,
				Difference: stats.Interval{Estimate: -0.8, Low: -0.95, High: -0.65, Confidence: 0.95},
				PValue:     1.0 / 2001, Alpha: 0.05, Distinguishable: true, Winner: stats.Right,
				Wins: 0, Losses: 16, Ties: 4, NRequired: new(7),
				Verdict: "right beats left by 0.800 (95% CI 0.650 to 0.950, p = 0.0005, n = 20): " +
					"the interval excludes zero and p is below alpha 0.05. right scores higher on 16 units, lower on 0 and the same on 4.",
			},
		},
		{
			// Five wins out of five: exact p = 2/2⁵ = 0.0625 can never be
			// below 0.05, though every resample has a positive mean.
			name:  "interval excludes zero, p does not clear alpha",
			left:  idScores(0.9, 0.5, 0.7, 0.6, 0.8),
			right: idScores(0.6, 0.4, 0.5, 0.5, 0.6),
			opts:  stats.CompareOptions{LeftName: "baseline", RightName: "candidate", Metric: "ndcg@10"},
			want: stats.Comparison{
				N: 5, LeftMean: 0.7, RightMean: 0.52,
				Difference: stats.Interval{Estimate: 0.18, Low: 0.12, High: 0.24, Confidence: 0.95},
				PValue:     129.0 / 2001, Alpha: 0.05, Wins: 5, NRequired: new(122),
				Verdict: "baseline and candidate are not distinguishable on ndcg@10 (n = 5): the gap of +0.180 (baseline − candidate) " +
					"has a 95% CI of +0.120 to +0.240, which excludes zero, but p = 0.064 is not below alpha 0.05. " +
					"Detecting a gap this size with 80% power would take about 122 units (a worst-case, unpaired estimate: an order of magnitude, not a count).",
			},
		},
		{
			// 3 wins, 5 ties: exact p = 2·(1 + 1)/2³ = 0.25 (the three
			// nonzero differences 1, 0.5, 0.5 flip; |T*| ≥ 2 takes all
			// alike).
			name:  "neither half holds",
			left:  idScores(1, 1, 0, 1, 0.5, 1, 0, 1),
			right: idScores(0, 1, 0, 1, 0, 1, 0, 0.5),
			want: stats.Comparison{
				N: 8, LeftMean: 0.6875, RightMean: 0.4375,
				Difference: stats.Interval{Estimate: 0.25, Low: 0, High: 0.5, Confidence: 0.95},
				PValue:     497.0 / 2001, Alpha: 0.05, Wins: 3, Ties: 5, NRequired: new(63),
				Verdict: "left and right are not distinguishable (n = 8): the gap of +0.250 (left − right) " +
					"has a 95% CI of 0.000 to +0.500, which includes zero, and p = 0.248 is not below alpha 0.05. " +
					"Detecting a gap this size with 80% power would take about 63 units (a worst-case, unpaired estimate: an order of magnitude, not a count).",
			},
		},
		{
			name:  "equal means",
			left:  idScores(1, 0),
			right: idScores(0, 1),
			opts:  stats.CompareOptions{Confidence: 0.9, Alpha: 0.1},
			want: stats.Comparison{
				N: 2, LeftMean: 0.5, RightMean: 0.5,
				Difference: stats.Interval{Estimate: 0, Low: -1, High: 1, Confidence: 0.9},
				PValue:     1, Alpha: 0.1, Wins: 1, Losses: 1,
				Verdict: "left and right are not distinguishable (n = 2): the gap of 0.000 (left − right) " +
					"has a 90% CI of -1.000 to +1.000, which includes zero, and p = 1.000 is not below alpha 0.1. " +
					"The means are equal, so no number of units would separate them.",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := stats.Compare(tt.left, tt.right, tt.opts)
			require.NoError(t, err)
			require.Equal(t, tt.want.Verdict, got.Verdict)
			require.Equal(t, tt.want.Distinguishable, got.Distinguishable)
			require.Equal(t, tt.want.Distinguishable, got.PValue < got.Alpha && got.Difference.ExcludesZero())
			require.Equal(t, tt.want.Winner, got.Winner)
			require.Equal(t, tt.want.NRequired, got.NRequired)
			require.Equal(t, []int{tt.want.N, tt.want.Wins, tt.want.Losses, tt.want.Ties}, []int{got.N, got.Wins, got.Losses, got.Ties})
			for _, f := range []struct {
				name      string
				want, got float64
			}{
				{"left_mean", tt.want.LeftMean, got.LeftMean},
				{"right_mean", tt.want.RightMean, got.RightMean},
				{"estimate", tt.want.Difference.Estimate, got.Difference.Estimate},
				{"low", tt.want.Difference.Low, got.Difference.Low},
				{"high", tt.want.Difference.High, got.Difference.High},
				{"confidence", tt.want.Difference.Confidence, got.Difference.Confidence},
				{"p_value", tt.want.PValue, got.PValue},
				{"alpha", tt.want.Alpha, got.Alpha},
			} {
				require.InDelta(t, f.want, f.got, resampleExactTol, f.name)
			}
		})
	}
}

// TestCompareIsItsParts checks that Compare's interval and p-value are
// PairedBootstrap's and Randomization's on the shared ids in id order,
// with the same seed and resamples.
func TestCompareIsItsParts(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(21, 0))
	left, right := map[string]float64{}, map[string]float64{}
	var l, r []float64
	for i := range 300 {
		id := strconv.Itoa(1000 + i) // sorts as the loop runs
		a, b := rng.Float64(), rng.Float64()
		left[id] = a
		if i%7 == 0 {
			continue // left only
		}
		right[id] = b
		l, r = append(l, a), append(r, b)
	}
	right["right only"] = 0.5
	opts := stats.CompareOptions{Resamples: 999, Seed: 42, Confidence: 0.9}
	got, err := stats.Compare(left, right, opts)
	require.NoError(t, err)
	boot, err := stats.PairedBootstrap(l, r, nil, stats.BootstrapOptions{Resamples: 999, Seed: 42, Confidence: 0.9})
	require.NoError(t, err)
	perm, err := stats.Randomization(l, r, nil, stats.RandomizationOptions{Permutations: 999, Seed: 42})
	require.NoError(t, err)
	require.Equal(t, len(l), got.N)
	require.Equal(t, stats.Interval{Estimate: boot.Estimate, Low: boot.Low, High: boot.High, Confidence: 0.9}, got.Difference)
	require.Equal(t, perm.PValue, got.PValue)

	pairs, err := stats.ComparePairs(l, r, opts)
	require.NoError(t, err)
	require.Equal(t, got, pairs)
}

func TestCompareErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		left, right map[string]float64
		opts        stats.CompareOptions
		want        error
		message     string
	}{
		{name: "no shared id", left: map[string]float64{"a": 1}, right: map[string]float64{"b": 1}, want: stats.ErrNoOverlap},
		{name: "empty", left: map[string]float64{}, right: nil, want: stats.ErrNoOverlap},
		{name: "NaN", left: map[string]float64{"a": 1, "b": math.NaN()}, right: map[string]float64{"a": 0, "b": 0},
			want: stats.ErrNotFinite, message: `left score of id "b" is NaN`},
		{name: "Inf", left: map[string]float64{"a": 1}, right: map[string]float64{"a": math.Inf(1)},
			want: stats.ErrNotFinite, message: `right score of id "a" is +Inf`},
		{name: "alpha 1", left: idScores(1, 0), right: idScores(0, 0), opts: stats.CompareOptions{Alpha: 1}, want: stats.ErrBadParameter},
		{name: "confidence above 1", left: idScores(1, 0), right: idScores(0, 0), opts: stats.CompareOptions{Confidence: 95}, want: stats.ErrBadParameter},
		{name: "negative resamples", left: idScores(1, 0), right: idScores(0, 0), opts: stats.CompareOptions{Resamples: -1}, want: stats.ErrBadParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := stats.Compare(tt.left, tt.right, tt.opts)
			require.ErrorIs(t, err, tt.want)
			if tt.message != "" {
				require.ErrorContains(t, err, tt.message)
			}
		})
	}
	_, err := stats.ComparePairs([]float64{1}, []float64{1, 2}, stats.CompareOptions{})
	require.ErrorIs(t, err, stats.ErrLengths)
	_, err = stats.ComparePairs(nil, nil, stats.CompareOptions{})
	require.ErrorIs(t, err, stats.ErrTooFew)
}

// TestComparisonJSON checks the field names the command line prints, and
// that no winner and no sample size are null.
func TestComparisonJSON(t *testing.T) {
	t.Parallel()
	c, err := stats.Compare(idScores(1, 0), idScores(0, 1), stats.CompareOptions{})
	require.NoError(t, err)
	b, err := json.Marshal(c)
	require.NoError(t, err)
	require.JSONEq(t, `{
		"n": 2, "left_mean": 0.5, "right_mean": 0.5,
		"difference": {"estimate": 0, "low": -1, "high": 1, "confidence": 0.95},
		"p_value": 1, "alpha": 0.05, "distinguishable": false, "winner": null,
		"wins": 1, "losses": 1, "ties": 0, "n_required": null,
		"verdict": "left and right are not distinguishable (n = 2): the gap of 0.000 (left − right) has a 95% CI of -1.000 to +1.000, which includes zero, and p = 1.000 is not below alpha 0.05. The means are equal, so no number of units would separate them."
	}`, string(b))

	var back stats.Comparison
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, c, back)

	won, err := stats.Compare(twentyOf(true), twentyOf(false), stats.CompareOptions{})
	require.NoError(t, err)
	b, err = json.Marshal(won)
	require.NoError(t, err)
	require.Contains(t, string(b), `"winner":"right"`)
	require.Contains(t, string(b), `"n_required":7`)
}

// TestCompareNullRejectionRate simulates 2000 comparisons of two systems
// with the same mean: per unit, a shared base score plus independent
// noise on each side, so left and right are exchangeable. Randomization's
// p < alpha and Compare's distinguishable must then happen at rate alpha
// = 0.05, within the 99.9 % band of Binomial(2000, 0.05). (Exactly: with
// continuous data the Monte Carlo test rejects with probability
// 100/2001.) Each dataset gets its own seed: with one set of flips for
// all datasets, rejections would not be independent draws.
func TestCompareNullRejectionRate(t *testing.T) {
	t.Parallel()
	const datasets, n, alpha = 2000, 30, 0.05
	rng := rand.New(rand.NewPCG(2026, 11))
	rejected, distinguishable := 0, 0
	for d := range datasets {
		left, right := make([]float64, n), make([]float64, n)
		for i := range left {
			base := rng.Float64()
			left[i] = base + 0.2*rng.NormFloat64()
			right[i] = base + 0.2*rng.NormFloat64()
		}
		c, err := stats.ComparePairs(left, right, stats.CompareOptions{Alpha: alpha, Seed: uint64(d)})
		require.NoError(t, err)
		if c.PValue < alpha {
			rejected++
		}
		if c.Distinguishable {
			distinguishable++
		}
	}
	lo, hi := binomialBand(datasets, alpha, 0.999)
	t.Logf("rejected %d, distinguishable %d of %d; 99.9 %% band [%d, %d]", rejected, distinguishable, datasets, lo, hi)
	require.True(t, lo <= rejected && rejected <= hi, "randomization rejected %d of %d, band [%d, %d]", rejected, datasets, lo, hi)
	require.True(t, lo <= distinguishable && distinguishable <= hi, "compare distinguished %d of %d, band [%d, %d]", distinguishable, datasets, lo, hi)
}

// binomialBand returns the central interval [lo, hi] holding at least
// level of Binomial(n, p): P(X < lo) ≤ (1 − level)/2 and
// P(X > hi) ≤ (1 − level)/2.
func binomialBand(n int, p, level float64) (lo, hi int) {
	x := distuv.Binomial{N: float64(n), P: p}
	tail := (1 - level) / 2
	for lo = 0; x.CDF(float64(lo)) <= tail; lo++ {
	}
	for hi = n; x.Survival(float64(hi-1)) <= tail; hi-- {
	}
	return lo, hi
}

func TestCompareUnitsCountsUnits(t *testing.T) {
	t.Parallel()
	// Two units of two rows each and one single-row unit: the estimate is
	// the row-weighted mean difference ((0.5+0.5) + (0+0.25) + 1)/5 = 0.45.
	left := []float64{1, 1, 0.5, 0.5, 1}
	right := []float64{0.5, 0.5, 0.5, 0.25, 0}
	units := []string{"a", "a", "b", "b", "c"}
	c, err := stats.CompareUnits(left, right, units, stats.CompareOptions{Seed: 7})
	require.NoError(t, err)
	require.Equal(t, 3, c.N)
	require.InDelta(t, 0.45, c.Difference.Estimate, 1e-15)
	require.Equal(t, 3, c.Wins, "each unit's summed left scores are higher")

	// One row per unit: the same as ComparePairs.
	a, err := stats.CompareUnits(left, right, []string{"1", "2", "3", "4", "5"}, stats.CompareOptions{Seed: 7})
	require.NoError(t, err)
	b, err := stats.ComparePairs(left, right, stats.CompareOptions{Seed: 7})
	require.NoError(t, err)
	require.Equal(t, b, a)
}
