package stats

import (
	"context"
	"fmt"
	"math"
)

// DefaultPermutations is the number of random sign flips Randomization
// draws when RandomizationOptions.Permutations is zero.
const DefaultPermutations = 2000

// RandomizationOptions configures Randomization. The zero value asks for
// 2000 sign flips with seed 0.
type RandomizationOptions struct {
	// Permutations is the number of random sign flips B. Zero means
	// DefaultPermutations; negative values are an error.
	Permutations int `req:"permutations" default:"2000" arg:"B" help:"random sign flips"`

	// Seed selects the random streams. The same inputs, options and seed
	// give the same p-value, bit for bit, on any number of cores.
	Seed uint64 `req:"seed" default:"0" arg:"SEED" help:"random seed: the same seed gives the same output, bit for bit"`

	// Context, when not nil, cancels the sign flips: they stop within a
	// fraction of a second and return the context's error.
	Context context.Context
}

// RandomizationResult is the outcome of Randomization.
type RandomizationResult struct {
	// Estimate is the mean difference left − right (row-weighted when
	// there are units).
	Estimate float64 `json:"estimate"`
	// PValue is the two-sided p-value, in (0, 1].
	PValue float64 `json:"p_value"`
	// Permutations is the number of sign flips B the p-value is based on.
	Permutations int `json:"permutations"`
}

// flipBlockSize is the number of units the sign-flip test sums at once: 2048
// float64 values (16 KiB, in L1 cache while a chunk's replicates use it),
// a multiple of the 64 signs one random word gives.
const flipBlockSize = 2048

// Tolerances of the randomisation test, relative to the size of the
// quantities they compare.
const (
	// resampleZeroTol decides that two numbers are equal to within
	// floating-point error: |a − b| ≤ resampleZeroTol · max(|a|, |b|).
	// Rounding a few operations leaves errors near 1e-16; any real
	// difference of scores is far larger than 1e-12 of them.
	resampleZeroTol = 1e-12

	// flipCountTol is the slack in counting resampled statistics at least
	// as extreme as the observed one: |T*| ≥ |T| − flipCountTol · Σ|x_u|.
	// A sign vector whose exact statistic ties the observed one can come
	// out a few roundings lower; those are at most (2048 + n/2048)·ε·Σ|x_u|
	// for the blocked sums here, below 1e-12·Σ|x_u| for any n up to 10⁹.
	// The slack moves p by about the probability of a window that narrow,
	// under 10⁻⁶ for any n.
	flipCountTol = 1e-9
)

// Randomization runs the paired sign-flip randomisation (permutation) test
// of whether left and right have the same mean. Under the null hypothesis
// the label "left" or "right" within a pair is arbitrary, so each
// difference d_i = left_i − right_i is as likely as −d_i. The test draws B
// random sign vectors s and counts the statistics at least as extreme as
// the observed one:
//
//	T = Σ_i d_i,  T*_b = Σ_i s_bi · d_i,  s_bi = ±1 with probability ½
//	count = #{b : |T*_b| ≥ |T|}  (to within flipCountTol · Σ|d_i|)
//	p = (count + 1) / (B + 1)
//
// The +1 counts the observed signs themselves, one of the 2ⁿ equally likely
// vectors, so p is never 0 and the test keeps its level for any B: p ≤ α
// happens with probability at most α under the null. (A p-value of 0, as
// some tools print, claims a certainty no finite number of flips can give.)
//
// With units nil each row is its own unit. Otherwise units[i] names the
// unit of row i, and the test flips whole units: d_i of one unit keep their
// sign together, since a unit's rows are not independent. The statistic is
// then Σ_u s_u·S_u, S_u the sum of unit u's differences, which orders sign
// vectors as the row-weighted mean difference does.
//
// Each random 64-bit word gives the signs of 64 units. Memory is O(n).
//
// Edge cases:
//   - Every difference zero to within floating-point error (|d_i| ≤
//     1e-12·max(|left_i|, |right_i|)): p = 1 exactly, with no resampling.
//     Every sign vector ties the observed statistic, so resampling would
//     give count = B and p = 1 as well.
//   - One unit: the flips give ±T, always as extreme as T, so p = 1.
//   - No pairs returns ErrTooFew; NaN or ±Inf, in the inputs or their
//     differences, returns ErrNotFinite; inputs of different lengths
//     return ErrLengths; a negative number of permutations returns
//     ErrBadParameter.
func Randomization(left, right []float64, units []string, opts RandomizationOptions) (RandomizationResult, error) {
	B, err := opts.permutations()
	if err != nil {
		return RandomizationResult{}, err
	}
	d, err := resampleDifferences(left, right, units)
	if err != nil {
		return RandomizationResult{}, err
	}
	if len(d) == 0 {
		return RandomizationResult{}, fmt.Errorf("%w: the randomisation test needs at least 1 pair, got 0", ErrTooFew)
	}
	res := RandomizationResult{Estimate: accurateSum(d) / float64(len(d)), Permutations: B, PValue: 1}
	if differencesAllZero(left, right, d) {
		return res, nil
	}
	x, _ := unitSums(d, units)
	res.PValue, err = signFlipPValue(opts.Context, x, B, opts.Seed)
	return res, err
}

// permutations returns the number of sign flips B, DefaultPermutations
// for zero, and ErrBadParameter for a negative number.
func (o RandomizationOptions) permutations() (int, error) {
	if o.Permutations < 0 || o.Permutations > MaxResamples {
		return 0, fmt.Errorf("%w: permutations must be from 1 to %d, got %d", ErrBadParameter, MaxResamples, o.Permutations)
	}
	if o.Permutations == 0 {
		return DefaultPermutations, nil
	}
	return o.Permutations, nil
}

// signFlipPValue returns the sign-flip test's p = (count + 1) / (B + 1) for
// the unit sums x (see signFlipCount).
func signFlipPValue(ctx context.Context, x []float64, B int, seed uint64) (float64, error) {
	count, err := signFlipCount(ctx, x, B, seed)
	return float64(count+1) / float64(B+1), err
}

// differencesAllZero reports whether every d_i = left_i − right_i is zero
// to within floating-point error (see resampleZeroTol).
func differencesAllZero(left, right, d []float64) bool {
	for i, v := range d {
		if math.Abs(v) > resampleZeroTol*max(math.Abs(left[i]), math.Abs(right[i])) {
			return false
		}
	}
	return true
}

// signFlipCount returns how many of B random sign vectors s give
// |Σ s_u·x_u| ≥ |Σ x_u| (to within flipCountTol). The observed sum is
// computed by the same blocked summation as the resampled ones, so the
// identity vector ties it exactly.
//
// Replicates come in chunks of resampleChunkSize, each chunk from its own
// stream, as resampleChunks runs them; a job runs flipJobChunks chunks
// over every block, filling each block's table of signed sums once for
// all of them. The context is checked, and a chunk-start hook called,
// before each chunk, as resampleChunks does.
func signFlipCount(ctx context.Context, x []float64, B int, seed uint64) (int, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	bounds := resampleBlocks(len(x), flipBlockSize)
	nb := len(bounds) - 1
	threshold := flipThreshold(x, bounds)
	chunks := (B + resampleChunkSize - 1) / resampleChunkSize
	jobs := (chunks + flipJobChunks - 1) / flipJobChunks
	counts := make([]int, chunks)
	starting, _ := ctx.Value(chunkStartKey{}).(func())
	err := resampleJobs(ctx, jobs, float64(len(x))*float64(B), func() func(job int) {
		sums := make([]float64, flipJobChunks*resampleChunkSize)
		streams := make([]resampleStream, flipJobChunks)
		table := make([]float64, flipTableLen)
		return func(job int) {
			c0, c1 := job*flipJobChunks, min((job+1)*flipJobChunks, chunks)
			for c := c0; c < c1; c++ {
				if ctx.Err() != nil {
					c1 = c // cancelled: the result is not used
					break
				}
				if starting != nil {
					starting()
				}
				streams[c-c0] = newResampleStream(seed, streamRandomization, c)
			}
			clear(sums)
			for b := range nb {
				size := bounds[b+1] - bounds[b]
				fillFlipTable(table, x[bounds[b]:bounds[b+1]])
				for c := c0; c < c1; c++ {
					st := &streams[c-c0]
					row := sums[(c-c0)*resampleChunkSize:][:min(resampleChunkSize, B-c*resampleChunkSize)]
					for r := range row {
						row[r] += flipBlockSum(st, table, size, ^uint64(0))
					}
				}
			}
			for c := c0; c < c1; c++ {
				for _, sum := range sums[(c-c0)*resampleChunkSize:][:min(resampleChunkSize, B-c*resampleChunkSize)] {
					if math.Abs(sum) >= threshold {
						counts[c]++
					}
				}
			}
		}
	})
	total := 0
	for _, c := range counts {
		total += c
	}
	return total, err
}

// flipThreshold is the least |Σ s_u·x_u| a sign vector counts with: the
// observed |Σ x_u|, summed block by block as the resampled sums are, less
// flipCountTol·Σ|x_u|.
func flipThreshold(x []float64, bounds []int) float64 {
	var scale, observed float64
	for _, v := range x {
		scale += math.Abs(v)
	}
	table := make([]float64, flipTableLen)
	var none resampleStream
	for b := range len(bounds) - 1 {
		fillFlipTable(table, x[bounds[b]:bounds[b+1]])
		observed += flipBlockSum(&none, table, bounds[b+1]-bounds[b], 0)
	}
	return math.Abs(observed) - flipCountTol*scale
}

// flipTableLen is the length of a block's table of signed sums: 16 entries
// for each group of 4 values.
const flipTableLen = flipBlockSize / 4 * 16

// fillFlipTable fills table with the 16 signed sums of each group of 4
// values of blk: entry 16g + k is Σ_{j<4} ±blk[4g+j], minus where bit j of
// k is 1, summed as (±v₀ ± v₁) + (±v₂ ± v₃). Groups past the end of blk,
// up to the next multiple of 64 values, are zero. With the table, a random
// word's 64 signs cost 16 additions instead of 64.
func fillFlipTable(table, blk []float64) {
	groups := (len(blk) + 63) / 64 * 16
	for g := range groups {
		var v [4]float64
		if 4*g < len(blk) {
			copy(v[:], blk[4*g:min(4*g+4, len(blk))])
		}
		lo := [4]float64{v[0] + v[1], -v[0] + v[1], v[0] - v[1], -v[0] - v[1]}
		hi := [4]float64{v[2] + v[3], -v[2] + v[3], v[2] - v[3], -v[2] - v[3]}
		t := (*[16]float64)(table[16*g : 16*g+16])
		for k := range 16 {
			t[k] = lo[k&3] + hi[k>>2]
		}
	}
}

// flipBlockSum returns Σ ±v_i over a block of size values whose signed sums
// fillFlipTable put in table, the sign of v_i flipped where bit i mod 64
// of the (i/64)-th word of st, masked by mask, is 1; mask 0 flips nothing.
// Four accumulators hide the latency of the additions.
func flipBlockSum(st *resampleStream, table []float64, size int, mask uint64) float64 {
	state := st.state
	var a0, a1, a2, a3 float64
	for i := 0; i < size; i += 64 {
		state += splitMixGamma
		w := splitMix64(state) & mask
		t := (*[16 * 16]float64)(table[4*i : 4*i+256])
		for g := 0; g < 16; g += 4 {
			a0 += t[16*g+int(w&15)]
			a1 += t[16*g+16+int(w>>4&15)]
			a2 += t[16*g+32+int(w>>8&15)]
			a3 += t[16*g+48+int(w>>12&15)]
			w >>= 16
		}
	}
	st.state = state
	return (a0 + a1) + (a2 + a3)
}
