package stats

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// CountStatistic computes a statistic of both sides of a paired sample on
// one bootstrap replicate, given as draw counts: counts[i] is how many
// times sample i was drawn, 0 for a sample left out. It returns NaN for a
// side whose statistic is undefined on the replicate (an AUC with no
// positive drawn, say). It must not keep or change counts, which the
// resampler reuses for the next replicate.
type CountStatistic func(counts []int32) (left, right float64)

// CountsBootstrapResult is the outcome of PairedBootstrapCounts.
type CountsBootstrapResult struct {
	// Left and Right are the statistic of each side on the sample itself,
	// every count 1, and Difference is Left − Right.
	Left       float64 `json:"left"`
	Right      float64 `json:"right"`
	Difference float64 `json:"difference"`
	// Low and High bound the percentile interval of the difference at
	// Confidence.
	Low        float64 `json:"ci_low"`
	High       float64 `json:"ci_high"`
	Confidence float64 `json:"confidence"`
	// SE is the bootstrap standard error of the difference: the standard
	// deviation (divisor D − 1) of the D defined replicate differences;
	// NaN when D < 2.
	SE float64 `json:"se"`
	// PValue is the two-sided bootstrap p-value of no difference, in
	// (0, 1]; see PairedBootstrapCounts.
	PValue float64 `json:"p_value"`
	// Resamples is the number of replicates B drawn, and Undefined how
	// many of them were left out because the statistic of a side was not
	// a finite number there. The interval, SE and p-value rest on the
	// other B − Undefined.
	Resamples int    `json:"resamples"`
	Undefined int    `json:"undefined_resamples"`
	Seed      uint64 `json:"seed"`
}

// Interval returns the difference with its interval.
func (r CountsBootstrapResult) Interval() Interval {
	return Interval{Estimate: r.Difference, Low: r.Low, High: r.High, Confidence: r.Confidence}
}

// streamCounts keeps PairedBootstrapCounts' random numbers apart from those
// of the other resampling methods run with the same seed.
const streamCounts uint64 = 0x7374726174696679 // "stratify"

// PairedBootstrapCounts is the paired bootstrap of a statistic that is not
// a mean of per-sample values, such as a classifier's ROC AUC, which
// compares every positive with every negative. Each replicate is handed to
// the statistic as per-sample draw counts, which lets the statistic sort
// its data once and recompute itself on each replicate in one pass (see
// package classify), instead of copying a resampled data set B times.
//
// The n samples are laid out in strata of consecutive samples, strata[s]
// of them in stratum s: with strata {P, N}, samples 0..P−1 form the first
// stratum and P..P+N−1 the second. Each replicate draws, with replacement,
// strata[s] samples from stratum s alone, so every replicate has exactly
// the stratum sizes of the sample (a stratified bootstrap); one stratum of
// n is the ordinary bootstrap. Both sides get the same counts, which makes
// the bootstrap paired: the replicate differences reflect how the sides
// vary together on the same samples.
//
// For replicate b the statistic returns (L*_b, R*_b), and d*_b = L*_b −
// R*_b. Replicates where either side is NaN or ±Inf are undefined: they
// are counted in Undefined and left out of the rest, which then rests on
// the D = B − Undefined defined ones. That conditions the bootstrap on the
// statistic being defined, which is what a replicate of a data set that
// never lacks a positive looks like; stratifying avoids it altogether
// where a statistic needs both classes. With
// d*_(1) ≤ … ≤ d*_(D) the sorted defined differences:
//
//	interval  the (1 − c)/2 and (1 + c)/2 quantiles of the d*, interpolated
//	          as Bootstrap's (Efron's percentile interval)
//	SE        the standard deviation of the d*, divisor D − 1
//	p         min(1, 2 · (1 + min(#{d* ≤ 0}, #{d* ≥ 0})) / (D + 1))
//
// The p-value is the two-sided test that inverts the percentile interval
// (Efron and Tibshirani 1993, ch. 16; Davison and Hinkley 1997, ch. 4):
// twice the share of replicates on the smaller side of zero, which is
// about the least α at which the equal-tailed 1 − α percentile interval
// still reaches zero; so p < α about when that interval excludes zero.
// The +1 in numerator and denominator counts the observed sample as one
// more replicate, the usual Monte Carlo correction (Davison and Hinkley,
// ch. 4), so that p is never 0: with D replicates it is at least
// 2/(D + 1), about 0.001 at D = 2000; a smaller p needs more replicates.
// A replicate difference of exactly 0 counts on both sides, so a
// statistic that never differs gives p = 1.
//
// Only the percentile interval is offered: BCa's acceleration needs a
// jackknife of the statistic, n recomputations of it, which the counts do
// not give cheaply. opts.Method must be empty or Percentile.
//
// newStatistic is called once for each goroutine that resamples, so that
// each statistic can keep scratch space of its own; they run concurrently
// and must not share what they write. The result is the same bit for bit
// for the same strata, statistic and options on any number of cores:
// replicates are cut into chunks whose random streams depend on the seed
// and the chunk's number alone, as in Bootstrap. Within a stratum the draws
// are split among blocks of 4096 samples by conditional binomials and then
// drawn within each block, which keeps the counts being written in cache
// and is the same distribution as drawing each sample's index at random.
//
// Errors: an empty sample (Σ strata = 0) returns ErrTooFew; a confidence
// outside (0, 1), resamples outside 1..MaxResamples, an interval method
// other than Percentile or more than math.MaxInt32 samples return
// ErrBadParameter; a statistic that is not finite on the sample itself
// returns ErrNotFinite; every replicate undefined returns ErrTooFew; a
// cancelled opts.Context returns its error. A negative stratum size is a
// programming error and panics.
func PairedBootstrapCounts(strata []int, newStatistic func() CountStatistic, opts BootstrapOptions) (CountsBootstrapResult, error) {
	res, errs := PairedBootstrapCountsShared(strata, []func() CountStatistic{newStatistic}, opts)
	return res[0], errs[0]
}

// PairedBootstrapCountsShared is PairedBootstrapCounts(strata,
// newStatistics[k], opts) for every k, with the counts of each replicate
// drawn once and given to every statistic: each result, and each error,
// is the one the statistic gets alone, bit for bit, for a fraction of
// the draws.
func PairedBootstrapCountsShared(strata []int, newStatistics []func() CountStatistic, opts BootstrapOptions) ([]CountsBootstrapResult, []error) {
	res, errs := make([]CountsBootstrapResult, len(newStatistics)), make([]error, len(newStatistics))
	fail := func(err error) ([]CountsBootstrapResult, []error) {
		for k := range errs {
			errs[k] = err
		}
		return res, errs
	}
	cfg, err := opts.resolve()
	if err != nil {
		return fail(err)
	}
	if cfg.method != Percentile {
		return fail(fmt.Errorf("%w: a bootstrap of draw counts gives %q intervals only, not %q", ErrBadParameter, Percentile, cfg.method))
	}
	n := 0
	for _, size := range strata {
		if size < 0 {
			panic("stats: negative stratum size")
		}
		n += size
	}
	if n == 0 {
		return fail(fmt.Errorf("%w: the bootstrap needs at least 1 sample, got 0", ErrTooFew))
	}
	if n > math.MaxInt32 {
		return fail(fmt.Errorf("%w: %d samples; draw counts index at most %d", ErrBadParameter, n, math.MaxInt32))
	}

	ones := make([]int32, n)
	for i := range ones {
		ones[i] = 1
	}
	var live []int // the statistics finite on the sample itself
	for k, newStatistic := range newStatistics {
		r := CountsBootstrapResult{Confidence: cfg.confidence, Resamples: cfg.resamples, Seed: cfg.seed}
		r.Left, r.Right = newStatistic()(ones)
		r.Difference = r.Left - r.Right
		if !finite(r.Left) || !finite(r.Right) || !finite(r.Difference) {
			errs[k] = fmt.Errorf("%w: the statistic on the sample itself is %v (left) and %v (right)", ErrNotFinite, r.Left, r.Right)
			continue
		}
		res[k] = r
		live = append(live, k)
	}
	if len(live) == 0 {
		return res, errs
	}
	makers := make([]func() CountStatistic, len(live))
	for i, k := range live {
		makers[i] = newStatistics[k]
	}
	diffs, err := resampleCounts(cfg.ctx, strata, n, cfg.resamples, cfg.seed, makers)
	for i, k := range live {
		if err != nil {
			res[k], errs[k] = CountsBootstrapResult{}, err
			continue
		}
		errs[k] = res[k].complete(cfg, diffs[i])
		if errs[k] != nil {
			res[k] = CountsBootstrapResult{}
		}
	}
	return res, errs
}

// complete sets r's interval, standard error and p-value from the
// replicate differences, in place.
func (r *CountsBootstrapResult) complete(cfg bootstrapConfig, diffs []float64) error {
	defined := diffs[:0]
	for _, d := range diffs {
		if finite(d) {
			defined = append(defined, d)
		}
	}
	r.Undefined = len(diffs) - len(defined)
	if len(defined) == 0 {
		return fmt.Errorf("%w: the statistic is undefined on all %d replicates", ErrTooFew, len(diffs))
	}
	slices.Sort(defined)
	lowQ, highQ := (1-cfg.confidence)/2, (1+cfg.confidence)/2
	r.Low, r.High = sortedQuantile(defined, lowQ), sortedQuantile(defined, highQ)
	r.SE = replicateSD(defined)
	r.PValue = percentilePValue(defined)
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// percentilePValue returns min(1, 2·(1 + min(#{d ≤ 0}, #{d ≥ 0}))/(D + 1))
// for the D sorted replicate differences d (see PairedBootstrapCounts).
func percentilePValue(sorted []float64) float64 {
	// The first index with d > 0 counts d ≤ 0; the first with d ≥ 0
	// leaves D − it of them.
	le, _ := slices.BinarySearch(sorted, math.Nextafter(0, 1))
	lt, _ := slices.BinarySearch(sorted, 0)
	ge := len(sorted) - lt
	p := 2 * float64(1+min(le, ge)) / float64(len(sorted)+1)
	return min(1, p)
}

// replicateSD returns the standard deviation of x with divisor len(x) − 1,
// from the mean summed accurately; NaN for fewer than 2 values.
func replicateSD(x []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	mean := accurateSum(x) / float64(len(x))
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss / float64(len(x)-1))
}

// resampleCounts returns B replicate differences left − right of the
// statistics newStatistic makes, replicate i at index i, each replicate
// drawn stratum by stratum into a counts vector of n samples.
func resampleCounts(ctx context.Context, strata []int, n, B int, seed uint64, newStatistics []func() CountStatistic) ([][]float64, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	// Each stratum's blocks, relative to the stratum's first sample.
	type stratum struct {
		first  int
		bounds []int
	}
	var layout []stratum
	first, maxBlocks := 0, 0
	for _, size := range strata {
		if size > 0 {
			s := stratum{first, bootBlocks(size, bootBlockSize)}
			layout = append(layout, s)
			maxBlocks = max(maxBlocks, len(s.bounds)-1)
		}
		first += size
	}
	diffs := make([][]float64, len(newStatistics))
	for k := range diffs {
		diffs[k] = make([]float64, B)
	}
	err := resampleChunks(ctx, B, n*len(newStatistics), func() func(chunk, first, count int) {
		counts := make([]int32, n)
		split := make([]int, maxBlocks)
		statistics := make([]CountStatistic, len(newStatistics))
		for k, newStatistic := range newStatistics {
			statistics[k] = newStatistic()
		}
		return func(chunk, first, count int) {
			st := newResampleStream(seed, streamCounts, chunk)
			for r := range count {
				if ctx.Err() != nil {
					return // the caller returns the context's error
				}
				clear(counts)
				for _, s := range layout {
					nb := len(s.bounds) - 1
					splitStratum(&st, s.bounds, split[:nb])
					for b := range nb {
						blk := counts[s.first+s.bounds[b] : s.first+s.bounds[b+1]]
						if len(blk) == bootBlockSize {
							drawCountsFull(&st, (*[bootBlockSize]int32)(blk), split[b])
						} else {
							drawCounts(&st, blk, split[b])
						}
					}
				}
				for k, stat := range statistics {
					l, rt := stat(counts)
					diffs[k][first+r] = l - rt
				}
			}
		}
	})
	if err == nil {
		err = ctx.Err() // a cancellation during the last chunk
	}
	return diffs, err
}

// splitStratum fills split[b] with how many of a stratum's draws fall in
// its block b, the stratum having as many draws as samples: a
// Multinomial(size; |block b| / size) vector drawn as conditional
// binomials, as bootSample.splitDraws draws it for a whole sample (whose
// comment says why gonum's sampler is exact here).
func splitStratum(st *resampleStream, bounds []int, split []int) {
	size := bounds[len(bounds)-1]
	left, rest := size, size
	for b := range split {
		blk := bounds[b+1] - bounds[b]
		c := left
		if b < len(split)-1 && left > 0 {
			c = int(distuv.Binomial{N: float64(left), P: float64(blk) / float64(rest), Src: st}.Rand())
		}
		split[b] = c
		left -= c
		rest -= blk
	}
}

// drawCountsFull adds c draws with replacement from a full block to its
// counts, five 12-bit indices from each random word.
func drawCountsFull(st *resampleStream, blk *[bootBlockSize]int32, c int) {
	state := st.state
	k := 0
	for ; k+5 <= c; k += 5 {
		state += splitMixGamma
		r := splitMix64(state)
		blk[r&bootBlockMask]++
		blk[r>>bootBlockBits&bootBlockMask]++
		blk[r>>(2*bootBlockBits)&bootBlockMask]++
		blk[r>>(3*bootBlockBits)&bootBlockMask]++
		blk[r>>(4*bootBlockBits)&bootBlockMask]++
	}
	if k < c {
		state += splitMixGamma
		r := splitMix64(state)
		for ; k < c; k++ {
			blk[r&bootBlockMask]++
			r >>= bootBlockBits
		}
	}
	st.state = state
}

// drawCounts adds c draws with replacement from blk, of fewer than 2³²
// samples, to its counts, two 32-bit indices from each random word
// (Lemire's method, exact by rejection), as drawSum draws.
func drawCounts(st *resampleStream, blk []int32, c int) {
	n := uint64(len(blk))
	thresh := uint32(-uint32(n)) % uint32(n) // 2³² mod n
	k := 0
	for ; k+2 <= c; k += 2 {
		r := st.Uint64()
		m0, m1 := uint64(uint32(r))*n, (r>>32)*n
		if uint32(m0) < thresh || uint32(m1) < thresh {
			blk[st.index(uint32(r), n, thresh)]++
			blk[st.index(uint32(r>>32), n, thresh)]++
			continue
		}
		blk[m0>>32]++
		blk[m1>>32]++
	}
	if k < c {
		blk[st.index(uint32(st.Uint64()), n, thresh)]++
	}
}
