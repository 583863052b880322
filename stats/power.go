package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// worstCaseVariance is the largest variance a score in [0, 1] can have,
// reached by a 0/1 score that is 1 half the time.
const worstCaseVariance = 0.25

// SampleSizeOptions configures SampleSize. Alpha and Power default to 0.05
// and 0.8 when zero.
type SampleSizeOptions struct {
	// Delta is the difference in mean score to detect; its sign is ignored.
	Delta float64
	// Alpha is the two-sided significance level, in (0, 1).
	Alpha float64
	// Power is the probability of detecting Delta, in (0, 1).
	Power float64
}

// SampleSizeResult is the outcome of SampleSize: the number of samples
// (users, questions) each side needs.
type SampleSizeResult struct {
	N     int      `json:"n"`
	Notes []string `json:"notes,omitempty"`
}

// SampleSize estimates how many samples are needed to detect a difference
// Delta in mean score with a two-sided test at level Alpha and the given
// Power. It uses the normal-approximation formula of the unpaired
// two-sample test with the worst-case variance σ² = ¼ of a score in [0, 1]:
//
//	n = ⌈2 · (z_{1−α/2} + z_{power})² · σ² / δ²⌉
//
// Delta 0.25 at the defaults gives 63.
//
// Read it as an order of magnitude, not a count, and as a lower bound for
// the paired tests verdict runs. What they need is the variance of the
// differences, Var(d) = σ_L² + σ_R² − 2·cov(L, R); the formula takes it to
// be 2σ² = ½, the value for two uncorrelated sides of worst-case variance.
// When the sides disagree sample by sample more than chance would, Var(d)
// grows (for 0/1 scores up to 1, doubling n), and so does the sample size
// needed. Sides that mostly agree need fewer.
//
// The value before rounding up is reduced by 1e-9 so that rounding error
// cannot turn an exact integer into the next one.
//
// Delta 0 returns ErrBadParameter: no sample size separates two equal
// means. So do a non-finite Delta, Alpha or Power outside (0, 1), and a
// Power not above Alpha/2.
func SampleSize(opts SampleSizeOptions) (SampleSizeResult, error) {
	alpha, power, err := alphaPowerOrDefault(opts.Alpha, opts.Power)
	if err != nil {
		return SampleSizeResult{}, err
	}
	delta := math.Abs(opts.Delta)
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		return SampleSizeResult{}, fmt.Errorf("%w: delta must be finite, got %g", ErrBadParameter, opts.Delta)
	}
	if delta == 0 {
		return SampleSizeResult{}, fmt.Errorf("%w: delta is 0: no sample size separates two equal means", ErrBadParameter)
	}
	z := zSum(alpha, power)
	n := math.Ceil(2*z*z*worstCaseVariance/(delta*delta) - 1e-9)
	if n > math.MaxInt32 {
		return SampleSizeResult{}, fmt.Errorf("%w: delta %g needs more than %d samples", ErrBadParameter, opts.Delta, math.MaxInt32)
	}
	return SampleSizeResult{N: max(int(n), 1)}, nil
}

// MDEOptions configures MinimumDetectableDifference. Alpha and Power
// default to 0.05 and 0.8 when zero.
type MDEOptions struct {
	// N is the number of samples, at least 1.
	N int
	// Alpha is the two-sided significance level, in (0, 1).
	Alpha float64
	// Power is the probability of detecting the difference, in (0, 1).
	Power float64
}

// MDEResult is the outcome of MinimumDetectableDifference.
type MDEResult struct {
	MDE   float64  `json:"mde"`
	Notes []string `json:"notes,omitempty"`
}

// MinimumDetectableDifference is the inverse of SampleSize: the smallest
// difference in mean score that N samples detect with a two-sided test at
// level Alpha and the given Power, under the same unpaired, worst-case
// variance (σ² = ¼) assumptions:
//
//	mde = (z_{1−α/2} + z_{power}) · √(2σ² / N)
//
// SampleSize(mde) returns N. N below 1, Alpha or Power outside (0, 1), or
// Power not above Alpha/2 return ErrBadParameter.
func MinimumDetectableDifference(opts MDEOptions) (MDEResult, error) {
	alpha, power, err := alphaPowerOrDefault(opts.Alpha, opts.Power)
	if err != nil {
		return MDEResult{}, err
	}
	if opts.N < 1 {
		return MDEResult{}, fmt.Errorf("%w: n must be at least 1, got %d", ErrBadParameter, opts.N)
	}
	return MDEResult{MDE: zSum(alpha, power) * math.Sqrt(2*worstCaseVariance/float64(opts.N))}, nil
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
