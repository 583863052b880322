package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-ml/verdict/request"
)

// DefaultDecideAt is the posterior probability a decision of the Bayesian
// correlated t must exceed when BayesOptions.DecideAt is zero.
const DefaultDecideAt = 0.95

// BayesOptions configures the Bayesian correlated t-test. Give either Rho
// or both NTrain and NTest.
type BayesOptions struct {
	// Rho is the correlation between the differences of overlapping folds,
	// in [0, 1). Corani and Benavoli set it to n_test / (n_train + n_test),
	// which is 1/k for k-fold cross-validation (KFoldRho).
	Rho float64 `req:"rho" arg:"RHO" help:"correlation of the folds (default: n-test / (n-train + n-test), or 1/K with --folds)"`
	// NTrain and NTest are the training and test sizes of one fold; when
	// both are set, Rho defaults to NTest / (NTrain + NTest).
	NTrain int `req:"n_train" arg:"N" help:"training set size of each fold"`
	NTest  int `req:"n_test" arg:"N" help:"test set size of each fold"`
	// Folds k ≥ 2, when set, is the number of folds of a k-fold
	// cross-validation whose sizes were not recorded: it sets ρ = 1/k,
	// with which Rho and the sizes, if set, must agree.
	Folds int `req:"folds" arg:"K" help:"folds of a k-fold cross-validation whose fold sizes were not recorded: rho = 1/K"`
	// Rope is the half-width r ≥ 0 of the region of practical equivalence
	// [−r, r]. Zero means no region: only the sign of the mean is judged.
	Rope float64 `req:"rope" default:"0" arg:"R" help:"half-width of the region of practical equivalence"`
	// DecideAt is the probability in [0.5, 1) one of the three posterior
	// probabilities must exceed for BayesResult.Decide to decide; zero
	// means DefaultDecideAt.
	DecideAt float64 `req:"decide_at" default:"0.95" arg:"P" help:"the Bayesian t decides when a posterior probability exceeds P (strictly; from 0.5 to below 1)"`
}

// Check refuses options that give none of the correlation of the folds,
// their number and both their sizes, before any data is read.
func (o BayesOptions) Check() error {
	if o.Rho == 0 && o.Folds == 0 && (o.NTrain == 0 || o.NTest == 0) {
		return request.Errorf("bayes-t needs {rho}, {folds}, or {n_train} and {n_test}")
	}
	return nil
}

// BayesDecision is what the posterior of the Bayesian correlated t
// decides: a side, practical equivalence, or nothing.
type BayesDecision string

const (
	// BayesUndecided: no probability exceeds the threshold.
	BayesUndecided BayesDecision = "undecided"
	// BayesLeftBetter: P(μ > r) exceeds it.
	BayesLeftBetter BayesDecision = "left_better"
	// BayesEquivalent: P(−r ≤ μ ≤ r) exceeds it; the two are practically
	// equivalent.
	BayesEquivalent BayesDecision = "equivalent"
	// BayesRightBetter: P(μ < −r) exceeds it.
	BayesRightBetter BayesDecision = "right_better"
)

// BayesResult is the outcome of BayesCorrelatedT: the Student-t posterior
// of the mean difference μ, its mass on either side of the region of
// practical equivalence, and the decision at DecideAt.
type BayesResult struct {
	DF           int           `json:"df"`
	Rho          float64       `json:"rho"`
	Loc          float64       `json:"loc"`
	Scale        float64       `json:"scale"`
	PLeftBetter  float64       `json:"p_left_better"`
	PEquivalent  float64       `json:"p_equivalent"`
	PRightBetter float64       `json:"p_right_better"`
	DecideAt     float64       `json:"decide_at"`
	Decision     BayesDecision `json:"decision"`
	Notes        []Note        `json:"notes,omitempty"`
}

// Decide applies the decision rule of the Bayesian correlated t at the
// probability at:
//
//	BayesLeftBetter   if p_left_better  > at
//	BayesEquivalent   if p_equivalent   > at
//	BayesRightBetter  if p_right_better > at
//	BayesUndecided    otherwise
//
// The comparisons are strict, as in Decide: a probability equal to at does
// not decide, and neither does a NaN one. The three probabilities sum to
// 1, so with at ≥ 0.5 at most one of them exceeds it. Decide is the one
// place the rule is written; BayesCorrelatedTDiffs stores its answer in
// Decision.
//
// Decide panics when at is not in [0.5, 1): a threshold below 0.5 could be
// exceeded twice, and none reaches 1 or more.
func (r BayesResult) Decide(at float64) BayesDecision {
	if !(at >= 0.5 && at < 1) {
		panic(fmt.Sprintf("stats: decision threshold %g is not in [0.5, 1)", at))
	}
	switch {
	case r.PLeftBetter > at:
		return BayesLeftBetter
	case r.PEquivalent > at:
		return BayesEquivalent
	case r.PRightBetter > at:
		return BayesRightBetter
	}
	return BayesUndecided
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
// The result decides when one of the three exceeds DecideAt (0.95 by
// default): see BayesResult.Decide.
//
// Rho is taken from NTrain and NTest when both are given, or from Folds
// as 1/k, and a non-zero Rho must then agree; with none of them, Rho = 0
// treats the differences as independent, with a note, since
// cross-validated differences rarely are.
//
// Edge cases:
//   - Fewer than 2 differences returns ErrTooFew.
//   - Zero variance (every difference equal to c): the posterior collapses
//     to a point mass at c, scale = 0, and the probabilities are 0 or 1
//     according to where c lies: left better if c > r, right better if
//     c < −r, equivalent otherwise (so c = 0 with r = 0 is equivalent). A
//     note says so, where a Student-t of scale 0 would be 0/0.
//
// Rho outside [0, 1), Folds other than 0 below 2, a negative or
// non-finite Rope, DecideAt outside [0.5, 1) (other than zero), negative
// sizes, only one of NTrain and NTest, or a Rho, Folds and sizes that
// disagree return ErrBadParameter; NaN or ±Inf data ErrNotFinite.
func BayesCorrelatedTDiffs(diffs []float64, opts BayesOptions) (BayesResult, error) {
	rho, notes, err := bayesRho(opts)
	if err != nil {
		return BayesResult{}, err
	}
	rope := opts.Rope
	if !(rope >= 0) || math.IsInf(rope, 0) {
		return BayesResult{}, fmt.Errorf("%w: rope must be a finite half-width ≥ 0, got %g", ErrBadParameter, rope)
	}
	at := opts.DecideAt
	if at == 0 {
		at = DefaultDecideAt
	}
	if !(at >= 0.5 && at < 1) {
		return BayesResult{}, fmt.Errorf("%w: the decision threshold must be in [0.5, 1), got %g", ErrBadParameter, at)
	}
	if err := checkFiniteInput("diffs", diffs); err != nil {
		return BayesResult{}, err
	}
	n := len(diffs)
	if n < 2 {
		return BayesResult{}, fmt.Errorf("%w: the Bayesian correlated t-test needs at least 2 differences, got %d", ErrTooFew, n)
	}
	mean, variance := meanVariance(diffs)
	res := BayesResult{DF: n - 1, Rho: rho, Loc: mean, DecideAt: at, Notes: notes}
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
		res.Decision = res.Decide(at)
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
	res.Decision = res.Decide(at)
	return res, nil
}

// bayesRho resolves the correlation of BayesOptions. Neither Rho nor the
// sizes gives ρ = 0, with a note.
func bayesRho(opts BayesOptions) (float64, []Note, error) {
	rho, _, err := foldCorrelation(opts.Rho, opts.Folds, opts.NTrain, opts.NTest)
	if err != nil {
		return 0, nil, err
	}
	if rho == 0 {
		return 0, []Note{{Code: NoteIndependentFolds}}, nil
	}
	return rho, nil, nil
}
