package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFlipBlockSum checks the table-driven sign flips against flipping
// each value by hand with the same random words, for block sizes with and
// without a partial last word and group.
func TestFlipBlockSum(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	table := make([]float64, flipTableLen)
	for _, size := range []int{1, 3, 4, 63, 64, 65, 130, flipBlockSize - 1, flipBlockSize} {
		blk := make([]float64, size)
		for i := range blk {
			blk[i] = math.Round(rng.NormFloat64() * 1000) // integers: sums are exact
		}
		fillFlipTable(table, blk)
		st := newResampleStream(9, streamRandomization, size)
		words := st // a copy replays the same words
		got := flipBlockSum(&st, table, size, ^uint64(0))
		var want float64
		var w uint64
		for i, v := range blk {
			if i%64 == 0 {
				w = words.Uint64()
			}
			if w>>(i%64)&1 == 1 {
				v = -v
			}
			want += v
		}
		require.Equal(t, want, got, "size %d", size)
		require.Equal(t, words.state, st.state, "size %d: one word per 64 values", size)

		var none resampleStream
		var plain float64
		for _, v := range blk {
			plain += v
		}
		require.Equal(t, plain, flipBlockSum(&none, table, size, 0), "mask 0 flips nothing")
	}
}

// TestStreamIndexUniform checks Lemire's rejection: with n = 3, 2³² mod 3
// = 1 candidate must be rejected, and the indices must be uniform.
func TestStreamIndexUniform(t *testing.T) {
	t.Parallel()
	st := newResampleStream(0, streamBootstrap, 0)
	const draws = 300_000
	n := uint64(3)
	thresh := -uint32(n) % uint32(n)
	require.Equal(t, uint32(1), thresh)
	next := st
	want := next.index(uint32(next.Uint64()), n, thresh)
	require.Equal(t, want, st.index(0, n, thresh), "candidate 0 is rejected and replaced by the next word")

	var counts [3]int
	for range draws {
		counts[st.index(uint32(st.Uint64()), n, thresh)]++
	}
	se := math.Sqrt(draws * (1.0 / 3) * (1 - 1.0/3))
	for i, c := range counts {
		require.InDelta(t, draws/3, c, 4.5*se, "index %d", i)
	}
}
