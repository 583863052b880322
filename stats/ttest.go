package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"

	"github.com/verdict-ml/verdict/request"
)

// PairedTOptions configures PairedT. The zero value asks for a 95 %
// interval.
type PairedTOptions struct {
	// Confidence is the coverage of the interval around the mean
	// difference, in (0, 1). Zero means 0.95.
	Confidence float64 `req:"confidence" default:"0.95" arg:"LEVEL" help:"level of the confidence interval"`
}

// PairedTResult is the outcome of PairedT.
type PairedTResult struct {
	N        int     `json:"n"`
	MeanDiff float64 `json:"mean_diff"`
	T        float64 `json:"t"`
	DF       int     `json:"df"`
	PValue   float64 `json:"p_value"`
	CILow    float64 `json:"ci_low"`
	CIHigh   float64 `json:"ci_high"`
	// SE is the standard error of MeanDiff, s/√n (0 when every
	// difference is the same): what TOST takes.
	SE    float64 `json:"-"`
	Notes []Note  `json:"notes,omitempty"`
}

// PairedT runs the paired (one-sample on differences) Student t-test of
// whether the mean of d_i = left_i − right_i is zero:
//
//	d̄ = Σ d_i / n,  s² = Σ (d_i − d̄)² / (n − 1)
//	t = d̄ / (s / √n),  df = n − 1
//	p = 2 · P(T_df ≥ |t|)
//	CI = d̄ ± t_{df, (1+c)/2} · s / √n
//
// t and p agree with scipy.stats.ttest_rel(left, right). The interval uses a
// t quantile solved to full precision; scipy 1.10's confidence_interval
// relies on a quantile (cephes stdtrit) good to about 1e-9, so the two
// differ in the ninth digit.
//
// Edge cases:
//   - Fewer than 2 pairs returns ErrTooFew: with one pair there are no
//     degrees of freedom.
//   - Every difference equal to zero: scipy returns t = p = NaN (0/0). The
//     two sides never differ, so PairedT returns t = 0, p = 1 and the
//     interval [0, 0], with a note.
//   - Every difference equal to the same c ≠ 0: scipy returns t = ±Inf and
//     p = 0; so does PairedT, with the interval [c, c] and a note that the
//     data show no spread at all. "Equal" is tested exactly, not through a
//     computed variance that rounding could leave a hair above zero.
//
// Inputs of different lengths return ErrLengths, NaN or ±Inf ErrNotFinite,
// and a confidence outside (0, 1) ErrBadParameter.
func PairedT(left, right []float64, opts PairedTOptions) (PairedTResult, error) {
	conf, err := confidenceOrDefault(opts.Confidence)
	if err != nil {
		return PairedTResult{}, err
	}
	d, err := pairedDifferencesOf(left, right)
	if err != nil {
		return PairedTResult{}, err
	}
	n := len(d)
	if n < 2 {
		return PairedTResult{}, fmt.Errorf("%w: the paired t-test needs at least 2 pairs, got %d", ErrTooFew, n)
	}
	mean, variance := meanVariance(d)
	res := PairedTResult{N: n, MeanDiff: mean, DF: n - 1}
	if allEqual(d) {
		res.MeanDiff = d[0]
		res.CILow, res.CIHigh = d[0], d[0]
		res.T, res.PValue, res.Notes = degenerateT(d[0])
		return res, nil
	}
	se := math.Sqrt(variance / float64(n))
	res.T, res.SE = mean/se, se
	res.PValue = studentTwoSidedP(res.T, float64(n-1))
	half := studentQuantileUpper(float64(n-1), (1-conf)/2) * se
	res.CILow, res.CIHigh = mean-half, mean+half
	return res, nil
}

// CorrectedTOptions configures the corrected resampled t-test. Give both
// fold sizes, or Rho.
type CorrectedTOptions struct {
	// NTrain and NTest are the number of rows each model was trained and
	// tested on in one fold.
	NTrain int `req:"n_train" arg:"N" help:"training set size of each fold"`
	NTest  int `req:"n_test" arg:"N" help:"test set size of each fold"`
	// Rho, in (0, 1), is the correlation n_test/(n_train + n_test) of the
	// folds, for folds whose sizes were not recorded: the variance
	// inflation is then ρ/(1 − ρ), which equals n_test/n_train. For k-fold
	// cross-validation with folds of equal size ρ = 1/k (KFoldRho). With
	// both sizes set, Rho must be zero or agree with them.
	Rho float64
	// Folds k ≥ 2, when set, is the number of folds of a k-fold
	// cross-validation whose sizes were not recorded: it sets ρ = 1/k
	// (KFoldRho), with which Rho and the sizes, if set, must agree.
	Folds int `req:"folds" arg:"K" help:"folds of a k-fold cross-validation whose fold sizes were not recorded: rho = 1/K"`
}

// Check refuses options that give neither both sizes of a fold nor the
// number of folds, before any data is read.
func (o CorrectedTOptions) Check() error {
	if o.Folds == 0 && (o.NTrain == 0 || o.NTest == 0) {
		return request.Errorf("corrected-t needs {n_train} and {n_test}, or {folds}")
	}
	return nil
}

// CorrectedTResult is the outcome of CorrectedResampledT. Rho is the
// correlation of the folds the test used, n_test/(n_train + n_test).
type CorrectedTResult struct {
	N        int     `json:"n"`
	MeanDiff float64 `json:"mean_diff"`
	T        float64 `json:"t"`
	DF       int     `json:"df"`
	PValue   float64 `json:"p_value"`
	Rho      float64 `json:"rho"`
	// SE is the corrected standard error of MeanDiff,
	// √((1/J + n_test/n_train)·s²) (0 when every difference is the same).
	SE    float64 `json:"-"`
	Notes []Note  `json:"notes,omitempty"`
}

// CorrectedResampledT runs Nadeau and Bengio's (2003) corrected resampled
// t-test on the fold scores of two models from the same r×k cross-validation
// (fold i of left and fold i of right used the same split). It is
// CorrectedResampledTDiffs on left − right.
func CorrectedResampledT(left, right []float64, opts CorrectedTOptions) (CorrectedTResult, error) {
	d, err := pairedDifferencesOf(left, right)
	if err != nil {
		return CorrectedTResult{}, err
	}
	return CorrectedResampledTDiffs(d, opts)
}

// CorrectedResampledTDiffs runs Nadeau and Bengio's (2003) corrected
// resampled t-test on J = folds × repeats per-fold differences d_j:
//
//	t = d̄ / √((1/J + n_test/n_train) · s²),  df = J − 1
//	p = 2 · P(T_df ≥ |t|)
//
// where s² is the sample variance (divisor J − 1). The ordinary paired
// t-test divides s² by J alone, which treats folds as independent although
// their training sets overlap; its type I error is then far above alpha.
// The n_test/n_train term inflates the variance to account for that
// overlap. For plain k-fold CV, n_test/n_train = 1/(k − 1), which is what
// Rho = 1/k gives: ρ/(1 − ρ) = (1/k)/((k − 1)/k).
//
// Edge cases match PairedT: fewer than 2 differences returns ErrTooFew;
// all differences zero gives t = 0, p = 1; all equal to c ≠ 0 gives
// t = ±Inf, p = 0, each with a note. None of the sizes, Folds and Rho,
// NTrain or NTest below 1, only one of them, Folds below 2, Rho outside
// (0, 1), or a Rho, Folds and sizes that disagree return ErrBadParameter;
// NaN or ±Inf ErrNotFinite.
func CorrectedResampledTDiffs(diffs []float64, opts CorrectedTOptions) (CorrectedTResult, error) {
	rho, ratio, err := foldCorrelation(opts.Rho, opts.Folds, opts.NTrain, opts.NTest)
	if err != nil {
		return CorrectedTResult{}, err
	}
	if rho == 0 {
		return CorrectedTResult{}, fmt.Errorf("%w: the corrected resampled t-test needs n_train and n_test of at least 1, the number of folds, or the folds' correlation rho, got %d, %d and %g",
			ErrBadParameter, opts.NTrain, opts.NTest, opts.Rho)
	}
	if err := checkFiniteInput("diffs", diffs); err != nil {
		return CorrectedTResult{}, err
	}
	j := len(diffs)
	if j < 2 {
		return CorrectedTResult{}, fmt.Errorf("%w: the corrected resampled t-test needs at least 2 fold differences, got %d", ErrTooFew, j)
	}
	mean, variance := meanVariance(diffs)
	res := CorrectedTResult{N: j, MeanDiff: mean, DF: j - 1, Rho: rho}
	if allEqual(diffs) {
		res.MeanDiff = diffs[0]
		res.T, res.PValue, res.Notes = degenerateT(diffs[0])
		return res, nil
	}
	inflation := 1/float64(j) + ratio
	res.SE = math.Sqrt(inflation * variance)
	res.T = mean / res.SE
	res.PValue = studentTwoSidedP(res.T, float64(j-1))
	return res, nil
}

// KFoldRho is ρ = 1/k, the correlation of the differences of k-fold
// cross-validation whose fold sizes were not recorded: with k folds of
// equal size, n_test/(n_train + n_test) = 1/k and n_test/n_train =
// 1/(k − 1). Fewer than 2 folds returns ErrBadParameter.
func KFoldRho(k int) (float64, error) {
	if k < 2 {
		return 0, fmt.Errorf("%w: k-fold cross-validation has at least 2 folds, got %d", ErrBadParameter, k)
	}
	return 1 / float64(k), nil
}

// foldCorrelation resolves the correlation ρ of overlapping folds from
// rho, from the number of folds k (ρ = 1/k) or from the fold sizes, and
// returns it with the variance inflation ρ/(1 − ρ) = n_test/n_train,
// which is computed from the sizes when they are given. It returns
// rho = 0 when none is given. Negative sizes, only one of them, folds
// other than 0 below 2, rho outside [0, 1), or a nonzero rho, folds and
// sizes that disagree return ErrBadParameter.
func foldCorrelation(rho float64, folds, nTrain, nTest int) (r, ratio float64, err error) {
	if folds != 0 {
		k, err := KFoldRho(folds)
		if err != nil {
			return 0, 0, err
		}
		if rho != 0 && math.Abs(rho-k) > 1e-12 {
			return 0, 0, fmt.Errorf("%w: rho %g disagrees with 1/k = %g of %d folds", ErrBadParameter, rho, k, folds)
		}
		rho = k
	}
	if nTrain < 0 || nTest < 0 {
		return 0, 0, fmt.Errorf("%w: n_train and n_test must not be negative, got %d and %d", ErrBadParameter, nTrain, nTest)
	}
	if (nTrain == 0) != (nTest == 0) {
		return 0, 0, fmt.Errorf("%w: give both n_train and n_test, got %d and %d", ErrBadParameter, nTrain, nTest)
	}
	if !(rho >= 0 && rho < 1) {
		return 0, 0, fmt.Errorf("%w: rho must be in [0, 1), got %g", ErrBadParameter, rho)
	}
	if nTrain == 0 {
		return rho, rho / (1 - rho), nil
	}
	r = float64(nTest) / float64(nTrain+nTest)
	if rho != 0 && math.Abs(rho-r) > 1e-12 {
		return 0, 0, fmt.Errorf("%w: rho %g disagrees with n_test/(n_train+n_test) = %g", ErrBadParameter, rho, r)
	}
	return r, float64(nTest) / float64(nTrain), nil
}

// TInterval is mean ± t_{df, 1−(1−confidence)/2}·se with se = |mean/t|:
// the confidence interval of a t-test rebuilt from the test's mean, its
// statistic t = mean/se and its degrees of freedom. It serves tests that
// report t but no interval, such as CorrectedResampledTDiffs, whose se is
// √((1/J + n_test/n_train)·s²): the t statistic carries the variance
// inflation, so the interval inherits it. The quantile is solved to full
// precision, as PairedT's is; given PairedT's mean, t and df it returns
// PairedT's interval to rounding.
//
// Edge cases, all of which return the point itself, [mean, mean] with
// Estimate mean:
//   - t = 0: se = |mean/t| is not known. A test reports t = 0 when every
//     difference is zero (the interval [0, 0] is then exact), but also
//     when the differences vary and their mean is exactly zero; the
//     interval is then too narrow, but its bounds at zero never exclude
//     zero, so Decide never names a winner from it.
//   - t = ±Inf: the differences have no spread (all equal to mean), the
//     degenerate case of PairedT and CorrectedResampledTDiffs, whose
//     interval is [mean, mean].
//   - t NaN, mean NaN or ±Inf, or df < 1: there is no standard error to
//     scale; with a NaN mean the bounds are NaN too, which Decide never
//     counts as excluding zero.
//
// Confidence is recorded in the result and must lie in (0, 1): anything
// else, NaN included, is a programmer's error and panics.
func TInterval(mean, t float64, df int, confidence float64) Interval {
	if !(confidence > 0 && confidence < 1) {
		panic(fmt.Sprintf("stats: TInterval confidence must be in (0, 1), got %g", confidence))
	}
	iv := Interval{Estimate: mean, Low: mean, High: mean, Confidence: confidence}
	if t == 0 || math.IsInf(t, 0) || math.IsNaN(t) || math.IsInf(mean, 0) || math.IsNaN(mean) || df < 1 {
		return iv
	}
	half := studentQuantileUpper(float64(df), (1-confidence)/2) * math.Abs(mean/t)
	iv.Low, iv.High = mean-half, mean+half
	return iv
}

// FiveByTwoResult is the outcome of FiveByTwoCVT.
type FiveByTwoResult struct {
	T      float64 `json:"t"`
	DF     int     `json:"df"`
	PValue float64 `json:"p_value"`
	Notes  []Note  `json:"notes,omitempty"`
}

// FiveByTwoCVT runs Dietterich's (1998) 5×2cv paired t-test. diffs holds
// the 10 differences p_ij (left − right) of five repetitions i of 2-fold
// cross-validation, repetition-major: rep 1 fold 1, rep 1 fold 2, rep 2
// fold 1, and so on. With p̄_i = (p_i1 + p_i2)/2 and
// s_i² = (p_i1 − p̄_i)² + (p_i2 − p̄_i)²,
//
//	t = p_11 / √(Σ_i s_i² / 5),  df = 5
//	p = 2 · P(T_5 ≥ |t|)
//
// The numerator is the first fold of the first repetition only, as in the
// paper and in mlxtend's paired_ttest_5x2cv; reordering repetitions or folds
// changes the statistic.
//
// Fewer than 10 differences returns ErrTooFew and more than 10 ErrLengths.
// When every s_i² is zero the statistic is undefined: t = 0 and p = 1 if
// p_11 is zero, t = ±Inf and p = 0 otherwise, each with a note.
func FiveByTwoCVT(diffs []float64) (FiveByTwoResult, error) {
	if len(diffs) < 10 {
		return FiveByTwoResult{}, fmt.Errorf("%w: the 5×2cv t-test needs 10 differences (5 repetitions × 2 folds), got %d", ErrTooFew, len(diffs))
	}
	if len(diffs) > 10 {
		return FiveByTwoResult{}, fmt.Errorf("%w: the 5×2cv t-test needs exactly 10 differences (5 repetitions × 2 folds), got %d", ErrLengths, len(diffs))
	}
	if err := checkFiniteInput("diffs", diffs); err != nil {
		return FiveByTwoResult{}, err
	}
	var sumVar float64
	for i := 0; i < 5; i++ {
		a, b := diffs[2*i], diffs[2*i+1]
		m := (a + b) / 2
		sumVar += (a-m)*(a-m) + (b-m)*(b-m)
	}
	res := FiveByTwoResult{DF: 5}
	if sumVar == 0 {
		res.T, res.PValue, res.Notes = degenerateT(diffs[0])
		res.Notes = append(res.Notes, Note{Code: NoteFoldPairsEqual})
		return res, nil
	}
	res.T = diffs[0] / math.Sqrt(sumVar/5)
	res.PValue = studentTwoSidedP(res.T, 5)
	return res, nil
}

// degenerateT decides a t statistic whose variance is zero and whose
// numerator is c: t = 0, p = 1 when c is zero, and t = ±Inf, p = 0
// otherwise.
func degenerateT(c float64) (t, p float64, notes []Note) {
	if c == 0 {
		return 0, 1, []Note{{Code: NoteAllDifferencesZero}}
	}
	return math.Copysign(math.Inf(1), c), 0, []Note{{Code: NoteConstantDifference, Value: c}}
}

// studentTwoSidedP returns 2 · P(T_df ≥ |t|), computed from the regularized
// incomplete beta function so that small p-values keep their relative
// precision: P(T_df ≥ |t|) = I_{df/(df+t²)}(df/2, 1/2) / 2.
func studentTwoSidedP(t, df float64) float64 {
	if math.IsInf(t, 0) {
		return 0
	}
	return mathext.RegIncBeta(df/2, 0.5, df/(df+t*t))
}

// studentQuantileUpper returns the t_df value with upper-tail probability
// q < 0.5, that is the (1 − q) quantile of Student's t with df degrees of
// freedom. gonum's inverse incomplete beta gives a starting value that two
// Newton steps on the tail probability polish to full precision.
func studentQuantileUpper(df, q float64) float64 {
	x := mathext.InvRegIncBeta(df/2, 0.5, 2*q)
	t := math.Sqrt(df * (1 - x) / x)
	for range 3 {
		tail := mathext.RegIncBeta(df/2, 0.5, df/(df+t*t)) / 2
		// density of Student's t at t
		lg1, _ := math.Lgamma((df + 1) / 2)
		lg2, _ := math.Lgamma(df / 2)
		dens := math.Exp(lg1 - lg2 - 0.5*math.Log(df*math.Pi) - (df+1)/2*math.Log1p(t*t/df))
		if dens == 0 {
			break
		}
		t += (tail - q) / dens
	}
	return t
}

// normalUpperP returns P(Z ≥ z) for a standard normal Z without the
// cancellation of 1 − Φ(z).
func normalUpperP(z float64) float64 {
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// confidenceOrDefault returns c, or 0.95 when c is zero, and
// ErrBadParameter when c is outside (0, 1).
func confidenceOrDefault(c float64) (float64, error) {
	if c == 0 {
		return 0.95, nil
	}
	if !(c > 0 && c < 1) {
		return 0, fmt.Errorf("%w: confidence must be in (0, 1), got %g", ErrBadParameter, c)
	}
	return c, nil
}

// pairedDifferencesOf checks that left and right pair up and are finite and
// returns left_i − right_i.
func pairedDifferencesOf(left, right []float64) ([]float64, error) {
	if len(left) != len(right) {
		return nil, fmt.Errorf("%w: left has %d values, right has %d", ErrLengths, len(left), len(right))
	}
	if err := checkFiniteInput("left", left); err != nil {
		return nil, err
	}
	if err := checkFiniteInput("right", right); err != nil {
		return nil, err
	}
	d := make([]float64, len(left))
	for i := range left {
		d[i] = left[i] - right[i]
		if math.IsInf(d[i], 0) {
			return nil, fmt.Errorf("%w: left[%d] − right[%d] overflows to %v", ErrNotFinite, i, i, d[i])
		}
	}
	return d, nil
}

// checkFiniteInput returns ErrNotFinite naming the input and the index of
// its first NaN or ±Inf.
func checkFiniteInput(name string, x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d] is %v", ErrNotFinite, name, i, v)
		}
	}
	return nil
}

// meanVariance returns the mean and the sample variance (divisor n − 1) of
// x, two-pass. It needs len(x) ≥ 2.
func meanVariance(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	var ss, comp float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
		comp += v - mean
	}
	// The compensated two-pass form corrects the rounding of the mean.
	variance = (ss - comp*comp/float64(len(x))) / float64(len(x)-1)
	return mean, variance
}

// allEqual reports whether every element of x equals x[0] exactly.
func allEqual(x []float64) bool {
	for _, v := range x[1:] {
		if v != x[0] {
			return false
		}
	}
	return true
}
