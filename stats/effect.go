package stats

import (
	"fmt"
	"math"
)

// Effect sizes of paired data. A p-value says whether a difference is
// distinguishable from none; these say how large it is, in units that do
// not depend on the metric's scale or on n.
//
// Signs follow the rest of the package: differences are left − right.

// EffectSizeDz returns the standardised mean difference of paired data,
//
//	d_z = d̄ / s_d,  d_i = left_i − right_i,  s_d² = Σ (d_i − d̄)² / (n − 1)
//
// (Cohen's d_z: the mean difference in standard deviations of the
// differences). It is positive when left is higher on average. It is NaN
// when the differences do not vary (s_d = 0), and for fewer than 2 pairs.
// Inputs of different lengths return ErrLengths; NaN or ±Inf ErrNotFinite.
func EffectSizeDz(left, right []float64) (float64, error) {
	d, err := resampleDifferences(left, right, nil)
	if err != nil {
		return math.NaN(), err
	}
	return dzOf(d), nil
}

// dzOf is d̄ / s_d of d, NaN when s_d = 0 or len(d) < 2.
func dzOf(d []float64) float64 {
	if len(d) < 2 || allEqual(d) {
		return math.NaN()
	}
	mean, v := meanVariance(d)
	if !(v > 0) {
		return math.NaN()
	}
	return mean / math.Sqrt(v)
}

// SuperiorityScores returns each unit's contribution to the probability of
// superiority of right over left: 1 where right's value is better, ½ where
// the two are equal, 0 where left's is better. Better is higher, or lower
// with lowerIsBetter. Units with rows compare their sums, which for the
// same rows on both sides orders them as their means do.
func SuperiorityScores(u PairedUnits, lowerIsBetter bool) ([]float64, error) {
	if _, err := u.check(); err != nil {
		return nil, err
	}
	w := make([]float64, len(u.LeftSum))
	for i, l := range u.LeftSum {
		r := u.RightSum[i]
		if lowerIsBetter {
			l, r = r, l
		}
		switch {
		case r > l:
			w[i] = 1
		case r == l:
			w[i] = 0.5
		}
	}
	return w, nil
}

// PairedSuperiorityUnits returns the probability of superiority of right
// over left: the share of units where right's value is better (higher, or
// lower with lowerIsBetter), ties counted half,
//
//	P(sup) = (#{right better} + ½ #{equal}) / n
//
// with a percentile interval from the very draws PairedBootstrapUnits(u,
// opts) makes: the random numbers depend on the seed, the number of units,
// the replicate and whether units have several rows, never on the values,
// so replicate b resamples the same units for both, and the pair is
// reproducible bit for bit. Each unit counts once, whatever its rows.
// P(sup) is ½ when neither side is better more often; 1 − P(sup) is left's.
//
// Errors and edge cases are PairedBootstrapUnits': no units returns
// ErrTooFew; all units scoring the same (right better on every unit, say)
// gives the zero-width interval at the estimate.
func PairedSuperiorityUnits(u PairedUnits, lowerIsBetter bool, opts BootstrapOptions) (BootstrapResult, error) {
	cfg, err := opts.resolve()
	if err != nil {
		return BootstrapResult{}, err
	}
	d, err := u.check()
	if err != nil {
		return BootstrapResult{}, err
	}
	if len(d.sums) == 0 {
		return BootstrapResult{}, fmt.Errorf("%w: the probability of superiority needs at least 1 unit, got 0", ErrTooFew)
	}
	w, err := SuperiorityScores(u, lowerIsBetter)
	if err != nil {
		return BootstrapResult{}, err
	}
	if d.rows == nil {
		return cfg.run(newBootSample(w, nil))
	}
	// Units of several rows are drawn as (sum, rows) pairs: the same path,
	// so the same draws, with every unit weighing one.
	ones := make([]float64, len(w))
	for i := range ones {
		ones[i] = 1
	}
	constant := allEqual(w)
	mean := accurateSum(w) / float64(len(w))
	if constant {
		mean = w[0]
	}
	return cfg.run(bootSampleOf(w, ones, mean, constant))
}
