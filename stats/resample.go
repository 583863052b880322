package stats

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Resampling (the bootstrap and the sign-flip randomisation test) is
// reproducible bit for bit: the same inputs and seed give the same output on
// any number of cores. The replicates are cut into chunks of
// resampleChunkSize, a constant that does not depend on GOMAXPROCS. Chunk c
// draws its random numbers from its own stream, derived from (seed, method,
// c) alone, and writes its replicates to its own place in the output, so the
// goroutine that happens to run a chunk changes nothing.
//
// The generator is SplitMix64 (Steele, Lea and Flood, "Fast splittable
// pseudorandom number generators", OOPSLA 2014): a Weyl sequence
// state += γ passed through a bijective 64-bit finaliser. It passes
// BigCrush, and its step is an addition, so the hot loops keep the state in
// a register and draw at well under a nanosecond a number. math/rand/v2's
// PCG would do as well statistically but is not inlined, which costs a
// function call per draw: 2·10⁹ calls for one bootstrap at n = 10⁶.
//
// Streams of different chunks start at unrelated points of the same 2⁶⁴
// cycle. A chunk draws at most about resampleChunkSize·n numbers, so two
// streams overlap with probability below (chunks² · 32n) / 2⁶⁴, about 10⁻⁹
// for B = 2000 resamples of n = 10⁸ units.

// MaxResamples bounds the bootstrap's resamples and the sign-flip test's
// permutations. A randomisation p-value's resolution is 1/(B + 1) and a
// percentile interval's bounds move by O(1/√B): a million replicates put the
// first below 10⁻⁶, far under any alpha, and the second far under the
// sampling error of any data set. More only costs time (linear in B) and
// memory (8 bytes a replicate).
const MaxResamples = 1_000_000

// resampleChunkSize is the number of replicates in one chunk: the unit of
// parallel work, and of reuse of each block of data while it is in cache.
const resampleChunkSize = 32

// resampleSerialWork is the amount of work (units × replicates) below which
// resampling runs on the calling goroutine: starting goroutines would cost
// more than it saves. The results are the same either way.
const resampleSerialWork = 1 << 18

// splitMixGamma is SplitMix64's increment, 2⁶⁴/φ rounded to an odd number.
const splitMixGamma = 0x9e3779b97f4a7c15

// Method tags keep the streams of different methods apart, so that, say,
// Compare's bootstrap and its randomisation test with the same seed do not
// share random numbers.
const (
	streamBootstrap     uint64 = 0x626f6f7473747261 // "bootstra"
	streamRandomization uint64 = 0x7369676e666c6970 // "signflip"
)

// splitMix64 is SplitMix64's finaliser: a bijection of the 64-bit integers
// that mixes every input bit into every output bit.
func splitMix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// resampleStream is one chunk's stream of random 64-bit numbers. Hot loops
// copy state into a local variable, advance it by splitMixGamma and take
// splitMix64 of it, which is what Uint64 does, and store it back.
type resampleStream struct {
	state uint64
}

// newResampleStream returns the stream of chunk number chunk of a method
// (streamBootstrap, streamRandomization) run with seed. The state is
// splitMix64(splitMix64(seed ⊕ method) + (chunk+1)·γ): for one seed and
// method, different chunks get different states.
func newResampleStream(seed, method uint64, chunk int) resampleStream {
	return resampleStream{state: splitMix64(splitMix64(seed^method) + uint64(chunk+1)*splitMixGamma)}
}

// Uint64 returns the next number of the stream. With it a *resampleStream
// is a math/rand/v2 Source, which gonum's distributions accept.
func (s *resampleStream) Uint64() uint64 {
	s.state += splitMixGamma
	return splitMix64(s.state)
}

// index returns a uniform integer in [0, n) for 0 < n < 2³² from the 32-bit
// candidate u by Lemire's multiply-and-shift ("Fast random integer
// generation in an interval", 2019): ⌊u·n / 2³²⌋, rejecting the
// 2³² mod n = thresh smallest values of the low half, and drawing new
// candidates from s, so that every index is exactly equally likely. The
// rejection happens with probability below n / 2³².
func (s *resampleStream) index(u uint32, n uint64, thresh uint32) uint64 {
	m := uint64(u) * n
	for uint32(m) < thresh {
		m = uint64(uint32(s.Uint64())) * n
	}
	return m >> 32
}

// resampleChunks runs work over the chunks of replicates replicates, each
// call with the chunk's number, its first replicate and its number of
// replicates (resampleChunkSize but for the last chunk). Each goroutine gets
// its own worker from newWorker, so that workers can keep scratch space.
// units is the number of units each replicate touches: jobs of fewer than
// resampleSerialWork units × replicates run on the calling goroutine. Since
// each chunk has its own stream and output, the result does not depend on
// how chunks are spread over goroutines.
//
// Between chunks it checks ctx (nil for none), and stops with ctx's error
// once it is cancelled: a chunk takes at most resampleChunkSize replicates
// of units draws, a fraction of a second at 10⁶ units, so a cancelled
// resampling stops about that fast.
func resampleChunks(ctx context.Context, replicates, units int, newWorker func() func(chunk, first, count int)) error {
	if ctx == nil {
		ctx = context.Background()
	}
	chunks := (replicates + resampleChunkSize - 1) / resampleChunkSize
	starting, _ := ctx.Value(chunkStartKey{}).(func())
	run := func(work func(chunk, first, count int), chunk int) {
		if starting != nil {
			starting()
		}
		first := chunk * resampleChunkSize
		work(chunk, first, min(resampleChunkSize, replicates-first))
	}
	workers := min(runtime.GOMAXPROCS(0), chunks)
	if workers <= 1 || float64(units)*float64(replicates) < resampleSerialWork {
		work := newWorker()
		for c := range chunks {
			if err := ctx.Err(); err != nil {
				return err
			}
			run(work, c)
		}
		return nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			work := newWorker()
			for {
				c := int(next.Add(1) - 1)
				if c >= chunks || ctx.Err() != nil {
					return
				}
				run(work, c)
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// chunkStartKey is the context key of a func() that resampleChunks calls
// as each chunk starts, after its check of the context. Only tests set it
// (export_test.go), to cancel a resampling once it is under way and to
// count the chunks it starts, without timing anything.
type chunkStartKey struct{}

// resampleBlocks cuts n units into blocks of maxBlock units, the last
// one shorter, for cache-friendly resampling, and returns the block
// boundaries: block b is [bounds[b], bounds[b+1]).
func resampleBlocks(n, maxBlock int) []int {
	nb := max(1, (n+maxBlock-1)/maxBlock)
	bounds := make([]int, nb+1)
	for b := range nb + 1 {
		bounds[b] = min(b*maxBlock, n)
	}
	return bounds
}
