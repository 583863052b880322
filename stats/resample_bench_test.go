package stats_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/verdict-ml/verdict/stats"
)

// benchPairs returns n paired scores shaped like those of
// ../shared/bench/scipy_compare.py: a ~ U(0, 1), b = clip(a + N(0.001, 0.1²), 0, 1).
func benchPairs(n int) (a, b []float64) {
	rng := rand.New(rand.NewPCG(0, 0))
	a, b = make([]float64, n), make([]float64, n)
	for i := range a {
		a[i] = rng.Float64()
		b[i] = min(max(a[i]+0.001+0.1*rng.NormFloat64(), 0), 1)
	}
	return a, b
}

// The resampling benchmarks run B = 2000 replicates, the default, at the
// sizes of the acceptance figures; bench/stats compares them with scipy.
func BenchmarkPairedBootstrap(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		left, right := benchPairs(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := stats.PairedBootstrap(left, right, nil, stats.BootstrapOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRandomization(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		left, right := benchPairs(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := stats.Randomization(left, right, nil, stats.RandomizationOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPairedBootstrapUnits resamples 1,000,000 rows of about 333,000
// units (three rows each on average, in no particular order).
func BenchmarkPairedBootstrapUnits(b *testing.B) {
	const n = 1_000_000
	left, right := benchPairs(n)
	rng := rand.New(rand.NewPCG(1, 0))
	units := make([]string, n)
	for i := range units {
		units[i] = "user " + strconv.Itoa(rng.IntN(n/3))
	}
	for b.Loop() {
		if _, err := stats.PairedBootstrap(left, right, units, stats.BootstrapOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSharedResampling resamples 8 metrics of 1,000,000 units for
// the bootstrap and the sign-flip test, shared and each on its own, with
// B = 200 (a tenth of the default: the time is linear in B).
func BenchmarkSharedResampling(b *testing.B) {
	const n, nm = 1_000_000, 8
	us := make([]stats.PairedUnits, nm)
	for k := range us {
		left, right := benchPairs(n)
		left[k] += 0.25 // the metrics differ
		us[k] = stats.PairedUnits{LeftSum: left, RightSum: right}
	}
	bopts := stats.BootstrapOptions{Resamples: 2000}
	ropts := stats.RandomizationOptions{Permutations: 2000}
	b.Run("bootstrap/shared", func(b *testing.B) {
		for b.Loop() {
			stats.PairedBootstrapUnitsShared(nm, func(k int) stats.PairedUnits { return us[k] }, bopts)
		}
	})
	b.Run("bootstrap/own", func(b *testing.B) {
		for b.Loop() {
			for _, u := range us {
				if _, err := stats.PairedBootstrapUnits(u, bopts); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("flips/shared", func(b *testing.B) {
		for b.Loop() {
			stats.RandomizationUnitsShared(nm, func(k int) stats.PairedUnits { return us[k] }, ropts)
		}
	})
	b.Run("flips/own", func(b *testing.B) {
		for b.Loop() {
			for _, u := range us {
				if _, err := stats.RandomizationUnits(u, ropts); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkHashedReplicates draws the Poisson bootstrap's and the
// sign-flip test's replicates together, B = 2000, as a compare with
// --resampling poisson does; BenchmarkPairedBootstrap and
// BenchmarkRandomization are the multinomial path's two passes.
func BenchmarkHashedReplicates(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		left, right := benchPairs(n)
		ids := make([]string, n)
		for i := range ids {
			ids[i] = fmt.Sprintf("user-%08d", i)
			// As the database stores them (real): exact in Q64.
			left[i], right[i] = float64(float32(left[i])), float64(float32(right[i]))
		}
		u := stats.PairedUnits{LeftSum: left, RightSum: right}
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for b.Loop() {
				r, err := stats.HashedReplicates(context.Background(), ids, u, 2000, 7)
				if err != nil {
					b.Fatal(err)
				}
				if r.Scale != stats.FixedScale {
					b.Fatalf("scale %d", r.Scale)
				}
			}
		})
	}
}
