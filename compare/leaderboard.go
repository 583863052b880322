package compare

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// LeaderboardQuery is what a leaderboard is asked for.
type LeaderboardQuery struct {
	Experiment string
	// EvalSet may be empty when the experiment's runs were evaluated on one
	// evaluation set only.
	EvalSet string
	Metric  string
	// Baseline is the reference run every run is compared with; empty
	// means the best run.
	Baseline string
	// Limit is how many of the best runs get intervals and paired tests
	// (the baseline always does); 0 means every run.
	Limit int
	// Ranks adds a Friedman ranking of the shown runs user by user, when
	// there are three or more (Leaderboard.Ranking).
	Ranks bool
	// Alpha, Confidence, Resamples and Seed as in Options.
	Options Options
	// Columns, when set, holds the runs' values already read (by
	// Summarize, for every metric at once); runs it lacks are read.
	Columns *store.ValueColumns
	// ByGroup ranks the experiment's groups of runs (configurations, each
	// trained with several seeds) instead of its runs, with two-level
	// bootstrap intervals; Baseline then names a group.
	ByGroup bool
	// Rows, when set, keeps the rows computed and gives back those
	// computed before (RowCache); without Ranks and Columns only.
	Rows *RowCache
}

// LeaderboardRow is one run: its mean with a bootstrap interval and its
// paired difference to the reference, reference − run.
type LeaderboardRow struct {
	Rank            int             `json:"rank"`
	Run             string          `json:"run"`
	EvaluationID    int64           `json:"evaluation_id"`
	Mean            stats.Interval  `json:"mean"`
	Units           int64           `json:"n_units"`
	Difference      *stats.Interval `json:"difference_to_reference"`
	PValue          *float64        `json:"p_value"`
	PAdjusted       *float64        `json:"p_adjusted"`
	Distinguishable bool            `json:"distinguishable"`
	SameGroup       bool            `json:"same_group_as_reference"`
	LoggedAt        time.Time       `json:"logged_at"`
	// AggregatesOnly marks a run whose evaluation has no per-unit values of
	// the metric (logged with its aggregates only, or a whole-set metric):
	// it is ranked by its mean, with no interval and no paired test.
	AggregatesOnly bool `json:"aggregates_only,omitempty"`
	// Seeds, in a leaderboard by group, are the group's runs: the row is
	// a group, Run its name and EvaluationID 0.
	Seeds *RowSeeds `json:"seeds,omitempty"`
	// Better is the side that is distinguishably better: Baseline for the
	// reference, Candidate for this run, Neither when they cannot be told
	// apart (and for the reference's own row).
	Better Side `json:"-"`
}

// leaderboardRowJSON is a row as JSON has it: the mean a number, with its
// interval's bounds and level beside it (null bounds for a run logged with
// its aggregates only).
type leaderboardRowJSON struct {
	Rank            int             `json:"rank"`
	Run             string          `json:"run"`
	EvaluationID    int64           `json:"evaluation_id"`
	Mean            float64         `json:"mean"`
	MeanLow         *float64        `json:"mean_ci_low"`
	MeanHigh        *float64        `json:"mean_ci_high"`
	Confidence      float64         `json:"confidence"`
	Units           int64           `json:"n_units"`
	Difference      *stats.Interval `json:"difference_to_reference"`
	PValue          *float64        `json:"p_value"`
	PAdjusted       *float64        `json:"p_adjusted"`
	Distinguishable bool            `json:"distinguishable"`
	SameGroup       bool            `json:"same_group_as_reference"`
	LoggedAt        time.Time       `json:"logged_at"`
	AggregatesOnly  bool            `json:"aggregates_only,omitempty"`
	Seeds           *RowSeeds       `json:"seeds,omitempty"`
}

// MarshalJSON writes the row with its mean as a number, mean_ci_low and
// mean_ci_high beside it.
func (r LeaderboardRow) MarshalJSON() ([]byte, error) {
	finite := func(x float64) *float64 {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	return json.Marshal(leaderboardRowJSON{Rank: r.Rank, Run: r.Run, EvaluationID: r.EvaluationID,
		Mean: r.Mean.Estimate, MeanLow: finite(r.Mean.Low), MeanHigh: finite(r.Mean.High), Confidence: r.Mean.Confidence,
		Units: r.Units, Difference: r.Difference, PValue: r.PValue, PAdjusted: r.PAdjusted, Distinguishable: r.Distinguishable,
		SameGroup: r.SameGroup, LoggedAt: r.LoggedAt, AggregatesOnly: r.AggregatesOnly, Seeds: r.Seeds})
}

// UnmarshalJSON reads a row as MarshalJSON writes it; null bounds are NaN.
func (r *LeaderboardRow) UnmarshalJSON(b []byte) error {
	var j leaderboardRowJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	bound := func(x *float64) float64 {
		if x == nil {
			return math.NaN()
		}
		return *x
	}
	*r = LeaderboardRow{Rank: j.Rank, Run: j.Run, EvaluationID: j.EvaluationID,
		Mean:  stats.Interval{Estimate: j.Mean, Low: bound(j.MeanLow), High: bound(j.MeanHigh), Confidence: j.Confidence},
		Units: j.Units, Difference: j.Difference, PValue: j.PValue, PAdjusted: j.PAdjusted, Distinguishable: j.Distinguishable,
		SameGroup: j.SameGroup, LoggedAt: j.LoggedAt, AggregatesOnly: j.AggregatesOnly, Seeds: j.Seeds}
	return nil
}

// IsReference reports whether the row is the reference's own.
func (r *LeaderboardRow) IsReference() bool { return r.Difference == nil && !r.AggregatesOnly }

// meanOnlyRow is the row of a run without per-unit values: its mean alone.
func meanOnlyRow(e *store.RunMean, confidence float64) LeaderboardRow {
	nan := math.NaN()
	return LeaderboardRow{Run: e.Run, EvaluationID: e.EvaluationID, Units: e.Units, LoggedAt: e.CreatedAt, AggregatesOnly: true,
		Mean: stats.Interval{Estimate: e.Mean, Low: nan, High: nan, Confidence: confidence}}
}

// Leaderboard ranks the newest evaluation of each run of an experiment by
// a metric, best first for the metric's direction.
type Leaderboard struct {
	Metric        string `json:"metric"`
	EvalSet       string `json:"evaluation_set"`
	Reference     string `json:"reference"`
	LowerIsBetter bool   `json:"lower_is_better"`
	// Runs counts the ranked runs, shown or not.
	Runs int `json:"n_runs"`
	// Method is how the rows' intervals and p-values were computed:
	// "bootstrap+randomization" (each mean's bootstrap interval, each
	// difference's paired bootstrap interval and sign-flip p-value),
	// "paired-t" (the t intervals and the paired t-test, from exact sums)
	// or, by group, "two-level-bootstrap"; empty when no run has per-unit
	// values. Auto says why the t was chosen, as a comparison's does
	// (leaderboardAuto).
	Method string      `json:"method,omitempty"`
	Auto   *AutoChoice `json:"auto,omitempty"`
	// ByGroup marks a leaderboard of groups of runs (LeaderboardQuery.
	// ByGroup): each row is a group, Groups counts them, and Ungrouped
	// counts the experiment's runs of no group, not ranked.
	ByGroup   bool             `json:"by_group,omitempty"`
	Groups    int              `json:"n_groups,omitempty"`
	Ungrouped int              `json:"n_runs_without_group,omitempty"`
	Rows      []LeaderboardRow `json:"rows"`
	// Separate are runs scored against other targets, never ranked with
	// the rest.
	Separate []LeaderboardRow `json:"other_targets"`
	// Group lists the shown runs, other than the reference, that cannot be
	// told apart from it.
	Group []string `json:"-"`
	// Ranking ranks the shown runs user by user, when asked for and there
	// are three or more read in one query; else nil.
	Ranking   *Ranking  `json:"-"`
	Direction Direction `json:"-"`
	// Options are the query's, defaults filled in.
	Options Options `json:"-"`
	shown   []store.RunMean
}

// bigRow is the most units of a leaderboard row computed beside others.
const bigRow = 1_000_000

// batchValues is the most values a leaderboard reads as columns, in
// queries of a million values (store.RunMeansColumns): 64 MB of columns,
// and the samples resampled from them, 8 bytes a value each. Runs of more
// than batchRunUnits units are read so only up to a million values in
// all: a query reads their sample IDs too, about 40 bytes a value, where
// pairing each with the reference reads 8.
const (
	batchValues   = 8_000_000
	batchRunUnits = 100_000
)

// batchable reports whether the values of runs of one row a unit, means,
// are read as columns (store.RunMeansColumns) rather than paired with the
// reference run by run.
func batchable(means []store.RunMean) bool {
	var total, most int64
	for _, m := range means {
		total += m.Rows
		most = max(most, m.Units)
	}
	return total <= 1_000_000 || total <= batchValues && most <= batchRunUnits
}

// ErrNoEvaluations is returned when an experiment (or its evaluation set)
// has no evaluation, or none with the metric; the message names the
// metrics it has.
var ErrNoEvaluations = errors.New("no evaluations")

// NewLeaderboard ranks the runs of q.Experiment by their newest
// evaluation's stored mean of q.Metric, and computes, for the best q.Limit
// runs and the baseline, the mean's bootstrap interval and the paired
// difference to the reference with its randomisation p-value,
// Holm-adjusted across the rows and decided with stats.Decide. Runs whose
// evaluation was scored against other targets are listed apart.
func NewLeaderboard(ctx context.Context, st *store.Store, q LeaderboardQuery) (*Leaderboard, error) {
	if q.Experiment == "" || q.Metric == "" {
		return nil, invalidf("a leaderboard needs an experiment and a metric")
	}
	if q.Limit < 0 {
		return nil, invalidf("limit %d: want 0 (every run) or more", q.Limit)
	}
	if err := checkOptions(q.Options); err != nil {
		return nil, err
	}
	if q.ByGroup {
		return groupBoard(ctx, st, q)
	}
	evals, err := st.LatestMeans(ctx, q.Experiment, q.EvalSet, q.Metric)
	if err != nil {
		return nil, err
	}
	if len(evals) == 0 {
		return nil, noMetricError(ctx, st, q.Experiment, q.EvalSet, q.Metric)
	}
	sets := map[string]bool{}
	for _, e := range evals {
		sets[e.EvalSet] = true
	}
	if len(sets) > 1 {
		return nil, fmt.Errorf("%w: runs were evaluated on %s; name one", store.ErrSeveralEvalSets, strings.Join(slices.Sorted(maps.Keys(sets)), ", "))
	}
	dir := HigherIsBetter
	if evals[0].LowerIsBetter {
		dir = LowerIsBetter
	}

	// The main group shares the fingerprint of the most runs (or the
	// baseline's).
	bySet := map[int64][]store.RunMean{}
	for _, e := range evals {
		bySet[e.EvalSetID] = append(bySet[e.EvalSetID], e)
	}
	main := evals[0].EvalSetID
	for id, es := range bySet {
		if len(es) > len(bySet[main]) {
			main = id
		}
	}
	if q.Baseline != "" {
		i := slices.IndexFunc(evals, func(e store.RunMean) bool { return e.Run == q.Baseline })
		if i < 0 {
			return nil, fmt.Errorf("%w: baseline %q has no evaluation with %s", store.ErrNotFound, q.Baseline, q.Metric)
		}
		main = evals[i].EvalSetID
	}
	ranked := bySet[main]
	slices.SortStableFunc(ranked, func(a, b store.RunMean) int { return dir.Cmp(a.Mean, b.Mean) })
	// The reference is the baseline, or the best run with per-unit values;
	// a run without them is ranked by its mean alone.
	ref := slices.IndexFunc(ranked, func(e store.RunMean) bool { return !e.NoUnits })
	if q.Baseline != "" {
		ref = slices.IndexFunc(ranked, func(e store.RunMean) bool { return e.Run == q.Baseline })
		if ranked[ref].NoUnits {
			return nil, fmt.Errorf("%w: baseline %q has no per-unit values of %s (aggregates only), so no run can be paired with it", store.ErrNoUnits, q.Baseline, q.Metric)
		}
	}
	lb := &Leaderboard{Metric: q.Metric, EvalSet: ranked[0].EvalSet,
		LowerIsBetter: dir.Lower(), Direction: dir, Runs: len(ranked), Options: q.Options.resolved()}
	if ref >= 0 {
		lb.Reference = ranked[ref].Run
	}
	var shown, meanOnly []int // indexes into ranked
	for i, e := range ranked {
		switch {
		case q.Limit != 0 && i >= q.Limit && i != ref:
		case e.NoUnits:
			meanOnly = append(meanOnly, i)
		default:
			shown = append(shown, i)
		}
	}
	var rows []LeaderboardRow
	var cols [][]float64
	if ref >= 0 {
		var cache *RowCache
		if !q.Ranks && q.Columns == nil {
			cache = q.Rows
		}
		means := make([]store.RunMean, len(shown))
		for k, i := range shown {
			means[k] = ranked[i]
		}
		lb.Method, lb.Auto = Bootstrap.label(), leaderboardAuto(means, q.Options)
		if lb.Auto != nil {
			lb.Method = PairedT.label()
		}
		if rows, cols, err = leaderboardRows(ctx, st, ranked, shown, ref, q.Metric, q.Options, q.Columns, cache, lb.Auto != nil, q.Ranks); err != nil {
			return nil, err
		}
	}
	var ps []float64
	var compared []int
	for i, row := range rows {
		if row.PValue != nil {
			ps = append(ps, *row.PValue)
			compared = append(compared, i)
		}
	}
	if len(ps) > 0 {
		adj, err := stats.AdjustPValues(ps, stats.AdjustHolm)
		if err != nil {
			return nil, err
		}
		for k, i := range compared {
			r := &rows[i]
			p := adj.Adjusted[k]
			r.PAdjusted = &p
			r.Distinguishable = stats.Decide(p, q.Options.alpha(), *r.Difference).Distinguishable
			r.SameGroup = !r.Distinguishable
			if r.Distinguishable {
				// Difference is reference − run.
				r.Better = Candidate
				if dir.Gain(r.Difference.Estimate) > 0 {
					r.Better = Baseline
				}
			} else {
				lb.Group = append(lb.Group, r.Run)
			}
		}
	}
	for _, i := range meanOnly {
		row := meanOnlyRow(&ranked[i], lb.Options.Confidence)
		row.Rank = i + 1
		rows = append(rows, row)
	}
	slices.SortStableFunc(rows, func(a, b LeaderboardRow) int { return a.Rank - b.Rank })
	lb.Rows = rows
	for _, i := range shown {
		lb.shown = append(lb.shown, ranked[i])
	}
	for id, es := range bySet {
		if id == main {
			continue
		}
		for _, e := range es {
			if e.NoUnits {
				lb.Separate = append(lb.Separate, meanOnlyRow(&e, lb.Options.Confidence))
				continue
			}
			var row LeaderboardRow
			if lb.Auto != nil && leaderboardAuto([]store.RunMean{e}, q.Options) != nil {
				row, err = meanRowT(ctx, st, &e, q.Metric, q.Options)
			} else {
				row, err = leaderboardEntry(ctx, st, nil, &e, q.Metric, q.Options, q.Columns)
			}
			if err != nil {
				return nil, err
			}
			lb.Separate = append(lb.Separate, row)
		}
	}
	slices.SortFunc(lb.Separate, func(a, b LeaderboardRow) int { return strings.Compare(a.Run, b.Run) })
	if q.Ranks && cols != nil && len(lb.shown) >= 3 {
		names := make([]string, len(lb.shown))
		for j, m := range lb.shown {
			names[j] = m.Run
		}
		if lb.Ranking, err = rankColumns(q.Metric, dir, names, cols, q.Options.alpha(), ""); err != nil {
			return nil, fmt.Errorf("%s on %s: %w", lb.Metric, lb.EvalSet, err)
		}
	}
	return lb, nil
}

// leaderboardRows computes the rows of ranked[shown] against ranked[ref],
// and returns the values it read, by run (nil when it paired instead, or
// took rows from cache). Without draws, and up to batchValues values
// (batchable), every shown evaluation's values are read at once;
// otherwise each run is paired with the reference, which keeps memory
// flat. The statistics run in parallel, one row per core. With cache, and
// without draws, the rows cache holds are taken from it
// (leaderboardRowsCached).
func leaderboardRows(ctx context.Context, st *store.Store, ranked []store.RunMean, shown []int, ref int, metric string, opts Options, read *store.ValueColumns, cache *RowCache, t, ranks bool) ([]LeaderboardRow, [][]float64, error) {
	rows := make([]LeaderboardRow, len(shown))
	means := make([]store.RunMean, len(shown))
	draws := false
	for k, i := range shown {
		means[k] = ranked[i]
		draws = draws || ranked[i].Rows != ranked[i].Units
	}
	if slices.ContainsFunc(means, func(m store.RunMean) bool { return m.Predictions }) {
		rows, err := predictionRows(ctx, st, ranked, shown, ref, metric, opts)
		return rows, nil, err
	}
	refCol := slices.Index(shown, ref)
	if t && refCol >= 0 {
		// A leaderboard with ranks gets the runs' values, from read or,
		// when they are few enough (batchable), read here.
		var cols [][]float64
		if ranks {
			ok, err := false, error(nil)
			if read != nil {
				if _, cols, ok, err = read.RunMeansColumns(means); err != nil {
					return nil, nil, err
				}
			}
			if !ok && batchable(means) {
				if _, cols, err = st.RunMeansColumns(ctx, means); err != nil {
					return nil, nil, err
				}
			}
		}
		rows, err := leaderboardRowsT(ctx, st, means, refCol, metric, opts, cols)
		for k, i := range shown {
			rows[k].Rank = i + 1
		}
		return rows, cols, err
	}
	if cache != nil && !draws && refCol >= 0 {
		rows, err := leaderboardRowsCached(ctx, st, ranked, shown, ref, metric, opts, cache)
		return rows, nil, err
	}
	batch := !draws && batchable(means)
	var cols [][]float64
	if batch {
		ok, err := false, error(nil)
		if read != nil {
			_, cols, ok, err = read.RunMeansColumns(means)
		}
		if !ok {
			_, cols, err = st.RunMeansColumns(ctx, means)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if !draws && refCol >= 0 && (batch || sharedFits(means)) {
		rows, err := leaderboardRowsShared(ctx, st, means, refCol, metric, cols, opts, nil)
		for k, i := range shown {
			rows[k].Rank = i + 1
		}
		return rows, cols, err
	}
	g, gctx := errgroup.WithContext(ctx)
	// A row of many units resamples on every core by itself, and holds
	// its units meanwhile: such rows take their turn, so that memory
	// stays that of one.
	limit := runtime.GOMAXPROCS(0)
	if slices.ContainsFunc(means, func(m store.RunMean) bool { return m.Units > bigRow }) {
		limit = 1
	}
	g.SetLimit(limit)
	for k, i := range shown {
		g.Go(func() error {
			var row LeaderboardRow
			var err error
			if batch {
				row, err = leaderboardStats(gctx, &means[k], stats.PairedUnits{LeftSum: cols[refCol], RightSum: cols[k]}, k == refCol, opts)
			} else {
				row, err = leaderboardEntry(gctx, st, &ranked[ref], &ranked[i], metric, opts, read)
			}
			row.Rank = i + 1
			rows[k] = row
			return err
		})
	}
	return rows, cols, g.Wait()
}

// sharedBytes bounds the bytes of samples a leaderboard resamples
// together: a mean and a difference of 10,000,000 units a run, and the
// reference's mean.
const sharedBytes = 3 * 8 * 10_000_000

// sharedFits reports whether the means and differences of the runs of
// means, paired with a reference, fit in sharedBytes.
func sharedFits(means []store.RunMean) bool {
	var units int64
	for _, m := range means {
		units = max(units, m.Units)
	}
	return int64(2*len(means)-1)*8*units <= sharedBytes
}

// leaderboardRowsShared computes the rows of runs of one row per unit,
// means[refCol] the reference: every run's mean and every other run's
// difference from the reference are resampled together
// (stats.PairedBootstrapDifferencesShared, then the sign flips of the
// differences), from the draws each would draw alone, drawn once; the
// numbers are leaderboardStats', bit for bit. cols holds the values when
// one query read them; otherwise each run is paired with the reference,
// in turn, and its values are held as the samples they make, 8 bytes a
// unit each. A run whose haveMean is set (haveMean may be nil) has its
// mean from the caller: its row's Mean is left zero.
func leaderboardRowsShared(ctx context.Context, st *store.Store, means []store.RunMean, refCol int, metric string, cols [][]float64, opts Options, haveMean []bool) ([]LeaderboardRow, error) {
	m := len(means)
	rows := make([]LeaderboardRow, m)
	for k, e := range means {
		rows[k] = LeaderboardRow{Run: e.Run, EvaluationID: e.EvaluationID, Units: e.Units, LoggedAt: e.CreatedAt, SameGroup: k == refCol}
	}
	meanOf, diffOf := make([]*stats.UnitDifferences, m), make([]*stats.UnitDifferences, m)
	// has reports whether the caller has run k's mean already.
	has := func(k int) bool { return haveMean != nil && haveMean[k] }
	errs := make([]error, m)
	// sample makes a run's mean sample from its n values v: the
	// differences of the values and nothing.
	sample := func(v func(i int) float32, n int) (*stats.UnitDifferences, error) {
		return stats.DifferencesOfPairs32(againstZero(n, v))
	}
	if cols != nil {
		// The columns are stored reals widened: float32 gives them back
		// exactly.
		for k, c := range cols {
			if !has(k) {
				if meanOf[k], errs[k] = sample(func(i int) float32 { return float32(c[i]) }, len(c)); errs[k] != nil {
					continue
				}
			}
			if k == refCol {
				continue
			}
			diffOf[k], errs[k] = stats.DifferencesOfPairs32(pairedColumns(cols[refCol], c))
		}
	} else {
		ref := means[refCol]
		pair := func(id int64) (*store.MetricPairs, error) {
			var mp *store.MetricPairs
			err := st.InTx(ctx, func(tx *store.Tx) error {
				var err error
				mp, err = tx.PairMetrics(ctx, ref.EvaluationID, id, []string{metric}, store.PairOptions{})
				return err
			})
			if err == nil && !mp.OneRow() {
				err = fmt.Errorf("evaluations %d and %d have several rows per unit", ref.EvaluationID, id)
			}
			return mp, err
		}
		for k, e := range means {
			if k == refCol {
				continue
			}
			mp, err := pair(e.EvaluationID)
			if err != nil {
				return nil, err
			}
			v := mp.Values32(0)
			mp.Release(0)
			// The reference's mean takes all its units: from the first
			// pairing that has them all.
			if leftOnly, _ := mp.Unpaired(); meanOf[refCol] == nil && !has(refCol) && leftOnly == 0 {
				meanOf[refCol], errs[refCol] = sample(func(i int) float32 { return v[2*i] }, len(v)/2)
			}
			if !has(k) {
				if meanOf[k], errs[k] = sample(func(i int) float32 { return v[2*i+1] }, len(v)/2); errs[k] != nil {
					continue
				}
			}
			equalizeWithinStorage32(v)
			diffOf[k], errs[k] = stats.DifferencesOfPairs32(v)
		}
		if meanOf[refCol] == nil && errs[refCol] == nil && !has(refCol) {
			mp, err := pair(ref.EvaluationID)
			if err != nil {
				return nil, err
			}
			v := mp.Values32(0)
			mp.Release(0)
			meanOf[refCol], errs[refCol] = sample(func(i int) float32 { return v[2*i] }, len(v)/2)
		}
	}
	// The means, then the differences, each where its run has one.
	var samples []*stats.UnitDifferences
	var owner []int // the row of each sample, negative for a difference
	for k := range m {
		if errs[k] == nil && meanOf[k] != nil {
			samples, owner = append(samples, meanOf[k]), append(owner, k)
		}
	}
	var diffs []*stats.UnitDifferences
	var diffRows []int
	for k := range m {
		if errs[k] == nil && diffOf[k] != nil {
			samples, owner = append(samples, diffOf[k]), append(owner, -1-k)
			diffs, diffRows = append(diffs, diffOf[k]), append(diffRows, k)
		}
	}
	bopts := stats.BootstrapOptions{Confidence: opts.confidence(), Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx}
	boots, _, bootErrs, _ := stats.PairedBootstrapDifferencesShared(len(samples), func(i int) *stats.UnitDifferences { return samples[i] }, nil, bopts)
	for i, k := range owner {
		row := max(k, -1-k)
		switch {
		case errs[row] != nil:
		case bootErrs[i] != nil:
			errs[row] = bootErrs[i]
		case k >= 0:
			b := boots[i]
			rows[row].Mean = stats.Interval{Estimate: b.Estimate, Low: b.Low, High: b.High, Confidence: b.Confidence}
		default:
			b := boots[i]
			rows[row].Difference = &stats.Interval{Estimate: b.Estimate, Low: b.Low, High: b.High, Confidence: b.Confidence}
		}
	}
	perms, permErrs := stats.RandomizationDifferencesShared(len(diffs), func(i int) *stats.UnitDifferences { return diffs[i] },
		stats.RandomizationOptions{Permutations: opts.resamples(), Seed: opts.Seed, Context: ctx})
	for i, k := range diffRows {
		switch {
		case errs[k] != nil:
		case permErrs[i] != nil:
			errs[k] = permErrs[i]
		default:
			rows[k].PValue = &perms[i].PValue
		}
	}
	for k, err := range errs {
		if err != nil {
			return rows, fmt.Errorf("%s: %w", means[k].Run, err)
		}
	}
	return rows, nil
}

// leaderboardEntry computes a run's row: its mean with a bootstrap interval
// and, with a reference, the paired comparison with it. One read of the
// pair serves both: the run's side holds all its units, since the two
// share their targets.
func leaderboardEntry(ctx context.Context, st *store.Store, ref, e *store.RunMean, metric string, opts Options, read *store.ValueColumns) (LeaderboardRow, error) {
	refID := e.EvaluationID
	if ref != nil {
		refID = ref.EvaluationID
	}
	if e.Predictions {
		return predictionEntry(ctx, st, ref, e, metric, opts)
	}
	refIndex := e.MetricIndex
	if ref != nil {
		refIndex = ref.MetricIndex
	}
	p, ok := (*store.Pairs)(nil), false
	oneRow := e.Rows == e.Units && (ref == nil || ref.Rows == ref.Units)
	if read != nil && oneRow {
		p, ok = read.Pair(refID, e.EvaluationID, refIndex, e.MetricIndex)
	}
	if !ok && oneRow {
		return leaderboardEntry32(ctx, st, ref, e, refID, metric, opts)
	}
	if !ok {
		var err error
		if p, err = st.Pair(ctx, refID, e.EvaluationID, metric, false); err != nil {
			return LeaderboardRow{}, err
		}
	}
	u := stats.PairedUnits{LeftSum: p.LeftSum, RightSum: p.RightSum}
	if p.Draws() {
		u.Rows = p.RightRows
		for i, id := range p.SampleIDs {
			if p.LeftRows[i] != p.RightRows[i] {
				return LeaderboardRow{}, fmt.Errorf("%w: %s: unit %q has %d rows in %s and %d in %s; draws must match to pair",
					ErrNotApplicable, e.Run, id, p.LeftRows[i], ref.Run, p.RightRows[i], e.Run)
			}
		}
	}
	if ref == nil {
		u.LeftSum = nil
	}
	return leaderboardStats(ctx, e, u, ref != nil && refID == e.EvaluationID, opts)
}

// leaderboardEntry32 is leaderboardEntry for units of one row on both
// sides, held as the float32 pairs they are stored as, 8 bytes a unit:
// the run's mean from its values widened, then the difference from the
// pairs' differences, taken in their place. The numbers are
// leaderboardStats', bit for bit.
func leaderboardEntry32(ctx context.Context, st *store.Store, ref, e *store.RunMean, refID int64, metric string, opts Options) (LeaderboardRow, error) {
	var mp *store.MetricPairs
	err := st.InTx(ctx, func(tx *store.Tx) error {
		var err error
		mp, err = tx.PairMetrics(ctx, refID, e.EvaluationID, []string{metric}, store.PairOptions{})
		return err
	})
	if err != nil {
		return LeaderboardRow{}, err
	}
	if !mp.OneRow() {
		return LeaderboardRow{}, fmt.Errorf("%s: evaluations %d and %d have several rows per unit", e.Run, refID, e.EvaluationID)
	}
	values := mp.Values32(0)
	mp.Release(0)
	row := LeaderboardRow{Run: e.Run, EvaluationID: e.EvaluationID, Units: e.Units, LoggedAt: e.CreatedAt}
	bopts := stats.BootstrapOptions{Confidence: opts.confidence(), Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx}
	own := make([]float64, len(values)/2)
	for i := range own {
		own[i] = float64(values[2*i+1])
	}
	boot, err := stats.Bootstrap(own, bopts)
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, err)
	}
	row.Mean = stats.Interval{Estimate: boot.Estimate, Low: boot.Low, High: boot.High, Confidence: boot.Confidence}
	isRef := ref != nil && refID == e.EvaluationID
	if isRef || ref == nil {
		row.SameGroup = isRef
		return row, nil
	}
	equalizeWithinStorage32(values)
	d, err := stats.DifferencesOfPairs32(values)
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, err)
	}
	diff, err := stats.PairedBootstrapDifferences(d, bopts)
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, err)
	}
	perm, err := stats.RandomizationDifferences(d, stats.RandomizationOptions{Permutations: diff.Resamples, Seed: opts.Seed, Context: ctx})
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, err)
	}
	iv := stats.Interval{Estimate: diff.Estimate, Low: diff.Low, High: diff.High, Confidence: diff.Confidence}
	row.Difference, row.PValue = &iv, &perm.PValue
	return row, nil
}

// leaderboardStats is a run's row from its per-unit sums (u.RightSum) and
// the reference's (u.LeftSum, nil for no reference): the mean with its
// bootstrap interval and, unless isRef, the comparison.
func leaderboardStats(ctx context.Context, e *store.RunMean, u stats.PairedUnits, isRef bool, opts Options) (LeaderboardRow, error) {
	row := LeaderboardRow{Run: e.Run, EvaluationID: e.EvaluationID, Units: e.Units, LoggedAt: e.CreatedAt}
	bopts := stats.BootstrapOptions{Confidence: opts.confidence(), Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx}
	var boot stats.BootstrapResult
	var err error
	if u.Rows == nil {
		boot, err = stats.Bootstrap(u.RightSum, bopts)
	} else {
		boot, err = stats.PairedBootstrapUnits(stats.PairedUnits{LeftSum: u.RightSum, RightSum: make([]float64, len(u.RightSum)), Rows: u.Rows}, bopts)
	}
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, err)
	}
	row.Mean = stats.Interval{Estimate: boot.Estimate, Low: boot.Low, High: boot.High, Confidence: boot.Confidence}
	if isRef || u.LeftSum == nil {
		row.SameGroup = isRef
		return row, nil
	}
	u.RightSum = slices.Clone(u.RightSum) // shared with the run's mean and other rows
	equalizeWithinStorage(u.LeftSum, u.RightSum)
	diff, err := stats.PairedBootstrapUnits(u, bopts)
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, err)
	}
	perm, err := stats.RandomizationUnits(u, stats.RandomizationOptions{Permutations: diff.Resamples, Seed: opts.Seed, Context: ctx})
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, err)
	}
	d := stats.Interval{Estimate: diff.Estimate, Low: diff.Low, High: diff.High, Confidence: diff.Confidence}
	row.Difference, row.PValue = &d, &perm.PValue
	return row, nil
}

// noMetricError says that no evaluation has the metric, and which metrics
// the experiment's evaluations do have.
func noMetricError(ctx context.Context, st *store.Store, experiment, evalSet, metric string) error {
	evals, err := st.ListEvaluations(ctx, store.EvaluationFilter{Experiment: experiment, EvalSet: evalSet})
	if err != nil {
		return err
	}
	if len(evals) == 0 {
		if evalSet != "" {
			return fmt.Errorf("%w: experiment %q has no evaluation on %q", ErrNoEvaluations, experiment, evalSet)
		}
		return fmt.Errorf("%w: experiment %q has no evaluations", ErrNoEvaluations, experiment)
	}
	var have []string
	for _, e := range evals {
		for _, m := range e.Metrics {
			if !slices.Contains(have, m) {
				have = append(have, m)
			}
		}
	}
	return fmt.Errorf("%w: no evaluation of experiment %q has %s; its metrics: %s", ErrNoEvaluations, experiment, metric, strings.Join(have, ", "))
}
