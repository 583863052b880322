package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every one of the 2¹⁶ values of a replicate's 16 bits draws its weight
// as weightOfField does in each of a block hash's four lanes, whatever
// the other lanes hold, and with its sign bit; and over the 2¹⁶ values
// P(weight ≤ k) is Poisson(1)'s distribution function within 2⁻¹⁶, the
// rounding of the thresholds to 15 bits, the last weight (7) taking the
// tail.
func TestLaneWeightsAreWeightOfField(t *testing.T) {
	t.Parallel()
	counts := make([]int, len(poissonThresholds)+1)
	for f := range uint64(1 << 16) {
		want := weightOfField(f)
		counts[want]++
		for lane := range replicateLanes {
			// The other lanes hold the field reversed and its complement.
			other := uint64(0xffff) - f
			x := other*laneOnes&^(0xffff<<(16*lane)) | f<<(16*lane)
			ls := sumLanes([]uint64{x}, []int64{1})
			require.Equal(t, want, ls.sums[lane], "field %#x, lane %d", f, lane)
			require.Equal(t, uint64(want), ls.weights>>(16*lane)&0xffff, "field %#x, lane %d", f, lane)
			require.Equal(t, int64(f&1), ls.flips[lane], "field %#x, lane %d", f, lane)
		}
	}
	fact, F, seen := 1.0, 0.0, 0
	for k, c := range counts[:len(counts)-1] {
		if k > 0 {
			fact *= float64(k)
		}
		F += math.Exp(-1) / fact
		seen += c
		require.InDelta(t, F, float64(seen)/(1<<16), 0x1p-16, "P(weight ≤ %d)", k)
	}
	require.Positive(t, counts[len(counts)-1])
}
