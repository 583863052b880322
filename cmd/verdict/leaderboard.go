package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

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

Example:
  verdict leaderboard -e movielens -s test --metric ndcg@20`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Aliases: []string{"e"}, Usage: "experiment `NAME` (required)"},
			&cli.StringFlag{Name: "eval-set", Aliases: []string{"s"}, Usage: "evaluation set `NAME` (default: the only one)"},
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "`METRIC` to rank by (required)"},
			&cli.StringFlag{Name: "baseline", Usage: "compare every run with run `NAME` instead of the best"},
			alphaFlag(), confidenceFlag(), resamplesFlag(), seedFlag(),
			reportFormatFlag(),
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
	Logged          string          `json:"logged"`
}

type leaderboard struct {
	Metric    string           `json:"metric"`
	EvalSet   string           `json:"evaluation_set"`
	Reference string           `json:"reference"`
	Lower     bool             `json:"lower_is_better"`
	Rows      []leaderboardRow `json:"rows"`
	Separate  []leaderboardRow `json:"other_targets"`
}

func runLeaderboard(c *cli.Context) error {
	exp, metric := c.String("experiment"), c.String("metric")
	if exp == "" || metric == "" {
		return userError("leaderboard needs --experiment and --metric")
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
	all, err := st.ListEvaluations(c.Context, store.EvaluationFilter{Experiment: exp, EvalSet: c.String("eval-set")})
	if err != nil {
		return err
	}
	// The newest evaluation of each run that has the metric.
	seen := map[string]bool{}
	var evals []store.Evaluation
	for _, e := range all {
		if !seen[e.Run] && slices.Contains(e.Metrics, metric) {
			seen[e.Run] = true
			evals = append(evals, e)
		}
	}
	if len(evals) == 0 {
		return userError("no evaluation of experiment %q has %s", exp, metric)
	}
	sets := map[string]bool{}
	for _, e := range evals {
		sets[e.EvalSet] = true
	}
	if len(sets) > 1 {
		var names []string
		for n := range sets {
			names = append(names, n)
		}
		slices.Sort(names)
		return userError("runs were evaluated on several evaluation sets (%s): name one with --eval-set", strings.Join(names, ", "))
	}
	lower := slices.Contains(evals[0].LowerIsBetter, metric)
	better := func(a, b float64) bool { return (a > b) != lower }

	// The main group shares the fingerprint of the most runs (or the baseline's).
	bySet := map[int64][]store.Evaluation{}
	for _, e := range evals {
		bySet[e.EvalSetID] = append(bySet[e.EvalSetID], e)
	}
	main := evals[0].EvalSetID
	for id, es := range bySet {
		if len(es) > len(bySet[main]) {
			main = id
		}
	}
	if b := c.String("baseline"); b != "" {
		i := slices.IndexFunc(evals, func(e store.Evaluation) bool { return e.Run == b })
		if i < 0 {
			return userError("--baseline %q has no evaluation with %s", b, metric)
		}
		main = evals[i].EvalSetID
	}
	ranked := bySet[main]
	slices.SortStableFunc(ranked, func(a, b store.Evaluation) int {
		switch {
		case better(a.Aggregates[metric], b.Aggregates[metric]):
			return -1
		case better(b.Aggregates[metric], a.Aggregates[metric]):
			return 1
		}
		return 0
	})
	ref := ranked[0]
	if b := c.String("baseline"); b != "" {
		ref = ranked[slices.IndexFunc(ranked, func(e store.Evaluation) bool { return e.Run == b })]
	}
	opts := stats.CompareOptions{Alpha: c.Float64("alpha"), Confidence: c.Float64("confidence"), Resamples: c.Int("resamples"), Seed: c.Uint64("seed")}
	lb := leaderboard{Metric: metric, EvalSet: ref.EvalSet, Reference: ref.Run, Lower: lower}
	var ps []float64
	var compared []int
	for i, e := range ranked {
		row, p, err := leaderboardEntry(c, st, &ref, &e, metric, opts)
		if err != nil {
			return err
		}
		row.Rank = i + 1
		if p != nil {
			ps = append(ps, *p)
			compared = append(compared, i)
		}
		lb.Rows = append(lb.Rows, row)
	}
	if len(ps) > 0 {
		adj, err := stats.AdjustPValues(ps, stats.AdjustHolm)
		if err != nil {
			return err
		}
		for k, i := range compared {
			r := &lb.Rows[i]
			p := adj.Adjusted[k]
			r.PAdjusted = &p
			r.Distinguishable = p < opts.Alpha && r.Difference.ExcludesZero()
			r.SameGroup = !r.Distinguishable
		}
	}
	for id, es := range bySet {
		if id == main {
			continue
		}
		for _, e := range es {
			row, _, err := leaderboardEntry(c, st, nil, &e, metric, opts)
			if err != nil {
				return err
			}
			lb.Separate = append(lb.Separate, row)
		}
	}
	if format == "json" {
		return writeJSON(c.App.Writer, toOrderedValue(lb))
	}
	return printLeaderboard(c.App.Writer, lb, format)
}

// leaderboardEntry computes a run's row: its mean with a bootstrap interval
// and, with a reference, the paired comparison with it.
func leaderboardEntry(c *cli.Context, st *store.Store, ref, e *store.Evaluation, metric string, opts stats.CompareOptions) (leaderboardRow, *float64, error) {
	row := leaderboardRow{Run: e.Run, EvaluationID: e.ID, Units: e.Units, Logged: e.CreatedAt.Local().Format("2006-01-02 15:04")}
	self, err := st.Pair(c.Context, e.ID, e.ID, metric, false)
	if err != nil {
		return row, nil, err
	}
	vals, _, units, err := unitRows(self)
	if err != nil {
		return row, nil, err
	}
	var boot stats.BootstrapResult
	if units == nil {
		boot, err = stats.Bootstrap(vals, stats.BootstrapOptions{Confidence: opts.Confidence, Resamples: opts.Resamples, Seed: opts.Seed})
	} else {
		zeros := make([]float64, len(vals))
		boot, err = stats.PairedBootstrap(vals, zeros, units, stats.BootstrapOptions{Confidence: opts.Confidence, Resamples: opts.Resamples, Seed: opts.Seed})
	}
	if err != nil {
		return row, nil, fmt.Errorf("%s: %w", e.Run, err)
	}
	row.Mean = stats.Interval{Estimate: boot.Estimate, Low: boot.Low, High: boot.High, Confidence: boot.Confidence}
	if ref == nil || ref.ID == e.ID {
		row.SameGroup = ref != nil
		return row, nil, nil
	}
	p, err := st.Pair(c.Context, ref.ID, e.ID, metric, false)
	if err != nil {
		if errors.Is(err, store.ErrNotComparable) {
			return row, nil, cli.Exit(err.Error(), exitError)
		}
		return row, nil, err
	}
	left, right, u, err := unitRows(p)
	if err != nil {
		return row, nil, userError("%v", err)
	}
	cmp, err := stats.CompareUnits(left, right, u, opts)
	if err != nil {
		return row, nil, fmt.Errorf("%s: %w", e.Run, err)
	}
	d := cmp.Difference
	row.Difference, row.PValue = &d, &cmp.PValue
	return row, &cmp.PValue, nil
}

func printLeaderboard(w io.Writer, lb leaderboard, format string) error {
	if format != "csv" {
		fmt.Fprintf(w, "%s on %s; differences are %s minus each run, Holm-adjusted; * distinguishable\n\n", lb.Metric, lb.EvalSet, lb.Reference)
	}
	t := report.Table{Header: []string{"RANK", "RUN", strings.ToUpper(lb.Metric) + " [CI]", "UNITS", "DIFFERENCE [CI]", "P ADJ", "", "LOGGED"},
		Right: map[int]bool{0: true, 3: true, 5: true}}
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
	if err := t.Write(w, format); err != nil || format == "csv" {
		return err
	}
	var group []string
	for _, r := range lb.Rows {
		if r.SameGroup {
			group = append(group, r.Run)
		}
	}
	fmt.Fprintf(w, "\ncannot be told apart from %s: %s\n", lb.Reference, strings.Join(group, ", "))
	if len(lb.Separate) > 0 {
		fmt.Fprintln(w, "\nscored against other targets (not ranked with the above):")
		for _, r := range lb.Separate {
			fmt.Fprintf(w, "  %s: %s, %d units, logged %s\n", r.Run, report.Interval(r.Mean.Estimate, r.Mean.Low, r.Mean.High, false), r.Units, r.Logged)
		}
	}
	return nil
}
