package evaluate

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRadixSort(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 255, 1000} {
		a := make([]uint64, n)
		for i := range a {
			a[i] = rng.Uint64() >> (rng.IntN(64)) // every byte position varies
		}
		want := slices.Clone(a)
		slices.Sort(want)
		radixSort(a, make([]uint64, n))
		require.Equal(t, want, a, "n = %d", n)
	}
}

// TestUnitSet counts distinct values through several deduplications, with
// repeats both within and across them, and through a merge.
func TestUnitSet(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	const distinct = 1_500_000
	var s, o unitSet
	seen := make(map[uint64]bool)
	for i := range 3 * minDedup {
		h := rng.Uint64N(distinct) * 0x9e3779b97f4a7c15 // spread over 64 bits
		seen[h] = true
		if i%5 == 0 {
			o.add(h)
		} else {
			s.add(h)
		}
	}
	s.merge(&o)
	require.Equal(t, len(seen), s.len())
	require.Equal(t, len(seen), s.len(), "asking twice changes nothing")
	require.LessOrEqual(t, len(s.hashes), 2*len(seen))

	var z unitSet
	z.add(0)
	z.add(0)
	require.Equal(t, 1, z.len())
}
