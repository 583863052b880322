package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// BayesOptions configures the Bayesian correlated t-test. Give either Rho
// or both NTrain and NTest.
type BayesOptions struct {
	// Rho is the correlation between the differences of overlapping folds,
	// in [0, 1). Corani and Benavoli set it to n_test / (n_train + n_test),
	// which is 1/k for k-fold cross-validation.
	Rho float64
	// NTrain and NTest are the training and test sizes of one fold; when
	// both are set, Rho defaults to NTest / (NTrain + NTest).
	NTrain int
	NTest  int
	// Rope is the half-width r ≥ 0 of the region of practical equivalence
	// [−r, r]. Zero means no region: only the sign of the mean is judged.
	Rope float64
}

// BayesResult is the outcome of BayesCorrelatedT: the Student-t posterior
// of the mean difference μ and its mass on either side of the region of
// practical equivalence.
type BayesResult struct {
	DF           int     `json:"df"`
	Loc          float64 `json:"loc"`
	Scale        float64 `json:"scale"`
	PLeftBetter  float64 `json:"p_left_better"`
	PEquivalent  float64 `json:"p_equivalent"`
	PRightBetter float64 `json:"p_right_better"`
	Notes        []Note  `json:"notes,omitempty"`
}

// BayesCorrelatedT runs the Bayesian correlated t-test on per-fold scores
// of two models: BayesCorrelatedTDiffs on left − right.
func BayesCorrelatedT(left, right []float64, opts BayesOptions) (BayesResult, error) {
	d, err := pairedDifferencesOf(left, right)
	if err != nil {
		return BayesResult{}, err
	}
	return BayesCorrelatedTDiffs(d, opts)
}

// BayesCorrelatedTDiffs runs Corani and Benavoli's (2015) Bayesian
// correlated t-test on n differences d_i from (repeated) cross-validation.
// Under their model, with a non-informative prior, the posterior of the
// mean difference μ is Student's t:
//
//	μ ~ t_{n−1}(loc = d̄, scale = √((1/n + ρ/(1−ρ)) · s²))
//
// with s² the sample variance (divisor n − 1). ρ/(1−ρ) = n_test/n_train is
// the same variance inflation as Nadeau and Bengio's corrected t-test. With
// the region of practical equivalence [−r, r]:
//
//	p_left_better  = P(μ > r)
//	p_equivalent   = P(−r ≤ μ ≤ r)
//	p_right_better = P(μ < −r)
//
// A common decision rule acts when one of the three exceeds 0.95.
//
// Rho is taken from NTrain and NTest when both are given (and must then
// agree with a non-zero Rho); with neither, Rho = 0 treats the differences
// as independent, with a note, since cross-validated differences rarely
// are.
//
// Edge cases:
//   - Fewer than 2 differences returns ErrTooFew.
//   - Zero variance (every difference equal to c): the posterior collapses
//     to a point mass at c, scale = 0, and the probabilities are 0 or 1
//     according to where c lies: left better if c > r, right better if
//     c < −r, equivalent otherwise (so c = 0 with r = 0 is equivalent). A
//     note says so, where a Student-t of scale 0 would be 0/0.
//
// Rho outside [0, 1), a negative or non-finite Rope, negative sizes, only
// one of NTrain and NTest, or a Rho that disagrees with them returns
// ErrBadParameter; NaN or ±Inf data ErrNotFinite.
func BayesCorrelatedTDiffs(diffs []float64, opts BayesOptions) (BayesResult, error) {
	rho, notes, err := bayesRho(opts)
	if err != nil {
		return BayesResult{}, err
	}
	rope := opts.Rope
	if !(rope >= 0) || math.IsInf(rope, 0) {
		return BayesResult{}, fmt.Errorf("%w: rope must be a finite half-width ≥ 0, got %g", ErrBadParameter, rope)
	}
	if err := checkFiniteInput("diffs", diffs); err != nil {
		return BayesResult{}, err
	}
	n := len(diffs)
	if n < 2 {
		return BayesResult{}, fmt.Errorf("%w: the Bayesian correlated t-test needs at least 2 differences, got %d", ErrTooFew, n)
	}
	mean, variance := meanVariance(diffs)
	res := BayesResult{DF: n - 1, Loc: mean, Notes: notes}
	if allEqual(diffs) {
		c := diffs[0]
		res.Loc = c
		switch {
		case c > rope:
			res.PLeftBetter = 1
		case c < -rope:
			res.PRightBetter = 1
		default:
			res.PEquivalent = 1
		}
		res.Notes = append(res.Notes, Note{Code: NotePosteriorPointMass, Value: c})
		return res, nil
	}
	res.Scale = math.Sqrt((1/float64(n) + rho/(1-rho)) * variance)
	post := distuv.StudentsT{Mu: mean, Sigma: res.Scale, Nu: float64(n - 1)}
	res.PLeftBetter = post.Survival(rope)
	res.PRightBetter = post.CDF(-rope)
	if rope == 0 {
		res.PEquivalent = 0
	} else {
		res.PEquivalent = math.Max(0, post.CDF(rope)-post.CDF(-rope))
	}
	return res, nil
}

// bayesRho resolves the correlation of BayesOptions.
func bayesRho(opts BayesOptions) (float64, []Note, error) {
	if opts.NTrain < 0 || opts.NTest < 0 {
		return 0, nil, fmt.Errorf("%w: n_train and n_test must not be negative, got %d and %d", ErrBadParameter, opts.NTrain, opts.NTest)
	}
	if (opts.NTrain == 0) != (opts.NTest == 0) {
		return 0, nil, fmt.Errorf("%w: give both n_train and n_test, got %d and %d", ErrBadParameter, opts.NTrain, opts.NTest)
	}
	if !(opts.Rho >= 0 && opts.Rho < 1) {
		return 0, nil, fmt.Errorf("%w: rho must be in [0, 1), got %g", ErrBadParameter, opts.Rho)
	}
	if opts.NTrain == 0 {
		if opts.Rho == 0 {
			return 0, []Note{{Code: NoteIndependentFolds}}, nil
		}
		return opts.Rho, nil, nil
	}
	rho := float64(opts.NTest) / float64(opts.NTrain+opts.NTest)
	if opts.Rho != 0 && math.Abs(opts.Rho-rho) > 1e-12 {
		return 0, nil, fmt.Errorf("%w: rho %g disagrees with n_test/(n_train+n_test) = %g", ErrBadParameter, opts.Rho, rho)
	}
	return rho, nil, nil
}
