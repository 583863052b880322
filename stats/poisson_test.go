package stats_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
)

// TestPoissonWeightsArePoisson checks the weights' distribution over
// 200,000 draws against Poisson(1)'s probabilities e⁻¹/k!, and the signs'
// balance.
func TestPoissonWeightsArePoisson(t *testing.T) {
	t.Parallel()
	counts := make([]int, 21)
	flips := 0
	const ids, reps = 5000, 40
	for i := range ids {
		id := fmt.Sprintf("user-%d", i)
		for b := range int32(reps) {
			counts[stats.PoissonWeight(id, b, 7)]++
			if stats.FlipSign(id, b, 7) {
				flips++
			}
		}
	}
	n := float64(ids * reps)
	fact := 1.0
	for k := range 6 {
		if k > 0 {
			fact *= float64(k)
		}
		p := math.Exp(-1) / fact
		se := math.Sqrt(p * (1 - p) / n)
		require.InDelta(t, p, float64(counts[k])/n, 5*se, "P(weight = %d)", k)
	}
	require.InDelta(t, 0.5, float64(flips)/n, 5*math.Sqrt(0.25/n))
	// Another seed draws other weights.
	same := 0
	for i := range 1000 {
		id := fmt.Sprint(i)
		if stats.PoissonWeight(id, 0, 1) == stats.PoissonWeight(id, 0, 2) {
			same++
		}
	}
	require.Less(t, same, 500)
}
