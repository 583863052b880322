package stats

import (
	"fmt"
	"math"
	"unsafe"
)

// UnitDifferences are the differences d_u = L_u − R_u of n paired units of
// one row each, taken once: the sample the paired bootstrap, the sign-flip
// test and the bootstrap of the probability of superiority all read, in
// place, where the PairedUnits functions each take their own copy. Make
// them with DifferencesOfPairs32.
type UnitDifferences struct {
	d []float64
	// zero says every d_u is zero to within floating-point error of its
	// values, |d_u| ≤ 1e-12·max(|L_u|, |R_u|) (see Randomization).
	zero bool
}

// Len is the number of units n.
func (u *UnitDifferences) Len() int { return len(u.d) }

// DifferencesOfPairs32 returns the differences of units whose values are
// the float32 pairs: unit u's left value L_u at pairs[2u], its right value
// R_u at pairs[2u + 1]. Each d_u is float64(L_u) − float64(R_u), the
// difference PairedUnits{LeftSum, RightSum} of the widened values takes,
// so that every function of the differences gives its PairedUnits
// counterpart's result bit for bit.
//
// The differences are written over pairs, 8 bytes a unit in the 8 bytes
// that held its two values: pairs must not be used afterwards, whatever
// the outcome. A NaN or ±Inf value returns ErrNotFinite naming the unit's
// index, as PairedUnits' functions do. An odd number of values panics.
func DifferencesOfPairs32(pairs []float32) (*UnitDifferences, error) {
	if len(pairs)%2 != 0 {
		panic("stats: an odd number of paired values")
	}
	n := len(pairs) / 2
	var d []float64
	if n > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(pairs)))%unsafe.Alignof(float64(0)) == 0 {
		// Unit u's difference goes where its two values were, read just
		// before.
		d = unsafe.Slice((*float64)(unsafe.Pointer(unsafe.SliceData(pairs))), n)
	} else {
		d = make([]float64, n)
	}
	u := &UnitDifferences{d: d, zero: true}
	for i := range n {
		l, r := float64(pairs[2*i]), float64(pairs[2*i+1])
		switch {
		case math.IsNaN(l) || math.IsInf(l, 0):
			return nil, fmt.Errorf("%w: left sum of unit %d is %v", ErrNotFinite, i, l)
		case math.IsNaN(r) || math.IsInf(r, 0):
			return nil, fmt.Errorf("%w: right sum of unit %d is %v", ErrNotFinite, i, r)
		}
		// The difference of two float32s is finite in float64.
		v := l - r
		d[i] = v
		if u.zero && math.Abs(v) > resampleZeroTol*max(math.Abs(l), math.Abs(r)) {
			u.zero = false
		}
	}
	return u, nil
}

// bootSample is the sample the bootstrap of the differences resamples, as
// PairedUnits.check and unitDifferences.bootSample build it for units of
// one row.
func (u *UnitDifferences) bootSample() *bootSample { return newBootSample(u.d, nil) }

// superioritySample is the sample the bootstrap of the probability of
// superiority resamples: each unit's score, 1 where right's value is
// better, ½ where the two are equal, 0 where left's is better (see
// SuperiorityScores), held as twice the score in a byte. Better is higher,
// or lower with lowerIsBetter. The sign of d_u orders L_u and R_u as
// comparing them does: a difference of distinct finite numbers is never
// zero, and rounding keeps its sign.
func (u *UnitDifferences) superioritySample(lowerIsBetter bool) *bootSample {
	better, worse := uint8(2), uint8(0) // right's score where d_u < 0 and > 0
	if lowerIsBetter {
		better, worse = worse, better
	}
	halves := make([]uint8, len(u.d))
	var total int
	for i, v := range u.d {
		h := uint8(1)
		switch {
		case v < 0:
			h = better
		case v > 0:
			h = worse
		}
		halves[i] = h
		total += int(h)
	}
	// The scores and every partial sum of them are multiples of ½ far
	// below 2⁵³: SuperiorityScores' accurate sum is this exact one.
	s := &bootSample{halves: halves, n: len(halves), rowMean: float64(total) / 2 / float64(len(halves))}
	constant := true
	for _, h := range halves {
		if h != halves[0] {
			constant = false
			break
		}
	}
	if constant {
		s.rowMean = float64(halves[0]) / 2
	}
	s.constant = constant || len(halves) == 1
	return s
}

// PairedBootstrapDifferences is PairedBootstrapUnits on the differences:
// the same result and the same errors, bit for bit, as
// PairedBootstrapUnits(PairedUnits{LeftSum: L, RightSum: R}, opts) on the
// values the differences were taken from. No units return ErrTooFew, a bad
// option ErrBadParameter.
func PairedBootstrapDifferences(u *UnitDifferences, opts BootstrapOptions) (BootstrapResult, error) {
	cfg, err := opts.resolve()
	if err != nil {
		return BootstrapResult{}, err
	}
	if len(u.d) == 0 {
		return BootstrapResult{}, fmt.Errorf("%w: the paired bootstrap needs at least 1 unit, got 0", ErrTooFew)
	}
	return cfg.run(u.bootSample())
}

// PairedSuperiorityDifferences is PairedSuperiorityUnits on the
// differences: the probability of superiority of right over left, with
// its percentile interval from the draws PairedBootstrapDifferences(u,
// opts) makes, the same result and errors, bit for bit, as
// PairedSuperiorityUnits on the values the differences were taken from.
// It holds one byte a unit besides the differences, where
// PairedSuperiorityUnits holds 24.
func PairedSuperiorityDifferences(u *UnitDifferences, lowerIsBetter bool, opts BootstrapOptions) (BootstrapResult, error) {
	cfg, err := opts.resolve()
	if err != nil {
		return BootstrapResult{}, err
	}
	if len(u.d) == 0 {
		return BootstrapResult{}, fmt.Errorf("%w: the probability of superiority needs at least 1 unit, got 0", ErrTooFew)
	}
	return cfg.run(u.superioritySample(lowerIsBetter))
}

// RandomizationDifferences is RandomizationUnits on the differences: the
// same result and errors, bit for bit, as RandomizationUnits on the values
// the differences were taken from. No units return ErrTooFew, a negative
// number of permutations ErrBadParameter.
func RandomizationDifferences(u *UnitDifferences, opts RandomizationOptions) (RandomizationResult, error) {
	B, err := opts.permutations()
	if err != nil {
		return RandomizationResult{}, err
	}
	if len(u.d) == 0 {
		return RandomizationResult{}, fmt.Errorf("%w: the randomisation test needs at least 1 unit, got 0", ErrTooFew)
	}
	res := RandomizationResult{Estimate: accurateSum(u.d) / float64(len(u.d)), Permutations: B, PValue: 1}
	if u.zero {
		return res, nil
	}
	res.PValue, err = signFlipPValue(opts.Context, u.d, B, opts.Seed)
	return res, err
}

// SummarizePairs32 is SummarizePairs of the float32 pairs' values widened:
// unit u's left value at pairs[2u], its right value at pairs[2u + 1]. It
// reads them in place, with no copy. A NaN or ±Inf value returns
// ErrNotFinite, worded as SummarizePairs words it; an odd number of values
// panics.
func SummarizePairs32(pairs []float32) (PairedSummary, error) {
	if len(pairs)%2 != 0 {
		panic("stats: an odd number of paired values")
	}
	if len(pairs) == 0 {
		return summarize(pairs, pairs, 0, 2)
	}
	return summarize(pairs, pairs[1:], len(pairs)/2, 2)
}
