package stats_test

import (
	"math/rand/v2"
	"testing"

	"github.com/verdict-ml/verdict/stats"
)

// BenchmarkSuperiorityShared resamples one metric of 1,000,000 units and
// its probability of superiority from the same draws, 200 replicates:
// from the differences, the scores held as bytes ("differences"), and
// from the units, the scores as float64 paired with zeros ("units").
func BenchmarkSuperiorityShared(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	v := pairs32Case(0, n, rng)
	u := widened(v)
	w, err := stats.SuperiorityScores(u, false)
	if err != nil {
		b.Fatal(err)
	}
	scores := stats.PairedUnits{LeftSum: w, RightSum: make([]float64, n)}
	d, err := stats.DifferencesOfPairs32(v)
	if err != nil {
		b.Fatal(err)
	}
	opts := stats.BootstrapOptions{Resamples: 200, Seed: 1}
	b.Run("differences", func(b *testing.B) {
		for b.Loop() {
			stats.PairedBootstrapDifferencesShared(1, func(int) *stats.UnitDifferences { return d }, func(int) bool { return false }, opts)
		}
	})
	b.Run("units", func(b *testing.B) {
		for b.Loop() {
			stats.PairedBootstrapUnitsShared(2, func(k int) stats.PairedUnits { return [...]stats.PairedUnits{u, scores}[k] }, opts)
		}
	})
}
