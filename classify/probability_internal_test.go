package classify

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestECEBinEdges checks the bin of every edge j/B, the float64 nearest to
// the fraction, for B up to 300: it belongs to bin j (the bin above it),
// the float64 just below it to bin j−1, and 1 to the last bin.
// floor(j/B·B) would put some edges one bin lower.
func TestECEBinEdges(t *testing.T) {
	t.Parallel()
	for bins := 1; bins <= 300; bins++ {
		require.Equal(t, 0, eceBin(0, bins))
		for j := 1; j < bins; j++ {
			edge := float64(j) / float64(bins)
			require.Equal(t, j, eceBin(edge, bins), "%d/%d", j, bins)
			require.Equal(t, j-1, eceBin(math.Nextafter(edge, 0), bins), "just below %d/%d", j, bins)
		}
		require.Equal(t, bins-1, eceBin(1, bins))
		require.Equal(t, bins-1, eceBin(math.Nextafter(1, 0), bins))
	}
}
