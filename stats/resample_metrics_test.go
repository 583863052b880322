package stats_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
)

// sharedCase is nm metrics of n units: varied values, ties and exact 0s
// and 1s, one metric equal on both sides, one constant difference.
func sharedCase(n, nm int, seed uint64) []stats.PairedUnits {
	rng := rand.New(rand.NewPCG(seed, 5))
	us := make([]stats.PairedUnits, nm)
	for k := range us {
		l, r := make([]float64, n), make([]float64, n)
		for i := range n {
			switch k % 5 {
			case 0:
				l[i], r[i] = rng.Float64(), rng.Float64()
			case 1:
				l[i], r[i] = float64(rng.IntN(2)), float64(rng.IntN(2))
			case 2:
				l[i] = float64(rng.IntN(33)) / 32
				r[i] = l[i]
			case 3:
				l[i], r[i] = rng.Float64(), 0
				r[i] = l[i] - 0.25
			default:
				l[i], r[i] = math.Min(1, rng.ExpFloat64()), rng.Float64()
			}
		}
		us[k] = stats.PairedUnits{LeftSum: l, RightSum: r}
	}
	return us
}

// The shared bootstrap and sign-flip test give each metric what its own
// resampling gives, bit for bit, at sizes around the blocks (4096 units
// for the bootstrap, 2048 for the flips) and with 1 to 19 metrics (groups
// of 8 and a remainder).
func TestSharedResamplingEqualsOwn(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 7, 2047, 4096, 4097, 12289, 70001} {
		for _, nm := range []int{1, 3, 19} {
			if n == 70001 && nm == 19 {
				continue
			}
			us := sharedCase(n, nm, uint64(n*31+nm))
			bopts := stats.BootstrapOptions{Resamples: 101, Seed: uint64(n), Context: context.Background()}
			ropts := stats.RandomizationOptions{Permutations: 99, Seed: uint64(n) + 1}
			boots, berrs := stats.PairedBootstrapUnitsShared(len(us), func(k int) stats.PairedUnits { return us[k] }, bopts)
			perms, perrs := stats.RandomizationUnitsShared(len(us), func(k int) stats.PairedUnits { return us[k] }, ropts)
			for k, u := range us {
				b, err := stats.PairedBootstrapUnits(u, bopts)
				require.Equal(t, err, berrs[k])
				require.Equal(t, b, boots[k], "bootstrap, n %d, metric %d of %d", n, k, nm)
				p, err := stats.RandomizationUnits(u, ropts)
				require.Equal(t, err, perrs[k])
				require.Equal(t, p, perms[k], "sign flips, n %d, metric %d of %d", n, k, nm)
			}
		}
	}
}

// What the shared path leaves to each metric's own resampling gives the
// same too: draws, BCa, errors, metrics of other sizes.
func TestSharedResamplingOtherCases(t *testing.T) {
	t.Parallel()
	us := sharedCase(5000, 4, 9)
	rows := make([]int32, 5000)
	for i := range rows {
		rows[i] = int32(1 + i%3)
	}
	us[1].Rows = rows
	us[2].LeftSum = append([]float64(nil), us[2].LeftSum...)
	us[2].LeftSum[17] = math.NaN()
	us = append(us, sharedCase(333, 1, 4)...)
	for _, method := range []stats.IntervalMethod{stats.Percentile, stats.BCa} {
		opts := stats.BootstrapOptions{Resamples: 64, Seed: 3, Method: method}
		boots, errs := stats.PairedBootstrapUnitsShared(len(us), func(k int) stats.PairedUnits { return us[k] }, opts)
		for k, u := range us {
			b, err := stats.PairedBootstrapUnits(u, opts)
			require.Equal(t, err, errs[k], "metric %d", k)
			require.Equal(t, b, boots[k], "metric %d, %s", k, method)
		}
	}
	ropts := stats.RandomizationOptions{Permutations: 64, Seed: 4}
	perms, errs := stats.RandomizationUnitsShared(len(us), func(k int) stats.PairedUnits { return us[k] }, ropts)
	for k, u := range us {
		p, err := stats.RandomizationUnits(u, ropts)
		require.Equal(t, err, errs[k], "metric %d", k)
		require.Equal(t, p, perms[k], "metric %d", k)
	}
	_, errs = stats.PairedBootstrapUnitsShared(len(us), func(k int) stats.PairedUnits { return us[k] }, stats.BootstrapOptions{Resamples: -1})
	require.ErrorIs(t, errs[0], stats.ErrBadParameter)
}
