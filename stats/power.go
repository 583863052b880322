package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// worstCaseVariance is the variance of the paired differences d = left −
// right that SampleSize and MinimumDetectableDifference assume when none is
// given: ½ = 2·¼, two uncorrelated sides each with the largest variance a
// score in [0, 1] can have, ¼, reached by a 0/1 score that is 1 half the
// time.
const worstCaseVariance = 0.5

// SampleSizeOptions configures SampleSize. Alpha and Power default to 0.05
// and 0.8 when zero.
type SampleSizeOptions struct {
	// Delta is the difference in mean score to detect; its sign is ignored.
	Delta float64 `req:"delta" required:"true" arg:"D" help:"the gap to detect"`
	// Alpha is the two-sided significance level, in (0, 1).
	Alpha float64 `req:"alpha" default:"0.05" arg:"LEVEL" help:"significance level"`
	// Power is the probability of detecting Delta, in (0, 1).
	Power float64 `req:"power" default:"0.8" arg:"POWER" help:"wanted power"`
	// Variance is the variance of the paired differences d = left − right
	// per unit, such as DifferenceVariance's. Zero means the worst case for
	// scores in [0, 1] on two uncorrelated sides, 2·¼ = ½.
	Variance float64 `req:"variance" arg:"V" help:"variance of the paired differences per unit (default: 0.5, the worst case for scores in [0, 1] on two uncorrelated sides)"`
}

// SampleSizeResult is the outcome of SampleSize: the number of units
// (users, questions), each scored on both sides.
type SampleSizeResult struct {
	N     int    `json:"n"`
	Notes []Note `json:"notes,omitempty"`
}

// SampleSize estimates how many units a paired test at two-sided level
// Alpha needs to detect a mean difference Delta with probability Power,
// from the normal approximation of the paired test:
//
//	n = ⌈(z_{1−α/2} + z_{power})² · Var(d) / δ²⌉
//
// where Var(d) is Variance, the variance of the per-unit differences
// d = left − right. Read the result as an order of magnitude for the paired
// test at that variance, not as a count: the normal approximation ignores
// that the variance is itself estimated, and an observed variance is only
// an estimate of the one a new sample will have.
//
// With Variance zero it assumes the worst case for scores in [0, 1], ½:
// two uncorrelated sides each of variance ¼. The result, with a note
// saying so, is then a worst case for such scores unless the sides are
// negatively correlated (disagree unit by unit more than chance), which for
// 0/1 scores can raise Var(d) to 1 and double n. Sides that agree, as two
// models on the same users mostly do, need fewer units.
// Delta 0.25 at the defaults then gives 63.
//
// The value before rounding up is reduced by 1e-9 so that rounding error
// cannot turn an exact integer into the next one; the result is at least 1.
//
// Delta 0 returns ErrBadParameter: no sample size separates two equal
// means. So do a non-finite Delta, a negative or non-finite Variance, Alpha
// or Power outside (0, 1), a Power not above Alpha/2, and a count above
// math.MaxInt32 (a gap that small gets no count at all).
func SampleSize(opts SampleSizeOptions) (SampleSizeResult, error) {
	alpha, power, err := alphaPowerOrDefault(opts.Alpha, opts.Power)
	if err != nil {
		return SampleSizeResult{}, err
	}
	delta := math.Abs(opts.Delta)
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		return SampleSizeResult{}, fmt.Errorf("%w: delta must be finite, got %g", ErrBadParameter, opts.Delta)
	}
	variance, notes, err := varianceOrWorstCase(opts.Variance)
	if err != nil {
		return SampleSizeResult{}, err
	}
	if delta == 0 {
		return SampleSizeResult{}, fmt.Errorf("%w: delta is 0: no sample size separates two equal means", ErrBadParameter)
	}
	z := zSum(alpha, power)
	n := math.Ceil(z*z*variance/(delta*delta) - 1e-9)
	if !(n <= math.MaxInt32) {
		return SampleSizeResult{}, fmt.Errorf("%w: delta %g needs more than %d samples", ErrBadParameter, opts.Delta, math.MaxInt32)
	}
	return SampleSizeResult{N: max(int(n), 1), Notes: notes}, nil
}

// MDEOptions configures MinimumDetectableDifference. Alpha and Power
// default to 0.05 and 0.8 when zero.
type MDEOptions struct {
	// N is the number of units, at least 1.
	N int `req:"n" required:"true" arg:"N" help:"number of units"`
	// Alpha is the two-sided significance level, in (0, 1).
	Alpha float64 `req:"alpha" default:"0.05" arg:"LEVEL" help:"significance level"`
	// Power is the probability of detecting the difference, in (0, 1).
	Power float64 `req:"power" default:"0.8" arg:"POWER" help:"wanted power"`
	// Variance is the variance of the paired differences d = left − right
	// per unit, such as DifferenceVariance's. Zero means the worst case for
	// scores in [0, 1] on two uncorrelated sides, 2·¼ = ½.
	Variance float64 `req:"variance" arg:"V" help:"variance of the paired differences per unit (default: 0.5, the worst case for scores in [0, 1] on two uncorrelated sides)"`
}

// MDEResult is the outcome of MinimumDetectableDifference.
type MDEResult struct {
	MDE   float64 `json:"mde"`
	Notes []Note  `json:"notes,omitempty"`
}

// MinimumDetectableDifference is the inverse of SampleSize: the smallest
// mean difference that a paired test at two-sided level Alpha detects with
// probability Power on N units, from the same normal approximation,
//
//	mde = (z_{1−α/2} + z_{power}) · √(Var(d) / N)
//
// with Var(d) the Variance of the per-unit differences. Like SampleSize's,
// it is an order of magnitude for the paired test at that variance. With
// Variance zero it assumes the worst case for scores in [0, 1], ½, and says
// so in a note: the result is then a worst case for such scores. At the
// same options, SampleSize(mde) returns N.
//
// N below 1, a negative or non-finite Variance, Alpha or Power outside
// (0, 1), or Power not above Alpha/2 return ErrBadParameter.
func MinimumDetectableDifference(opts MDEOptions) (MDEResult, error) {
	alpha, power, err := alphaPowerOrDefault(opts.Alpha, opts.Power)
	if err != nil {
		return MDEResult{}, err
	}
	if opts.N < 1 {
		return MDEResult{}, fmt.Errorf("%w: n must be at least 1, got %d", ErrBadParameter, opts.N)
	}
	variance, notes, err := varianceOrWorstCase(opts.Variance)
	if err != nil {
		return MDEResult{}, err
	}
	return MDEResult{MDE: zSum(alpha, power) * math.Sqrt(variance/float64(opts.N)), Notes: notes}, nil
}

// varianceOrWorstCase returns v, or worstCaseVariance with
// NoteWorstCaseVariance
// when v is zero, and ErrBadParameter when v is negative or not finite.
func varianceOrWorstCase(v float64) (float64, []Note, error) {
	if !(v >= 0) || math.IsInf(v, 0) {
		return 0, nil, fmt.Errorf("%w: the variance of the differences must be finite and not negative, got %g", ErrBadParameter, v)
	}
	if v == 0 {
		return worstCaseVariance, []Note{{Code: NoteWorstCaseVariance}}, nil
	}
	return v, nil, nil
}

// zSum returns z_{1−α/2} + z_{power}.
func zSum(alpha, power float64) float64 {
	return -mathext.NormalQuantile(alpha/2) + mathext.NormalQuantile(power)
}

// alphaPowerOrDefault applies the defaults 0.05 and 0.8 and checks both lie
// in (0, 1), with power above alpha/2 so that z_{1−α/2} + z_{power} > 0.
func alphaPowerOrDefault(alpha, power float64) (float64, float64, error) {
	if alpha == 0 {
		alpha = 0.05
	}
	if power == 0 {
		power = 0.8
	}
	if !(alpha > 0 && alpha < 1) {
		return 0, 0, fmt.Errorf("%w: alpha must be in (0, 1), got %g", ErrBadParameter, alpha)
	}
	if !(power > 0 && power < 1) {
		return 0, 0, fmt.Errorf("%w: power must be in (0, 1), got %g", ErrBadParameter, power)
	}
	if power <= alpha/2 {
		return 0, 0, fmt.Errorf("%w: power %g must exceed alpha/2 = %g, the chance a test at level alpha detects nothing in one direction", ErrBadParameter, power, alpha/2)
	}
	return alpha, power, nil
}
