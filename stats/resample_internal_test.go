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

// TestVerdictSentenceBranches covers wording that real data reaches
// rarely: an interval that includes zero while p clears alpha, a gap too
// small for SampleSize, small numbers and a p-value next to alpha.
func TestVerdictSentenceBranches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		c        Comparison
		equal    bool
		tooSmall bool
		want     string
	}{
		{
			name: "interval includes zero, p below alpha",
			c: Comparison{N: 40, Difference: Interval{Estimate: 0.031, Low: -0.002, High: 0.07, Confidence: 0.95},
				PValue: 100.0 / 2001, Alpha: 0.05, NRequired: new(4083)},
			want: "left and right are not distinguishable (n = 40): the gap of +0.0310 (left − right) has a 95% CI of -0.0020 to +0.0700, " +
				"which includes zero, although p = 0.04998 is below alpha 0.05. " +
				"Detecting a gap this size with 80% power would take about 4083 units (a worst-case, unpaired estimate: an order of magnitude, not a count).",
		},
		{
			name: "gap too small to size",
			c: Comparison{N: 1000, Difference: Interval{Estimate: 1e-6, Low: -0.004, High: 0.004, Confidence: 0.99},
				PValue: 0.999, Alpha: 0.01},
			tooSmall: true,
			want: "left and right are not distinguishable (n = 1000): the gap of +0.000001 (left − right) has a 99% CI of -0.00400 to +0.00400, " +
				"which includes zero, and p = 0.999 is not below alpha 0.01. " +
				"A gap this small would take more than 2147483647 units to detect with 80% power.",
		},
		{
			name: "small winner",
			c: Comparison{N: 100000, Difference: Interval{Estimate: -0.0012, Low: -0.0019, High: -0.0004, Confidence: 0.95},
				PValue: 1.0 / 2001, Alpha: 0.05, Distinguishable: true, Winner: Right, Wins: 40000, Losses: 41000, Ties: 19000},
			want: "right beats left by 0.00120 (95% CI 0.00040 to 0.00190, p = 0.0005, n = 100000): the interval excludes zero and p is below alpha 0.05. " +
				"right scores higher on 41000 units, lower on 40000 and the same on 19000.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, tt.c.sentence(CompareOptions{}, tt.equal, tt.tooSmall))
		})
	}
}
