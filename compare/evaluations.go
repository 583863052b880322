package compare

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// pairBudget bounds the bytes of per-unit sums one pairing join of a
// comparison returns: 32 metrics of a million units of one row.
const pairBudget = 256 << 20

// hintPower is the power at which a comparison sizes the sample a gap of
// the observed size would need.
const hintPower = 0.8

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
	// FiveByTwo for two 5x2 ones, Bootstrap otherwise.
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
	Metrics                     []*MetricResult
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
	Baseline   string `json:"baseline"`
	Candidate  string `json:"candidate"`
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
	// NRequired is the sample-size hint (see Hint).
	NRequired *int   `json:"n_required"`
	Verdict   string `json:"verdict"`
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
)

// ParseGate reads regression, difference or the empty string.
func ParseGate(s string) (Gate, error) {
	switch g := Gate(s); g {
	case NoGate, FailOnRegression, FailOnDifference:
		return g, nil
	}
	return "", invalidf("fail-on %q: want regression or difference", s)
}

// Failed returns the first metric that fails the gate, or nil.
func (c *Comparison) Failed(g Gate) *MetricResult {
	for _, r := range c.Metrics {
		if g == FailOnRegression && r.Regression() || g == FailOnDifference && r.Distinguishable {
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

// Evaluations compares two logged evaluations on each metric of
// opts.Metrics (default: every metric both have): it pairs them unit by
// unit inside PostgreSQL, runs the method's test, adjusts the p-values
// across metrics and decides each metric with stats.Decide. The winner is
// the better side for the metric's direction. With opts.Record, one
// transaction pairs every metric and records the results, so that what is
// recorded is what was read.
//
// Errors: store.ErrNotComparable for evaluations scored against different
// targets (unless AllowDifferentTargets), store.ErrUnknownMetric,
// ErrNothingShared for no shared metric or unit, ErrNotApplicable for a
// method that does not fit the data, ErrInvalid for bad options.
func Evaluations(ctx context.Context, st *store.Store, base, cand *store.Evaluation, opts Options) (*Comparison, error) {
	c := &Comparison{Baseline: base.Run, Candidate: cand.Run, BaselineEval: base, CandidateEval: cand}
	if base.Run == cand.Run && base.ID != cand.ID {
		c.Baseline, c.Candidate = fmt.Sprintf("%s#%d", base.Run, base.ID), fmt.Sprintf("%s#%d", cand.Run, cand.ID)
	}
	metrics := opts.Metrics
	if len(metrics) == 0 {
		for _, m := range base.Metrics {
			if slices.Contains(cand.Metrics, m) {
				metrics = append(metrics, m)
			}
		}
		if len(metrics) == 0 {
			return nil, fmt.Errorf("%w: evaluations %d and %d share no metric (%s; %s)", ErrNothingShared,
				base.ID, cand.ID, strings.Join(base.Metrics, ", "), strings.Join(cand.Metrics, ", "))
		}
	}
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	if base.Predictions != nil || cand.Predictions != nil {
		return evaluatePredictions(ctx, st, c, metrics, opts)
	}
	method := opts.Method
	if method == "" {
		switch {
		case isKFold(base) && isKFold(cand):
			method = CorrectedT
		case base.Protocol.Name == "5x2" && cand.Protocol.Name == "5x2":
			method = FiveByTwo
		default:
			method = Bootstrap
		}
	}
	distributed, err := st.Distributed(ctx)
	if err != nil {
		return nil, err
	}
	// One join pairs a batch of metrics; a batch's sums take 8 bytes a
	// unit and metric (16 with draws), so a batch holds at most pairBudget
	// bytes of them.
	perUnit := 8
	if base.ScoredRows != base.Units || cand.ScoredRows != cand.Units {
		perUnit = 16
	}
	batch := max(1, pairBudget/(perUnit*int(max(base.Units, cand.Units, 1))))
	err = st.InTx(ctx, func(tx *store.Tx) error {
		c.Metrics = nil
		var labels map[string]int16
		if method == DeLong {
			var err error
			if labels, err = tx.Labels(ctx, base.EvalSetID); err != nil {
				return err
			}
		}
		for first := 0; first < len(metrics); first += batch {
			ms := metrics[first:min(first+batch, len(metrics))]
			var pairs *store.MetricPairs
			var shared []*resampled
			if !distributed {
				var err error
				if pairs, err = tx.PairMetrics(ctx, base.ID, cand.ID, ms, opts.AllowDifferentTargets); err != nil {
					return err
				}
				shared = shareResampling(ctx, pairs, method, opts)
			}
			input := func(m string) pairedInput {
				return pairedInput{
					metric: m,
					dir:    DirectionOf(m, base.LowerIsBetter, cand.LowerIsBetter),
					nTrain: base.Protocol.NTrain, nTest: base.Protocol.NTest,
					folds:    isKFold(base) && isKFold(cand) || base.Protocol.Name == "5x2" && cand.Protocol.Name == "5x2",
					kfold:    isKFold(base) && isKFold(cand),
					protocol: base.Protocol,
					poisson:  opts.Resampling == Poisson,
					labels:   labels,
				}
			}
			if !distributed {
				// The metrics' own work (exact sums, counts, tests that do
				// not resample) runs on every core, a metric each; each
				// metric's sums are made when it starts and let go when it
				// ends.
				rs, errs := make([]*MetricResult, len(ms)), make([]error, len(ms))
				var g errgroup.Group
				g.SetLimit(runtime.GOMAXPROCS(0))
				for k, m := range ms {
					g.Go(func() error {
						in := input(m)
						in.pairs, in.shared = pairs.Pairs(k), shared[k]
						pairs.Release(k)
						rs[k], errs[k] = compareMetric(ctx, c, in, method, opts)
						return nil
					})
				}
				g.Wait()
				for k, m := range ms {
					if errs[k] != nil {
						return fmt.Errorf("%s: %w", m, errs[k])
					}
					c.Metrics = append(c.Metrics, rs[k])
				}
				continue
			}
			for _, m := range ms {
				in := input(m)
				var err error
				if in.pushed, in.poisson, err = pushDown(ctx, tx, base, cand, m, method, opts); err != nil {
					return err
				}
				if in.pushed == nil {
					if in.pairs, err = tx.Pair(ctx, base.ID, cand.ID, m, opts.AllowDifferentTargets); err != nil {
						return err
					}
				}
				r, err := compareMetric(ctx, c, in, method, opts)
				if err != nil {
					return fmt.Errorf("%s: %w", m, err)
				}
				c.Metrics = append(c.Metrics, r)
			}
		}
		return conclude(ctx, tx, c, opts, func(int) Method { return method })
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// evaluatePredictions is Evaluations for two evaluations of predictions.
func evaluatePredictions(ctx context.Context, st *store.Store, c *Comparison, metrics []string, opts Options) (*Comparison, error) {
	err := st.InTx(ctx, func(tx *store.Tx) error {
		c.Metrics = nil
		methods, err := comparePredictions(ctx, tx, c, metrics, opts)
		if err != nil {
			return err
		}
		return conclude(ctx, tx, c, opts, func(i int) Method { return methods[i] })
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// conclude finishes a comparison in the transaction that paired it: it
// spends the experiment's online FDR wealth (Options.FDR), decides each
// metric, and records each with its method, methodOf(i) for metric i.
func conclude(ctx context.Context, tx *store.Tx, c *Comparison, opts Options, methodOf func(int) Method) error {
	if opts.FDR != nil {
		if err := spendFDR(ctx, tx, c, opts.FDR); err != nil {
			return err
		}
	}
	if err := decide(c, opts); err != nil {
		return err
	}
	if !opts.Record {
		return nil
	}
	for i, r := range c.Metrics {
		id, err := tx.RecordComparison(ctx, record(c.BaselineEval, c.CandidateEval, r, opts, methodOf(i)))
		if err != nil {
			return err
		}
		r.ComparisonID = &id
	}
	return nil
}

func isKFold(e *store.Evaluation) bool {
	return e.Protocol.Name == "kfold" || e.Protocol.Name == "repeated_kfold"
}

func checkOptions(o Options) error {
	if a := o.alpha(); !(a > 0 && a < 1) {
		return invalidf("alpha must be in (0, 1), got %g", o.Alpha)
	}
	if c := o.confidence(); !(c > 0 && c < 1) {
		return invalidf("confidence must be in (0, 1), got %g", o.Confidence)
	}
	if o.Resamples < 0 || o.Resamples > stats.MaxResamples {
		return invalidf("resamples must be from 1 to %d, got %d: a million already resolves p below 10⁻⁶ and moves an interval's bounds far less than the data's own sampling error; more only costs time and memory",
			stats.MaxResamples, o.Resamples)
	}
	if o.Rope != nil && !(*o.Rope >= 0) {
		return invalidf("the ROPE's half-width must be 0 or more, got %g", *o.Rope)
	}
	if o.DecideAt != 0 && !(o.DecideAt >= 0.5 && o.DecideAt < 1) {
		return invalidf("the Bayesian decision's threshold must be in [0.5, 1), got %g", o.DecideAt)
	}
	if _, err := ParseAdjustment(string(o.Adjust)); err != nil {
		return err
	}
	return checkFDR(o)
}

// pairedInput is one metric's paired values: per unit, each side's sum of
// rows and the row count, in sample ID order.
type pairedInput struct {
	metric string
	// pairs are the units paired in Go; pushed, when set instead, reduces
	// them in the database.
	pairs  *store.Pairs
	pushed *pushed
	// poisson selects the Poisson bootstrap and hashed sign flips.
	poisson bool
	labels  map[string]int16 // DeLong only
	dir     Direction
	// nTrain and nTest are the fold sizes of k-fold evaluations, and
	// folds says both sides are fold-based (k-fold or 5x2) evaluations;
	// kfold says both are k-fold ones, of the baseline's protocol.
	nTrain, nTest int64
	folds, kfold  bool
	protocol      store.Protocol
	// shared is the metric's resampling, done with the other metrics of
	// its join; nil when it resamples on its own.
	shared *resampled
}

// foldsPerRepetition is the k of n fold units of k-fold evaluations of
// protocol p: the folds per repetition as logged; else, for plain k-fold,
// n, every unit being a fold; else, for repeated k-fold, n over the
// repetitions when they divide it; else 0.
func foldsPerRepetition(p store.Protocol, n int) int {
	switch {
	case p.Folds > 0:
		return p.Folds
	case p.Name == "kfold":
		return n
	case p.Repeats > 0 && n%p.Repeats == 0:
		return n / p.Repeats
	}
	return 0
}

// float32Resolution is the relative precision per-unit values are stored
// at: PostgreSQL's real, IEEE single precision, 2⁻²³ ≈ 1.2·10⁻⁷.
const float32Resolution = 0x1p-23

// equalWithinStorage reports whether a and b differ by no more than the
// precision values are stored at: |a − b| ≤ 2⁻²³·max(|a|, |b|). Such a
// difference is rounding, not a difference between models: verdict treats
// it as zero everywhere, in the interval, the tests, the counts and the
// sample-size hint, so that numerically equal means never read as a
// distinguishable gap or ask for billions of units.
func equalWithinStorage(a, b float64) bool {
	return math.Abs(a-b) <= float32Resolution*max(math.Abs(a), math.Abs(b))
}

// equalizeWithinStorage makes right[i] equal to left[i] wherever the two
// are equal within storage precision, in place.
func equalizeWithinStorage(left, right []float64) {
	for i := range right {
		if equalWithinStorage(left[i], right[i]) {
			right[i] = left[i]
		}
	}
}

// compareMetric runs method on one metric's pairs, or on their reduction
// in the database.
func compareMetric(ctx context.Context, c *Comparison, in pairedInput, method Method, opts Options) (*MetricResult, error) {
	r := &MetricResult{
		Metric: in.metric, Method: method.label(), Baseline: c.Baseline, Candidate: c.Candidate,
		Alpha: opts.alpha(), Direction: in.dir, LowerIsBetter: in.dir.Lower(),
		NTrain: in.nTrain, NTest: in.nTest,
	}
	if pd := in.pushed; pd != nil {
		r.N, r.BaselineOnly, r.CandidateOnly = int(pd.s.N), pd.s.LeftOnly, pd.s.RightOnly
		if err := measure(ctx, r, stats.PairedUnits{}, pd, nil, nil, method, opts, in.poisson, nil); err != nil {
			return nil, err
		}
		sum := pd.summary()
		hint(r, method, sum.Variance)
		shape := shapeOfSummary(sum, method, in.folds)
		shape.metric = in.metric
		warn(r, shape)
		return r, nil
	}
	p := in.pairs
	n := len(p.SampleIDs)
	if n == 0 {
		return nil, fmt.Errorf("%w: the evaluations share no unit", ErrNothingShared)
	}
	r.N, r.BaselineOnly, r.CandidateOnly = n, p.LeftOnly, p.RightOnly
	if in.kfold {
		r.K = foldsPerRepetition(in.protocol, n)
	}
	// The pairs are this comparison's own: values equal within storage
	// precision are made equal in place.
	left, right := p.LeftSum, p.RightSum
	var rows []int32
	if p.Draws() {
		rows = p.LeftRows
		for i, id := range p.SampleIDs {
			if p.RightRows[i] != p.LeftRows[i] {
				return nil, fmt.Errorf("%w: unit %q has %d rows in the baseline and %d in the candidate; draws must match to pair",
					ErrNotApplicable, id, p.LeftRows[i], p.RightRows[i])
			}
		}
	}
	equalizeWithinStorage(left, right)
	units := stats.PairedUnits{LeftSum: left, RightSum: right, Rows: rows}
	// Units of one row are reduced exactly, as the database reduces them,
	// so that a comparison gives the same numbers on one server and on a
	// distributed database.
	var red reducer
	if rows == nil {
		g, err := newGoUnits(p.SampleIDs, left, right)
		if err != nil {
			return nil, err
		}
		red = g
	}
	if err := measure(ctx, r, units, red, p.SampleIDs, in.labels, method, opts, in.poisson, in.shared); err != nil {
		return nil, err
	}
	shape := shapeOf(units, method, in.folds)
	if red != nil {
		hint(r, method, red.summary().Variance)
	} else {
		hint(r, method, func() (float64, error) { return stats.DifferenceVariance(units) })
	}
	shape.metric = in.metric
	warn(r, shape)
	return r, nil
}

// measure fills r from the paired units u, or from red where it is set
// (units of one row each): means, counts, the method's test and interval.
// ids name the units (DeLong's labels, the fold order of the fold-based
// tests, the Poisson bootstrap's hashes). With poisson the bootstrap and
// the sign-flip test draw hashed replicates. shared, when set, holds the
// multinomial bootstrap and sign-flip test, done with other metrics.
func measure(ctx context.Context, r *MetricResult, u stats.PairedUnits, red reducer, ids []string, labels map[string]int16, method Method, opts Options, poisson bool, shared *resampled) error {
	if red != nil {
		s := red.summary()
		r.BaselineMean, r.CandidateMean = s.Means()
		better, worse := s.Less, s.Greater // higher is better: the candidate's value is higher
		if r.Direction.Lower() {
			better, worse = worse, better
		}
		r.CandidateBetter, r.CandidateWorse, r.Same = int(better), int(worse), int(s.N-s.Greater-s.Less)
	} else {
		totalRows := len(u.LeftSum)
		if u.Rows != nil {
			totalRows = 0
			for _, m := range u.Rows {
				totalRows += int(m)
			}
		}
		r.BaselineMean = stats.Sum(u.LeftSum) / float64(totalRows)
		r.CandidateMean = stats.Sum(u.RightSum) / float64(totalRows)
		for i := range u.LeftSum {
			switch {
			case r.Direction.Better(u.RightSum[i], u.LeftSum[i]):
				r.CandidateBetter++
			case r.Direction.Better(u.LeftSum[i], u.RightSum[i]):
				r.CandidateWorse++
			default:
				r.Same++
			}
		}
	}
	left, right := unitMeans(u.LeftSum, u.Rows), unitMeans(u.RightSum, u.Rows)
	conf := opts.confidence()
	var reps *stats.Replicates
	bootstrap := func() error {
		if poisson {
			var err error
			if red != nil {
				reps, err = red.replicates(ctx, opts.resamples(), opts.Seed)
			} else {
				reps, err = stats.HashedReplicates(ctx, ids, u, opts.resamples(), opts.Seed)
			}
			if err != nil {
				return err
			}
			b, err := reps.PoissonBootstrap(conf)
			if err != nil {
				return err
			}
			r.Difference = stats.Interval{Estimate: b.Estimate, Low: b.Low, High: b.High, Confidence: b.Confidence}
			r.Resampling = string(Poisson)
			r.Method = strings.Replace(r.Method, "bootstrap", "poisson-bootstrap", 1)
			return nil
		}
		var b stats.BootstrapResult
		var err error
		if shared != nil {
			b, err = shared.boot, shared.bootErr
		} else {
			b, err = stats.PairedBootstrapUnits(u, stats.BootstrapOptions{Confidence: conf, Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx})
		}
		if err != nil {
			return err
		}
		r.Difference = stats.Interval{Estimate: b.Estimate, Low: b.Low, High: b.High, Confidence: b.Confidence}
		r.Resampling = string(Multinomial)
		return nil
	}
	oneRow := func() error {
		if u.Rows != nil {
			return fmt.Errorf("%w: %s pairs one row per unit, and these evaluations have several rows per unit", ErrNotApplicable, method)
		}
		return nil
	}
	switch method {
	case Bootstrap:
		if err := bootstrap(); err != nil {
			return err
		}
		if reps != nil {
			r.PValue = reps.FlipPValue()
			break
		}
		var perm stats.RandomizationResult
		var err error
		if shared != nil && shared.perm != nil {
			perm, err = *shared.perm, shared.permErr
		} else {
			perm, err = stats.RandomizationUnits(u, stats.RandomizationOptions{Permutations: opts.resamples(), Seed: opts.Seed, Context: ctx})
		}
		if err != nil {
			return err
		}
		r.PValue = perm.PValue
	case PairedT:
		var t stats.PairedTResult
		var err error
		if red != nil {
			t, err = red.summary().PairedT(stats.PairedTOptions{Confidence: conf})
		} else {
			t, err = stats.PairedT(left, right, stats.PairedTOptions{Confidence: conf})
		}
		if err != nil {
			return err
		}
		r.Difference = stats.Interval{Estimate: t.MeanDiff, Low: t.CILow, High: t.CIHigh, Confidence: conf}
		r.PValue = t.PValue
		r.Statistic = statistic("t", t.T, float64(t.DF))
	case Wilcoxon:
		var w stats.WilcoxonResult
		var err error
		if red != nil {
			var ranks stats.SignedRanks
			if ranks, err = red.ranks(ctx); err == nil {
				w, err = stats.WilcoxonRanks(ranks, stats.WilcoxonOptions{})
			}
		} else {
			w, err = stats.Wilcoxon(left, right, stats.WilcoxonOptions{})
		}
		if err != nil {
			return err
		}
		if err := bootstrap(); err != nil {
			return err
		}
		r.PValue, r.Wilcoxon = w.PValue, &w
		r.Statistic = statistic("W+", w.WPlus, math.NaN())
	case McNemar:
		if err := oneRow(); err != nil {
			return err
		}
		m, err := stats.McNemar(left, right, stats.McNemarOptions{})
		if err != nil {
			return fmt.Errorf("%w (McNemar needs a 0/1 correctness metric)", err)
		}
		if err := bootstrap(); err != nil {
			return err
		}
		r.PValue, r.McNemar = m.PValue, &m
		name := "chi2"
		if m.Mode == stats.McNemarExact {
			name = "b"
		}
		r.Statistic = statistic(name, m.Statistic, math.NaN())
	case DeLong:
		if err := oneRow(); err != nil {
			return err
		}
		y := make([]float64, len(ids))
		for i, id := range ids {
			l, ok := labels[id]
			if !ok {
				return fmt.Errorf("%w: sample %q has no label recorded with the evaluation set; log the evaluation with its labels", ErrNotApplicable, id)
			}
			y[i] = float64(l)
		}
		d, err := stats.DeLong(y, left, right, stats.DeLongOptions{Confidence: conf})
		if err != nil {
			return err
		}
		// The compared quantity is the AUC, higher is better whatever the
		// scores' own direction.
		r.Direction, r.LowerIsBetter = HigherIsBetter, false
		r.CandidateBetter, r.CandidateWorse, r.Same = 0, 0, 0
		r.BaselineMean, r.CandidateMean = d.AUCLeft, d.AUCRight
		r.Difference = stats.Interval{Estimate: d.Diff, Low: d.CILow, High: d.CIHigh, Confidence: conf}
		r.PValue, r.DeLong = d.PValue, &d
		r.Statistic = statistic("z", d.Z, math.NaN())
	case FiveByTwo:
		if len(left) != 10 || u.Rows != nil {
			return fmt.Errorf("%w: 5x2 evaluations must share 10 folds of one row each, got %d units", ErrNotApplicable, len(left))
		}
		diffs := make([]float64, 10)
		for i := range diffs {
			diffs[i] = left[i] - right[i]
		}
		f, err := stats.FiveByTwoCVT(diffs)
		if err != nil {
			return err
		}
		if err := bootstrap(); err != nil {
			return err
		}
		r.PValue, r.Folds = f.PValue, ids
		r.Statistic = statistic("t", f.T, float64(f.DF))
	case CorrectedT:
		return correctedT(r, left, right, ids, opts)
	default:
		return invalidf("method %q", method)
	}
	return nil
}

// correctedT runs the corrected resampled t, and the Bayesian correlated t
// with a ROPE, on k-fold units. Without the fold sizes, k-fold evaluations
// assume ρ = 1/k, as folds of equal size give: n_test/n_train = 1/(k − 1).
func correctedT(r *MetricResult, left, right []float64, ids []string, opts Options) error {
	ctOpts := stats.CorrectedTOptions{NTrain: int(r.NTrain), NTest: int(r.NTest)}
	if !(r.NTrain > 0 && r.NTest > 0) {
		if r.K < 2 {
			return fmt.Errorf("%w: the corrected resampled t needs the training and test sizes of the folds, or k-fold evaluations with their number of folds, and the evaluations were logged without them", ErrNotApplicable)
		}
		ctOpts, r.RhoAssumed = stats.CorrectedTOptions{Folds: r.K}, true
	}
	ct, err := stats.CorrectedResampledT(left, right, ctOpts)
	if err != nil {
		return err
	}
	r.Difference = stats.TInterval(ct.MeanDiff, ct.T, ct.DF, opts.confidence())
	r.PValue, r.Folds, r.Rho = ct.PValue, ids, ct.Rho
	r.Statistic = statistic("t", ct.T, float64(ct.DF))
	if opts.Rope == nil {
		return nil
	}
	b, err := stats.BayesCorrelatedT(left, right, stats.BayesOptions{
		Folds: ctOpts.Folds, NTrain: ctOpts.NTrain, NTest: ctOpts.NTest, Rope: *opts.Rope, DecideAt: opts.DecideAt})
	if err != nil {
		return err
	}
	// The posterior is of baseline − candidate: "left better" means the
	// baseline's value is higher.
	higher, lower := b.PLeftBetter, b.PRightBetter
	decisions := map[stats.BayesDecision]BayesDecision{stats.BayesLeftBetter: BayesBaselineBetter,
		stats.BayesRightBetter: BayesCandidateBetter, stats.BayesEquivalent: BayesEquivalent, stats.BayesUndecided: BayesUndecided}
	if r.Direction.Lower() {
		higher, lower = lower, higher
		decisions[stats.BayesLeftBetter], decisions[stats.BayesRightBetter] = BayesCandidateBetter, BayesBaselineBetter
	}
	r.Bayes = &Bayes{Rope: *opts.Rope, PBaselineBetter: higher, PEquivalent: b.PEquivalent, PCandidateBetter: lower,
		Decision: decisions[b.Decision], DecideAt: b.DecideAt, DF: b.DF, Loc: b.Loc, Scale: b.Scale}
	return nil
}

// statistic is a Statistic, or nil for a non-finite value (a t of ±Inf
// when every difference is the same); a NaN df is left out.
func statistic(name string, v, df float64) *Statistic {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	s := &Statistic{Name: name, Value: v}
	if !math.IsNaN(df) {
		s.DF = &df
	}
	return s
}

// unitMeans is each unit's mean, sum/rows; with rows nil the sums
// themselves.
func unitMeans(sums []float64, rows []int32) []float64 {
	if rows == nil {
		return sums
	}
	out := make([]float64, len(sums))
	for i := range sums {
		out[i] = sums[i] / float64(rows[i])
	}
	return out
}

// decide adjusts the p-values across the metrics, decides each metric,
// names the winner for its direction, sizes the hint and writes the
// sentence.
func decide(c *Comparison, opts Options) error {
	adj := opts.Adjust.resolve(len(c.Metrics))
	if opts.FDR != nil {
		adj = AdjustNone // the online procedure sees every test
	}
	for _, r := range c.Metrics {
		r.PAdjusted = r.PValue
	}
	if adj != AdjustNone {
		ps := make([]float64, len(c.Metrics))
		for i, r := range c.Metrics {
			ps[i] = r.PValue
		}
		res, err := stats.AdjustPValues(ps, stats.AdjustMethod(adj))
		if err != nil {
			return err
		}
		for i, r := range c.Metrics {
			r.PAdjusted, r.Adjustment, r.AdjustedN = res.Adjusted[i], string(adj), len(ps)
		}
	}
	for _, r := range c.Metrics {
		d := stats.Decide(r.PAdjusted, r.Alpha, r.Difference)
		r.Distinguishable, r.PBelowAlpha, r.IntervalExcludesZero = d.Distinguishable, d.PBelowAlpha, d.ExcludesZero
		r.Winner = Neither
		if d.Distinguishable {
			// Difference is baseline − candidate.
			if r.Direction.Gain(r.Difference.Estimate) > 0 {
				r.Winner = Baseline
			} else {
				r.Winner = Candidate
			}
		}
		if opts.Sentence != nil {
			r.Verdict = opts.Sentence(c, r)
		}
	}
	return nil
}

// hint sizes the sample a gap of the observed size would need: the paired
// test's normal approximation n = (z_{1−α/2} + z_{0.8})²·Var(d)/δ², with
// Var(d) the observed variance of the per-unit differences (from
// variance), rounded up to two significant figures. It is an order of
// magnitude, not a count.
func hint(r *MetricResult, method Method, variance func() (float64, error)) {
	r.NRequired, r.Hint = nil, HintNone
	if !method.hasHint() {
		return
	}
	scale := (math.Abs(r.BaselineMean) + math.Abs(r.CandidateMean)) / 2
	if math.Abs(r.BaselineMean-r.CandidateMean) <= float32Resolution*scale || r.Difference.Estimate == 0 {
		r.Hint = HintEqualMeans
		return
	}
	v, err := variance()
	if err != nil || !(v > 0) {
		r.Hint = HintNoVariance
		return
	}
	size, err := stats.SampleSize(stats.SampleSizeOptions{Delta: r.Difference.Estimate, Alpha: r.Alpha, Power: hintPower, Variance: v})
	if err != nil { // past 2³¹ units: delta, alpha and power are in range here
		r.Hint = HintTooLarge
		return
	}
	n := twoSignificant(size.N)
	r.NRequired, r.Hint = &n, HintCount
}

// twoSignificant rounds n up to two significant figures: 3616 → 3700,
// 95 → 95, 101 → 110.
func twoSignificant(n int) int {
	step := 1
	for n/step >= 100 {
		step *= 10
	}
	return (n + step - 1) / step * step
}

// record is the history row of one metric's result.
func record(base, cand *store.Evaluation, r *MetricResult, opts Options, method Method) store.ComparisonRecord {
	winner := map[Side]string{Baseline: "left", Candidate: "right"}[r.Winner]
	rec := store.ComparisonRecord{
		LeftID: base.ID, RightID: cand.ID, Metric: r.Metric, LowerIsBetter: r.LowerIsBetter,
		Method: r.Method, Resamples: opts.resamples(), Seed: opts.Seed, Confidence: r.Difference.Confidence,
		Alpha: r.Alpha, Adjustment: r.Adjustment, N: int64(r.N), LeftOnly: r.BaselineOnly, RightOnly: r.CandidateOnly,
		LeftMean: r.BaselineMean, RightMean: r.CandidateMean, Estimate: r.Difference.Estimate,
		Low: r.Difference.Low, High: r.Difference.High, PValue: r.PValue, PAdjusted: r.PAdjusted,
		Distinguishable: r.Distinguishable, Winner: winner,
		// The history counts from the baseline's side: wins are units
		// where the baseline is better.
		Wins: int64(r.CandidateWorse), Losses: int64(r.CandidateBetter), Ties: int64(r.Same),
		Verdict: r.Verdict,
		Parameters: map[string]any{"method": string(method), "resamples": opts.resamples(), "seed": opts.Seed,
			"alpha": r.Alpha, "confidence": r.Difference.Confidence, "adjustment": r.Adjustment},
		Outputs: r,
		FDR:     fdrRecord(r),
	}
	if r.Bootstrap != nil {
		rec.Parameters["stratified"] = r.Bootstrap.Stratified
	}
	if pi := base.Predictions; pi != nil && pi.Task == store.TaskBinary {
		rec.Parameters["threshold"], rec.Parameters["bins"] = pi.Threshold, pi.Bins
	}
	if f := r.FDR; f != nil {
		rec.Parameters["fdr"] = map[string]any{"method": f.Method, "fdr": f.Alpha, "w0": opts.FDR.options().W0}
	}
	if opts.Rope != nil {
		rec.Parameters["rope"] = *opts.Rope
		rec.Parameters["decide_at"] = cmp.Or(opts.DecideAt, stats.DefaultDecideAt)
	}
	if r.RhoAssumed {
		rec.Parameters["rho"] = r.Rho
	}
	if r.Statistic != nil {
		v := r.Statistic.Value
		rec.Statistic = &v
	}
	if r.NRequired != nil {
		n := int64(*r.NRequired)
		rec.NRequired = &n
	}
	return rec
}
