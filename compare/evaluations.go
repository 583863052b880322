package compare

import (
	"cmp"
	"encoding/json"
	"math"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// Options configures Evaluations and Scores. The zero value compares every
// metric both evaluations share with the default method, at alpha 0.05, a
// 95 % interval, 2000 resamples and seed 0, records nothing and writes no
// sentence.
type Options struct {
	// Metrics to compare; empty means every metric both evaluations have,
	// in the baseline's order.
	Metrics []string
	// Method is the test; the zero value chooses from the protocols the
	// evaluations were logged with: CorrectedT for two k-fold evaluations,
	// FiveByTwo for two 5x2 ones, and otherwise PairedT from AutoTMinUnits
	// units of one row each (when Resampling and Resamples are not set;
	// MetricResult.Auto says so), else Bootstrap.
	Method Method
	// Alpha, Confidence and Resamples default to 0.05, 0.95 and 2000 when
	// zero. Seed selects the random streams: the same seed reproduces a
	// comparison bit for bit.
	Alpha      float64
	Confidence float64
	Resamples  int
	Seed       uint64
	// Adjust adjusts p-values across the metrics; AdjustDefault is Holm
	// with several metrics.
	Adjust Adjustment
	// AllowDifferentTargets compares the units two evaluations share even
	// when they were scored against different targets.
	AllowDifferentTargets bool
	// Rope, with k-fold evaluations, adds the Bayesian correlated t's
	// probabilities for a region of practical equivalence of this
	// half-width, and its decision.
	Rope *float64
	// Rope is also every metric's practical margin where Margin and
	// Margins give none: with the corrected t the Bayesian t's region and
	// the margin are one.
	//
	// Margin is the practical margin of every metric Margins does not
	// name, and Margins each named metric's own: a positive gap in the
	// metric's units by which the candidate may be worse and still count
	// as non-inferior. Each metric with a margin gets a MarginDecision
	// (see MetricResult.MarginDecision); with k-fold evaluations (the
	// corrected t) the margin is also the Bayesian correlated t's ROPE.
	Margin  *float64
	Margins map[string]float64
	// DecideAt, with Rope, is the posterior probability in [0.5, 1) a
	// decision of the Bayesian correlated t must exceed; zero means
	// stats.DefaultDecideAt (0.95).
	DecideAt float64
	// Resampling is how the bootstrap and the sign-flip test draw their
	// replicates: ResamplingAuto, Multinomial or Poisson.
	Resampling Resampling
	// Unstratified makes the paired bootstrap of evaluations of
	// predictions draw every replicate from all samples together, rather
	// than each class from its own samples.
	Unstratified bool
	// FDR, when set, tests the metrics under an online FDR procedure over
	// the experiment's history instead of at Alpha with Adjust: each
	// metric is the next test of the experiment's stream, and the level
	// the procedure gives it replaces alpha in the decision rule. It needs
	// Record.
	FDR *FDR
	// Record stores each metric's result in the comparison history, in the
	// transaction that paired the evaluations.
	Record bool
	// Sentence writes the verdict of one metric, which Evaluations stores
	// in MetricResult.Verdict and records in the history. Front ends pass
	// report.Verdict; nil leaves the verdict empty.
	Sentence func(*Comparison, *MetricResult) string
}

// marginOf is the practical margin of metric: its own in Margins, else
// Margin, else Rope.
func (o Options) marginOf(metric string) (float64, bool) {
	if m, ok := o.Margins[metric]; ok {
		return m, true
	}
	if o.Margin != nil {
		return *o.Margin, true
	}
	if o.Rope != nil && *o.Rope > 0 {
		return *o.Rope, true
	}
	return 0, false
}

func (o Options) alpha() float64      { return cmp.Or(o.Alpha, stats.DefaultAlpha) }
func (o Options) confidence() float64 { return cmp.Or(o.Confidence, stats.DefaultConfidence) }
func (o Options) resamples() int      { return cmp.Or(o.Resamples, stats.DefaultResamples) }

// resolved is o with the defaults filled in.
func (o Options) resolved() Options {
	o.Alpha, o.Confidence, o.Resamples = o.alpha(), o.confidence(), o.resamples()
	return o
}

// Side names one side of a comparison. Neither (the empty string) is no
// side: no winner. JSON writes Neither as null.
type Side string

const (
	Neither   Side = ""
	Baseline  Side = "baseline"
	Candidate Side = "candidate"
)

// MarshalJSON writes Neither as null and the others as strings.
func (s Side) MarshalJSON() ([]byte, error) {
	if s == Neither {
		return []byte("null"), nil
	}
	return json.Marshal(string(s))
}

// UnmarshalJSON reads null as Neither.
func (s *Side) UnmarshalJSON(b []byte) error {
	var v *string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Neither
	if v != nil {
		*s = Side(*v)
	}
	return nil
}

// Comparison is the outcome of comparing a baseline with a candidate on one
// or more metrics. Differences are baseline − candidate.
type Comparison struct {
	// Baseline and Candidate name the two sides: run names, or what the
	// caller called them.
	Baseline, Candidate string
	// BaselineEval and CandidateEval are the evaluations compared; nil for
	// scores given directly (Scores).
	BaselineEval, CandidateEval *store.Evaluation
	// BaselineRuns and CandidateRuns, in a comparison of two groups of
	// runs (Groups), are the newest evaluation of each run of each group;
	// BaselineEval and CandidateEval are then nil.
	BaselineRuns, CandidateRuns []*store.Evaluation
	Metrics                     []*MetricResult
	// Gate is what fails the comparison, as the request asked; each
	// metric then says whether it fails it (MetricResult.FailsGate).
	Gate Gate
}

// Statistic is the test statistic a p-value came from.
type Statistic struct {
	Name  string   `json:"name"` // t, z, W+, chi2, b+c
	Value float64  `json:"value"`
	DF    *float64 `json:"df,omitempty"`
}

// Hint says what MetricResult.NRequired holds, or why it is nil.
type Hint int

const (
	// HintNone: the method gives no sample size (the fold-based tests,
	// DeLong).
	HintNone Hint = iota
	// HintCount: NRequired is the units a test would need to detect the
	// observed gap with 80 % power, from the observed variance of the
	// paired differences, rounded up to two significant figures.
	HintCount
	// HintEqualMeans: the means are equal to within the precision values
	// are stored at, and no number of units separates equal means.
	HintEqualMeans
	// HintNoVariance: every unit differs by the same amount, so the
	// observed variance gives no count.
	HintNoVariance
	// HintTooLarge: the count is beyond 2³¹ units.
	HintTooLarge
	// HintUnattainable: the test's smallest attainable p-value at this n
	// (MinAttainableP) is not below alpha, so no outcome of these units
	// could be distinguishable, whatever their values: an exact Wilcoxon
	// test of n differences (2/2ⁿ), McNemar's exact test of few
	// discordant pairs (2/2^(b+c)), the sign-flip test of few differing
	// units (about 2/2ⁿ, and never below 1/(B+1) with B flips). More units
	// (or discordant pairs), not a larger gap, are what it takes.
	HintUnattainable
)

// Bayes is the Bayesian correlated t's posterior probabilities and its
// decision, oriented by the metric's direction.
type Bayes struct {
	Rope             float64 `json:"rope"`
	PBaselineBetter  float64 `json:"p_baseline_better"`
	PEquivalent      float64 `json:"p_equivalent"`
	PCandidateBetter float64 `json:"p_candidate_better"`
	// Decision is what the posterior decides at DecideAt: the side, or
	// practical equivalence, whose probability exceeds it
	// (stats.BayesResult.Decide), else BayesUndecided.
	Decision BayesDecision `json:"decision"`
	DecideAt float64       `json:"decide_at"`
	DF       int           `json:"df"`
	Loc      float64       `json:"loc"`
	Scale    float64       `json:"scale"`
}

// BayesDecision is what the Bayesian correlated t decides, by the metric's
// direction: the better side, practical equivalence, or nothing.
type BayesDecision string

const (
	BayesUndecided       BayesDecision = "undecided"
	BayesBaselineBetter  BayesDecision = "baseline_better"
	BayesEquivalent      BayesDecision = "equivalent"
	BayesCandidateBetter BayesDecision = "candidate_better"
)

// P is the posterior probability behind b's decision, or NaN when it is
// undecided.
func (b *Bayes) P() float64 {
	switch b.Decision {
	case BayesBaselineBetter:
		return b.PBaselineBetter
	case BayesEquivalent:
		return b.PEquivalent
	case BayesCandidateBetter:
		return b.PCandidateBetter
	}
	return math.NaN()
}

// MetricResult is the outcome of one metric: the numbers, the decision and
// which side is better for the metric's direction.
type MetricResult struct {
	Metric        string `json:"metric"`
	LowerIsBetter bool   `json:"lower_is_better"`
	// Method is the test as recorded: "bootstrap+randomization",
	// "paired-t", "wilcoxon+bootstrap-interval", ...
	Method string `json:"method"`
	// Resampling is "multinomial" or "poisson" where the method resampled.
	Resampling string `json:"resampling,omitempty"`
	// Auto, when the comparison chose Method itself from the units (no
	// method, resampling or replicates asked), says why.
	Auto      *AutoChoice `json:"auto,omitempty"`
	Baseline  string      `json:"baseline"`
	Candidate string      `json:"candidate"`
	// N counts paired units; BaselineOnly and CandidateOnly the units of
	// one side only (with AllowDifferentTargets).
	N             int   `json:"n"`
	BaselineOnly  int64 `json:"n_baseline_only"`
	CandidateOnly int64 `json:"n_candidate_only"`
	// BaselineMean and CandidateMean are row-weighted means (AUCs for
	// DeLong).
	BaselineMean  float64 `json:"baseline_mean"`
	CandidateMean float64 `json:"candidate_mean"`
	// Difference is baseline − candidate with its interval.
	Difference stats.Interval `json:"difference"`
	Statistic  *Statistic     `json:"statistic"`
	PValue     float64        `json:"p_value"`
	// PAdjusted is PValue adjusted across the metrics (equal to PValue
	// with no adjustment); the decision uses it.
	PAdjusted  float64 `json:"p_adjusted"`
	Adjustment string  `json:"adjustment"`
	Alpha      float64 `json:"alpha"`
	// Distinguishable is PBelowAlpha and IntervalExcludesZero (stats.Decide).
	Distinguishable      bool `json:"distinguishable"`
	PBelowAlpha          bool `json:"p_below_alpha"`
	IntervalExcludesZero bool `json:"interval_excludes_zero"`
	// Winner is the better side when Distinguishable, else Neither.
	Winner Side `json:"winner"`
	// CandidateBetter, CandidateWorse and Same count units by the
	// metric's direction. They describe; they test nothing.
	CandidateBetter int `json:"candidate_better"`
	CandidateWorse  int `json:"candidate_worse"`
	Same            int `json:"same"`
	// EffectSizeDz is the standardised mean difference d_z: the mean of
	// the per-unit differences baseline − candidate over their standard
	// deviation (the one the sample-size hint reads), so that, like
	// Difference, it is positive when the baseline's values are higher.
	// Nil where the differences do not vary, and for DeLong and the
	// whole-set metrics of predictions, which have no per-unit difference.
	EffectSizeDz *float64 `json:"effect_size_dz"`
	// ProbSuperiority is the probability of superiority: the share of
	// units where the candidate is better for the metric's direction, ties
	// counted half, (CandidateBetter + Same/2)/N; ½ when neither side is
	// better more often. ProbSuperiorityLow and ProbSuperiorityHigh bound
	// its percentile interval from the comparison's own bootstrap draws
	// (same seed, same replicates); nil where the method draws none, or
	// draws the Poisson bootstrap (whose replicates keep the units'
	// differences alone). Nil for DeLong and the
	// whole-set metrics of predictions.
	ProbSuperiority     *float64 `json:"prob_superiority"`
	ProbSuperiorityLow  *float64 `json:"prob_superiority_ci_low"`
	ProbSuperiorityHigh *float64 `json:"prob_superiority_ci_high"`
	// NRequired is the sample-size hint (see Hint).
	NRequired *int `json:"n_required"`
	// MinAttainableP, with HintUnattainable, is the smallest p-value the
	// test can give at this n: not below alpha, so no outcome of these
	// units could be distinguishable.
	MinAttainableP *float64 `json:"min_attainable_p,omitempty"`
	Verdict        string   `json:"verdict"`
	// FailsGate, when the comparison has a Gate, says whether this metric
	// fails it: the answer's form of the command line's exit status 1.
	FailsGate *bool `json:"fails_gate,omitempty"`
	// Rho is the correlation of the folds the corrected t (and the
	// Bayesian t) used, n_test/(n_train + n_test); RhoAssumed says it is
	// 1/K, assumed because the evaluations were logged without the fold
	// sizes.
	Rho          float64 `json:"rho,omitempty"`
	RhoAssumed   bool    `json:"rho_assumed,omitempty"`
	Bayes        *Bayes  `json:"bayes,omitempty"`
	ComparisonID *int64  `json:"comparison_id"`
	// FDR is the metric's test in the experiment's online FDR stream,
	// with Options.FDR; Alpha is then its level.
	FDR *FDRResult `json:"fdr,omitempty"`
	// Margin is the metric's practical margin (Options.Margin, Margins),
	// and MarginDecision what the comparison shows against it at alpha;
	// MarginTest holds the bounds and p-values it was decided from. All
	// are absent without a margin.
	Margin         *float64       `json:"margin,omitempty"`
	MarginDecision MarginDecision `json:"margin_decision,omitempty"`
	MarginTest     *MarginTest    `json:"margin_test,omitempty"`
	// Seeds, in a comparison of two groups of runs, are the runs compared,
	// the variance components and how single runs fare.
	Seeds *SeedDetail `json:"seeds,omitempty"`
	// Warnings are the calibration study's findings that apply: the
	// method is liberal on data like these.
	Warnings []Warning `json:"warnings,omitempty"`

	// Direction is the metric's direction; Hint what NRequired holds.
	Direction Direction `json:"-"`
	Hint      Hint      `json:"-"`
	// The method's own results, for sentences that cite them.
	Wilcoxon *stats.WilcoxonResult `json:"-"`
	McNemar  *stats.McNemarResult  `json:"-"`
	DeLong   *stats.DeLongResult   `json:"-"`
	// Bootstrap is the paired bootstrap of a metric of predictions,
	// recomputed on every replicate.
	Bootstrap *classify.BootstrapResult `json:"-"`
	Folds     []string                  `json:"-"` // fold IDs of the fold-based tests, in order
	NTrain    int64                     `json:"-"`
	NTest     int64                     `json:"-"`
	// K is the folds per repetition of two k-fold evaluations: as logged,
	// else, for plain k-fold, the number of fold units; 0 when unknown.
	K         int `json:"-"`
	AdjustedN int `json:"-"` // metrics adjusted across
}

// MarginDecision is what a comparison shows against a practical margin Δ,
// for the metric's direction. When several hold, the first of this list
// is the decision: superior, equivalent, non_inferior, inferior,
// inconclusive. (Equivalent implies non-inferior; superior and equivalent
// both hold for a real gain smaller than Δ, and the decision is then
// superior. Inferior excludes the others.)
type MarginDecision string

const (
	// MarginSuperior: the candidate is distinguishably better, by the
	// comparison's own rule (Winner is the candidate).
	MarginSuperior MarginDecision = "superior"
	// MarginEquivalent: both one-sided tests at alpha reject (TOST): the
	// candidate is shown worse by less than Δ and better by less than Δ.
	MarginEquivalent MarginDecision = "equivalent"
	// MarginNonInferior: the candidate is shown worse by less than Δ: the
	// one-sided upper bound at alpha of how much worse it is lies below Δ.
	MarginNonInferior MarginDecision = "non_inferior"
	// MarginInferior: the candidate is shown worse by more than Δ: the
	// one-sided lower bound at alpha of how much worse it is lies above Δ.
	MarginInferior MarginDecision = "inferior"
	// MarginInconclusive: none of these is shown.
	MarginInconclusive MarginDecision = "inconclusive"
)

// MarginTest is what a margin decision was made from. Worse is how much
// worse the candidate is than the baseline, in the metric's units and
// positive when it is worse for the metric's direction, with the bounds
// of its (1 − 2α) two-sided interval: Low and High are the one-sided
// bounds at level alpha. The t-based methods (paired t, corrected t) also
// give the one-sided tests' p-values, which decide there; the other
// methods decide from the bounds.
type MarginTest struct {
	Worse stats.Interval `json:"worse_by"`
	// Source is where the bounds come from: "t" (the paired or corrected
	// t's), "bootstrap" (the quantiles of the comparison's bootstrap
	// replicates) or "normal" (DeLong's).
	Source string `json:"source"`
	// Alpha is the level of the one-sided tests: the comparison's alpha
	// as asked, not adjusted across metrics nor an online FDR level.
	Alpha float64 `json:"alpha"`
	// PNonInferior tests H0: worse by Δ or more (rejected: non-inferior);
	// PNotBetterByMargin H0: better by Δ or more; PEquivalence is TOST's,
	// the larger of the two; PInferior tests H0: worse by Δ or less
	// (rejected: inferior). Nil where the method gives no p-value.
	PNonInferior       *float64 `json:"p_non_inferior,omitempty"`
	PNotBetterByMargin *float64 `json:"p_not_better_by_margin,omitempty"`
	PEquivalence       *float64 `json:"p_equivalence,omitempty"`
	PInferior          *float64 `json:"p_inferior,omitempty"`
}

// Loser is the side that lost, or Neither.
func (r *MetricResult) Loser() Side {
	switch r.Winner {
	case Baseline:
		return Candidate
	case Candidate:
		return Baseline
	}
	return Neither
}

// Regression reports whether the candidate is distinguishably worse.
func (r *MetricResult) Regression() bool { return r.Winner == Baseline }

// Gate is what fails a comparison in CI.
type Gate string

const (
	// NoGate fails nothing.
	NoGate Gate = ""
	// FailOnRegression fails when the candidate is distinguishably worse
	// on a metric, for its direction.
	FailOnRegression Gate = "regression"
	// FailOnDifference fails on any distinguishable difference.
	FailOnDifference Gate = "difference"
	// FailOnRegressionBeyondMargin fails when the candidate is shown worse
	// by more than the metric's margin (MarginInferior). It needs a margin.
	FailOnRegressionBeyondMargin Gate = "regression-beyond-margin"
	// FailOnUnprovenNonInferiority fails unless the candidate is shown
	// non-inferior within the metric's margin, equivalent or superior: an
	// underpowered comparison fails. It needs a margin.
	FailOnUnprovenNonInferiority Gate = "unproven-non-inferiority"
)

// needsMargin reports whether the gate is decided against a margin.
func (g Gate) needsMargin() bool {
	return g == FailOnRegressionBeyondMargin || g == FailOnUnprovenNonInferiority
}

// Fails reports whether r fails gate g.
func (r *MetricResult) Fails(g Gate) bool {
	switch g {
	case FailOnRegression:
		return r.Regression()
	case FailOnDifference:
		return r.Distinguishable
	case FailOnRegressionBeyondMargin:
		return r.MarginDecision == MarginInferior
	case FailOnUnprovenNonInferiority:
		switch r.MarginDecision {
		case MarginSuperior, MarginEquivalent, MarginNonInferior:
			return false
		}
		return true
	}
	return false
}

// Failed returns the first metric that fails the gate, or nil.
func (c *Comparison) Failed(g Gate) *MetricResult {
	for _, r := range c.Metrics {
		if r.Fails(g) {
			return r
		}
	}
	return nil
}

// Gap is the winner's advantage, positive, with its interval: the
// difference oriented so that the better side's lead is positive. Without
// a winner it is the candidate's gain (negative when it is worse).
func (r *MetricResult) Gap() stats.Interval {
	d := r.Difference
	// Difference is baseline − candidate: its gain is the baseline's lead.
	lead := r.Direction.Gain(1) // +1 or −1
	if r.Winner != Baseline {
		lead = -lead
	}
	lo, hi := lead*d.Low, lead*d.High
	if lo > hi {
		lo, hi = hi, lo
	}
	return stats.Interval{Estimate: lead * d.Estimate, Low: lo, High: hi, Confidence: d.Confidence}
}

// Name is the name of side s.
func (r *MetricResult) Name(s Side) string {
	if s == Baseline {
		return r.Baseline
	}
	return r.Candidate
}
