package stats

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// IntervalMethod names how a bootstrap turns its resampled means into a
// confidence interval.
type IntervalMethod string

const (
	// Percentile takes the (1 − c)/2 and (1 + c)/2 quantiles of the
	// resampled means as the bounds of a c interval (Efron 1979). It is
	// the default.
	Percentile IntervalMethod = "percentile"

	// BCa is Efron's (1987) bias-corrected and accelerated percentile
	// interval: the quantiles are moved to correct for the median bias of
	// the resampled means and for the skewness of the estimate, measured by
	// the jackknife. Its coverage error is O(1/n) where the percentile
	// interval's is O(1/√n), which shows on small, skewed samples.
	BCa IntervalMethod = "bca"
)

// Defaults of the resampling options; the zero value of an option field
// stands for them.
const (
	DefaultConfidence = 0.95
	DefaultResamples  = 2000
)

// BootstrapOptions configures Bootstrap and PairedBootstrap. The zero value
// asks for a 95 % percentile interval from 2000 resamples with seed 0.
type BootstrapOptions struct {
	// Confidence is the coverage of the interval, in (0, 1). Zero means
	// DefaultConfidence.
	Confidence float64 `req:"confidence" default:"0.95" arg:"LEVEL" help:"level of the confidence interval"`

	// Resamples is the number of bootstrap replicates B. Zero means
	// DefaultResamples; negative values are an error.
	Resamples int `req:"resamples" default:"2000" arg:"B" help:"bootstrap resamples and sign flips, at most 1000000"`

	// Seed selects the random streams. The same inputs, options and seed
	// give the same interval, bit for bit, on any number of cores.
	Seed uint64 `req:"seed" default:"0" arg:"SEED" help:"random seed: the same seed gives the same output, bit for bit"`

	// Method is Percentile or BCa; empty means Percentile.
	Method IntervalMethod `req:"ci" default:"percentile" arg:"METHOD" help:"interval method: percentile or bca"`

	// Context, when not nil, cancels the resampling: it stops within a
	// fraction of a second and returns the context's error.
	Context context.Context

	// OneSided, when in (0, 0.5), adds the one-sided bounds at this level
	// to the result (BootstrapResult.OneSided): the OneSided and
	// 1 − OneSided quantiles of the same replicates (BCa-corrected with
	// BCa), the bounds of the (1 − 2·OneSided) two-sided interval. Zero
	// adds none.
	OneSided float64
}

// BootstrapResult is the outcome of Bootstrap and PairedBootstrap: the mean
// and a confidence interval around it.
type BootstrapResult struct {
	Estimate   float64 `json:"estimate"`
	Low        float64 `json:"ci_low"`
	High       float64 `json:"ci_high"`
	Confidence float64 `json:"confidence"`
	Resamples  int     `json:"resamples"`
	Seed       uint64  `json:"seed"`
	// OneSided is the interval whose bounds are the one-sided bounds at
	// level BootstrapOptions.OneSided, of confidence 1 − 2·OneSided; nil
	// unless asked for.
	OneSided *Interval `json:"one_sided,omitempty"`
}

// Bootstrap returns the mean of values with a bootstrap confidence interval:
// B times, draw n values from values with replacement and take their mean;
// the interval's bounds are quantiles of those B means (see IntervalMethod).
// Quantiles interpolate linearly between the sorted means, as numpy's
// default percentile does: the q-quantile of m_(0) ≤ … ≤ m_(B−1) is
// m_(⌊h⌋) + (h − ⌊h⌋)·(m_(⌊h⌋+1) − m_(⌊h⌋)) with h = (B − 1)·q.
//
// The resampling is the ordinary (multinomial) bootstrap, exactly: each
// replicate draws n uniform indices. To keep the data in cache it first
// splits the n draws among blocks of 4096 values with a multinomial
// (conditional binomials), then draws each block's share inside the block,
// which is the same distribution as n independent draws. Memory is O(n).
//
// Edge cases:
//   - No values returns ErrTooFew; NaN or ±Inf returns ErrNotFinite.
//   - One value, or values that are all equal, give the zero-width
//     interval at that value: every resample has that mean.
//   - BCa falls back to the percentile interval when every resampled mean
//     lies on one side of the estimate (the bias correction is then
//     infinite), and uses no acceleration when the jackknife estimates do
//     not vary.
//
// A confidence outside (0, 1), a negative number of resamples or an unknown
// method returns ErrBadParameter.
func Bootstrap(values []float64, opts BootstrapOptions) (BootstrapResult, error) {
	cfg, err := opts.resolve()
	if err != nil {
		return BootstrapResult{}, err
	}
	if err := resampleCheckFinite("values", values); err != nil {
		return BootstrapResult{}, err
	}
	if len(values) == 0 {
		return BootstrapResult{}, fmt.Errorf("%w: the bootstrap needs at least 1 value, got 0", ErrTooFew)
	}
	return cfg.run(newBootSample(values, nil))
}

// PairedBootstrap returns the mean difference left − right with a paired
// bootstrap confidence interval: pairs (left_i, right_i) are resampled
// together, so the interval reflects how the two sides vary together and
// not as if they were independent samples. Otherwise it is Bootstrap on
// d_i = left_i − right_i.
//
// With units nil each row is its own unit. Otherwise units[i] names the
// unit (say, the user) of row i, and the bootstrap resamples units, not
// rows (a cluster bootstrap): rows of one unit are not independent, and
// resampling them one by one would give too narrow an interval. The
// estimator is then the row-weighted mean of the differences,
// Σ_u S_u / Σ_u m_u over the drawn units u, where S_u is the sum of the
// unit's differences and m_u its number of rows; BCa's jackknife leaves out
// one unit at a time. Units need not be contiguous. When every unit has one
// row, the result is the same as with units nil.
//
// Left and right of different lengths, or units of another length, return
// ErrLengths. Other errors and edge cases are Bootstrap's; a single unit
// gives a zero-width interval.
func PairedBootstrap(left, right []float64, units []string, opts BootstrapOptions) (BootstrapResult, error) {
	cfg, err := opts.resolve()
	if err != nil {
		return BootstrapResult{}, err
	}
	d, err := resampleDifferences(left, right, units)
	if err != nil {
		return BootstrapResult{}, err
	}
	if len(d) == 0 {
		return BootstrapResult{}, fmt.Errorf("%w: the paired bootstrap needs at least 1 pair, got 0", ErrTooFew)
	}
	return cfg.run(newBootSample(d, units))
}

// bootstrapConfig is BootstrapOptions with the defaults filled in.
type bootstrapConfig struct {
	confidence float64
	resamples  int
	seed       uint64
	method     IntervalMethod
	ctx        context.Context
	oneSided   float64
}

func (o BootstrapOptions) resolve() (bootstrapConfig, error) {
	c := bootstrapConfig{confidence: o.Confidence, resamples: o.Resamples, seed: o.Seed, method: o.Method, ctx: o.Context, oneSided: o.OneSided}
	if c.confidence == 0 {
		c.confidence = DefaultConfidence
	}
	if !(c.confidence > 0 && c.confidence < 1) {
		return c, fmt.Errorf("%w: confidence must be in (0, 1), got %g", ErrBadParameter, o.Confidence)
	}
	if c.resamples == 0 {
		c.resamples = DefaultResamples
	}
	if c.resamples < 0 || c.resamples > MaxResamples {
		return c, fmt.Errorf("%w: resamples must be from 1 to %d, got %d", ErrBadParameter, MaxResamples, o.Resamples)
	}
	if c.method == "" {
		c.method = Percentile
	}
	if !(c.oneSided >= 0 && c.oneSided < 0.5) {
		return c, fmt.Errorf("%w: the one-sided level must be in (0, 0.5), got %g", ErrBadParameter, o.OneSided)
	}
	if c.method != Percentile && c.method != BCa {
		return c, fmt.Errorf("%w: interval method must be %q or %q, got %q", ErrBadParameter, Percentile, BCa, o.Method)
	}
	return c, nil
}

// run resamples s and builds the interval.
func (c bootstrapConfig) run(s *bootSample) (BootstrapResult, error) {
	res := BootstrapResult{
		Estimate:   s.estimate(),
		Confidence: c.confidence,
		Resamples:  c.resamples,
		Seed:       c.seed,
	}
	if s.constant {
		res.Low, res.High = res.Estimate, res.Estimate
		if c.oneSided > 0 {
			res.OneSided = &Interval{Estimate: res.Estimate, Low: res.Estimate, High: res.Estimate, Confidence: 1 - 2*c.oneSided}
		}
		return res, nil
	}
	var means []float64
	var err error
	if s.halves != nil {
		var all [][]float64
		if all, err = resampleShared(c, []*bootSample{s}); err == nil {
			means = all[0]
		}
	} else {
		means, err = s.resample(c.ctx, c.resamples, c.seed)
	}
	if err != nil {
		return BootstrapResult{}, err
	}
	return c.interval(s, means), nil
}

// interval is the result of s, not constant, from its replicates' means,
// which it sorts.
func (c bootstrapConfig) interval(s *bootSample, means []float64) BootstrapResult {
	res := BootstrapResult{Estimate: s.estimate(), Confidence: c.confidence, Resamples: c.resamples, Seed: c.seed}
	slices.Sort(means)
	lowQ, highQ := (1-c.confidence)/2, (1+c.confidence)/2
	if c.method == BCa {
		lowQ, highQ = s.bcaLevels(means, res.Estimate, lowQ, highQ)
	}
	res.Low, res.High = sortedQuantile(means, lowQ), sortedQuantile(means, highQ)
	if c.oneSided > 0 {
		lowQ, highQ = c.oneSided, 1-c.oneSided
		if c.method == BCa {
			lowQ, highQ = s.bcaLevels(means, res.Estimate, lowQ, highQ)
		}
		res.OneSided = &Interval{Estimate: res.Estimate, Low: sortedQuantile(means, lowQ), High: sortedQuantile(means, highQ), Confidence: 1 - 2*c.oneSided}
	}
	return res
}

// The bootstrap draws from blocks of 4096 values, or of 2048 (sum, rows)
// pairs: 32 KiB, which stay in L1 cache while a chunk's replicates draw from
// them. A block of exactly that size takes its indices straight from the
// bits of a random word, 12 (or 11) bits an index, five indices a word, with
// no multiplication, rejection or bounds check. Only the first block, of
// n mod 4096 (or 2048) units, takes the general path (Lemire's method, two
// indices a word).
const (
	bootBlockBits = 12
	bootBlockSize = 1 << bootBlockBits
	bootBlockMask = bootBlockSize - 1
	bootPairBits  = bootBlockBits - 1
	bootPairMask  = 1<<bootPairBits - 1
)

// bootSample is what the bootstrap resamples: n units, each with a sum of
// values S_u and, for clusters, a number of rows m_u.
type bootSample struct {
	// values holds S_u when every unit is one row (m_u = 1); otherwise
	// nil.
	values []float64
	// pairs holds S_u, m_u interleaved when units have several rows, so that
	// one draw reads one cache line; otherwise nil.
	pairs []float64
	// halves holds 2·S_u, in place of values, when every S_u is 0, ½ or 1
	// (the probability of superiority's scores); otherwise nil. Every
	// partial sum of such values is exact in float64, so sums of them in
	// any order are the sums of values, bit for bit. resampleShared sums
	// them; resample does not.
	halves []uint8
	// n is the number of units.
	n int
	// constant is set when every resample has the same mean: all rows
	// equal, or a single unit.
	constant bool
	// rowMean is the row-weighted mean of all rows, summed accurately.
	rowMean float64
}

// newBootSample groups the rows x by units (nil: one row a unit).
func newBootSample(x []float64, units []string) *bootSample {
	rowMean, constant := accurateSum(x)/float64(len(x)), allEqual(x)
	if constant {
		rowMean = x[0]
	}
	sums, rows := unitSums(x, units)
	return bootSampleOf(sums, rows, rowMean, constant)
}

// bootSampleOf returns the sample of units with sums S_u and row counts
// m_u (rows nil: one row a unit), of row-weighted mean rowMean; constant
// says that every row has the same value, so that every resample has the
// same mean. A single unit is constant too.
func bootSampleOf(sums, rows []float64, rowMean float64, constant bool) *bootSample {
	s := &bootSample{n: len(sums), rowMean: rowMean, constant: constant || len(sums) == 1}
	if rows == nil {
		s.values = sums
		return s
	}
	s.pairs = make([]float64, 2*len(sums))
	for u := range sums {
		s.pairs[2*u], s.pairs[2*u+1] = sums[u], rows[u]
	}
	return s
}

// estimate returns the row-weighted mean of the sample.
func (s *bootSample) estimate() float64 { return s.rowMean }

// unit returns S_u and m_u.
func (s *bootSample) unit(u int) (sum, rows float64) {
	if s.halves != nil {
		return float64(s.halves[u]) / 2, 1
	}
	if s.pairs == nil {
		return s.values[u], 1
	}
	return s.pairs[2*u], s.pairs[2*u+1]
}

// resample returns B bootstrap means, replicate i at index i.
func (s *bootSample) resample(ctx context.Context, B int, seed uint64) ([]float64, error) {
	means := make([]float64, B)
	full := bootBlockSize
	if s.pairs != nil {
		full /= 2
	}
	bounds := bootBlocks(s.n, full)
	nb := len(bounds) - 1
	err := resampleChunks(ctx, B, s.n, func() func(chunk, first, count int) {
		counts := make([]int, resampleChunkSize*nb)
		sums := make([]float64, resampleChunkSize)
		rows := make([]float64, resampleChunkSize)
		var idx []uint16
		return func(chunk, first, count int) {
			st := newResampleStream(seed, streamBootstrap, chunk)
			s.splitDraws(&st, bounds, counts[:count*nb])
			clear(sums)
			clear(rows)
			for b := range nb {
				lo, hi := bounds[b], bounds[b+1]
				for r := range count {
					c := counts[r*nb+b]
					switch {
					case s.pairs == nil && hi-lo == full:
						sums[r] += drawSumFull(&st, (*[bootBlockSize]float64)(s.values[lo:hi]), c)
					case s.pairs == nil:
						var sum float64
						sum, idx = drawSum(&st, s.values[lo:hi], c, idx)
						sums[r] += sum
					case hi-lo == full:
						sum, m := drawPairSumFull(&st, (*[bootBlockSize]float64)(s.pairs[2*lo:2*hi]), c)
						sums[r] += sum
						rows[r] += m
					default:
						var sum, m float64
						sum, m, idx = drawPairSum(&st, s.pairs[2*lo:2*hi], c, idx)
						sums[r] += sum
						rows[r] += m
					}
				}
			}
			for r := range count {
				if s.pairs == nil {
					means[first+r] = sums[r] / float64(s.n)
				} else {
					means[first+r] = sums[r] / rows[r]
				}
			}
		}
	})
	return means, err
}

// bootBlocks returns the boundaries of the blocks of n units, block b
// being [bounds[b], bounds[b+1]): first n mod full units, if any, then
// blocks of exactly full units.
func bootBlocks(n, full int) []int {
	bounds := []int{0}
	if r := n % full; r > 0 {
		bounds = append(bounds, r)
	}
	for end := n % full; end < n; {
		end += full
		bounds = append(bounds, end)
	}
	return bounds
}

// splitDraws fills counts[r·nb + b] with how many of replicate r's n draws
// fall in block b: a Multinomial(n; |block b| / n) vector, drawn as
// conditional binomials, c_b ~ Binomial(n − Σ_{a<b} c_a, |b| / Σ_{a≥b} |a|),
// with gonum's samplers. The first binomial has n trials and mean
// |block 0| ≥ 1; the others, full blocks, means near 4096 (or 2048). So
// none comes near the range where gonum's sampler is approximate (at least
// 25 trials with a mean below 1); elsewhere it is exact.
func (s *bootSample) splitDraws(st *resampleStream, bounds []int, counts []int) {
	nb := len(bounds) - 1
	for r := 0; r < len(counts)/nb; r++ {
		left, rest := s.n, s.n
		for b := range nb {
			size := bounds[b+1] - bounds[b]
			c := left
			if b < nb-1 && left > 0 {
				c = int(distuv.Binomial{N: float64(left), P: float64(size) / float64(rest), Src: st}.Rand())
			}
			counts[r*nb+b] = c
			left -= c
			rest -= size
		}
	}
}

// drawSumFull returns the sum of c values drawn uniformly with replacement
// from a full block, five 12-bit indices from each random word. Five
// accumulators hide the latency of the additions.
func drawSumFull(st *resampleStream, blk *[bootBlockSize]float64, c int) float64 {
	state := st.state
	var a0, a1, a2, a3, a4 float64
	k := 0
	for ; k+5 <= c; k += 5 {
		state += splitMixGamma
		r := splitMix64(state)
		a0 += blk[r&bootBlockMask]
		a1 += blk[r>>bootBlockBits&bootBlockMask]
		a2 += blk[r>>(2*bootBlockBits)&bootBlockMask]
		a3 += blk[r>>(3*bootBlockBits)&bootBlockMask]
		a4 += blk[r>>(4*bootBlockBits)&bootBlockMask]
	}
	if k < c {
		state += splitMixGamma
		r := splitMix64(state)
		for ; k < c; k++ {
			a0 += blk[r&bootBlockMask]
			r >>= bootBlockBits
		}
	}
	st.state = state
	return ((a0 + a1) + (a2 + a3)) + a4
}

// drawPairSumFull is drawSumFull for a full block of interleaved
// (S_u, m_u) pairs, five indices from each random word.
func drawPairSumFull(st *resampleStream, blk *[bootBlockSize]float64, c int) (sum, rows float64) {
	state := st.state
	var a0, a1, a2, a3, a4, w0, w1, w2, w3, w4 float64
	k := 0
	for ; k+5 <= c; k += 5 {
		state += splitMixGamma
		r := splitMix64(state)
		i0 := 2 * (r & bootPairMask)
		i1 := 2 * (r >> bootPairBits & bootPairMask)
		i2 := 2 * (r >> (2 * bootPairBits) & bootPairMask)
		i3 := 2 * (r >> (3 * bootPairBits) & bootPairMask)
		i4 := 2 * (r >> (4 * bootPairBits) & bootPairMask)
		a0 += blk[i0]
		w0 += blk[i0+1]
		a1 += blk[i1]
		w1 += blk[i1+1]
		a2 += blk[i2]
		w2 += blk[i2+1]
		a3 += blk[i3]
		w3 += blk[i3+1]
		a4 += blk[i4]
		w4 += blk[i4+1]
	}
	if k < c {
		state += splitMixGamma
		r := splitMix64(state)
		for ; k < c; k++ {
			i := 2 * (r & bootPairMask)
			a0 += blk[i]
			w0 += blk[i+1]
			r >>= bootPairBits
		}
	}
	st.state = state
	return ((a0 + a1) + (a2 + a3)) + a4, ((w0 + w1) + (w2 + w3)) + w4
}

// drawSum returns the sum of c values drawn uniformly with replacement from
// blk, the first block, of fewer than bootBlockSize values: the indices
// drawIndices draws, two 32-bit indices from each random word (Lemire's
// method, exact by rejection), summed by sumAt. idx is scratch space for
// the indices, returned for reuse.
func drawSum(st *resampleStream, blk []float64, c int, idx []uint16) (float64, []uint16) {
	idx = drawIndices(st, idx[:0], c, len(blk))
	return sumAt(blk, idx), idx
}

// drawPairSum is drawSum for interleaved (S_u, m_u) pairs: it returns the
// sums of S_u and of m_u over c units drawn with replacement.
func drawPairSum(st *resampleStream, pairs []float64, c int, idx []uint16) (sum, rows float64, _ []uint16) {
	idx = drawIndices(st, idx[:0], c, len(pairs)/2)
	var a0, a1, w0, w1 float64
	k := 0
	for ; k+2 <= len(idx); k += 2 {
		p0, p1 := pairs[2*int(idx[k]):][:2], pairs[2*int(idx[k+1]):][:2]
		a0 += p0[0]
		w0 += p0[1]
		a1 += p1[0]
		w1 += p1[1]
	}
	if k < len(idx) {
		p := pairs[2*int(idx[k]):][:2]
		a0 += p[0]
		w0 += p[1]
	}
	return a0 + a1, w0 + w1, idx
}

// bcaLevels returns the BCa quantile levels that replace the percentile
// levels lowQ and highQ, given the sorted resampled means and the estimate
// θ̂ (Efron and Tibshirani 1993, §14.3):
//
//	z₀ = Φ⁻¹((#{θ*_b < θ̂} + ½ #{θ*_b = θ̂}) / B)
//	a  = Σ_u (θ̄ − θ_(u))³ / (6 · (Σ_u (θ̄ − θ_(u))²)^{3/2})
//	level(q) = Φ(z₀ + (z₀ + Φ⁻¹(q)) / (1 − a·(z₀ + Φ⁻¹(q))))
//
// where θ_(u) = (S − S_u)/(M − m_u) is the estimate without unit u (a row,
// or a whole cluster) and θ̄ their mean. Ties count half on each side, so a
// distribution of means piled up on θ̂ gives no bias correction. It falls
// back to the percentile levels when z₀ is infinite (every replicate on one
// side of θ̂) or a level is not a number (1 − a·(z₀ + Φ⁻¹(q)) ≤ 0, which
// takes an extreme acceleration); it uses a = 0 when the θ_(u) do not vary.
func (s *bootSample) bcaLevels(sorted []float64, est, lowQ, highQ float64) (float64, float64) {
	below, equal := 0, 0
	for _, m := range sorted {
		if m < est {
			below++
		} else if m == est {
			equal++
		}
	}
	z0 := distuv.UnitNormal.Quantile((float64(below) + 0.5*float64(equal)) / float64(len(sorted)))
	if math.IsInf(z0, 0) || math.IsNaN(z0) {
		return lowQ, highQ
	}
	a := s.acceleration()
	level := func(q float64) float64 {
		z := z0 + distuv.UnitNormal.Quantile(q)
		if den := 1 - a*z; den > 0 {
			return distuv.UnitNormal.CDF(z0 + z/den)
		}
		return math.NaN()
	}
	lo, hi := level(lowQ), level(highQ)
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return lowQ, highQ
	}
	return lo, hi
}

// acceleration returns BCa's jackknife acceleration a (see bcaLevels), or 0
// when the leave-one-unit-out estimates do not vary.
func (s *bootSample) acceleration() float64 {
	var total, totalRows float64
	for u := range s.n {
		sum, rows := s.unit(u)
		total += sum
		totalRows += rows
	}
	jack := make([]float64, s.n)
	for u := range s.n {
		sum, rows := s.unit(u)
		jack[u] = (total - sum) / (totalRows - rows)
	}
	mean := accurateSum(jack) / float64(s.n)
	var num, den float64
	for _, t := range jack {
		d := mean - t
		num += d * d * d
		den += d * d
	}
	if den == 0 {
		return 0
	}
	return num / (6 * math.Pow(den, 1.5))
}

// sortedQuantile returns the q-quantile of sorted x, interpolating linearly
// between order statistics at h = (len(x) − 1)·q (numpy's default).
func sortedQuantile(x []float64, q float64) float64 {
	h := float64(len(x)-1) * q
	i := int(math.Floor(h))
	if i >= len(x)-1 {
		return x[len(x)-1]
	}
	if i < 0 {
		return x[0]
	}
	return x[i] + (h-float64(i))*(x[i+1]-x[i])
}

// unitSums groups the rows x by units and returns each unit's sum S_u and
// row count m_u, units in order of first appearance. With units nil, or
// when every unit has one row, it returns x itself and nil rows.
func unitSums(x []float64, units []string) (sums, rows []float64) {
	if units == nil {
		return x, nil
	}
	index := make(map[string]int, len(units))
	for i, u := range units {
		j, ok := index[u]
		if !ok {
			j = len(sums)
			index[u] = j
			sums = append(sums, 0)
			rows = append(rows, 0)
		}
		sums[j] += x[i]
		rows[j]++
	}
	if len(sums) == len(x) {
		return x, nil
	}
	return sums, rows
}

// resampleDifferences checks that left, right and units (unless nil) pair
// up and that left, right and their differences are finite, and returns
// left_i − right_i.
func resampleDifferences(left, right []float64, units []string) ([]float64, error) {
	if len(left) != len(right) {
		return nil, fmt.Errorf("%w: left has %d values, right has %d", ErrLengths, len(left), len(right))
	}
	if units != nil && len(units) != len(left) {
		return nil, fmt.Errorf("%w: %d units for %d pairs", ErrLengths, len(units), len(left))
	}
	if err := resampleCheckFinite("left", left); err != nil {
		return nil, err
	}
	if err := resampleCheckFinite("right", right); err != nil {
		return nil, err
	}
	d := make([]float64, len(left))
	for i := range left {
		d[i] = left[i] - right[i]
	}
	if err := resampleCheckFinite("left − right", d); err != nil {
		return nil, err
	}
	return d, nil
}

// resampleCheckFinite returns ErrNotFinite naming the input and the index
// of its first NaN or ±Inf.
func resampleCheckFinite(name string, x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d] is %v", ErrNotFinite, name, i, v)
		}
	}
	return nil
}

// Sum returns Σ x by Neumaier's compensated summation, as the estimates
// and means of this package are computed: to a few units in the last place
// whatever len(x).
func Sum(x []float64) float64 { return accurateSum(x) }

// accurateSum returns Σ x by Neumaier's compensated summation: its error is
// a few units in the last place of the result, whatever len(x), where plain
// summation's grows with len(x). Estimates and means use it; the resampling
// loops, whose rounding is far below their Monte Carlo error, do not.
func accurateSum(x []float64) float64 {
	var s CompensatedSum
	for _, v := range x {
		s.Add(v)
	}
	return s.Value()
}

// CompensatedSum is Σ x added one value at a time by Neumaier's
// compensated summation, as Sum adds a slice. The zero value is 0.
type CompensatedSum struct{ sum, comp float64 }

// Add adds x.
func (s *CompensatedSum) Add(x float64) {
	t := s.sum + x
	if math.Abs(s.sum) >= math.Abs(x) {
		s.comp += (s.sum - t) + x
	} else {
		s.comp += (x - t) + s.sum
	}
	s.sum = t
}

// Value is the sum so far.
func (s CompensatedSum) Value() float64 { return s.sum + s.comp }

// SetContext sets the Context that cancels the resampling: a front door's
// way of saying it, beside the declared options.
func (o *BootstrapOptions) SetContext(ctx context.Context) { o.Context = ctx }
