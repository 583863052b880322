package stats

import (
	"fmt"
	"math"
)

// TOSTResult is the outcome of TOST: the two one-sided t-tests of a mean
// difference μ against the bounds Low < High.
type TOSTResult struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// TLow and PLow test H0: μ ≤ Low against μ > Low:
	// t = (d̄ − Low)/SE, p = P(T_df ≥ t).
	TLow float64 `json:"t_low"`
	PLow float64 `json:"p_low"`
	// THigh and PHigh test H0: μ ≥ High against μ < High:
	// t = (d̄ − High)/SE, p = P(T_df ≤ t).
	THigh float64 `json:"t_high"`
	PHigh float64 `json:"p_high"`
	// PValue is max(PLow, PHigh): the equivalence test's p-value, which
	// rejects "μ outside (Low, High)" when both one-sided tests reject.
	PValue float64 `json:"p_value"`
	DF     int     `json:"df"`
}

// TOST is Schuirmann's two one-sided tests of a mean difference with
// estimate mean, standard error se and df degrees of freedom (a paired t:
// se = s/√n, df = n − 1; the corrected resampled t: its corrected se) against
// the bounds low < high. Its p-values are statsmodels' ttost_paired(x1, x2,
// low, high) on the paired differences x1 − x2. Either bound may be ±Inf,
// which makes that test's p zero. Each one-sided test at level α rejects
// exactly when the matching bound of the (1 − 2α) two-sided t interval,
// TInterval(mean, …, 1 − 2α), lies beyond its margin.
//
// A standard error of zero (every difference the same) gives t = ±Inf and
// p = 0 where the mean lies strictly inside the bound's side, and t = 0,
// p = 1 at or beyond it. A negative or NaN se, NaN bounds, low ≥ high or df
// below 1 return ErrBadParameter; a NaN or infinite mean ErrNotFinite.
func TOST(mean, se float64, df int, low, high float64) (TOSTResult, error) {
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return TOSTResult{}, fmt.Errorf("%w: TOST's mean difference is %g", ErrNotFinite, mean)
	}
	if !(se >= 0) || math.IsInf(se, 0) || df < 1 || !(low < high) {
		return TOSTResult{}, fmt.Errorf("%w: TOST needs a finite standard error of 0 or more, df of at least 1 and bounds low < high, got se %g, df %d, bounds %g and %g",
			ErrBadParameter, se, df, low, high)
	}
	r := TOSTResult{Low: low, High: high, DF: df}
	r.TLow, r.PLow = oneSidedT(mean-low, se, float64(df))
	t, p := oneSidedT(high-mean, se, float64(df))
	r.THigh, r.PHigh = -t, p
	r.PValue = max(r.PLow, r.PHigh)
	return r, nil
}

// oneSidedT is t = excess/se and P(T_df ≥ t), the p-value of H0: the
// excess is 0 or less.
func oneSidedT(excess, se, df float64) (t, p float64) {
	switch {
	case math.IsInf(excess, 1):
		return math.Inf(1), 0
	case se == 0 && excess > 0:
		return math.Inf(1), 0
	case se == 0:
		return 0, 1
	}
	t = excess / se
	return t, StudentUpperP(t, df)
}

// StudentUpperP is P(T_df ≥ t), one-sided, keeping the relative precision
// of small tails.
func StudentUpperP(t, df float64) float64 {
	switch {
	case math.IsInf(t, 1):
		return 0
	case math.IsInf(t, -1):
		return 1
	}
	half := studentTwoSidedP(t, df) / 2
	if t >= 0 {
		return half
	}
	return 1 - half
}

// OneSidedTBounds are the one-sided bounds at level alpha of a t mean with
// standard error se: mean ∓ t_{df, 1−α}·se, the bounds of the (1 − 2α)
// two-sided t interval. A zero se gives the mean twice.
func OneSidedTBounds(mean, se float64, df int, alpha float64) Interval {
	iv := Interval{Estimate: mean, Low: mean, High: mean, Confidence: 1 - 2*alpha}
	if se > 0 && df >= 1 && alpha > 0 && alpha < 0.5 {
		half := studentQuantileUpper(float64(df), alpha) * se
		iv.Low, iv.High = mean-half, mean+half
	}
	return iv
}
