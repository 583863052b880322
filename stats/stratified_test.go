package stats_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
)

// meanStatistic is a CountStatistic of the count-weighted means of left and
// right, Σ c_i x_i / Σ c_i: on one stratum, the statistic PairedBootstrap
// resamples.
func meanStatistic(left, right []float64) func() stats.CountStatistic {
	return func() stats.CountStatistic {
		return func(counts []int32) (float64, float64) {
			var l, r, total float64
			for i, c := range counts {
				l += float64(c) * left[i]
				r += float64(c) * right[i]
				total += float64(c)
			}
			return l / total, r / total
		}
	}
}

// pairedNormal returns n seeded pairs whose difference has mean shift.
func pairedNormal(seed uint64, n int, shift float64) (left, right []float64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	left, right = make([]float64, n), make([]float64, n)
	for i := range n {
		left[i] = rng.NormFloat64()
		right[i] = left[i] - shift + 0.5*rng.NormFloat64()
	}
	return left, right
}

// TestPairedBootstrapCountsMatchesPairedBootstrap bootstraps the mean
// difference from draw counts on one stratum: the estimate is
// PairedBootstrap's, and the interval and standard error agree with it
// within Monte Carlo error, though the random streams differ.
func TestPairedBootstrapCountsMatchesPairedBootstrap(t *testing.T) {
	t.Parallel()
	left, right := pairedNormal(1, 5000, 0.02)
	opts := stats.BootstrapOptions{Resamples: 4000, Seed: 9}
	got, err := stats.PairedBootstrapCounts([]int{len(left)}, meanStatistic(left, right), opts)
	require.NoError(t, err)
	want, err := stats.PairedBootstrap(left, right, nil, opts)
	require.NoError(t, err)

	require.InDelta(t, want.Estimate, got.Difference, resampleExactTol)
	require.Equal(t, 4000, got.Resamples)
	require.Equal(t, uint64(9), got.Seed)
	require.Zero(t, got.Undefined)
	// The difference's standard deviation is 0.5/√5000 ≈ 0.00707; a
	// quantile of 4000 replicates is within about 3 % of that of its
	// expected place, so 15 % of the half-width is many standard errors.
	half := (want.High - want.Low) / 2
	require.InDelta(t, want.Low, got.Low, 0.15*half)
	require.InDelta(t, want.High, got.High, 0.15*half)
	require.InDelta(t, 0.5/math.Sqrt(5000), got.SE, 0.1*0.5/math.Sqrt(5000), "SE against σ/√n")
}

// TestPairedBootstrapCountsStrata checks that every replicate draws each
// stratum's size from that stratum alone, for strata of sizes that take
// each drawing path (a partial block only, full blocks only, both, and an
// empty stratum), and that both sides see the same counts.
func TestPairedBootstrapCountsStrata(t *testing.T) {
	t.Parallel()
	strata := []int{3, 0, 4096, 9000, 1}
	n := 0
	for _, s := range strata {
		n += s
	}
	var bad, replicates atomic.Int64
	newStat := func() stats.CountStatistic {
		return func(counts []int32) (float64, float64) {
			replicates.Add(1)
			first := 0
			for _, size := range strata {
				var sum int64
				for _, c := range counts[first : first+size] {
					if c < 0 {
						bad.Add(1)
					}
					sum += int64(c)
				}
				if sum != int64(size) {
					bad.Add(1)
				}
				first += size
			}
			return float64(counts[0]), float64(counts[n-1])
		}
	}
	res, err := stats.PairedBootstrapCounts(strata, newStat, stats.BootstrapOptions{Resamples: 300})
	require.NoError(t, err)
	require.Zero(t, bad.Load(), "every stratum keeps its size")
	require.Equal(t, int64(301), replicates.Load(), "the sample itself, then 300 replicates")
	require.Equal(t, [2]float64{1, 1}, [2]float64{res.Left, res.Right}, "the statistic on the sample itself, every count 1")
	// The last stratum has one sample, drawn once in every replicate, and
	// the first sample's count varies.
	// counts[0] − 1 is −1 in (2/3)³ ≈ 30 % of the replicates.
	require.Equal(t, -1.0, res.Low)
	require.Greater(t, res.High, 0.0)
}

// TestPairedBootstrapCountsUniform checks that the draws within a stratum
// are uniform: over many replicates each sample's mean count is 1, within
// Monte Carlo error, on a stratum whose size is not a multiple of the
// block size.
func TestPairedBootstrapCountsUniform(t *testing.T) {
	const n, B = 5000, 2000
	sums := make([]int64, n)
	newStat := func() stats.CountStatistic {
		return func(counts []int32) (float64, float64) {
			for i, c := range counts {
				sums[i] += int64(c) // serial: GOMAXPROCS is 1 below
			}
			return 0, 0
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	_, err := stats.PairedBootstrapCounts([]int{n}, newStat, stats.BootstrapOptions{Resamples: B})
	require.NoError(t, err)
	// A count is Binomial(n, 1/n), variance ≈ 1; its mean over B
	// replicates has standard error 1/√B. The first B·n counts include
	// the all-ones sample, one more per sample.
	var chi2 float64
	for _, s := range sums {
		mean := float64(s-1) / B
		require.InDelta(t, 1, mean, mcSigmas/math.Sqrt(B))
		chi2 += (mean - 1) * (mean - 1) * B
	}
	// Σ of n squared standardised means is about χ²(n): mean n, sd √(2n).
	require.InDelta(t, float64(n), chi2, mcSigmas*math.Sqrt(2*n))
}

// TestPairedBootstrapCountsPValue checks the p-value's construction on
// statistics with known replicate differences.
func TestPairedBootstrapCountsPValue(t *testing.T) {
	t.Parallel()
	const B = 999
	constant := func(d float64) func() stats.CountStatistic {
		return func() stats.CountStatistic {
			return func([]int32) (float64, float64) { return d, 0 }
		}
	}
	// Every replicate above zero: p = 2·(1 + 0)/(B + 1), the smallest.
	res, err := stats.PairedBootstrapCounts([]int{10}, constant(0.3), stats.BootstrapOptions{Resamples: B})
	require.NoError(t, err)
	require.InDelta(t, 2.0/1000, res.PValue, resampleExactTol)
	require.Equal(t, 0.0, res.SE)
	require.Equal(t, [2]float64{0.3, 0.3}, [2]float64{res.Low, res.High})
	// Every replicate exactly zero counts on both sides: p = 1.
	res, err = stats.PairedBootstrapCounts([]int{10}, constant(0), stats.BootstrapOptions{Resamples: B})
	require.NoError(t, err)
	require.Equal(t, 1.0, res.PValue)

	// Replicate differences d = counts[0] − 1 on n = 2: 0 draws of sample
	// 0 (d = −1) with probability ¼, one (d = 0) ½, two (d = 1) ¼. p is
	// 2·(1 + min(#{d ≤ 0}, #{d ≥ 0}))/(B + 1), which is near 2·¾ > 1,
	// so 1.
	var le, ge atomic.Int64
	diff := func() stats.CountStatistic {
		return func(counts []int32) (float64, float64) {
			d := float64(counts[0]) - 1
			if d <= 0 {
				le.Add(1)
			}
			if d >= 0 {
				ge.Add(1)
			}
			return d, 0
		}
	}
	res, err = stats.PairedBootstrapCounts([]int{2}, diff, stats.BootstrapOptions{Resamples: B})
	require.NoError(t, err)
	require.Equal(t, 1.0, res.PValue)
	require.InDelta(t, 0.75*B, float64(le.Load()), mcSigmas*math.Sqrt(B*0.75*0.25)+1)

	// Shifted by ⅓: d ∈ {−⅔, ⅓, 4/3}; only the draws of no sample 0 are
	// at or below zero, #{d ≤ 0} ≈ B/4.
	le.Store(0)
	shifted := func() stats.CountStatistic {
		return func(counts []int32) (float64, float64) {
			d := float64(counts[0]) - 2.0/3
			if d <= 0 {
				le.Add(1)
			}
			return d, 0
		}
	}
	res, err = stats.PairedBootstrapCounts([]int{2}, shifted, stats.BootstrapOptions{Resamples: B})
	require.NoError(t, err)
	require.InDelta(t, 2*float64(1+le.Load())/(B+1), res.PValue, resampleExactTol, "le = %d", le.Load())
}

// TestPairedBootstrapCountsUndefined leaves out the replicates where the
// statistic is NaN, counts them, and refuses when none is left.
func TestPairedBootstrapCountsUndefined(t *testing.T) {
	t.Parallel()
	var missed atomic.Int64
	newStat := func() stats.CountStatistic {
		return func(counts []int32) (float64, float64) {
			if counts[0] == 0 {
				missed.Add(1)
				return math.NaN(), 0.5
			}
			return float64(counts[1]), 0
		}
	}
	res, err := stats.PairedBootstrapCounts([]int{5}, newStat, stats.BootstrapOptions{Resamples: 1000})
	require.NoError(t, err)
	require.Equal(t, int(missed.Load()), res.Undefined)
	// (4/5)⁵ ≈ 0.328 of the replicates draw no sample 0.
	require.InDelta(t, 328, res.Undefined, mcSigmas*math.Sqrt(1000*0.328*0.672))

	var calls atomic.Int64
	never := func() stats.CountStatistic {
		return func([]int32) (float64, float64) {
			if calls.Add(1) == 1 {
				return 1, 1 // the sample itself, which comes first
			}
			return math.Inf(1), 0
		}
	}
	_, err = stats.PairedBootstrapCounts([]int{2}, never, stats.BootstrapOptions{Resamples: 10})
	require.ErrorIs(t, err, stats.ErrTooFew)
	require.ErrorContains(t, err, "undefined on all 10 replicates")
}

func TestPairedBootstrapCountsErrors(t *testing.T) {
	t.Parallel()
	left, right := pairedNormal(2, 10, 0)
	mean := meanStatistic(left, right)
	nan := func() stats.CountStatistic {
		return func([]int32) (float64, float64) { return math.NaN(), 0 }
	}
	tests := []struct {
		name    string
		strata  []int
		stat    func() stats.CountStatistic
		opts    stats.BootstrapOptions
		want    error
		message string
	}{
		{name: "no samples", strata: []int{0, 0}, stat: mean, want: stats.ErrTooFew, message: "got 0"},
		{name: "no strata", stat: mean, want: stats.ErrTooFew},
		{name: "BCa", strata: []int{10}, stat: mean, opts: stats.BootstrapOptions{Method: stats.BCa}, want: stats.ErrBadParameter, message: `"percentile" intervals only`},
		{name: "too many resamples", strata: []int{10}, stat: mean, opts: stats.BootstrapOptions{Resamples: stats.MaxResamples + 1}, want: stats.ErrBadParameter},
		{name: "confidence 1", strata: []int{10}, stat: mean, opts: stats.BootstrapOptions{Confidence: 1}, want: stats.ErrBadParameter},
		{name: "undefined on the sample", strata: []int{10}, stat: nan, want: stats.ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := stats.PairedBootstrapCounts(tt.strata, tt.stat, tt.opts)
			require.ErrorIs(t, err, tt.want)
			require.ErrorContains(t, err, tt.message)
		})
	}
	require.PanicsWithValue(t, "stats: negative stratum size", func() {
		_, _ = stats.PairedBootstrapCounts([]int{3, -1}, mean, stats.BootstrapOptions{})
	})
}

// TestPairedBootstrapCountsReproducible gives the same result bit for bit
// on one core and on two, stratified, with enough work to run in parallel.
// Not parallel itself: it sets GOMAXPROCS.
func TestPairedBootstrapCountsReproducible(t *testing.T) {
	left, right := pairedNormal(3, 20_000, 0.01)
	run := func(procs int, seed uint64) stats.CountsBootstrapResult {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := stats.PairedBootstrapCounts([]int{7000, 13_000}, meanStatistic(left, right), stats.BootstrapOptions{Seed: seed, Resamples: 500})
		require.NoError(t, err)
		return res
	}
	one := run(1, 4)
	require.Equal(t, one, run(2, 4))
	require.Equal(t, one, run(2, 4), "and again")
	require.NotEqual(t, one.Low, run(2, 5).Low, "another seed draws other replicates")
}

// The statistic here is the share of the drawn samples that are above 0.5
// on each side, for two strata of five samples.
func ExamplePairedBootstrapCounts() {
	left := []float64{0.9, 0.8, 0.7, 0.6, 0.9, 0.4, 0.3, 0.6, 0.2, 0.1}
	right := []float64{0.6, 0.4, 0.7, 0.3, 0.9, 0.4, 0.2, 0.1, 0.2, 0.6}
	above := func() stats.CountStatistic {
		return func(counts []int32) (float64, float64) {
			var l, r, total float64
			for i, c := range counts {
				if left[i] > 0.5 {
					l += float64(c)
				}
				if right[i] > 0.5 {
					r += float64(c)
				}
				total += float64(c)
			}
			return l / total, r / total
		}
	}
	res, err := stats.PairedBootstrapCounts([]int{5, 5}, above, stats.BootstrapOptions{Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("left %.2f, right %.2f, difference %.2f, 95%% CI [%.2f, %.2f], p = %.3f\n",
		res.Left, res.Right, res.Difference, res.Low, res.High, res.PValue)
	// Output:
	// left 0.60, right 0.40, difference 0.20, 95% CI [-0.10, 0.60], p = 0.410
}
