package compare

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// TwoLevelBootstrap is the method of a comparison of groups, as recorded in
// MetricResult.Method.
const TwoLevelBootstrap = "two-level-bootstrap"

// SeedDetail is what a comparison of two groups of runs (configurations,
// each trained with several seeds) adds to a metric's result: the runs
// compared, the variance components, and how single runs fare.
type SeedDetail struct {
	// BaselineRuns and CandidateRuns name each group's runs, and
	// BaselineEvaluations and CandidateEvaluations the newest evaluation
	// of each that was compared, in the same order.
	BaselineRuns         []string `json:"baseline_runs"`
	CandidateRuns        []string `json:"candidate_runs"`
	BaselineEvaluations  []int64  `json:"baseline_evaluations"`
	CandidateEvaluations []int64  `json:"candidate_evaluations"`
	// DroppedUnits counts the units some run of either group was not
	// evaluated on, left out of every run.
	DroppedUnits int64 `json:"n_dropped_units"`
	// SE is the difference's standard error from the two-level bootstrap,
	// seeds and users counted; DF the degrees of freedom of its t
	// reference (the runs' Welch–Satterthwaite; the users' n − 1 when a
	// group has one run).
	SE float64 `json:"se"`
	DF float64 `json:"df"`
	// Baseline and Candidate are each group's variance components: seed,
	// user and residual (stats.VarianceComponents); SeedVariance pools
	// the two seed components.
	Baseline     stats.VarianceComponents `json:"baseline_variance"`
	Candidate    stats.VarianceComponents `json:"candidate_variance"`
	SeedVariance float64                  `json:"seed_variance"`
	// RunToRun is how far apart two runs of one configuration typically
	// land on these users: the standard deviation of the difference of
	// their means, seed and residual variance pooled.
	RunToRun float64 `json:"run_to_run_sd"`
	// PCandidateRunBetter is the share of pairs of a baseline run and a
	// candidate run in which the candidate's run is better for the
	// metric's direction, ties counted half: the probability that a
	// single run of the candidate beats a single run of the baseline.
	PCandidateRunBetter float64 `json:"p_candidate_run_better"`
	// SeedNoiseDominates says that two runs of one configuration
	// typically differ by as much as the gap between the groups, or more:
	// RunToRun ≥ |difference|.
	SeedNoiseDominates bool `json:"seed_noise_dominates"`
}

// GroupsQuery names two groups of runs of an experiment to compare.
type GroupsQuery struct {
	Experiment, EvalSet string
	Baseline, Candidate string
	// Find finds each run's newest evaluation (nil: Resolve).
	Find Finder
}

// Groups compares two configurations of an experiment, each a group of
// runs trained with different seeds (store.NewEvaluation.Group), on the
// users every run of both was evaluated on: each run's newest evaluation
// on the evaluation set, every metric they share (or opts.Metrics). Each
// metric is tested by stats.SeedBootstrap, which resamples the runs of
// each group and the users, the same users for both, so that the seeds'
// variance is counted with the users'. It records nothing: the history
// records comparisons of two evaluations.
//
// Errors: ErrInvalid for options that do not apply, store.ErrNotFound for
// a group with no run, store.ErrNotComparable for runs evaluated on
// different evaluation sets (unless AllowDifferentTargets),
// ErrNothingShared for no shared metric or unit.
func Groups(ctx context.Context, st *store.Store, q GroupsQuery, opts Options) (*Comparison, error) {
	switch {
	case q.Experiment == "":
		return nil, invalidf("groups are groups of runs of an experiment; name it")
	case q.Baseline == q.Candidate:
		return nil, invalidf("baseline and candidate are the same group, %q", q.Baseline)
	case opts.Method != "":
		return nil, invalidf("groups are compared by the two-level bootstrap of runs and users; method %s compares two evaluations", opts.Method)
	case opts.FDR != nil:
		return nil, invalidf("a comparison of groups is not recorded in the history, so it cannot be a test of the online FDR stream")
	}
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	base, err := groupEvaluations(ctx, st, q, q.Baseline)
	if err != nil {
		return nil, err
	}
	cand, err := groupEvaluations(ctx, st, q, q.Candidate)
	if err != nil {
		return nil, err
	}
	evals := slices.Concat(base, cand)
	for _, e := range evals {
		if err := e.Pairable(); err != nil {
			return nil, err
		}
		if e.EvalSetID != evals[0].EvalSetID && !opts.AllowDifferentTargets {
			return nil, fmt.Errorf("%w: runs %s (evaluation %d) and %s (evaluation %d) were evaluated on different evaluation sets or targets",
				store.ErrNotComparable, evals[0].Run, evals[0].ID, e.Run, e.ID)
		}
	}
	metrics := opts.Metrics
	if len(metrics) == 0 {
		metrics = sharedMetrics(evals)
		if len(metrics) == 0 {
			return nil, fmt.Errorf("%w: the runs of %s and %s share no metric", ErrNothingShared, q.Baseline, q.Candidate)
		}
	}
	if err := checkMargins(opts, metrics); err != nil {
		return nil, err
	}
	c := &Comparison{Baseline: q.Baseline, Candidate: q.Candidate, BaselineRuns: base, CandidateRuns: cand}
	for _, m := range metrics {
		r, err := compareGroups(ctx, st, c, base, cand, m, opts)
		if err != nil {
			return nil, err
		}
		c.Metrics = append(c.Metrics, r)
	}
	return c, decide(c, opts)
}

// groupEvaluations finds the newest evaluation of each run of group.
func groupEvaluations(ctx context.Context, st *store.Store, q GroupsQuery, group string) ([]*store.Evaluation, error) {
	runs, err := st.ListRuns(ctx, q.Experiment)
	if err != nil {
		return nil, err
	}
	var out []*store.Evaluation
	var groups []string
	for _, r := range runs {
		if r.Group != "" && !slices.Contains(groups, r.Group) {
			groups = append(groups, r.Group)
		}
		if r.Group != group {
			continue
		}
		e, err := q.Find.find(ctx, st, q.Experiment, q.EvalSet, r.Name)
		if err != nil {
			return nil, fmt.Errorf("run %s of group %s: %w", r.Name, group, err)
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		slices.Sort(groups)
		known := "it has no group"
		if len(groups) > 0 {
			known = "its groups are " + strings.Join(groups, ", ")
		}
		return nil, fmt.Errorf("%w: no run of experiment %s is in group %q (%s; a run joins a group when it is logged with one)",
			store.ErrNotFound, q.Experiment, group, known)
	}
	slices.SortFunc(out, func(a, b *store.Evaluation) int { return strings.Compare(a.Run, b.Run) })
	return out, nil
}

// sharedMetrics are the per-unit metrics every evaluation has, in the
// first's order.
func sharedMetrics(evals []*store.Evaluation) []string {
	var out []string
	for _, m := range evals[0].Metrics {
		all := true
		for _, e := range evals[1:] {
			all = all && slices.Contains(e.Metrics, m)
		}
		if all {
			out = append(out, m)
		}
	}
	return out
}

// compareGroups tests metric m between the runs of base and cand.
func compareGroups(ctx context.Context, st *store.Store, c *Comparison, base, cand []*store.Evaluation, m string, opts Options) (*MetricResult, error) {
	units, values, dropped, err := st.UnitMatrix(ctx, slices.Concat(base, cand), m)
	if err != nil {
		return nil, err
	}
	if len(units) == 0 {
		return nil, fmt.Errorf("%w: no unit was evaluated by every run of %s and %s (%d units left out)", ErrNothingShared, c.Baseline, c.Candidate, dropped)
	}
	var lower [][]string
	for _, e := range slices.Concat(base, cand) {
		lower = append(lower, e.LowerIsBetter)
	}
	dir := DirectionOf(m, lower...)
	a, b := runColumns(values, 0, len(base)), runColumns(values, len(base), len(cand))
	res, err := stats.SeedBootstrap(a, b, stats.SeedOptions{Confidence: opts.confidence(), Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx})
	if err != nil {
		return nil, err
	}
	r := &MetricResult{
		Metric: m, Method: TwoLevelBootstrap, Baseline: c.Baseline, Candidate: c.Candidate,
		N: len(units), Alpha: opts.alpha(), Direction: dir, LowerIsBetter: dir.Lower(),
		BaselineMean: res.MeanA, CandidateMean: res.MeanB,
		Difference: stats.Interval{Estimate: res.Difference, Low: res.CILow, High: res.CIHigh, Confidence: res.Confidence},
		PValue:     res.PValue,
	}
	if res.SE > 0 {
		df := res.DF
		r.Statistic = &Statistic{Name: "t", Value: res.Difference / res.SE, DF: &df}
	}
	s := &SeedDetail{DroppedUnits: dropped, SE: res.SE, DF: res.DF, Baseline: res.A, Candidate: res.B,
		SeedVariance: res.Seed, RunToRun: res.RunToRun, PCandidateRunBetter: res.BBeatsA}
	if dir.Lower() {
		s.PCandidateRunBetter = 1 - res.BBeatsA
	}
	s.SeedNoiseDominates = len(base) > 1 && len(cand) > 1 && s.RunToRun >= math.Abs(res.Difference)
	for _, e := range base {
		s.BaselineRuns, s.BaselineEvaluations = append(s.BaselineRuns, e.Run), append(s.BaselineEvaluations, e.ID)
	}
	for _, e := range cand {
		s.CandidateRuns, s.CandidateEvaluations = append(s.CandidateRuns, e.Run), append(s.CandidateEvaluations, e.ID)
	}
	r.Seeds = s
	describeUsers(r, a, b)
	marginFromSeeds(r, res, opts)
	return r, nil
}

// runColumns are the runs first … first+k−1 of values (one row per unit,
// one column per run) as one row per run.
func runColumns(values [][]float64, first, k int) [][]float64 {
	out := make([][]float64, k)
	for j := range out {
		out[j] = make([]float64, len(values))
		for u, row := range values {
			out[j][u] = row[first+j]
		}
	}
	return out
}

// describeUsers counts the users for whom the candidate group's mean over
// its runs is better, worse or the same as the baseline group's, with the
// effect sizes of those per-user differences: d_z and the share of users
// where the candidate is better, ties counted half. They describe; they
// test nothing.
func describeUsers(r *MetricResult, a, b [][]float64) {
	n := len(a[0])
	d := make([]float64, n)
	for u := range n {
		var sa, sb float64
		for _, run := range a {
			sa += run[u]
		}
		for _, run := range b {
			sb += run[u]
		}
		d[u] = sa/float64(len(a)) - sb/float64(len(b))
		switch gain := r.Direction.Gain(d[u]); {
		case gain < 0:
			r.CandidateBetter++
		case gain > 0:
			r.CandidateWorse++
		default:
			r.Same++
		}
	}
	ps := (float64(r.CandidateBetter) + float64(r.Same)/2) / float64(n)
	r.ProbSuperiority = &ps
	if n > 1 {
		mean, sd := stat.MeanStdDev(d, nil)
		if sd > 0 {
			dz := mean / sd
			r.EffectSizeDz = &dz
		}
	}
}

// marginFromSeeds sets r's margin test, when its metric has a margin,
// from the two-level bootstrap's t reference: the one-sided bounds at
// alpha of the difference ± t_{1−α, df}·SE.
func marginFromSeeds(r *MetricResult, res stats.SeedComparison, opts Options) {
	a := oneSidedAlpha(r, opts)
	if a == 0 {
		return
	}
	half := 0.0
	if res.SE > 0 {
		half = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: res.DF}.Quantile(1-a) * res.SE
	}
	iv := stats.Interval{Estimate: res.Difference, Low: res.Difference - half, High: res.Difference + half, Confidence: 1 - 2*a}
	marginFromInterval(r, &iv, marginT, opts)
}
