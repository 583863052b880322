package evaluate

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAppendHitRanks compares the word-at-a-time scan with a flag-by-flag
// loop on random rows of every width up to 40, sparse and dense, and rows
// that start mid-word in a larger slice.
func TestAppendHitRanks(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for width := range 41 {
		for _, density := range []float64{0, 0.05, 0.5, 1} {
			for offset := range 3 {
				flags := make([]bool, offset+width)
				for i := range flags {
					flags[i] = rng.Float64() < density
				}
				row := flags[offset:]
				var want []int32
				for i, hit := range row {
					if hit {
						want = append(want, int32(i+1))
					}
				}
				got := appendHitRanks([]int32{-1}, row)
				require.Equal(t, append([]int32{-1}, want...), got,
					"width %d, density %v, offset %d", width, density, offset)
			}
		}
	}
}
