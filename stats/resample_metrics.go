package stats

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Several metrics of one comparison are values of the same units, so with
// one seed their bootstraps draw the same units and their sign-flip tests
// flip the same signs: the random numbers depend on the seed, the number of
// units and the replicate, never on the values. PairedBootstrapUnitsShared
// and RandomizationUnitsShared draw them once for a group of metrics and
// apply each draw to every metric of the group. Each metric keeps its own
// accumulators, added in the order its own resampling adds them, so that
// every result is the one-metric function's, bit for bit.

// bootstrapGroup is how many metrics share the bootstrap's draws at once:
// ten metrics' differences (80 bytes a unit) are what the group holds beside
// its draws. Samples of few units group by more, up to groupBytes of
// values (see groupLimit).
const bootstrapGroup = 10

// groupBytes is the most a group of more than bootstrapGroup samples holds
// in values: 327 samples of 2,000 units, so that a leaderboard of hundreds
// of runs draws its indices a few times rather than once every ten runs.
const groupBytes = 5 << 20

// groupLimit returns how many samples of n units a group takes.
func groupLimit(n int) int {
	return max(bootstrapGroup, groupBytes/(8*max(n, 1)))
}

// flipJobChunks is how many chunks of sign flips one job runs over the
// blocks, filling each block's tables once for all of them.
const flipJobChunks = 4

// resampleJobs runs jobs jobs as resampleChunks runs chunks: on the calling
// goroutine below resampleSerialWork units × replicates of work, else on
// up to GOMAXPROCS goroutines, checking ctx between jobs. A job writes only
// its own outputs, so the results do not depend on the goroutines.
func resampleJobs(ctx context.Context, jobs int, work float64, newWorker func() func(job int)) error {
	if ctx == nil {
		ctx = context.Background()
	}
	workers := min(runtime.GOMAXPROCS(0), jobs)
	if workers <= 1 || work < resampleSerialWork {
		do := newWorker()
		for j := range jobs {
			if err := ctx.Err(); err != nil {
				return err
			}
			do(j)
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			do := newWorker()
			for {
				j := int(next.Add(1) - 1)
				if j >= jobs || ctx.Err() != nil {
					return
				}
				do(j)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// PairedBootstrapUnitsShared is PairedBootstrapUnits(units(k), opts) for
// every k < n: the results, and the errors, are the same, bit for bit.
// Metrics whose units have one row each, resampled for a percentile
// interval, share their draws, ten at a time (more when they have few
// units); the others are resampled on their own. units is called once for
// each k, in order, and only the differences of the metrics being
// resampled are kept, so memory does not grow with n. The metrics should pair the same units in the same order,
// as the metrics of one comparison do; the results are each metric's own
// either way.
func PairedBootstrapUnitsShared(n int, units func(k int) PairedUnits, opts BootstrapOptions) ([]BootstrapResult, []error) {
	res, errs := make([]BootstrapResult, n), make([]error, n)
	cfg, cfgErr := opts.resolve()
	g := bootGroups{cfg: cfg, res: res, errs: errs}
	for k := range n {
		u := units(k)
		if cfgErr != nil {
			errs[k] = cfgErr
			continue
		}
		d, err := u.check()
		if err != nil || len(d.sums) == 0 || d.rows != nil || cfg.method != Percentile {
			res[k], errs[k] = PairedBootstrapUnits(u, opts)
			continue
		}
		g.add(k, d.bootSample())
	}
	g.flush()
	return res, errs
}

// PairedBootstrapDifferencesShared is PairedBootstrapDifferences(diffs(k),
// opts) for every k < n, in boot and bootErrs, and, unless lower is nil,
// PairedSuperiorityDifferences(diffs(k), lower(k), opts) in sup and
// supErrs: the results, and the errors, are the same, bit for bit. For a
// percentile interval, every metric and its probability of superiority
// share their draws, ten samples at a time, as PairedBootstrapUnitsShared
// shares them. diffs and lower are called once for each k, in order; the
// differences are read in place, and a metric's superiority scores take
// one byte a unit, held until its group is resampled.
func PairedBootstrapDifferencesShared(n int, diffs func(k int) *UnitDifferences, lower func(k int) bool, opts BootstrapOptions) (boot, sup []BootstrapResult, bootErrs, supErrs []error) {
	res, errs := make([]BootstrapResult, 2*n), make([]error, 2*n)
	cfg, cfgErr := opts.resolve()
	g := bootGroups{cfg: cfg, res: res, errs: errs}
	for k := range n {
		u := diffs(k)
		var lowerIsBetter bool
		if lower != nil {
			lowerIsBetter = lower(k)
		}
		switch {
		case cfgErr != nil:
			errs[k], errs[n+k] = cfgErr, cfgErr
			continue
		case len(u.d) == 0 || cfg.method != Percentile:
			res[k], errs[k] = PairedBootstrapDifferences(u, opts)
			if lower != nil {
				res[n+k], errs[n+k] = PairedSuperiorityDifferences(u, lowerIsBetter, opts)
			}
			continue
		}
		g.add(k, u.bootSample())
		if lower != nil {
			g.add(n+k, u.superioritySample(lowerIsBetter))
		}
	}
	g.flush()
	if lower == nil {
		return res[:n], nil, errs[:n], nil
	}
	return res[:n], res[n:], errs[:n], errs[n:]
}

// bootGroups resamples samples for a percentile interval in groups of up
// to bootstrapGroup of the same number of units, each group from one set
// of draws: res[k] and errs[k] get sample k's result, what cfg.run gives
// it alone.
type bootGroups struct {
	cfg     bootstrapConfig
	res     []BootstrapResult
	errs    []error
	group   []int
	samples []*bootSample
}

// add adds sample k, and resamples the group when it is full; a constant
// sample needs no draws and is done at once.
func (g *bootGroups) add(k int, s *bootSample) {
	if s.constant {
		g.res[k], g.errs[k] = g.cfg.run(s)
		return
	}
	if len(g.samples) > 0 && g.samples[0].n != s.n {
		g.flush()
	}
	g.group, g.samples = append(g.group, k), append(g.samples, s)
	if len(g.group) >= groupLimit(s.n) {
		g.flush()
	}
}

// flush resamples the group.
func (g *bootGroups) flush() {
	switch len(g.group) {
	case 0:
	case 1:
		g.res[g.group[0]], g.errs[g.group[0]] = g.cfg.run(g.samples[0])
	default:
		means, err := resampleShared(g.cfg, g.samples)
		for i, k := range g.group {
			if err != nil {
				g.errs[k] = err
				continue
			}
			g.res[k] = g.cfg.interval(g.samples[i], means[i])
		}
	}
	clear(g.samples) // the samples go with their group
	g.group, g.samples = g.group[:0], g.samples[:0]
}

// resampleShared is bootSample.resample for several samples of n units of
// one row each: means[i][b] is sample i's mean in replicate b, as
// ss[i].resample gives it. For each block and replicate it draws the
// indices once, in order, and then each sample sums its values at them
// with the accumulators its own resampling uses: five, taking the draws in
// turn, the last c mod 5 in the first, in a full block (drawSumFull); two
// in the first block (drawSum). Each sample's block of values stays in the
// L1 cache while it reads the replicates' indices in order.
func resampleShared(c bootstrapConfig, ss []*bootSample) ([][]float64, error) {
	G, n, B := len(ss), ss[0].n, c.resamples
	means := make([][]float64, G)
	for i := range means {
		means[i] = make([]float64, B)
	}
	bounds := bootBlocks(n, bootBlockSize)
	nb := len(bounds) - 1
	withScores := G == 2 && ss[0].values != nil && ss[1].halves != nil
	err := resampleChunks(c.ctx, B, n*G, func() func(chunk, first, count int) {
		counts := make([]int, resampleChunkSize*nb)
		sums := make([]float64, resampleChunkSize*G)
		var idx []uint16
		starts := make([]int, resampleChunkSize+1)
		return func(chunk, first, count int) {
			st := newResampleStream(c.seed, streamBootstrap, chunk)
			ss[0].splitDraws(&st, bounds, counts[:count*nb])
			clear(sums)
			for b := range nb {
				lo, hi := bounds[b], bounds[b+1]
				full := hi-lo == bootBlockSize
				if full && withScores {
					// One metric and its scores: each draw is summed as
					// it is drawn, in both.
					blk, h := (*[bootBlockSize]float64)(ss[0].values[lo:hi]), (*[bootBlockSize]uint8)(ss[1].halves[lo:hi])
					for r := range count {
						sum, halves := drawSumHalvesFull(&st, blk, h, counts[r*nb+b])
						sums[r*G] += sum
						sums[r*G+1] += float64(halves) / 2
					}
					continue
				}
				idx = idx[:0]
				for r := range count {
					starts[r] = len(idx)
					if full {
						idx = drawIndicesFull(&st, idx, counts[r*nb+b])
					} else {
						idx = drawIndices(&st, idx, counts[r*nb+b], hi-lo)
					}
				}
				starts[count] = len(idx)
				for i, s := range ss {
					if s.halves != nil {
						blk := s.halves[lo:hi]
						for r := range count {
							at := idx[starts[r]:starts[r+1]]
							if full {
								sums[r*G+i] += sumHalvesAtFull((*[bootBlockSize]uint8)(blk), at)
							} else {
								sums[r*G+i] += sumHalvesAt(blk, at)
							}
						}
						continue
					}
					blk := s.values[lo:hi]
					for r := range count {
						at := idx[starts[r]:starts[r+1]]
						if full {
							sums[r*G+i] += sumAtFull((*[bootBlockSize]float64)(blk), at)
						} else {
							sums[r*G+i] += sumAt(blk, at)
						}
					}
				}
			}
			for r := range count {
				for i := range G {
					means[i][first+r] = sums[r*G+i] / float64(n)
				}
			}
		}
	})
	return means, err
}

// drawIndicesFull appends to idx the c indices drawSumFull draws in a full
// block, in order, from the same random words.
func drawIndicesFull(st *resampleStream, idx []uint16, c int) []uint16 {
	state := st.state
	k := 0
	for ; k+5 <= c; k += 5 {
		state += splitMixGamma
		r := splitMix64(state)
		idx = append(idx, uint16(r&bootBlockMask), uint16(r>>bootBlockBits&bootBlockMask), uint16(r>>(2*bootBlockBits)&bootBlockMask),
			uint16(r>>(3*bootBlockBits)&bootBlockMask), uint16(r>>(4*bootBlockBits)&bootBlockMask))
	}
	if k < c {
		state += splitMixGamma
		r := splitMix64(state)
		for ; k < c; k++ {
			idx = append(idx, uint16(r&bootBlockMask))
			r >>= bootBlockBits
		}
	}
	st.state = state
	return idx
}

// sumAtFull is drawSumFull's sum of blk at the indices at.
func sumAtFull(blk *[bootBlockSize]float64, at []uint16) float64 {
	var a0, a1, a2, a3, a4 float64
	k := 0
	for ; k+5 <= len(at); k += 5 {
		g := at[k : k+5 : k+5]
		a0 += blk[g[0]&bootBlockMask]
		a1 += blk[g[1]&bootBlockMask]
		a2 += blk[g[2]&bootBlockMask]
		a3 += blk[g[3]&bootBlockMask]
		a4 += blk[g[4]&bootBlockMask]
	}
	for _, i := range at[k:] {
		a0 += blk[i&bootBlockMask]
	}
	return ((a0 + a1) + (a2 + a3)) + a4
}

// drawSumHalvesFull is drawSumFull on a full block of values and, from the
// same draws, the sum of the halves h (see bootSample.halves) at them: the
// values' sum is drawSumFull's, bit for bit, and the halves' is
// sumHalvesAtFull's of the indices drawIndicesFull draws.
func drawSumHalvesFull(st *resampleStream, blk *[bootBlockSize]float64, h *[bootBlockSize]uint8, c int) (float64, uint) {
	state := st.state
	var a0, a1, a2, a3, a4 float64
	var w0, w1 uint
	k := 0
	for ; k+5 <= c; k += 5 {
		state += splitMixGamma
		r := splitMix64(state)
		i0, i1, i2 := r&bootBlockMask, r>>bootBlockBits&bootBlockMask, r>>(2*bootBlockBits)&bootBlockMask
		i3, i4 := r>>(3*bootBlockBits)&bootBlockMask, r>>(4*bootBlockBits)&bootBlockMask
		a0 += blk[i0]
		a1 += blk[i1]
		a2 += blk[i2]
		a3 += blk[i3]
		a4 += blk[i4]
		w0 += uint(h[i0]) + uint(h[i1]) + uint(h[i2])
		w1 += uint(h[i3]) + uint(h[i4])
	}
	if k < c {
		state += splitMixGamma
		r := splitMix64(state)
		for ; k < c; k++ {
			i := r & bootBlockMask
			a0 += blk[i]
			w0 += uint(h[i])
			r >>= bootBlockBits
		}
	}
	st.state = state
	return ((a0 + a1) + (a2 + a3)) + a4, w0 + w1
}

// sumHalvesAtFull is sumAtFull's sum of the values a full block holds
// twice of (see bootSample.halves) at the indices at: the same, bit for
// bit, every partial sum being exact.
func sumHalvesAtFull(blk *[bootBlockSize]uint8, at []uint16) float64 {
	var a0, a1, a2, a3 uint
	k := 0
	for ; k+4 <= len(at); k += 4 {
		g := at[k : k+4 : k+4]
		a0 += uint(blk[g[0]&bootBlockMask])
		a1 += uint(blk[g[1]&bootBlockMask])
		a2 += uint(blk[g[2]&bootBlockMask])
		a3 += uint(blk[g[3]&bootBlockMask])
	}
	for _, i := range at[k:] {
		a0 += uint(blk[i&bootBlockMask])
	}
	return float64((a0+a1)+(a2+a3)) / 2
}

// sumHalvesAt is sumHalvesAtFull for the first block, sumAt's.
func sumHalvesAt(blk []uint8, at []uint16) float64 {
	var total uint
	for _, i := range at {
		total += uint(blk[i])
	}
	return float64(total) / 2
}

// drawIndices appends to idx the c indices drawSum draws in a block of
// size units (fewer than 2¹⁶), in order, from the same random words.
func drawIndices(st *resampleStream, idx []uint16, c, size int) []uint16 {
	n := uint64(size)
	thresh := uint32(-uint32(n)) % uint32(n) // 2³² mod n
	state := st.state
	k := 0
	for ; k+2 <= c; k += 2 {
		state += splitMixGamma
		r := splitMix64(state)
		m0, m1 := uint64(uint32(r))*n, (r>>32)*n
		i0, i1 := m0>>32, m1>>32
		if uint32(m0) < thresh || uint32(m1) < thresh {
			st.state = state
			i0 = st.index(uint32(r), n, thresh)
			i1 = st.index(uint32(r>>32), n, thresh)
			state = st.state
		}
		idx = append(idx, uint16(i0), uint16(i1))
	}
	st.state = state
	if k < c {
		idx = append(idx, uint16(st.index(uint32(st.Uint64()), n, thresh)))
	}
	return idx
}

// sumAt is drawSum's sum of blk at the indices at.
func sumAt(blk []float64, at []uint16) float64 {
	var a0, a1 float64
	k := 0
	for ; k+2 <= len(at); k += 2 {
		a0 += blk[at[k]]
		a1 += blk[at[k+1]]
	}
	if k < len(at) {
		a0 += blk[at[k]]
	}
	return a0 + a1
}

// RandomizationUnitsShared is RandomizationUnits(units(k), opts) for every
// k < n: the results, and the errors, are the same, bit for bit. Metrics of
// the same number of units share their sign flips in pairs. units is
// called once for each k, in order, as PairedBootstrapUnitsShared calls it.
func RandomizationUnitsShared(n int, units func(k int) PairedUnits, opts RandomizationOptions) ([]RandomizationResult, []error) {
	res, errs := make([]RandomizationResult, n), make([]error, n)
	B, bErr := opts.permutations()
	f := flipPairs{opts: opts, B: B, res: res, errs: errs, pending: -1}
	for k := range n {
		u := units(k)
		if bErr != nil {
			errs[k] = bErr
			continue
		}
		d, err := u.check()
		if err != nil || len(d.sums) == 0 {
			res[k], errs[k] = RandomizationUnits(u, opts)
			continue
		}
		res[k] = RandomizationResult{Estimate: accurateSum(d.sums) / d.totalRows, Permutations: B, PValue: 1}
		if differencesAllZero(u.LeftSum, u.RightSum, d.sums) {
			continue
		}
		f.add(k, d.sums)
	}
	f.flush()
	return res, errs
}

// RandomizationDifferencesShared is RandomizationDifferences(diffs(k),
// opts) for every k < n: the results, and the errors, are the same, bit
// for bit. Metrics of the same number of units share their sign flips in
// pairs, as in RandomizationUnitsShared; the differences are read in
// place. diffs is called once for each k, in order.
func RandomizationDifferencesShared(n int, diffs func(k int) *UnitDifferences, opts RandomizationOptions) ([]RandomizationResult, []error) {
	res, errs := make([]RandomizationResult, n), make([]error, n)
	B, bErr := opts.permutations()
	f := flipPairs{opts: opts, B: B, res: res, errs: errs, pending: -1}
	for k := range n {
		u := diffs(k)
		if bErr != nil {
			errs[k] = bErr
			continue
		}
		if len(u.d) == 0 || u.zero {
			res[k], errs[k] = RandomizationDifferences(u, opts)
			continue
		}
		res[k] = RandomizationResult{Estimate: accurateSum(u.d) / float64(len(u.d)), Permutations: B, PValue: 1}
		f.add(k, u.d)
	}
	f.flush()
	return res, errs
}

// flipPairs tests metrics' unit sums by sign flips, two metrics of the
// same units at a time: res[k].PValue and errs[k] get metric k's.
type flipPairs struct {
	opts    RandomizationOptions
	B       int
	res     []RandomizationResult
	errs    []error
	pending int // a metric waiting for a partner, or -1
	x       []float64
}

// add tests metric k's unit sums x with the pending metric's, or holds
// them until a partner comes.
func (f *flipPairs) add(k int, x []float64) {
	switch {
	case f.pending < 0:
		f.pending, f.x = k, x
		return
	case len(f.x) != len(x):
		f.flush()
		f.pending, f.x = k, x
		return
	}
	counts, err := signFlipCountShared(f.opts, [][]float64{f.x, x}, f.B)
	for i, j := range []int{f.pending, k} {
		if err != nil {
			f.errs[j] = err
			continue
		}
		f.res[j].PValue = float64(counts[i]+1) / float64(f.B+1)
	}
	f.pending, f.x = -1, nil
}

// flush tests the pending metric alone.
func (f *flipPairs) flush() {
	if f.pending >= 0 {
		f.res[f.pending].PValue, f.errs[f.pending] = signFlipPValue(f.opts.Context, f.x, f.B, f.opts.Seed)
	}
	f.pending, f.x = -1, nil
}

// signFlipCountShared is signFlipCount for two metrics' unit sums of the
// same units: counts[i] is signFlipCount(xs[i]).
func signFlipCountShared(opts RandomizationOptions, xs [][]float64, B int) ([]int, error) {
	G, n := 2, len(xs[0])
	bounds := resampleBlocks(n, flipBlockSize)
	nb := len(bounds) - 1
	thresholds := make([]float64, G)
	for i, x := range xs {
		thresholds[i] = flipThreshold(x, bounds)
	}
	// A job runs flipJobChunks chunks, each from its own stream, over
	// every block: the block's tables are filled once for all of them.
	chunks := (B + resampleChunkSize - 1) / resampleChunkSize
	jobs := (chunks + flipJobChunks - 1) / flipJobChunks
	counts := make([]int, chunks*G)
	err := resampleJobs(opts.Context, jobs, float64(n)*float64(G)*float64(B), func() func(job int) {
		sums := make([]float64, flipJobChunks*resampleChunkSize*G)
		streams := make([]resampleStream, flipJobChunks)
		one := make([]float64, flipTableLen)
		tables := make([]float64, flipTableLen*G)
		return func(job int) {
			c0, c1 := job*flipJobChunks, min((job+1)*flipJobChunks, chunks)
			for c := c0; c < c1; c++ {
				streams[c-c0] = newResampleStream(opts.Seed, streamRandomization, c)
			}
			clear(sums)
			for b := range nb {
				lo, hi := bounds[b], bounds[b+1]
				for i, x := range xs {
					fillFlipTable(one, x[lo:hi])
					entries := (hi - lo + 63) / 64 * 256
					for e, v := range one[:entries] {
						tables[e*G+i] = v
					}
				}
				for c := c0; c < c1; c++ {
					st := &streams[c-c0]
					count := min(resampleChunkSize, B-c*resampleChunkSize)
					for r := range count {
						s0, s1 := flipBlockSum2(st, tables, hi-lo)
						row := sums[((c-c0)*resampleChunkSize+r)*G:][:G]
						row[0] += s0
						row[1] += s1
					}
				}
			}
			for c := c0; c < c1; c++ {
				count := min(resampleChunkSize, B-c*resampleChunkSize)
				for r := range count {
					row := sums[((c-c0)*resampleChunkSize+r)*G:][:G]
					for i := range G {
						if math.Abs(row[i]) >= thresholds[i] {
							counts[c*G+i]++
						}
					}
				}
			}
		}
	})
	total := make([]int, G)
	for c := range chunks {
		for i := range G {
			total[i] += counts[c*G+i]
		}
	}
	return total, err
}

// flipBlockSum2 is flipBlockSum for two metrics whose tables are
// interleaved entry by entry, every sign flipped as drawn, with each
// metric's four accumulators in registers.
func flipBlockSum2(st *resampleStream, tables []float64, size int) (float64, float64) {
	state := st.state
	var a0, a1, a2, a3, b0, b1, b2, b3 float64
	for j := 0; j < size; j += 64 {
		state += splitMixGamma
		w := splitMix64(state)
		t := (*[2 * 256]float64)(tables[8*j : 8*j+512])
		for g := 0; g < 16; g += 4 {
			e0 := 2 * (16*g + int(w&15))
			e1 := 2 * (16*g + 16 + int(w>>4&15))
			e2 := 2 * (16*g + 32 + int(w>>8&15))
			e3 := 2 * (16*g + 48 + int(w>>12&15))
			a0 += t[e0]
			b0 += t[e0+1]
			a1 += t[e1]
			b1 += t[e1+1]
			a2 += t[e2]
			b2 += t[e2+1]
			a3 += t[e3]
			b3 += t[e3+1]
			w >>= 16
		}
	}
	st.state = state
	return (a0 + a1) + (a2 + a3), (b0 + b1) + (b2 + b3)
}
