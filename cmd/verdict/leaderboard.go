package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sync/errgroup"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

func leaderboardCommand() *cli.Command {
	return &cli.Command{
		Name:  "leaderboard",
		Usage: "runs ranked by a metric, each with its interval and its paired difference to the best",
		Description: `leaderboard ranks the runs of an experiment by their newest evaluation's mean
of --metric on --eval-set. Each row shows the mean with a bootstrap interval,
the units behind it, and the paired difference to the best run (or
--baseline) with its interval and p-value, Holm-adjusted across the rows; a
* marks a distinguishable difference. Runs that cannot be told apart from the
best form its group. Runs whose evaluation was scored against other targets
(a different fingerprint) are listed separately, never ranked with the rest.

Runs are ranked by their stored means; the best --limit of them get
intervals and paired tests, and Holm's adjustment runs over those rows.
--plot draws the differences to the reference as a forest plot.

Example:
  verdict leaderboard -e movielens -s test --metric ndcg@20`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Aliases: []string{"e"}, Usage: "experiment `NAME` (required)"},
			&cli.StringFlag{Name: "eval-set", Aliases: []string{"s"}, Usage: "evaluation set `NAME` (default: the only one)"},
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "`METRIC` to rank by (required)"},
			&cli.StringFlag{Name: "baseline", Usage: "compare every run with run `NAME` instead of the best"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 10, Usage: "show the best `N` runs (and the baseline); 0 shows every run"},
			alphaFlag(), confidenceFlag(), resamplesFlag(), seedFlag(),
			reportFormatFlag(),
			plotFlag("a forest plot of each run's difference to the reference"),
		},
		Action: runLeaderboard,
	}
}

type leaderboardRow struct {
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
	Logged          string          `json:"-"` // LoggedAt for a table
	LoggedAt        time.Time       `json:"logged_at"`
}

type leaderboard struct {
	Metric    string           `json:"metric"`
	EvalSet   string           `json:"evaluation_set"`
	Reference string           `json:"reference"`
	Lower     bool             `json:"lower_is_better"`
	Runs      int              `json:"n_runs"` // ranked runs, shown or not
	Rows      []leaderboardRow `json:"rows"`
	Separate  []leaderboardRow `json:"other_targets"`
	shown     []store.RunMean  // the evaluations behind Rows, in order
	cols      [][]float64      // their values by unit, when read in one query; else nil
}

func runLeaderboard(c *cli.Context) error {
	if err := noArgs(c, "leaderboard takes no arguments: runs are ranked by --metric"); err != nil {
		return err
	}
	q := leaderboardQuery{
		experiment: c.String("experiment"), evalSet: c.String("eval-set"), metric: c.String("metric"),
		baseline: c.String("baseline"), limit: c.Int("limit"),
		opts: stats.CompareOptions{Alpha: c.Float64("alpha"), Confidence: c.Float64("confidence"), Resamples: c.Int("resamples"), Seed: c.Uint64("seed")},
	}
	if q.experiment == "" || q.metric == "" {
		return userError("leaderboard needs --experiment and --metric")
	}
	if q.limit < 0 {
		return userError("--limit %d: want 0 (every run) or more", q.limit)
	}
	if err := checkPlotPath(c); err != nil {
		return err
	}
	format, err := reportFormat(c)
	if err != nil {
		return err
	}
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	lb, err := buildLeaderboard(c.Context, st, q)
	if err != nil {
		return err
	}
	if format == "json" {
		return writeJSON(c.App.Writer, toOrderedValue(lb))
	}
	if err := printLeaderboard(c.App.Writer, lb, format); err != nil {
		return err
	}
	if path := c.String("plot"); path != "" {
		return savePlot(c, path, leaderboardForest(lb))
	}
	return nil
}

// leaderboardQuery is what a leaderboard is asked for.
type leaderboardQuery struct {
	experiment, evalSet, metric, baseline string
	limit                                 int // rows ranked with intervals; 0 for all
	opts                                  stats.CompareOptions
}

// buildLeaderboard ranks the newest evaluation of each run that has the
// metric by its stored mean, and computes intervals and paired differences
// for the first q.limit runs (and the baseline).
func buildLeaderboard(ctx context.Context, st *store.Store, q leaderboardQuery) (leaderboard, error) {
	evals, err := st.LatestMeans(ctx, q.experiment, q.evalSet, q.metric)
	if err != nil {
		return leaderboard{}, err
	}
	if len(evals) == 0 {
		return leaderboard{}, noMetricError(ctx, st, q.experiment, q.evalSet, q.metric)
	}
	sets := map[string]bool{}
	for _, e := range evals {
		sets[e.EvalSet] = true
	}
	if len(sets) > 1 {
		names := slices.Sorted(maps.Keys(sets))
		return leaderboard{}, userError("runs were evaluated on several evaluation sets (%s): name one with --eval-set", strings.Join(names, ", "))
	}
	lower := evals[0].LowerIsBetter
	better := func(a, b float64) bool { return (a > b) != lower }

	// The main group shares the fingerprint of the most runs (or the baseline's).
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
	if q.baseline != "" {
		i := slices.IndexFunc(evals, func(e store.RunMean) bool { return e.Run == q.baseline })
		if i < 0 {
			return leaderboard{}, userError("--baseline %q has no evaluation with %s", q.baseline, q.metric)
		}
		main = evals[i].EvalSetID
	}
	ranked := bySet[main]
	slices.SortStableFunc(ranked, func(a, b store.RunMean) int {
		switch {
		case better(a.Mean, b.Mean):
			return -1
		case better(b.Mean, a.Mean):
			return 1
		}
		return 0
	})
	ref := 0
	if q.baseline != "" {
		ref = slices.IndexFunc(ranked, func(e store.RunMean) bool { return e.Run == q.baseline })
	}
	lb := leaderboard{Metric: q.metric, EvalSet: ranked[ref].EvalSet, Reference: ranked[ref].Run, Lower: lower, Runs: len(ranked)}
	shown := make([]int, 0, len(ranked)) // indexes into ranked
	for i := range ranked {
		if q.limit == 0 || i < q.limit || i == ref {
			shown = append(shown, i)
		}
	}
	rows, cols, err := leaderboardRows(ctx, st, ranked, shown, ref, q)
	if err != nil {
		return leaderboard{}, err
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
			return leaderboard{}, err
		}
		for k, i := range compared {
			r := &rows[i]
			p := adj.Adjusted[k]
			r.PAdjusted = &p
			r.Distinguishable = p < q.opts.Alpha && r.Difference.ExcludesZero()
			r.SameGroup = !r.Distinguishable
		}
	}
	lb.Rows, lb.cols = rows, cols
	for _, i := range shown {
		lb.shown = append(lb.shown, ranked[i])
	}
	for id, es := range bySet {
		if id == main {
			continue
		}
		for _, e := range es {
			row, err := leaderboardEntry(ctx, st, nil, &e, q.metric, q.opts)
			if err != nil {
				return leaderboard{}, err
			}
			lb.Separate = append(lb.Separate, row)
		}
	}
	slices.SortFunc(lb.Separate, func(a, b leaderboardRow) int { return strings.Compare(a.Run, b.Run) })
	return lb, nil
}

// batchValues is the most values leaderboardRows reads in one query.
const batchValues = 1_000_000

// leaderboardRows computes the rows of ranked[shown] against ranked[ref],
// and returns the values it read in one query (nil when it paired instead).
// Without draws, and up to batchValues values, one query reads every shown
// evaluation's values; otherwise each run is paired with the reference. The
// statistics run in parallel, one row per core.
func leaderboardRows(ctx context.Context, st *store.Store, ranked []store.RunMean, shown []int, ref int, q leaderboardQuery) ([]leaderboardRow, [][]float64, error) {
	rows := make([]leaderboardRow, len(shown))
	means := make([]store.RunMean, len(shown))
	draws, total := false, int64(0)
	for k, i := range shown {
		means[k] = ranked[i]
		draws = draws || ranked[i].Rows != ranked[i].Units
		total += ranked[i].Rows
	}
	// One query holds every shown run's values in memory at once, sample
	// IDs included; past a few million values, pairing run by run keeps
	// memory flat instead.
	batch := !draws && total <= batchValues
	var cols [][]float64
	if batch {
		var err error
		if _, cols, err = st.RunMeansColumns(ctx, means); err != nil {
			if errors.Is(err, store.ErrNotComparable) {
				return nil, nil, cli.Exit(err.Error(), exitError)
			}
			return nil, nil, err
		}
	}
	refCol := slices.Index(shown, ref)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for k, i := range shown {
		g.Go(func() error {
			var row leaderboardRow
			var err error
			if batch {
				row, err = leaderboardStats(&means[k], cols[refCol], cols[k], nil, k == refCol, q.opts)
			} else {
				row, err = leaderboardEntry(gctx, st, &ranked[ref], &ranked[i], q.metric, q.opts)
			}
			row.Rank = i + 1
			rows[k] = row
			return err
		})
	}
	return rows, cols, g.Wait()
}

// leaderboardEntry computes a run's row: its mean with a bootstrap interval
// and, with a reference, the paired comparison with it. One read of the
// pair serves both: the run's side holds all its units, since the two share
// their targets.
func leaderboardEntry(ctx context.Context, st *store.Store, ref, e *store.RunMean, metric string, opts stats.CompareOptions) (leaderboardRow, error) {
	refID := e.EvaluationID
	if ref != nil {
		refID = ref.EvaluationID
	}
	p, err := st.Pair(ctx, refID, e.EvaluationID, metric, false)
	if err != nil {
		if errors.Is(err, store.ErrNotComparable) {
			return leaderboardRow{}, cli.Exit(err.Error(), exitError)
		}
		return leaderboardRow{}, err
	}
	left, vals, units, err := unitRows(p)
	if err != nil {
		return leaderboardRow{}, userError("%v", err)
	}
	if ref == nil {
		left = nil
	}
	return leaderboardStats(e, left, vals, units, refID == e.EvaluationID && ref != nil, opts)
}

// leaderboardStats is a run's row from its values and the reference's,
// paired row by row (units names each row's unit when units have draws):
// the mean with its bootstrap interval and, unless isRef, the comparison.
// A nil left means no reference.
func leaderboardStats(e *store.RunMean, left, vals []float64, units []string, isRef bool, opts stats.CompareOptions) (leaderboardRow, error) {
	row := leaderboardRow{Run: e.Run, EvaluationID: e.EvaluationID, Units: e.Units, Logged: e.CreatedAt.Local().Format("2006-01-02 15:04"), LoggedAt: e.CreatedAt}
	bopts := stats.BootstrapOptions{Confidence: opts.Confidence, Resamples: opts.Resamples, Seed: opts.Seed}
	var boot stats.BootstrapResult
	var err error
	if units == nil {
		boot, err = stats.Bootstrap(vals, bopts)
	} else {
		boot, err = stats.PairedBootstrap(vals, make([]float64, len(vals)), units, bopts)
	}
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, err)
	}
	row.Mean = stats.Interval{Estimate: boot.Estimate, Low: boot.Low, High: boot.High, Confidence: boot.Confidence}
	if isRef || left == nil {
		row.SameGroup = isRef
		return row, nil
	}
	cmp, err := stats.CompareUnits(left, vals, units, opts)
	if err != nil {
		return row, fmt.Errorf("%s: %w", e.Run, err)
	}
	d := cmp.Difference
	row.Difference, row.PValue = &d, &cmp.PValue
	return row, nil
}

func printLeaderboard(w io.Writer, lb leaderboard, format string) error {
	if format == "csv" {
		return leaderboardCSV(lb).CSV(w)
	}
	fmt.Fprintf(w, "%s on %s; differences are %s minus each run, Holm-adjusted; * distinguishable\n\n", lb.Metric, lb.EvalSet, lb.Reference)
	if err := leaderboardTable(lb).Write(w, format); err != nil {
		return err
	}
	for _, n := range leaderboardNotes(lb) {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	return nil
}

// leaderboardTable is the ranked runs as a table.
func leaderboardTable(lb leaderboard) *report.Table {
	t := &report.Table{Header: []string{"RANK", "RUN", strings.ToUpper(lb.Metric) + " [CI]", "UNITS", "DIFFERENCE [CI]", "P ADJ", "", "LOGGED"},
		Right: map[int]bool{0: true, 2: true, 3: true, 4: true, 5: true}}
	for _, r := range lb.Rows {
		diff, padj, mark := "(reference)", "", ""
		if r.Difference != nil {
			diff = intervalOf(*r.Difference)
			padj = report.P(*r.PAdjusted)
			if r.Distinguishable {
				mark = "*"
			}
		}
		t.Add(fmt.Sprint(r.Rank), r.Run, report.Interval(r.Mean.Estimate, r.Mean.Low, r.Mean.High, false),
			fmt.Sprint(r.Units), diff, padj, mark, r.Logged)
		switch {
		case r.Difference == nil:
			t.Mark(1, report.Strong)
		case !r.Distinguishable:
			t.Mark(4, report.Dim)
		case (r.Difference.Estimate < 0) != lb.Lower: // the run beats the reference
			t.Mark(4, report.Good)
		default:
			t.Mark(4, report.Bad)
		}
	}
	return t
}

// leaderboardNotes says what the table does not: runs not shown, the
// reference's group, and runs scored against other targets.
func leaderboardNotes(lb leaderboard) []string {
	var notes []string
	if hidden := lb.Runs - len(lb.Rows); hidden > 0 {
		notes = append(notes, fmt.Sprintf("%d more runs ranked below these (--limit 0 shows every run)", hidden))
	}
	var group []string
	for _, r := range lb.Rows {
		if r.SameGroup {
			group = append(group, r.Run)
		}
	}
	notes = append(notes, fmt.Sprintf("cannot be told apart from %s: %s", lb.Reference, strings.Join(group, ", ")))
	if len(lb.Separate) > 0 {
		var other []string
		for _, r := range lb.Separate {
			other = append(other, fmt.Sprintf("%s: %s, %d units, logged %s", r.Run, report.Interval(r.Mean.Estimate, r.Mean.Low, r.Mean.High, false), r.Units, r.Logged))
		}
		notes = append(notes, "scored against other targets (not ranked with the above): "+strings.Join(other, "; "))
	}
	return notes
}

// leaderboardForest is the leaderboard's forest plot: the reference minus
// each run, as in the table.
func leaderboardForest(lb leaderboard) func() (*report.Figure, error) {
	return func() (*report.Figure, error) {
		var rows []report.ForestRow
		for _, r := range lb.Rows {
			if r.Difference == nil {
				continue
			}
			d := r.Difference
			rows = append(rows, report.ForestRow{Label: r.Run, Estimate: d.Estimate, Low: d.Low, High: d.High, Distinguishable: r.Distinguishable})
		}
		if len(rows) == 0 {
			return nil, userError("--plot: the leaderboard has one run, so no difference to draw")
		}
		return report.Forest(fmt.Sprintf("%s on %s: %s minus each run", lb.Metric, lb.EvalSet, lb.Reference),
			fmt.Sprintf("difference in %s, %g%% CI (filled: distinguishable after Holm)", lb.Metric, 100*lb.Rows[0].Mean.Confidence), rows)
	}
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
			return userError("experiment %q has no evaluation on %q", experiment, evalSet)
		}
		return userError("experiment %q has no evaluations", experiment)
	}
	var have []string
	for _, e := range evals {
		for _, m := range e.Metrics {
			if !slices.Contains(have, m) {
				have = append(have, m)
			}
		}
	}
	return userError("no evaluation of experiment %q has %s; its metrics: %s", experiment, metric, strings.Join(have, ", "))
}
