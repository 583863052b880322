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

func replicateFixed(ctx context.Context, r *Replicates, hashes, rows []int64, d []int128) error {
	B := len(r.Weights)
	return resampleChunks(ctx, B, len(d), func() func(chunk, first, count int) {
		return func(_, first, count int) {
			sums := make([]int128, count)
			flips := make([]int128, count)
			weights := make([]int64, count)
			for lo := 0; lo < len(d); lo += replicateBlock {
				hi := min(lo+replicateBlock, len(d))
				for k := range count {
					b := first + k
					var s, f int128
					var w int64
					for u := lo; u < hi; u++ {
						wu, flip := weightOf(hashes[u], b)
						w += wu * rows[u]
						if wu != 0 {
							s = s.add(d[u].mulSmall(wu))
						}
						if flip {
							f = f.add(d[u].neg())
						} else {
							f = f.add(d[u])
						}
					}
					sums[k], flips[k], weights[k] = sums[k].add(s), flips[k].add(f), weights[k]+w
				}
			}
			for k := range count {
				r.Weights[first+k], r.Sums[first+k], r.Flips[first+k] = weights[k], sums[k].big(), flips[k].big()
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
