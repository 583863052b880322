package stats_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
)

// pairs32Case is n units of float32 values of one kind: varied values,
// 0/1 values with many ties, equal sides, a constant difference, one side
// better on every unit, tiny values outside Q64 (summed wide).
func pairs32Case(kind, n int, rng *rand.Rand) []float32 {
	v := make([]float32, 2*n)
	for i := range n {
		l, r := &v[2*i], &v[2*i+1]
		switch kind {
		case 0:
			*l, *r = rng.Float32(), rng.Float32()
			if rng.IntN(10) == 0 {
				*r = *l
			}
		case 1:
			*l, *r = float32(rng.IntN(2)), float32(rng.IntN(2))
		case 2:
			*l = float32(rng.IntN(33)) / 32
			*r = *l
		case 3:
			*l = float32(rng.IntN(8)) / 8
			*r = *l - 0.25
		case 4:
			*l, *r = 1+rng.Float32(), rng.Float32()
		default:
			*l, *r = rng.Float32()*1e-30, rng.Float32()
		}
	}
	return v
}

// widened are the pairs' values as the PairedUnits functions take them.
func widened(v []float32) stats.PairedUnits {
	u := stats.PairedUnits{LeftSum: make([]float64, len(v)/2), RightSum: make([]float64, len(v)/2)}
	for i := range u.LeftSum {
		u.LeftSum[i], u.RightSum[i] = float64(v[2*i]), float64(v[2*i+1])
	}
	return u
}

// TestDifferencesEqualUnits holds each function of the differences to its
// PairedUnits counterpart on the widened values, bit for bit: the
// bootstrap (percentile and BCa, with a one-sided level), the probability
// of superiority either way round, the sign-flip test, the exact summary,
// and the shared resampling of several metrics.
func TestDifferencesEqualUnits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 3))
	const kinds = 6
	for _, n := range []int{1, 2, 7, 300, 4096 + 77, 3 * 4096} {
		var all []stats.PairedUnits
		var diffs []*stats.UnitDifferences
		// Twice each kind: more samples than one group shares draws.
		for k := range 2 * kinds {
			kind := k % kinds
			v := pairs32Case(kind, n, rng)
			u := widened(v)
			wantSum, err := stats.SummarizePairs(u.LeftSum, u.RightSum)
			require.NoError(t, err)
			gotSum, err := stats.SummarizePairs32(v)
			require.NoError(t, err)
			requireSummaryEqual(t, wantSum, gotSum, "n %d, kind %d", n, kind)
			d, err := stats.DifferencesOfPairs32(v)
			require.NoError(t, err)
			require.Equal(t, n, d.Len())
			for _, method := range []stats.IntervalMethod{stats.Percentile, stats.BCa} {
				opts := stats.BootstrapOptions{Resamples: 300, Seed: 5, Method: method, OneSided: 0.05}
				want, wantErr := stats.PairedBootstrapUnits(u, opts)
				got, err := stats.PairedBootstrapDifferences(d, opts)
				require.Equal(t, wantErr, err)
				require.Equal(t, want, got, "n %d, kind %d, %s", n, kind, method)
				for _, lower := range []bool{false, true} {
					want, wantErr := stats.PairedSuperiorityUnits(u, lower, opts)
					got, err := stats.PairedSuperiorityDifferences(d, lower, opts)
					require.Equal(t, wantErr, err)
					require.Equal(t, want, got, "n %d, kind %d, %s, lower %v", n, kind, method, lower)
				}
			}
			// One metric and its scores share their draws.
			opts := stats.BootstrapOptions{Resamples: 200, Seed: 4, OneSided: 0.05}
			boot, sup, bootErrs, supErrs := stats.PairedBootstrapDifferencesShared(1, func(int) *stats.UnitDifferences { return d }, func(int) bool { return kind%2 == 0 }, opts)
			wantBoot, wantErr := stats.PairedBootstrapUnits(u, opts)
			require.Equal(t, wantErr, bootErrs[0])
			require.Equal(t, wantBoot, boot[0], "n %d, kind %d, alone", n, kind)
			wantBoot, wantErr = stats.PairedSuperiorityUnits(u, kind%2 == 0, opts)
			require.Equal(t, wantErr, supErrs[0])
			require.Equal(t, wantBoot, sup[0], "n %d, kind %d, alone", n, kind)
			ropts := stats.RandomizationOptions{Permutations: 300, Seed: 9}
			want, wantErr := stats.RandomizationUnits(u, ropts)
			got, err := stats.RandomizationDifferences(d, ropts)
			require.Equal(t, wantErr, err)
			require.Equal(t, want, got, "n %d, kind %d", n, kind)
			all, diffs = append(all, u), append(diffs, d)
		}
		lower := func(k int) bool { return k%2 == 1 }
		opts := stats.BootstrapOptions{Resamples: 250, Seed: 2, OneSided: 0.025}
		boot, sup, bootErrs, supErrs := stats.PairedBootstrapDifferencesShared(len(diffs),
			func(k int) *stats.UnitDifferences { return diffs[k] }, lower, opts)
		ropts := stats.RandomizationOptions{Permutations: 250, Seed: 2}
		perms, permErrs := stats.RandomizationDifferencesShared(len(diffs), func(k int) *stats.UnitDifferences { return diffs[k] }, ropts)
		for k, u := range all {
			want, err := stats.PairedBootstrapUnits(u, opts)
			require.Equal(t, err, bootErrs[k])
			require.Equal(t, want, boot[k], "n %d, metric %d", n, k)
			want, err = stats.PairedSuperiorityUnits(u, lower(k), opts)
			require.Equal(t, err, supErrs[k])
			require.Equal(t, want, sup[k], "n %d, metric %d", n, k)
			wantPerm, err := stats.RandomizationUnits(u, ropts)
			require.Equal(t, err, permErrs[k])
			require.Equal(t, wantPerm, perms[k], "n %d, metric %d", n, k)
		}
		boot, sup, _, _ = stats.PairedBootstrapDifferencesShared(len(diffs), func(k int) *stats.UnitDifferences { return diffs[k] }, nil, opts)
		require.Len(t, boot, len(diffs))
		require.Nil(t, sup)
	}
}

// TestDifferencesErrors checks that the functions of the differences fail
// as their PairedUnits counterparts do: the same errors, in the same
// words, for no units, a NaN or ±Inf value, and a bad option.
func TestDifferencesErrors(t *testing.T) {
	t.Parallel()
	none, err := stats.DifferencesOfPairs32(nil)
	require.NoError(t, err)
	_, wantErr := stats.PairedBootstrapUnits(stats.PairedUnits{}, stats.BootstrapOptions{})
	_, err = stats.PairedBootstrapDifferences(none, stats.BootstrapOptions{})
	require.ErrorIs(t, err, stats.ErrTooFew)
	require.Equal(t, wantErr, err)
	_, wantErr = stats.PairedSuperiorityUnits(stats.PairedUnits{}, false, stats.BootstrapOptions{})
	_, err = stats.PairedSuperiorityDifferences(none, false, stats.BootstrapOptions{})
	require.Equal(t, wantErr, err)
	_, wantErr = stats.RandomizationUnits(stats.PairedUnits{}, stats.RandomizationOptions{})
	_, err = stats.RandomizationDifferences(none, stats.RandomizationOptions{})
	require.Equal(t, wantErr, err)
	_, _, bootErrs, supErrs := stats.PairedBootstrapDifferencesShared(1, func(int) *stats.UnitDifferences { return none }, func(int) bool { return false }, stats.BootstrapOptions{})
	require.ErrorIs(t, bootErrs[0], stats.ErrTooFew)
	require.ErrorIs(t, supErrs[0], stats.ErrTooFew)

	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		for side := range 2 {
			v := []float32{0.5, 0.25, 1, 0, 0.75, 0.75}
			v[2+side] = bad
			u := widened(v)
			_, wantErr := stats.SummarizePairs(u.LeftSum, u.RightSum)
			_, err := stats.SummarizePairs32(v)
			require.ErrorIs(t, err, stats.ErrNotFinite)
			require.Equal(t, wantErr, err)
			_, wantErr = stats.RandomizationUnits(u, stats.RandomizationOptions{})
			_, err = stats.DifferencesOfPairs32(v)
			require.ErrorIs(t, err, stats.ErrNotFinite)
			require.Equal(t, wantErr, err)
		}
	}

	d, err := stats.DifferencesOfPairs32([]float32{1, 0, 0, 1})
	require.NoError(t, err)
	_, err = stats.PairedBootstrapDifferences(d, stats.BootstrapOptions{Confidence: 2})
	require.ErrorIs(t, err, stats.ErrBadParameter)
	_, err = stats.RandomizationDifferences(d, stats.RandomizationOptions{Permutations: -1})
	require.ErrorIs(t, err, stats.ErrBadParameter)
	_, _, bootErrs, supErrs = stats.PairedBootstrapDifferencesShared(1, func(int) *stats.UnitDifferences { return d }, func(int) bool { return false }, stats.BootstrapOptions{Resamples: -1})
	require.ErrorIs(t, bootErrs[0], stats.ErrBadParameter)
	require.ErrorIs(t, supErrs[0], stats.ErrBadParameter)
	require.Panics(t, func() { _, _ = stats.DifferencesOfPairs32([]float32{1}) })
	require.Panics(t, func() { _, _ = stats.SummarizePairs32([]float32{1, 2, 3}) })
}

// requireSummaryEqual compares two summaries, their big integers by value.
func requireSummaryEqual(t *testing.T, want, got stats.PairedSummary, msgAndArgs ...any) {
	t.Helper()
	require.Equal(t, want.N, got.N, msgAndArgs...)
	require.Equal(t, want.Greater, got.Greater, msgAndArgs...)
	require.Equal(t, want.Less, got.Less, msgAndArgs...)
	require.Equal(t, want.NonBinary, got.NonBinary, msgAndArgs...)
	require.Equal(t, want.Scale, got.Scale, msgAndArgs...)
	require.Zero(t, want.SumLeft.Cmp(got.SumLeft), msgAndArgs...)
	require.Zero(t, want.SumRight.Cmp(got.SumRight), msgAndArgs...)
	require.Zero(t, want.SumDiff.Cmp(got.SumDiff), msgAndArgs...)
	require.Zero(t, want.SumDiffSq.Cmp(got.SumDiffSq), msgAndArgs...)
}
