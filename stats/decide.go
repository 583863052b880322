package stats

import "math"

// Decision is the outcome of the distinguishability rule for one
// difference, with both halves of the rule, so that a report can say which
// one failed.
type Decision struct {
	// Distinguishable is PBelowAlpha && ExcludesZero.
	Distinguishable bool `json:"distinguishable"`
	// PBelowAlpha is p < alpha.
	PBelowAlpha bool `json:"p_below_alpha"`
	// ExcludesZero is Low > 0 or High < 0, with neither bound NaN.
	ExcludesZero bool `json:"interval_excludes_zero"`
}

// Decide applies verdict's rule for naming a winner to one difference:
// it is distinguishable only when
//
//	p < alpha  and  (iv.Low > 0 or iv.High < 0)
//
// Two tests that answer the same question differently (a p-value below
// alpha with an interval that straddles zero, or the reverse) are not
// evidence enough, so both halves must hold. Decide is the one place the
// rule is written: callers ask it rather than restate the rule.
//
// Edge cases: the comparisons are strict, so p equal to alpha is not below
// it, and an interval with a bound at exactly zero (±0) does not exclude
// zero. A NaN p or alpha never gives PBelowAlpha, and an interval with a
// NaN bound never gives ExcludesZero, even when its other bound alone
// would (Interval.ExcludesZero says true for [NaN, −0.1]): an undefined
// statistic is never distinguishable. Infinite bounds are compared as
// numbers, so [0.1, +Inf] excludes zero. The estimate is not consulted;
// a winner, if any, is the side the estimate favours.
func Decide(p, alpha float64, iv Interval) Decision {
	d := Decision{
		PBelowAlpha:  p < alpha,
		ExcludesZero: !math.IsNaN(iv.Low) && !math.IsNaN(iv.High) && iv.ExcludesZero(),
	}
	d.Distinguishable = d.PBelowAlpha && d.ExcludesZero
	return d
}
