package stats

import (
	"context"
	"fmt"
	"math/big"
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
		err = replicateFixed(ctx, r, hashes, rows, fixed)
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

// replicateBlock is the number of units a worker sums for all of a
// chunk's replicates at once, so that their hashes and differences stay
// in cache.
const replicateBlock = 1024

// weightOf is the Poisson weight and the flip of a unit whose sample ID
// hashed to h, in replicate b: PoissonWeight and FlipSign without the
// string hash.
func weightOf(h int64, b int) (w int64, flip bool) {
	u := pghash.Int8Extended(h, uint64(int64(b)))
	return weightOfHash(u), u&1 == 1
}

// splitShift splits a difference d in Q64 (|d| < 2²⁵·2⁶⁴) into d>>40, of
// magnitude at most 2⁴⁹, and its low 40 bits, so that splitBlock units'
// weighted parts (each weight at most 20 < 2⁵) sum in int64 exactly.
const (
	splitShift = 40
	splitBlock = 256
)

// replicateFixed sums the replicates of differences in Q64. For each
// replicate it hashes the seed once (pghash.Seed) and each unit with the
// final mix alone, draws the weight without a branch but in its rare tail,
// and sums splitBlock units' weighted parts in int64 before adding them
// to the replicate's 128-bit sums: the same sums as the definition,
// exactly (TestHashedReplicatesAddUpOverShards checks them against the
// wide path, term by term).
func replicateFixed(ctx context.Context, r *Replicates, hashes, rows []int64, d []int128) error {
	B, n := len(r.Weights), len(d)
	keys := make([]uint32, n)
	dh, dl := make([]int64, n), make([]int64, n)
	var total int128
	oneRow := true
	for u, v := range d {
		keys[u] = pghash.Int8Fold(hashes[u])
		dh[u] = v.hi<<(64-splitShift) | int64(v.lo>>splitShift)
		dl[u] = int64(v.lo & (1<<splitShift - 1))
		total = total.add(v)
		oneRow = oneRow && rows[u] == 1
	}
	t0, t1, t2, t3 := poissonThresholds[0], poissonThresholds[1], poissonThresholds[2], poissonThresholds[3]
	return resampleChunks(ctx, B, n, func() func(chunk, first, count int) {
		seeds := make([]pghash.Seeded, resampleChunkSize)
		sums := make([]int128, resampleChunkSize)
		flipped := make([]int128, resampleChunkSize)
		weights := make([]int64, resampleChunkSize)
		return func(_, first, count int) {
			for k := range count {
				seeds[k] = pghash.Seed(uint64(int64(first + k)))
				sums[k], flipped[k], weights[k] = int128{}, int128{}, 0
			}
			for lo := 0; lo < n; lo += splitBlock {
				hi := min(lo+splitBlock, n)
				ks, hs, ls, rs := keys[lo:hi], dh[lo:hi], dl[lo:hi], rows[lo:hi]
				for k := range count {
					seed := seeds[k]
					var w, wh, wl, fh, fl int64
					for u, key := range ks {
						x := seed.Hash(key)
						var wu int64
						if x >= t3 {
							wu = weightOfHash(x) // 3 or more: 1.9 %
						} else {
							wu = b2i(x >= t0) + b2i(x >= t1) + b2i(x >= t2)
						}
						if oneRow {
							w += wu
						} else {
							w += wu * rs[u]
						}
						wh += wu * hs[u]
						wl += wu * ls[u]
						m := -int64(x & 1) // all ones where the sign flips
						fh += hs[u] & m
						fl += ls[u] & m
					}
					weights[k] += w
					sums[k] = sums[k].add(joinSplit(wh, wl))
					flipped[k] = flipped[k].add(joinSplit(fh, fl))
				}
			}
			for k := range count {
				// Σ s·d = Σ d − 2·Σ of the flipped d.
				f := flipped[k].add(flipped[k]).neg().add(total)
				r.Weights[first+k], r.Sums[first+k], r.Flips[first+k] = weights[k], sums[k].big(), f.big()
			}
		}
	})
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// joinSplit is hi·2⁴⁰ + lo as an int128.
func joinSplit(hi, lo int64) int128 {
	return int128{hi >> (64 - splitShift), uint64(hi) << splitShift}.add(int128{lo >> 63, uint64(lo)})
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
