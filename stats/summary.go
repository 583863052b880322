package stats

import (
	"fmt"
	"math"
	"math/big"
	"slices"
)

// PairedSummary is what the paired tests of means need from n paired
// units of one row each, summed exactly (see exact.go): counts, and the
// sums of the values, of their differences d = left − right and of the
// squared differences, as integers at Scale. SummarizePairs computes it
// from the values; a distributed database computes it shard by shard and
// adds the shards' sums, and both give the same PairedSummary, so the same
// t-test, means and sample-size hint.
type PairedSummary struct {
	N int64
	// Greater and Less count the units with left > right and left < right.
	Greater, Less int64
	// NonBinary counts the units with a value other than 0 or 1.
	NonBinary int64
	// Scale is FixedScale or WideScale: SumLeft, SumRight and SumDiff are
	// Σ·2^Scale, SumDiffSq is Σ d²·2^(2·Scale).
	Scale                      uint
	SumLeft, SumRight, SumDiff *big.Int
	SumDiffSq                  *big.Int
}

// SummarizePairs sums the paired values exactly: in Q64 when every value
// is in it, else at WideScale. Values of different lengths
// return ErrLengths, NaN or ±Inf ErrNotFinite.
func SummarizePairs(left, right []float64) (PairedSummary, error) {
	if len(left) != len(right) {
		return PairedSummary{}, fmt.Errorf("%w: left has %d values, right has %d", ErrLengths, len(left), len(right))
	}
	return summarize(left, right, len(left), 1)
}

// summarize is SummarizePairs of n values of left and right, the ith at
// index i·stride of each, widened to float64; it reads them in place.
func summarize[T float32 | float64](left, right []T, n, stride int) (PairedSummary, error) {
	s := PairedSummary{N: int64(n)}
	finite := true
	for i := range n {
		l, r := float64(left[i*stride]), float64(right[i*stride])
		if math.IsNaN(l-r) || math.IsInf(l-r, 0) {
			finite = false // NaN or ±Inf among them, or an overflow
			break
		}
		switch {
		case l > r:
			s.Greater++
		case l < r:
			s.Less++
		}
		if l != 0 && l != 1 || r != 0 && r != 1 {
			s.NonBinary++
		}
	}
	if !finite {
		// The first NaN or ±Inf on the left, else on the right, else
		// the first difference that overflows, as pairedDifferencesOf
		// reports them.
		for _, side := range [...]struct {
			name string
			x    []T
		}{{"left", left}, {"right", right}} {
			for i := range n {
				if v := float64(side.x[i*stride]); math.IsNaN(v) || math.IsInf(v, 0) {
					return PairedSummary{}, fmt.Errorf("%w: %s[%d] is %v", ErrNotFinite, side.name, i, v)
				}
			}
		}
		for i := range n {
			if d := float64(left[i*stride]) - float64(right[i*stride]); math.IsInf(d, 0) {
				return PairedSummary{}, fmt.Errorf("%w: left[%d] − right[%d] overflows to %v", ErrNotFinite, i, i, d)
			}
		}
	}
	if sumFixed(&s, left, right, n, stride) {
		return s, nil
	}
	s.Scale = WideScale
	s.SumLeft, s.SumRight, s.SumDiff, s.SumDiffSq = new(big.Int), new(big.Int), new(big.Int), new(big.Int)
	d, sq := new(big.Int), new(big.Int)
	for i := range n {
		l, r := wideInt(float64(left[i*stride])), wideInt(float64(right[i*stride]))
		s.SumLeft.Add(s.SumLeft, l)
		s.SumRight.Add(s.SumRight, r)
		d.Sub(l, r)
		s.SumDiff.Add(s.SumDiff, d)
		s.SumDiffSq.Add(s.SumDiffSq, sq.Mul(d, d))
	}
	return s, nil
}

// sumFixed sums in Q64 and reports whether every value was in it. Σ d²
// goes through big.Int in blocks: each D² needs up to 180 bits.
func sumFixed[T float32 | float64](s *PairedSummary, left, right []T, n, stride int) bool {
	var sl, sr, sd int128
	sq, dsq, db := new(big.Int), new(big.Int), new(big.Int)
	for i := range n {
		l, okl := toFixed(float64(left[i*stride]))
		r, okr := toFixed(float64(right[i*stride]))
		if !okl || !okr {
			return false
		}
		d := l.add(r.neg())
		sl, sr, sd = sl.add(l), sr.add(r), sd.add(d)
		if d.sign() != 0 {
			d.setBig(db, dsq)
			sq.Add(sq, dsq.Mul(db, db))
		}
	}
	s.Scale = FixedScale
	s.SumLeft, s.SumRight, s.SumDiff, s.SumDiffSq = sl.big(), sr.big(), sd.big(), sq
	return true
}

// Means returns the two sides' means, each rounded once.
func (s PairedSummary) Means() (left, right float64) {
	n := big.NewInt(s.N)
	return ratio(s.SumLeft, s.Scale, n), ratio(s.SumRight, s.Scale, n)
}

// MeanDiff returns the mean difference left − right, rounded once.
func (s PairedSummary) MeanDiff() float64 {
	return ratio(s.SumDiff, s.Scale, big.NewInt(s.N))
}

// varianceNumerator is n·Σd² − (Σd)², at scale 2·Scale; the sample
// variance is it over n(n − 1). It is zero exactly when every difference
// is the same.
func (s PairedSummary) varianceNumerator() *big.Int {
	num := new(big.Int).Mul(big.NewInt(s.N), s.SumDiffSq)
	return num.Sub(num, new(big.Int).Mul(s.SumDiff, s.SumDiff))
}

// Variance returns the sample variance of the differences, Σ(d − d̄)²/(n − 1),
// rounded once. Fewer than 2 units return ErrTooFew.
func (s PairedSummary) Variance() (float64, error) {
	if s.N < 2 {
		return 0, fmt.Errorf("%w: the variance of unit differences needs at least 2 units, got %d", ErrTooFew, s.N)
	}
	return ratio(s.varianceNumerator(), 2*s.Scale, big.NewInt(s.N*(s.N-1))), nil
}

// PairedT runs the paired t-test of PairedT on the summary. The mean and
// variance are exact until rounded once each, so the result does not
// depend on the order of the units; it agrees with scipy.stats.ttest_rel
// to the rounding of scipy's own sums.
func (s PairedSummary) PairedT(opts PairedTOptions) (PairedTResult, error) {
	conf, err := confidenceOrDefault(opts.Confidence)
	if err != nil {
		return PairedTResult{}, err
	}
	if s.N < 2 {
		return PairedTResult{}, fmt.Errorf("%w: the paired t-test needs at least 2 pairs, got %d", ErrTooFew, s.N)
	}
	mean := s.MeanDiff()
	res := PairedTResult{N: int(s.N), MeanDiff: mean, DF: int(s.N - 1)}
	if s.varianceNumerator().Sign() == 0 {
		res.CILow, res.CIHigh = mean, mean
		res.T, res.PValue, res.Notes = degenerateT(mean)
		return res, nil
	}
	variance, _ := s.Variance()
	se := math.Sqrt(variance / float64(s.N))
	res.T, res.SE = mean/se, se
	res.PValue = studentTwoSidedP(res.T, float64(s.N-1))
	half := studentQuantileUpper(float64(s.N-1), (1-conf)/2) * se
	res.CILow, res.CIHigh = mean-half, mean+half
	return res, nil
}

// SignedRanksOfPairs groups the exact differences left − right by
// magnitude: the grouping a database makes of the stored values, where
// SignedRanksOf groups differences rounded to float64. Errors are
// SummarizePairs'.
func SignedRanksOfPairs(left, right []float64) (SignedRanks, error) {
	if _, err := pairedDifferencesOf(left, right); err != nil {
		return SignedRanks{}, err
	}
	d := make([]*big.Int, len(left))
	fixed := true
	tmp := new(big.Int)
	for i := range left {
		l, okl := toFixed(left[i])
		r, okr := toFixed(right[i])
		if !okl || !okr {
			fixed = false
			break
		}
		d[i] = l.add(r.neg()).setBig(new(big.Int), tmp)
	}
	if !fixed {
		for i := range left {
			d[i] = wideInt(left[i])
			d[i].Sub(d[i], wideInt(right[i]))
		}
	}
	var r SignedRanks
	nonzero := d[:0:0]
	for _, v := range d {
		if v.Sign() == 0 {
			r.Zeros++
		} else {
			nonzero = append(nonzero, v)
		}
	}
	slices.SortFunc(nonzero, func(a, b *big.Int) int { return a.CmpAbs(b) })
	for i := 0; i < len(nonzero); {
		j := i
		var g SignedRankGroup
		for ; j < len(nonzero) && nonzero[j].CmpAbs(nonzero[i]) == 0; j++ {
			if nonzero[j].Sign() > 0 {
				g.Pos++
			} else {
				g.Neg++
			}
		}
		r.Groups = append(r.Groups, g)
		i = j
	}
	return r, nil
}
