package compare

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/internal/columns"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// The requests of this package's operations, as the front doors take them:
// the command line, the HTTP API and the Python client read their flags,
// parameters and keyword arguments from these declarations (see package
// request), and the rules between fields are the requests' own methods.

// Pair names two evaluations: runs of an experiment by name (each its
// newest evaluation), or evaluations by ID.
type Pair struct {
	Experiment string `req:"experiment" short:"e" arg:"NAME" help:"experiment of the runs named as baseline and candidate (without it, they are evaluation IDs)"`
	EvalSet    string `req:"eval_set" short:"s" arg:"NAME" help:"evaluation set of the runs' evaluations (default: their only one)"`
	Baseline   string `req:"baseline" pos:"1" required:"true" arg:"BASELINE" help:"a run's name (its newest evaluation) when experiment is given, else an evaluation ID"`
	Candidate  string `req:"candidate" pos:"2" required:"true" arg:"CANDIDATE" help:"a run's name (its newest evaluation) when experiment is given, else an evaluation ID"`
}

// Finder finds the evaluation a request names by arg, a run of experiment
// or an evaluation ID: Resolve, or a door's own that also holds its caller
// to an experiment.
type Finder func(ctx context.Context, st *store.Store, experiment, evalSet, arg string) (*store.Evaluation, error)

// find is f, or Resolve when f is nil.
func (f Finder) find(ctx context.Context, st *store.Store, experiment, evalSet, arg string) (*store.Evaluation, error) {
	if f == nil {
		f = Resolve
	}
	return f(ctx, st, experiment, evalSet, arg)
}

// Resolve finds the two evaluations p names, through find (nil: Resolve).
func (p Pair) Resolve(ctx context.Context, st *store.Store, find Finder) (baseline, candidate *store.Evaluation, err error) {
	if baseline, err = find.find(ctx, st, p.Experiment, p.EvalSet, p.Baseline); err != nil {
		return nil, nil, err
	}
	if candidate, err = find.find(ctx, st, p.Experiment, p.EvalSet, p.Candidate); err != nil {
		return nil, nil, err
	}
	return baseline, candidate, nil
}

// Statistics are the settings every statistical request shares.
type Statistics struct {
	Alpha float64 `req:"alpha" default:"0.05" arg:"LEVEL" help:"significance level"`
	Intervals
}

// Intervals are the settings of bootstrap intervals, with a test
// (Statistics) or without one (a plot of values over time).
type Intervals struct {
	Confidence float64 `req:"confidence" default:"0.95" arg:"LEVEL" help:"level of the confidence intervals"`
	Resamples  *int    `req:"resamples" default:"2000" arg:"B" help:"bootstrap resamples and sign flips, at most 1000000"`
	Seed       uint64  `req:"seed" default:"0" arg:"SEED" help:"random seed: the same seed gives the same answer, bit for bit"`
}

// Options are i as the Options of a comparison. Resamples not given stays
// 0 in them: the default number, and no request for the bootstrap, so that
// the method can still be chosen by the number of units (AutoTMinUnits).
func (i Intervals) Options() Options {
	o := Options{Confidence: i.Confidence, Seed: i.Seed}
	if i.Resamples != nil {
		o.Resamples = *i.Resamples
	}
	return o
}

// options are s as Options.
func (s Statistics) options() Options {
	o := s.Intervals.Options()
	o.Alpha = s.Alpha
	return o
}

// Request is a comparison of two evaluations.
type Request struct {
	Pair
	Metrics []string `req:"metric" short:"m" arg:"METRIC" help:"metric to compare (repeatable; default: every metric both share)"`
	Method  string   `req:"method" arg:"TEST" help:"the paired test (default: from the evaluations' protocols: corrected-t for k-fold, 5x2 for 5x2; else t from 10,000 units of one row each unless resamples or resampling is given, bootstrap below)"`
	Adjust  string   `req:"adjust" arg:"ADJUSTMENT" help:"multiplicity adjustment across the metrics (default: holm with several metrics)"`
	Statistics
	Resampling            string   `req:"resampling" default:"auto" arg:"HOW" help:"how the bootstrap and the sign flips draw"`
	NoStratify            bool     `req:"no_stratify" help:"with evaluations of predictions, draw each bootstrap replicate from all samples rather than each class from its own"`
	Margin                []string `req:"margin" arg:"DELTA" help:"practical margin, in the metric's units: DELTA for every metric, or METRIC=DELTA (repeatable); each metric then says whether the candidate is superior, equivalent, non-inferior (worse by less than DELTA), inferior (worse by more) or inconclusive, at alpha"`
	Rope                  *float64 `req:"rope" arg:"R" help:"the margin R of every metric that margin does not set; with k-fold evaluations, also the Bayesian correlated t's region of practical equivalence, with its probabilities and decision"`
	DecideAt              *float64 `req:"decide_at" default:"0.95" arg:"P" help:"with rope, the posterior probability, in [0.5, 1), a Bayesian decision must exceed"`
	AllowDifferentTargets bool     `req:"allow_different_targets" help:"compare the units two evaluations share even when their targets differ"`
	FDR                   string   `req:"fdr" arg:"PROCEDURE" help:"test under this online FDR procedure over the experiment's recorded history, instead of at a fixed alpha"`
	FDRAlpha              *float64 `req:"fdr_alpha" default:"0.05" arg:"A" help:"with fdr, the false discovery rate the history is held to"`
	Groups                bool     `req:"groups" help:"baseline and candidate name groups of runs of experiment (configurations, each trained with several seeds, logged with a group), compared by a two-level bootstrap of runs and users that counts the seeds' variance with the users'; each run's newest evaluation"`
	FailOn                string   `req:"fail_on" arg:"CHANGE" help:"fail on a distinguishable change (regression, difference), on a candidate shown worse by more than the margin (regression-beyond-margin), or unless it is shown non-inferior within the margin (unproven-non-inferiority): the command line exits 1, and the answer marks the metric fails_gate"`
}

// Choices lists the values of the request's enumerated fields.
func (Request) Choices() map[string][]string {
	methods := make([]string, len(Methods()))
	for i, m := range Methods() {
		methods[i] = string(m)
	}
	return map[string][]string{
		"method":     methods,
		"adjust":     {string(AdjustHolm), string(AdjustBonf), string(AdjustBH), string(AdjustBY), string(AdjustNone)},
		"resampling": {"auto", string(Multinomial), string(Poisson)},
		"fdr":        stats.OnlineFDRMethods(),
		"fail_on":    {string(FailOnRegression), string(FailOnDifference), string(FailOnRegressionBeyondMargin), string(FailOnUnprovenNonInferiority)},
	}
}

// Options checks every rule of the request and gives the Options of
// Evaluations, recording in the history when record is set, and the gate.
func (r Request) Options(record bool) (Options, Gate, error) {
	o := r.Statistics.options()
	o.Metrics, o.AllowDifferentTargets, o.Unstratified, o.Record = r.Metrics, r.AllowDifferentTargets, r.NoStratify, record
	var err error
	if o.Method, err = ParseMethod(r.Method); err != nil {
		return o, "", err
	}
	if o.Adjust, err = ParseAdjustment(r.Adjust); err != nil {
		return o, "", err
	}
	if o.Resampling, err = ParseResampling(r.Resampling); err != nil {
		return o, "", err
	}
	gate, err := ParseGate(r.FailOn)
	if err != nil {
		return o, "", err
	}
	if err := r.checkGroups(); err != nil {
		return o, "", err
	}
	switch {
	case r.FDR != "":
		o.FDR = &FDR{Method: r.FDR, Alpha: stats.DefaultAlpha}
		if r.FDRAlpha != nil {
			o.FDR.Alpha = *r.FDRAlpha
		}
		if !record {
			return o, "", request.Errorf("{fdr} tests each metric as the next test of the experiment's recorded stream, so the comparison must be recorded")
		}
		if r.Adjust != "" {
			return o, "", request.Errorf("{fdr} replaces {adjust}: the procedure controls the false discoveries over the whole history; give one")
		}
	case r.FDRAlpha != nil:
		return o, "", request.Errorf("{fdr_alpha} goes with {fdr} PROCEDURE, the online procedure whose false discovery rate it sets")
	}
	if o.Margin, o.Margins, err = ParseMargins(r.Margin); err != nil {
		return o, "", err
	}
	switch {
	case r.Rope != nil && o.Margin != nil:
		return o, "", request.Errorf("{rope} R is the margin of every metric, as {margin} DELTA is: give one (with METRIC=DELTA margins, {rope} sets the others')")
	case r.Rope != nil || o.Margin != nil || len(o.Margins) > 0:
		o.Rope, o.DecideAt = r.Rope, stats.DefaultDecideAt
		if r.DecideAt != nil {
			o.DecideAt = *r.DecideAt
		}
	case r.DecideAt != nil:
		return o, "", request.Errorf("{decide_at} is the Bayesian correlated t's threshold, which needs {rope} R (or {margin} DELTA), the region of practical equivalence")
	}
	if gate.needsMargin() && r.Rope == nil && o.Margin == nil && len(o.Margins) == 0 {
		return o, "", request.Errorf("{fail_on} %s decides against a practical margin: give {margin} DELTA (or METRIC=DELTA for each metric)", gate)
	}
	return o, gate, checkOptions(o)
}

// checkGroups checks the fields a comparison of groups takes.
func (r Request) checkGroups() error {
	if !r.Groups {
		return nil
	}
	switch {
	case r.Experiment == "":
		return request.Errorf("{groups} compares groups of runs of an experiment: give {experiment}")
	case r.Method != "":
		return request.Errorf("{groups} compares by the two-level bootstrap of runs and users: it takes no {method}")
	case r.Resampling != "" && r.Resampling != "auto":
		return request.Errorf("{groups} draws runs and users by its two-level bootstrap: it takes no {resampling}")
	case r.NoStratify:
		return request.Errorf("{no_stratify} applies to evaluations of predictions; {groups} compares per-user values")
	case r.FDR != "":
		return request.Errorf("a comparison of {groups} is not recorded in the history, so it cannot be a test of the {fdr} stream")
	case r.Baseline == r.Candidate:
		return request.Errorf("{groups}: the baseline and the candidate are the same group, %q", r.Baseline)
	}
	return nil
}

// ParseMargins reads margins as the request's margin field takes them:
// "DELTA" for every metric (at most once) or "METRIC=DELTA" (once a
// metric), DELTA positive and finite.
func ParseMargins(ss []string) (all *float64, each map[string]float64, err error) {
	for _, s := range ss {
		metric, value, named := "", s, false
		if i := strings.LastIndexByte(s, '='); i >= 0 {
			metric, value, named = strings.TrimSpace(s[:i]), s[i+1:], true
			if metric == "" {
				return nil, nil, request.Errorf("{margin} %q: want DELTA or METRIC=DELTA", s)
			}
		}
		d, perr := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if perr != nil || !(d > 0) || math.IsInf(d, 0) {
			return nil, nil, request.Errorf("{margin} %q: DELTA must be a positive finite number, in the metric's units", s)
		}
		switch {
		case !named && all != nil:
			return nil, nil, request.Errorf("{margin} %q: one DELTA is every metric's margin, and %g was already given; name the others as METRIC=DELTA", s, *all)
		case !named:
			all = &d
		default:
			if _, dup := each[metric]; dup {
				return nil, nil, request.Errorf("{margin} %q: %s has a margin already", s, metric)
			}
			if each == nil {
				each = map[string]float64{}
			}
			each[metric] = d
		}
	}
	return all, each, nil
}

// Run checks the request, finds its evaluations through find (nil:
// Resolve) and compares them, recording the comparison when record is set;
// sentence writes each metric's verdict. With a gate, each metric says
// whether it fails it.
func (r Request) Run(ctx context.Context, st *store.Store, find Finder, record bool, sentence func(*Comparison, *MetricResult) string) (*Comparison, error) {
	o, gate, err := r.Options(record)
	if err != nil {
		return nil, err
	}
	o.Sentence = sentence
	var res *Comparison
	if r.Groups {
		o.Record = false
		res, err = Groups(ctx, st, GroupsQuery{Experiment: r.Experiment, EvalSet: r.EvalSet, Baseline: r.Baseline, Candidate: r.Candidate, Find: find}, o)
	} else {
		var b, c *store.Evaluation
		if b, c, err = r.Pair.Resolve(ctx, st, find); err != nil {
			return nil, err
		}
		res, err = Evaluations(ctx, st, b, c, o)
	}
	if err != nil {
		return nil, err
	}
	res.Gate = gate
	if gate != NoGate {
		for _, m := range res.Metrics {
			fails := m.Fails(gate)
			m.FailsGate = &fails
		}
	}
	return res, nil
}

// RankRequest ranks several evaluations on one metric.
type RankRequest struct {
	Experiment     string   `req:"experiment" short:"e" arg:"NAME" help:"experiment of the runs named (without it, they are evaluation IDs)"`
	EvalSet        string   `req:"eval_set" short:"s" arg:"NAME" help:"evaluation set of the runs' evaluations (default: their only one)"`
	Runs           []string `req:"run" pos:"*" required:"true" arg:"EVAL" help:"at least two: runs' names when experiment is given, else evaluation IDs"`
	Metric         string   `req:"metric" short:"m" required:"true" arg:"METRIC" help:"metric to rank on"`
	Control        string   `req:"control" arg:"NAME" help:"control run of the Holm comparisons (default: the best)"`
	Alpha          float64  `req:"alpha" default:"0.05" arg:"LEVEL" help:"significance level"`
	AcrossEvalSets bool     `req:"across_eval_sets" help:"blocks are evaluation sets (data sets), as in Demšar 2006: the runs of experiment, each run's mean on every evaluation set they all have"`
}

// Run checks the request, finds its evaluations through find (nil:
// Resolve) and ranks them, recording the Holm comparisons when record is
// set (never across evaluation sets); sentence writes each comparison's
// verdict.
func (r RankRequest) Run(ctx context.Context, st *store.Store, find Finder, record bool, sentence func(*Ranking, stats.HolmComparison) string) (*Ranking, error) {
	if len(r.Runs) < 2 {
		return nil, request.Errorf("rank takes at least two evaluations in {run}, got %d", len(r.Runs))
	}
	if r.AcrossEvalSets {
		if r.EvalSet != "" {
			return nil, request.Errorf("{across_eval_sets} ranks on every evaluation set the runs share: it takes no {eval_set}")
		}
		return RankAcrossSets(ctx, st, r.Experiment, r.Runs, r.Metric, r.Control, r.Alpha)
	}
	q := RankQuery{Metric: r.Metric, Control: r.Control, Alpha: r.Alpha, Record: record, Sentence: sentence}
	for _, run := range r.Runs {
		e, err := find.find(ctx, st, r.Experiment, r.EvalSet, run)
		if err != nil {
			return nil, err
		}
		q.Evaluations = append(q.Evaluations, e)
	}
	return Rank(ctx, st, q)
}

// LeaderboardRequest ranks an experiment's runs by a metric.
type LeaderboardRequest struct {
	Experiment string `req:"experiment" short:"e" required:"true" arg:"NAME" help:"experiment whose runs are ranked"`
	EvalSet    string `req:"eval_set" short:"s" arg:"NAME" help:"evaluation set of the runs' evaluations (default: their only one)"`
	Metric     string `req:"metric" short:"m" required:"true" arg:"METRIC" help:"metric to rank by"`
	Baseline   string `req:"baseline" arg:"NAME" help:"compare every run with this run instead of the best"`
	Limit      int    `req:"limit" short:"n" default:"10" arg:"N" help:"the best N runs (and the baseline); 0 for every run"`
	ByGroup    bool   `req:"by_group" help:"rank the groups of runs (configurations, each trained with several seeds, logged with a group) instead of the runs, each group's mean and difference with a two-level bootstrap interval of runs and users; baseline then names a group"`
	Statistics
}

// Query is the request as NewLeaderboard takes it.
func (r LeaderboardRequest) Query() LeaderboardQuery {
	return LeaderboardQuery{Experiment: r.Experiment, EvalSet: r.EvalSet, Metric: r.Metric, Baseline: r.Baseline, Limit: r.Limit, ByGroup: r.ByGroup, Options: r.Statistics.options()}
}

// DiffRequest lists the users two evaluations differ most on.
type DiffRequest struct {
	Pair
	Metric                string `req:"metric" short:"m" required:"true" arg:"METRIC" help:"metric whose per-user differences are listed"`
	Worst                 *int   `req:"worst" default:"10" arg:"N" help:"the N users the candidate did worst on"`
	Best                  *int   `req:"best" arg:"N" help:"the N users the candidate did best on, instead of the worst"`
	AllowDifferentTargets bool   `req:"allow_different_targets" help:"pair the units two evaluations share even when their targets differ"`

	pairs bool
}

// KeepPairs asks for every pair in the result (DiffQuery.Pairs), for a
// door that writes them out or draws them.
func (r *DiffRequest) KeepPairs() { r.pairs = true }

// Run checks the request, finds its evaluations through find (nil:
// Resolve) and lists their differences.
func (r DiffRequest) Run(ctx context.Context, st *store.Store, find Finder) (*DiffResult, error) {
	q := DiffQuery{Metric: r.Metric, AllowDifferentTargets: r.AllowDifferentTargets, Pairs: r.pairs}
	switch {
	case r.Best != nil && r.Worst != nil:
		return nil, request.Errorf("{worst} and {best} each choose which users to list: give one")
	case r.Best != nil:
		q.N, q.Best = *r.Best, true
	case r.Worst != nil:
		q.N = *r.Worst
	}
	b, c, err := r.Pair.Resolve(ctx, st, find)
	if err != nil {
		return nil, err
	}
	return Diff(ctx, st, b, c, q)
}

// ExperimentRequest summarises an experiment: a leaderboard per metric and
// evaluation set, the newest comparisons and runs. The HTML report and the
// web view's experiment page take it.
type ExperimentRequest struct {
	Experiment string   `req:"experiment" short:"e" required:"true" arg:"NAME" help:"experiment to summarise"`
	EvalSet    string   `req:"eval_set" short:"s" arg:"NAME" help:"only this evaluation set (default: every one)"`
	Metrics    []string `req:"metric" short:"m" arg:"METRIC" help:"only this metric (repeatable; default: every metric)"`
	Limit      int      `req:"limit" short:"n" default:"20" arg:"N" help:"runs per leaderboard (the best N); 0 for all"`
	History    int      `req:"history" default:"50" arg:"N" help:"the newest N recorded comparisons"`
	Runs       int      `req:"runs" default:"100" arg:"N" help:"the newest N runs; 0 for all"`
	Statistics
}

// Query is the request as Summarize takes it.
func (r ExperimentRequest) Query() ExperimentQuery {
	return ExperimentQuery{Experiment: r.Experiment, EvalSet: r.EvalSet, Metrics: slices.Clone(r.Metrics), Limit: r.Limit, History: r.History, Runs: r.Runs, Options: r.Statistics.options()}
}

// ScoresRequest compares two sides' scores keyed by unit, as Scores does:
// the catalogue's compare (stats.Methods), on numbers a user gives.
type ScoresRequest struct {
	Statistics
	LeftName      string `req:"left_name" default:"left" arg:"NAME" help:"name of the left side, the baseline, in the verdict"`
	RightName     string `req:"right_name" default:"right" arg:"NAME" help:"name of the right side, the candidate, in the verdict"`
	Metric        string `req:"metric" arg:"METRIC" help:"metric the scores are of, for the verdict"`
	LowerIsBetter bool   `req:"lower_is_better" help:"lower scores are better (a loss, an error rate)"`

	ctx context.Context
}

// SetContext sets the context the comparison runs in.
func (r *ScoresRequest) SetContext(ctx context.Context) { r.ctx = ctx }

// ScoresMethod is the catalogue's compare of the columns left and right
// keyed by id; sentence writes the verdict.
func ScoresMethod(sentence func(*Comparison, *MetricResult) string) stats.Method {
	return stats.NewMethod("compare", "is the winner real? interval, p-value, better/worse/same counts and a verdict sentence",
		`left, right as {"id": score} objects, matched by id (intersection only). In CSV: columns id, left, right; an empty cell is a missing score.`,
		func(in *columns.Columns, r ScoresRequest) (any, error) {
			left, right, err := in.KeyedPair()
			if err != nil {
				return nil, err
			}
			dir := map[bool]Direction{false: HigherIsBetter, true: LowerIsBetter}[r.LowerIsBetter]
			o := r.Statistics.options()
			o.Sentence = sentence
			res, err := Scores(cmp.Or(r.ctx, context.Background()), r.Metric, dir, Named{Name: r.LeftName, Scores: left}, Named{Name: r.RightName, Scores: right}, o)
			if err != nil {
				return nil, err
			}
			return res.Metrics[0], nil
		})
}

// The parsers of the requests' enumerated fields.

// ParseMethod reads a method's name. The empty string is the zero Method,
// which asks Evaluations to choose from the evaluations' protocols.
func ParseMethod(s string) (Method, error) {
	if s == "" {
		return "", nil
	}
	for _, m := range Methods() {
		if string(m) == s {
			return m, nil
		}
	}
	return "", invalidf("method %q: want %s", s, MethodNames())
}

// MethodNames lists the methods' names, comma-separated, for help texts.
func MethodNames() string {
	names := make([]string, len(Methods()))
	for i, m := range Methods() {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// ParseAdjustment reads holm, bonferroni, bh, by or none; the empty string
// is AdjustDefault.
func ParseAdjustment(s string) (Adjustment, error) {
	for _, a := range []Adjustment{AdjustDefault, AdjustNone, AdjustHolm, AdjustBonf, AdjustBH, AdjustBY} {
		if string(a) == s {
			return a, nil
		}
	}
	return "", invalidf("adjustment %q: want holm, bonferroni, bh, by or none", s)
}

// ParseResampling reads auto (or the empty string), multinomial or
// poisson.
func ParseResampling(s string) (Resampling, error) {
	switch Resampling(s) {
	case ResamplingAuto, "auto":
		return ResamplingAuto, nil
	case Multinomial, Poisson:
		return Resampling(s), nil
	}
	return "", invalidf("resampling %q: want auto, multinomial or poisson", s)
}

// ParseGate reads regression, difference, regression-beyond-margin,
// unproven-non-inferiority or the empty string.
func ParseGate(s string) (Gate, error) {
	switch g := Gate(s); g {
	case NoGate, FailOnRegression, FailOnDifference, FailOnRegressionBeyondMargin, FailOnUnprovenNonInferiority:
		return g, nil
	}
	return "", invalidf("fail-on %q: want regression, difference, regression-beyond-margin or unproven-non-inferiority", s)
}
