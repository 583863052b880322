package stats

import (
	"context"
	"fmt"
	"math/big"
	"math/bits"
	"slices"

	"github.com/verdict-ml/verdict/internal/pghash"
)

// Replicates are the sums a Poisson bootstrap and a hashed sign-flip test
// of paired units need, replicate by replicate: for replicate b, with w_ub
// = PoissonWeight(id_u, b, seed) and s_ub = −1 where FlipSign(id_u, b,
// seed) and +1 elsewhere,
//
//	Weights[b] = Σ_u w_ub·m_u,  Sums[b] = Σ_u w_ub·D_u,  Flips[b] = Σ_u s_ub·D_u
//
// where D_u = L_u − R_u is unit u's difference of sums and m_u its rows,
// summed exactly at Scale (see exact.go). Each term depends on its unit
// alone, so any subset of the units (a shard) can sum its own and the
// subsets' sums add up: HashedReplicates computes them from the units, a
// distributed database computes them on its workers, and both give the
// same Replicates.
type Replicates struct {
	Scale uint
	// Rows is Σ m_u and Sum is Σ D_u, the observed statistic.
	Rows    int64
	Sum     *big.Int
	Weights []int64
	Sums    []*big.Int
	Flips   []*big.Int
	Seed    uint64
}

// HashedReplicates computes B replicates of units u, named by ids (in any
// order), with seed. Rows nil means one row per unit. Work is O(n·B),
// spread over the cores; the sums are exact, so the result is the same on
// any number of cores. Errors: ErrLengths, ErrNotFinite, ErrBadParameter
// (B < 1 or past MaxResamples, a row count below 1), ErrTooFew (no unit),
// and the context's error when ctx is cancelled.
func HashedReplicates(ctx context.Context, ids []string, u PairedUnits, B int, seed uint64) (*Replicates, error) {
	d, err := u.check()
	if err != nil {
		return nil, err
	}
	n := len(d.sums)
	switch {
	case len(ids) != n:
		return nil, fmt.Errorf("%w: %d sample IDs for %d units", ErrLengths, len(ids), n)
	case n == 0:
		return nil, fmt.Errorf("%w: resampling needs at least 1 unit", ErrTooFew)
	case B < 1 || B > MaxResamples:
		return nil, fmt.Errorf("%w: replicates must be in 1..%d, got %d", ErrBadParameter, MaxResamples, B)
	}
	rows := make([]int64, n)
	var total int64
	for i := range rows {
		rows[i] = 1
		if u.Rows != nil {
			rows[i] = int64(u.Rows[i])
		}
		total += rows[i]
	}
	hashes := make([]int64, n)
	for i, id := range ids {
		hashes[i] = int64(pghash.BytesExtended(id, seed))
	}
	r := &Replicates{Rows: total, Weights: make([]int64, B), Sums: make([]*big.Int, B), Flips: make([]*big.Int, B), Seed: seed}
	fixed := make([]int128, n)
	inFixed := true
	for i := range n {
		l, okl := toFixed(u.LeftSum[i])
		rr, okr := toFixed(u.RightSum[i])
		if !okl || !okr {
			inFixed = false
			break
		}
		fixed[i] = l.add(rr.neg())
	}
	if inFixed {
		r.Scale = FixedScale
		var sum int128
		for _, v := range fixed {
			sum = sum.add(v)
		}
		r.Sum = sum.big()
		acc := newFixedReplicates(B)
		if err = replicateFixed(ctx, acc, hashes, rows, fixed); err == nil {
			acc.fill(r)
		}
	} else {
		r.Scale = WideScale
		wide := make([]*big.Int, n)
		r.Sum = new(big.Int)
		for i := range n {
			wide[i] = wideInt(u.LeftSum[i])
			wide[i].Sub(wide[i], wideInt(u.RightSum[i]))
			r.Sum.Add(r.Sum, wide[i])
		}
		err = replicateWide(ctx, r, hashes, rows, wide)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// weightOf is the Poisson weight and the flip of a unit whose sample ID
// hashed to h, in replicate b: PoissonWeight and FlipSign without the
// string hash.
func weightOf(h int64, b int) (w int64, flip bool) {
	f := replicateField(pghash.Int8Extended(h, uint64(int64(b/replicateLanes))), b)
	return weightOfField(f), f&1 == 1
}

// laneOnes has the lowest bit of each 16-bit lane of a block hash set.
const laneOnes = 0x0001000100010001

// laneThresholds are 2¹⁵ − T_k in each 16-bit lane, for the thresholds
// T_k of poissonThresholds (see sumLanes).
var laneThresholds = func() (c [len(poissonThresholds)]uint64) {
	for k, t := range poissonThresholds {
		c[k] = (1<<15 - t) * laneOnes
	}
	return c
}()

// laneSums are one block of units' sums for the four replicates of one
// block hash: the weights in 16-bit lanes, Σ w·d and Σ of the d whose
// sign flips.
type laneSums struct {
	weights     uint64
	sums, flips [replicateLanes]int64
}

// sumLanes sums a block of units, with block hashes xs and parts d (|d| ≤
// 2⁵¹, at most splitBlock of them, so that no sum overflows), for the
// four replicates of the block. Each unit's four weights come at once, a
// lane of 16 bits each: a lane's 15 bits v plus 2¹⁵ − T_k carry into the
// lane's top bit exactly when v ≥ T_k, and never out of the lane. The
// weights past 4, 0.4 % of them, take a branch.
func sumLanes(xs []uint64, d []int64) laneSums {
	d = d[:len(xs)]
	c := &laneThresholds
	c0, c1, c2, c3, c4 := c[0], c[1], c[2], c[3], c[4]
	var weights uint64
	var s0, s1, s2, s3 int64
	for u, x := range xs {
		v := x >> 1 & 0x7fff7fff7fff7fff
		w := (v+c0)>>15&laneOnes + (v+c1)>>15&laneOnes + (v+c2)>>15&laneOnes + (v+c3)>>15&laneOnes
		if (v+c4)&(laneOnes<<15) != 0 {
			w = laneWeights(v)
		}
		weights += w
		du := d[u]
		s0 += int64(w&0xffff) * du
		s1 += int64(w>>16&0xffff) * du
		s2 += int64(w>>32&0xffff) * du
		s3 += int64(w>>48) * du
	}
	var f0, f1, f2, f3 int64
	for u, x := range xs {
		du := d[u]
		f0 += int64(x<<63) >> 63 & du
		f1 += int64(x<<47) >> 63 & du
		f2 += int64(x<<31) >> 63 & du
		f3 += int64(x<<15) >> 63 & du
	}
	return laneSums{weights, [4]int64{s0, s1, s2, s3}, [4]int64{f0, f1, f2, f3}}
}

// laneWeights are the four weights of lanes v, every threshold counted.
func laneWeights(v uint64) uint64 {
	var w uint64
	for _, c := range laneThresholds {
		w += (v + c) >> 15 & laneOnes
	}
	return w
}

// splitBlock is the number of units sumLanes sums at once: 256 parts of
// at most 2⁵¹, weighted by at most 7, stay below 2⁶³, and 256 weights
// below 2¹⁶.
const (
	splitShift = 40
	splitBlock = 256
	wordLimit  = 1 << 51
)

// fixedWords writes differences in Q64 as int64 words whose sums,
// shifted, add up to theirs: one word d >> g where every difference is a
// multiple of 2^g and fits in 2⁵¹ after the shift (values stored as
// float32, or 0/1, mostly do), and otherwise two, d >> 40 and its low 40
// bits.
func fixedWords(d []int128) (words [][]int64, shifts []uint) {
	g := uint(127)
	for _, v := range d {
		switch {
		case v.lo != 0:
			g = min(g, uint(bits.TrailingZeros64(v.lo)))
		case v.hi != 0:
			g = min(g, 64+uint(bits.TrailingZeros64(uint64(v.hi))))
		}
	}
	if g == 127 {
		g = 0 // all zero
	}
	one := make([]int64, len(d))
	for u, v := range d {
		s := v.sar(g)
		x := int64(s.lo)
		if s.hi != x>>63 || x > wordLimit || x < -wordLimit {
			one = nil
			break
		}
		one[u] = x
	}
	if one != nil {
		return [][]int64{one}, []uint{g}
	}
	hi, lo := make([]int64, len(d)), make([]int64, len(d))
	for u, v := range d {
		hi[u] = v.hi<<(64-splitShift) | int64(v.lo>>splitShift)
		lo[u] = int64(v.lo & (1<<splitShift - 1))
	}
	return [][]int64{hi, lo}, []uint{splitShift, 0}
}

// fixedReplicates are replicates' sums in Q64, which replicateFixed adds
// units to.
type fixedReplicates struct {
	weights     []int64
	sums, flips []int128
}

func newFixedReplicates(B int) *fixedReplicates {
	return &fixedReplicates{weights: make([]int64, B), sums: make([]int128, B), flips: make([]int128, B)}
}

// fill sets r's Weights, Sums and Flips to f's.
func (f *fixedReplicates) fill(r *Replicates) {
	for b := range f.weights {
		r.Weights[b], r.Sums[b], r.Flips[b] = f.weights[b], f.sums[b].big(), f.flips[b].big()
	}
}

// replicateFixed adds the replicates of differences in Q64 to r, the units
// of rows[u] rows each (nil: one row each). It hashes
// each block's seed once (pghash.Seed) and each unit with the final mix
// alone, draws four replicates' weights from the hash without a branch,
// and sums splitBlock units' weighted parts in int64 before adding them
// to the replicates' 128-bit sums: the same sums as the definition,
// exactly (TestHashedReplicatesAreTheirDefinition checks them term by
// term).
func replicateFixed(ctx context.Context, r *fixedReplicates, hashes, rows []int64, d []int128) error {
	B, n := len(r.weights), len(d)
	keys := make([]uint32, n)
	var total int128
	oneRow := true
	for u, v := range d {
		keys[u] = pghash.Int8Fold(hashes[u])
		total = total.add(v)
		oneRow = oneRow && (rows == nil || rows[u] == 1)
	}
	words, shifts := fixedWords(d)
	const blocks = resampleChunkSize / replicateLanes
	return resampleChunks(ctx, B, n, func() func(chunk, first, count int) {
		var seeds [blocks]pghash.Seeded
		xs := make([]uint64, splitBlock)
		var weights [resampleChunkSize]int64
		sums := make([][resampleChunkSize]int128, len(words))
		flipped := make([][resampleChunkSize]int128, len(words))
		return func(_, first, count int) {
			nb := (count + replicateLanes - 1) / replicateLanes
			for j := range nb {
				seeds[j] = pghash.Seed(uint64(int64(first/replicateLanes + j)))
			}
			weights = [resampleChunkSize]int64{}
			for w := range words {
				sums[w], flipped[w] = [resampleChunkSize]int128{}, [resampleChunkSize]int128{}
			}
			for lo := 0; lo < n; lo += splitBlock {
				hi := min(lo+splitBlock, n)
				ks := keys[lo:hi]
				for j := range nb {
					seeds[j].HashAll(xs, ks)
					for w, word := range words {
						ls := sumLanes(xs[:len(ks)], word[lo:hi])
						for i := range replicateLanes {
							k := j*replicateLanes + i
							if w == 0 && oneRow {
								weights[k] += int64(ls.weights >> (16 * i) & 0xffff)
							}
							sums[w][k] = sums[w][k].add(int128{ls.sums[i] >> 63, uint64(ls.sums[i])})
							flipped[w][k] = flipped[w][k].add(int128{ls.flips[i] >> 63, uint64(ls.flips[i])})
						}
					}
					if !oneRow {
						ls := sumLanes(xs[:len(ks)], rows[lo:hi])
						for i := range replicateLanes {
							weights[j*replicateLanes+i] += ls.sums[i]
						}
					}
				}
			}
			for k := range count {
				var s, f int128
				for w, shift := range shifts {
					s = s.add(sums[w][k].shl(shift))
					f = f.add(flipped[w][k].shl(shift))
				}
				// Σ s·d = Σ d − 2·Σ of the flipped d.
				f = f.add(f).neg().add(total)
				r.weights[first+k] += weights[k]
				r.sums[first+k] = r.sums[first+k].add(s)
				r.flips[first+k] = r.flips[first+k].add(f)
			}
		}
	})
}

func replicateWide(ctx context.Context, r *Replicates, hashes, rows []int64, d []*big.Int) error {
	B := len(r.Weights)
	return resampleChunks(ctx, B, len(d), func() func(chunk, first, count int) {
		tmp := new(big.Int)
		return func(_, first, count int) {
			for k := range count {
				b := first + k
				s, f := new(big.Int), new(big.Int)
				var w int64
				for u := range d {
					wu, flip := weightOf(hashes[u], b)
					w += wu * rows[u]
					s.Add(s, tmp.Mul(d[u], big.NewInt(wu)))
					if flip {
						f.Sub(f, d[u])
					} else {
						f.Add(f, d[u])
					}
				}
				r.Weights[b], r.Sums[b], r.Flips[b] = w, s, f
			}
		}
	})
}

// Estimate is the row-weighted mean difference Σ D_u / Σ m_u, rounded once.
func (r *Replicates) Estimate() float64 { return ratio(r.Sum, r.Scale, big.NewInt(r.Rows)) }

// PoissonBootstrap is the Poisson bootstrap's percentile interval at
// confidence: replicate b's estimate is Sums[b] / Weights[b], rounded
// once, and the bounds are the (1 ∓ c)/2 quantiles of the B estimates,
// interpolated as Bootstrap's are. A replicate that drew every weight 0
// (probability e⁻ⁿ) takes the observed estimate. Units whose differences
// are all equal give the zero-width interval at the estimate.
func (r *Replicates) PoissonBootstrap(confidence float64) (BootstrapResult, error) {
	conf, err := confidenceOrDefault(confidence)
	if err != nil {
		return BootstrapResult{}, err
	}
	est := r.Estimate()
	res := BootstrapResult{Estimate: est, Confidence: conf, Resamples: len(r.Weights), Seed: r.Seed}
	means := make([]float64, len(r.Weights))
	for b, w := range r.Weights {
		means[b] = est
		if w > 0 {
			means[b] = ratio(r.Sums[b], r.Scale, big.NewInt(w))
		}
	}
	slices.Sort(means)
	res.Low, res.High = sortedQuantile(means, (1-conf)/2), sortedQuantile(means, (1+conf)/2)
	return res, nil
}

// FlipPValue is the sign-flip test's two-sided p-value, (1 + #{b : |Flips[b]|
// ≥ |Sum|}) / (B + 1), the comparison exact. Differences all zero give 1.
func (r *Replicates) FlipPValue() float64 {
	if r.Sum.Sign() == 0 {
		return 1
	}
	obs := new(big.Int).Abs(r.Sum)
	count := 1
	for _, f := range r.Flips {
		if f.CmpAbs(obs) >= 0 {
			count++
		}
	}
	return float64(count) / float64(len(r.Flips)+1)
}

// ReplicateStream sums the Replicates of units of one row each in Q64
// batch by batch, as a distributed database streams its pairs: the sums
// of any split of the units into batches, added in any order, are those
// of HashedReplicates over all of them, exactly. It holds O(B) numbers
// whatever the number of units.
type ReplicateStream struct {
	seed uint64
	rows int64
	sum  int128
	acc  *fixedReplicates
}

// NewReplicateStream starts B replicates with seed. Errors:
// ErrBadParameter when B is < 1 or past MaxResamples.
func NewReplicateStream(B int, seed uint64) (*ReplicateStream, error) {
	if B < 1 || B > MaxResamples {
		return nil, fmt.Errorf("%w: replicates must be in 1..%d, got %d", ErrBadParameter, MaxResamples, B)
	}
	return &ReplicateStream{seed: seed, acc: newFixedReplicates(B)}, nil
}

// Add adds units whose sample IDs hash to hashes (PostgreSQL's
// hashtextextended(id, seed), pghash.BytesExtended) and whose differences
// D_u, at scale 2⁶⁴, are hi[u]·2³² + lo[u]. Errors: ErrLengths, and the
// context's error when ctx is cancelled (the stream is then unusable).
func (s *ReplicateStream) Add(ctx context.Context, hashes, hi, lo []int64) error {
	n := len(hashes)
	if len(hi) != n || len(lo) != n {
		return fmt.Errorf("%w: %d hashes, %d and %d parts", ErrLengths, n, len(hi), len(lo))
	}
	if n == 0 {
		return nil
	}
	d := make([]int128, n)
	for u := range n {
		d[u] = int128{hi[u] >> 63, uint64(hi[u])}.shl(32).add(int128{lo[u] >> 63, uint64(lo[u])})
		s.sum = s.sum.add(d[u])
	}
	s.rows += int64(n)
	return replicateFixed(ctx, s.acc, hashes, nil, d)
}

// Replicates are the sums of every unit added. Errors: ErrTooFew when
// none was.
func (s *ReplicateStream) Replicates() (*Replicates, error) {
	if s.rows == 0 {
		return nil, fmt.Errorf("%w: resampling needs at least 1 unit", ErrTooFew)
	}
	B := len(s.acc.weights)
	r := &Replicates{Scale: FixedScale, Rows: s.rows, Sum: s.sum.big(), Seed: s.seed,
		Weights: make([]int64, B), Sums: make([]*big.Int, B), Flips: make([]*big.Int, B)}
	s.acc.fill(r)
	return r, nil
}
