package stats

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/pghash"
)

// float32Pairs are n pairs of per-unit values as verdict stores them
// (float32), ndcg-like: a third zeros, the rest in (0, 1).
func float32Pairs(n int, seed uint64) (ids []string, left, right []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	value := func() float64 {
		if rng.IntN(3) == 0 {
			return 0
		}
		return float64(float32(rng.Float64()))
	}
	for i := range n {
		ids = append(ids, "user-"+string(rune('a'+i%26))+big.NewInt(int64(i)).String())
		left = append(left, value())
		right = append(right, value())
	}
	return ids, left, right
}

// The summary's t-test is PairedT's (itself checked against scipy in
// ttest_test.go) to within rounding, the summary does not depend on the
// order of the units, and the fixed-point and wide sums are the same
// numbers.
func TestPairedSummaryIsPairedTAndOrderFree(t *testing.T) {
	t.Parallel()
	_, left, right := float32Pairs(5000, 7)
	s, err := SummarizePairs(left, right)
	require.NoError(t, err)
	require.Equal(t, uint(FixedScale), s.Scale)
	got, err := s.PairedT(PairedTOptions{})
	require.NoError(t, err)
	want, err := PairedT(left, right, PairedTOptions{})
	require.NoError(t, err)
	require.InDelta(t, want.T, got.T, 1e-12*math.Abs(want.T))
	require.InDelta(t, want.PValue, got.PValue, 1e-12)
	require.InDelta(t, want.CILow, got.CILow, 1e-15)
	require.InDelta(t, want.MeanDiff, got.MeanDiff, 1e-17)

	perm := rand.New(rand.NewPCG(3, 3)).Perm(len(left))
	l2, r2 := make([]float64, len(left)), make([]float64, len(left))
	for i, j := range perm {
		l2[i], r2[i] = left[j], right[j]
	}
	s2, err := SummarizePairs(l2, r2)
	require.NoError(t, err)
	got2, err := s2.PairedT(PairedTOptions{})
	require.NoError(t, err)
	require.Equal(t, got, got2)

	// A value outside Q64 moves every sum to the wide scale; the
	// numbers they stand for are the same.
	l3 := append([]float64{1e-30}, left...)
	r3 := append([]float64{1e-30}, right...)
	w, err := SummarizePairs(l3, r3)
	require.NoError(t, err)
	require.Equal(t, uint(WideScale), w.Scale)
	shift := func(x *big.Int, k uint) *big.Int { return new(big.Int).Lsh(x, k) }
	require.Zero(t, shift(s.SumDiff, WideScale-FixedScale).Cmp(w.SumDiff))
	require.Zero(t, shift(s.SumDiffSq, 2*(WideScale-FixedScale)).Cmp(w.SumDiffSq))
}

// Degenerate differences: all zero, and all the same.
func TestPairedSummaryDegenerate(t *testing.T) {
	t.Parallel()
	s, err := SummarizePairs([]float64{0.5, 0.25, 0.125}, []float64{0.5, 0.25, 0.125})
	require.NoError(t, err)
	r, err := s.PairedT(PairedTOptions{})
	require.NoError(t, err)
	want, err := PairedT([]float64{0.5, 0.25, 0.125}, []float64{0.5, 0.25, 0.125}, PairedTOptions{})
	require.NoError(t, err)
	require.Equal(t, want, r)
	s, err = SummarizePairs([]float64{0.75, 0.5, 0.375}, []float64{0.5, 0.25, 0.125})
	require.NoError(t, err)
	r, err = s.PairedT(PairedTOptions{})
	require.NoError(t, err)
	require.Equal(t, 0.25, r.MeanDiff)
	require.True(t, math.IsInf(r.T, 1))
	_, err = SummarizePairs([]float64{1}, []float64{1})
	require.NoError(t, err)
	one, _ := SummarizePairs([]float64{1}, []float64{0})
	_, err = one.PairedT(PairedTOptions{})
	require.ErrorIs(t, err, ErrTooFew)
}

// The replicates are sums over units: any split of the units (the shards
// of a distributed table) adds up to the whole, whatever the order and the
// number of cores, and each term is the unit's own PoissonWeight and
// FlipSign.
func TestHashedReplicatesAddUpOverShards(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ids, left, right := float32Pairs(3001, 11)
	const B = 64
	whole, err := HashedReplicates(ctx, ids, PairedUnits{LeftSum: left, RightSum: right}, B, 42)
	require.NoError(t, err)
	require.Equal(t, uint(FixedScale), whole.Scale)

	// Three "shards" by index modulo 3, in reverse order.
	sumW := make([]int64, B)
	sumS, sumF := make([]*big.Int, B), make([]*big.Int, B)
	for b := range B {
		sumS[b], sumF[b] = new(big.Int), new(big.Int)
	}
	for shard := range 3 {
		var si []string
		var sl, sr []float64
		for i := len(ids) - 1; i >= 0; i-- {
			if i%3 == shard {
				si, sl, sr = append(si, ids[i]), append(sl, left[i]), append(sr, right[i])
			}
		}
		part, err := HashedReplicates(ctx, si, PairedUnits{LeftSum: sl, RightSum: sr}, B, 42)
		require.NoError(t, err)
		for b := range B {
			sumW[b] += part.Weights[b]
			sumS[b].Add(sumS[b], part.Sums[b])
			sumF[b].Add(sumF[b], part.Flips[b])
		}
	}
	require.Equal(t, whole.Weights, sumW)
	for b := range B {
		require.Zero(t, whole.Sums[b].Cmp(sumS[b]), "replicate %d", b)
		require.Zero(t, whole.Flips[b].Cmp(sumF[b]), "replicate %d", b)
	}

	// Replicate 5's weight, unit by unit.
	var w int64
	for _, id := range ids {
		w += int64(PoissonWeight(id, 5, 42))
	}
	require.Equal(t, w, whole.Weights[5])

	// The wide path gives the same numbers.
	ids2 := append([]string{"tiny"}, ids...)
	l2 := append([]float64{1e-30}, left...)
	r2 := append([]float64{1e-30}, right...)
	wide, err := HashedReplicates(ctx, ids2, PairedUnits{LeftSum: l2, RightSum: r2}, B, 42)
	require.NoError(t, err)
	require.Equal(t, uint(WideScale), wide.Scale)
	for b := range B {
		require.Zero(t, new(big.Int).Lsh(whole.Sums[b], WideScale-FixedScale).Cmp(wide.Sums[b]))
		require.Zero(t, new(big.Int).Lsh(whole.Flips[b], WideScale-FixedScale).Cmp(wide.Flips[b]))
	}
	r1, err := whole.PoissonBootstrap(0.95)
	require.NoError(t, err)
	require.Less(t, r1.Low, r1.Estimate)
	require.Greater(t, r1.High, r1.Estimate)
	p := whole.FlipPValue()
	require.Greater(t, p, 0.0)
	require.LessOrEqual(t, p, 1.0)
}

// The replicates are their definition, term by term in big integers: each
// unit's PoissonWeight and FlipSign of its own sample ID, times its exact
// difference at scale 2⁶⁴ and its rows. The data sets take each way the
// sums are made: differences at the edges of Q64 (near ±2²⁵, and the
// least value 2⁻⁶⁴) summed in two words; values stored as float32, 0/1
// values and all-zero differences summed in one word shifted by their
// common power of two; several rows to a unit; one unit; and blocks of
// units, blocks of four replicates and chunks of replicates filled partly.
func TestHashedReplicatesAreTheirDefinition(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	edge := FixedLimit - 0x1p-20
	for _, tc := range []struct {
		name string
		n, B int
		rows bool
		unit func(i int, rng *rand.Rand) (float64, float64)
	}{
		{"Q64 edges, several rows", 700, 70, true, func(i int, rng *rand.Rand) (float64, float64) {
			switch i % 5 {
			case 0:
				return edge, -edge
			case 1:
				return -edge, edge
			case 2:
				return 0x1p-64, 0
			}
			return float64(float32(rng.Float64() * 8)), float64(float32(rng.Float64()))
		}},
		{"float32", 1000, 37, false, func(_ int, rng *rand.Rand) (float64, float64) {
			return float64(float32(rng.Float64())), float64(float32(rng.Float64()))
		}},
		{"0/1, several rows", 600, 33, true, func(_ int, rng *rand.Rand) (float64, float64) {
			return float64(rng.IntN(2)), float64(rng.IntN(2))
		}},
		{"large and small", 300, 9, false, func(i int, rng *rand.Rand) (float64, float64) {
			if i%2 == 0 {
				return 1e6, 0
			}
			return 0x1p-40, 0
		}},
		{"all equal", 257, 5, false, func(int, *rand.Rand) (float64, float64) { return 0.25, 0.25 }},
		{"one unit", 1, 3, false, func(int, *rand.Rand) (float64, float64) { return 0.75, 0.5 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(30, 2))
			ids := make([]string, tc.n)
			left, right := make([]float64, tc.n), make([]float64, tc.n)
			var rows []int32
			if tc.rows {
				rows = make([]int32, tc.n)
			}
			for i := range tc.n {
				ids[i] = "user " + big.NewInt(int64(i*7919)).String()
				if rows != nil {
					rows[i] = int32(1 + rng.IntN(3))
				}
				left[i], right[i] = tc.unit(i, rng)
			}
			got, err := HashedReplicates(ctx, ids, PairedUnits{LeftSum: left, RightSum: right, Rows: rows}, tc.B, 1234)
			require.NoError(t, err)
			require.Equal(t, uint(FixedScale), got.Scale)
			d := make([]*big.Int, tc.n)
			for i := range tc.n {
				l, okl := toFixed(left[i])
				r, okr := toFixed(right[i])
				require.True(t, okl && okr)
				d[i] = l.add(r.neg()).big()
			}
			for b := range tc.B {
				var w int64
				s, f := new(big.Int), new(big.Int)
				for i, id := range ids {
					wu := int64(PoissonWeight(id, int32(b), 1234))
					m := int64(1)
					if rows != nil {
						m = int64(rows[i])
					}
					w += wu * m
					s.Add(s, new(big.Int).Mul(d[i], big.NewInt(wu)))
					if FlipSign(id, int32(b), 1234) {
						f.Sub(f, d[i])
					} else {
						f.Add(f, d[i])
					}
				}
				require.Equal(t, w, got.Weights[b], "replicate %d", b)
				require.Zero(t, s.Cmp(got.Sums[b]), "replicate %d: %v against %v", b, got.Sums[b], s)
				require.Zero(t, f.Cmp(got.Flips[b]), "replicate %d", b)
			}
		})
	}
}

// The Poisson bootstrap's 95 % interval covers the true mean difference
// about 95 % of the time. 400 simulated data sets of 1,000 units, B = 200:
// the count of covers must fall in the binomial 99.9 % band around 95 %
// (364 to 393 of 400, from scipy.stats.binom.ppf(0.0005|0.9995, 400,
// 0.95)). The full study, at 1,000 and 100,000 units, is
// bench/calibration's poisson part.
func TestPoissonBootstrapCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(2026, 12))
	covered := 0
	const reps, n = 400, 1000
	for rep := range reps {
		ids := make([]string, n)
		left, right := make([]float64, n), make([]float64, n)
		for i := range n {
			ids[i] = "u" + big.NewInt(int64(rep*n+i)).String()
			// Exponential(1) against Exponential(1) + 0.1: skewed values,
			// true mean difference −0.1.
			left[i] = float64(float32(rng.ExpFloat64()))
			right[i] = float64(float32(rng.ExpFloat64() + 0.1))
		}
		r, err := HashedReplicates(ctx, ids, PairedUnits{LeftSum: left, RightSum: right}, 200, uint64(rep))
		require.NoError(t, err)
		ci, err := r.PoissonBootstrap(0.95)
		require.NoError(t, err)
		if ci.Low <= -0.1 && -0.1 <= ci.High {
			covered++
		}
	}
	t.Logf("covered %d of %d", covered, reps)
	require.GreaterOrEqual(t, covered, 364)
	require.LessOrEqual(t, covered, 393)
}

// TestReplicateStreamEqualsHashedReplicates splits units into batches of
// every size from one unit (and empty ones), some batches of one word a
// difference and some of two, and requires the stream's replicates to be
// HashedReplicates' over all the units, bit for bit.
func TestReplicateStreamEqualsHashedReplicates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 30))
	const n, B, seed = 3000, 45, 99
	ids := make([]string, n)
	left, right := make([]float64, n), make([]float64, n)
	hashes, hi, lo := make([]int64, n), make([]int64, n), make([]int64, n)
	for i := range n {
		ids[i] = fmt.Sprintf("u-%d", i)
		switch {
		case i < 1000: // multiples of 1/64: one word
			left[i], right[i] = float64(rng.IntN(64))/64, float64(rng.IntN(64))/64
		case i < 2000: // an edge of Q64 against a tiny value: two words
			left[i], right[i] = FixedLimit-0x1p-20, 0x1p-64
		default:
			left[i], right[i] = float64(float32(rng.Float64())), -float64(float32(rng.Float64()*100))
		}
		l, _ := toFixed(left[i])
		r, _ := toFixed(right[i])
		d := l.add(r.neg())
		h := d.sar(32)
		hi[i] = int64(h.lo) // |d| < 2⁸⁹, so d >> 32 fits in 64 bits
		lo[i] = int64(d.lo & (1<<32 - 1))
		hashes[i] = int64(pghash.BytesExtended(ids[i], seed))
	}
	want, err := HashedReplicates(ctx, ids, PairedUnits{LeftSum: left, RightSum: right}, B, seed)
	require.NoError(t, err)
	s, err := NewReplicateStream(B, seed)
	require.NoError(t, err)
	for lo0 := 0; lo0 < n; {
		size := []int{0, 1, 7, 256, 333, 1000}[rng.IntN(6)]
		hi0 := min(lo0+size, n)
		require.NoError(t, s.Add(ctx, hashes[lo0:hi0], hi[lo0:hi0], lo[lo0:hi0]))
		lo0 = hi0
	}
	got, err := s.Replicates()
	require.NoError(t, err)
	require.Equal(t, want, got)

	empty, err := NewReplicateStream(B, seed)
	require.NoError(t, err)
	_, err = empty.Replicates()
	require.ErrorIs(t, err, ErrTooFew)
	_, err = NewReplicateStream(0, seed)
	require.ErrorIs(t, err, ErrBadParameter)
	require.ErrorIs(t, s.Add(ctx, hashes[:2], hi[:1], lo[:2]), ErrLengths)
}

// TestDifferenceSums: Σ (l − r) and Σ |l − r| rounded once from the exact
// sums, against big.Rat's, in Q64 (where l − r itself may not be a
// float64), past it, and in any order.
func TestDifferenceSums(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ left, right []float64 }{
		{[]float64{0.1, 0.2, 0.3}, []float64{0.3, 0.2, 0.1}},
		// 16777215 − 2⁻⁶⁰ needs 84 bits: a float64 difference rounds it.
		{[]float64{16777215, 0x1p-60, 3}, []float64{0x1p-60, 16777215, 1}},
		{[]float64{1e30, 1e-30, 1}, []float64{-1e30, 0, 1}}, // past Q64
		{[]float64{0.5}, []float64{0.5}},
	} {
		sum, abs := new(big.Rat), new(big.Rat)
		for i, l := range c.left {
			d := new(big.Rat).Sub(new(big.Rat).SetFloat64(l), new(big.Rat).SetFloat64(c.right[i]))
			sum.Add(sum, d)
			abs.Add(abs, d.Abs(d))
		}
		ws, _ := sum.Float64()
		wa, _ := abs.Float64()
		gs, ga := DifferenceSums(c.left, c.right)
		require.Equal(t, []float64{ws, wa}, []float64{gs, ga}, "%v − %v", c.left, c.right)
		l, r := slices.Clone(c.left), slices.Clone(c.right)
		slices.Reverse(l)
		slices.Reverse(r)
		gs, ga = DifferenceSums(l, r)
		require.Equal(t, []float64{ws, wa}, []float64{gs, ga}, "reversed")
	}
	s, a := DifferenceSums([]float64{1, math.NaN()}, []float64{0, 0})
	require.True(t, math.IsNaN(s) && math.IsNaN(a))
}

// TestExactMean: the mean rounded once from the exact sum, whatever the
// order, in Q64 and past it, against big.Rat's.
func TestExactMean(t *testing.T) {
	t.Parallel()
	for _, xs := range [][]float64{
		{0.1, 0.2, 0.3},
		{1e16, 1, -1e16},     // past Q64: a float sum gives 0
		{1e-30, 3, 1e-30, 7}, // below Q64's step
		{0.25},
	} {
		want := new(big.Rat)
		for _, v := range xs {
			want.Add(want, new(big.Rat).SetFloat64(v))
		}
		want.Quo(want, big.NewRat(int64(len(xs)), 1))
		f, _ := want.Float64()
		require.Equal(t, f, ExactMean(xs), "%v", xs)
		rev := append([]float64(nil), xs...)
		slices.Reverse(rev)
		require.Equal(t, f, ExactMean(rev))
	}
	require.Equal(t, 1.0/3, ExactMean([]float64{1e16, 1, -1e16}))
	require.True(t, math.IsNaN(ExactMean(nil)))
	require.True(t, math.IsNaN(ExactMean([]float64{1, math.Inf(1)})))
	require.Equal(t, 0.5, MeanOfSum(new(big.Int).Lsh(big.NewInt(3), 63), FixedScale, 3))
}

// TestToFixedEqualsBigFloat: v·2⁶⁴ for values in Q64 equals big.Float's
// exact product, for float32 values of both signs from 2⁻⁶⁴ to just below
// 2²⁴, negative ones whose fraction reaches 2⁻⁶⁴ among them (v − ⌊v⌋ of
// −2⁻⁶⁴ is not a float64); values with a bit below 2⁻⁶⁴ are not in Q64.
func TestToFixedEqualsBigFloat(t *testing.T) {
	t.Parallel()
	values := []float64{0, 0x1p-64, -0x1p-64, 3 * 0x1p-64, -3 * 0x1p-64, -1e-10, -0.25, -1 - 0x1p-40, 16777215, -16777215, 0x1.fffffep+23, -(1 - 0x1p-24)}
	rng := rand.New(rand.NewPCG(9, 9))
	for range 20000 {
		v := float64(float32(math.Ldexp(rng.Float64(), rng.IntN(88)-64)))
		if rng.IntN(2) == 0 {
			v = -v
		}
		values = append(values, v)
	}
	for _, v := range values {
		got, ok := toFixed(v)
		want, acc := new(big.Float).SetMantExp(big.NewFloat(v), 64).Int(nil)
		inQ64 := acc == big.Exact && math.Abs(v) < FixedLimit
		require.Equal(t, inQ64, ok, "%v (%x)", v, v)
		if ok {
			require.Zero(t, want.Cmp(got.big()), "%v (%x): %v, want %v", v, v, got.big(), want)
		}
	}
	_, ok := toFixed(-0x1p-65)
	require.False(t, ok)
}
