package main

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "write one self-contained HTML report of an experiment",
		Description: `report writes an experiment's state to one HTML file that opens in any
browser with no server and no network: for every evaluation set and metric a
leaderboard (the runs' newest evaluations, each mean with a bootstrap
interval and the paired difference to the best run, Holm-adjusted), a forest
plot of those differences, a critical-difference diagram of the runs ranked
user by user (Friedman and Nemenyi, with three runs or more) and a plot of
the values over time; the recent
comparison history with each verdict; and the runs with their params and
tags. Plots are inline SVG; the style sheet is inline too.

Example:
  verdict report -e movielens --out report.html`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Aliases: []string{"e"}, Usage: "experiment `NAME` (required)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "HTML `FILE` to write (required)"},
			&cli.StringFlag{Name: "eval-set", Aliases: []string{"s"}, Usage: "only evaluation set `NAME` (default: every one)"},
			&cli.StringSliceFlag{Name: "metric", Aliases: []string{"m"}, Usage: "only `METRIC` (repeatable; default: every metric)"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 20, Usage: "runs per leaderboard (the best `N`); 0 for all"},
			&cli.IntFlag{Name: "history", Value: 50, Usage: "the newest `N` recorded comparisons"},
			&cli.IntFlag{Name: "runs", Value: 100, Usage: "the newest `N` runs; 0 for all"},
			alphaFlag(), confidenceFlag(), resamplesFlag(), seedFlag(),
		},
		Action: runReport,
	}
}

func runReport(c *cli.Context) error {
	if err := noArgs(c, "report takes no arguments: name the file with --out"); err != nil {
		return err
	}
	exp, out := c.String("experiment"), c.String("out")
	if exp == "" || out == "" {
		return userError("report needs --experiment and --out (see 'verdict report --help')")
	}
	if ext := strings.ToLower(filepath.Ext(out)); ext != ".html" && ext != ".htm" {
		return userError("--out %s: the report is HTML; name the file .html", out)
	}
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	evals, err := st.ListEvaluations(c.Context, store.EvaluationFilter{Experiment: exp, EvalSet: c.String("eval-set")})
	if err != nil {
		return err
	}
	if len(evals) == 0 {
		if set := c.String("eval-set"); set != "" {
			return userError("experiment %q has no evaluations on %s", exp, set)
		}
		return userError("experiment %q has no evaluations", exp)
	}
	// Evaluation sets by name, each with its metrics in first-logged order.
	metricsOf := map[string][]string{}
	for i := len(evals) - 1; i >= 0; i-- {
		e := evals[i]
		for _, m := range e.Metrics {
			if !slices.Contains(metricsOf[e.EvalSet], m) {
				metricsOf[e.EvalSet] = append(metricsOf[e.EvalSet], m)
			}
		}
	}
	only := c.StringSlice("metric")
	for _, m := range only {
		found := false
		for _, ms := range metricsOf {
			found = found || slices.Contains(ms, m)
		}
		if !found {
			return userError("--metric %s: no evaluation of experiment %q has it", m, exp)
		}
	}
	opts := stats.CompareOptions{Alpha: c.Float64("alpha"), Confidence: c.Float64("confidence"), Resamples: c.Int("resamples"), Seed: c.Uint64("seed")}
	sets := slices.Sorted(maps.Keys(metricsOf))

	boards := report.Section{ID: "leaderboards", Heading: "Leaderboards"}
	boards.Parts = append(boards.Parts, report.Part{Text: fmt.Sprintf(
		"Each run's newest evaluation, ranked by its mean, with a %g%% bootstrap interval (%d resamples, seed %d). "+
			"Differences are the best run minus each run, paired user by user; p-values come from a sign-flip randomisation test "+
			"and are Holm-adjusted across the rows; * marks a difference distinguishable at alpha %g. "+
			"The critical-difference diagram ranks the runs within each user (Friedman); runs joined by a bar are closer than the Nemenyi critical difference.",
		100*opts.Confidence, opts.Resamples, opts.Seed, opts.Alpha)})
	n := 0
	for _, set := range sets {
		for _, metric := range metricsOf[set] {
			if len(only) > 0 && !slices.Contains(only, metric) {
				continue
			}
			n++
			fmt.Fprintf(c.App.ErrWriter, "verdict report: leaderboard %s on %s\n", metric, set)
			sub, err := leaderboardSection(c, st, exp, set, metric, opts, n)
			if err != nil {
				return err
			}
			boards.Subsections = append(boards.Subsections, sub)
		}
	}

	hist, err := st.History(c.Context, store.HistoryFilter{Experiment: exp, Limit: c.Int("history")})
	if err != nil {
		return err
	}
	history := report.Section{ID: "history", Heading: "Comparison history"}
	if len(hist) == 0 {
		history.Parts = []report.Part{{Text: "No comparison of this experiment has been recorded yet: 'verdict compare' records one."}}
	} else {
		history.Parts = []report.Part{
			{Text: fmt.Sprintf("The %d newest comparisons recorded for this experiment, newest first. Differences are baseline minus candidate.", len(hist))},
			{Table: historyTable(hist, true)},
		}
	}

	runs, err := st.SearchRuns(c.Context, store.RunQuery{Experiment: exp})
	if err != nil {
		return err
	}
	intro := fmt.Sprintf("%d runs with %d evaluations, newest first.", len(runs), len(evals))
	shown := runs
	if n := c.Int("runs"); n > 0 && len(runs) > n {
		shown = runs[:n]
		intro = fmt.Sprintf("%d runs with %d evaluations; the newest %d (verdict runs -e %s --limit 0 lists them all).", len(runs), len(evals), n, exp)
	}
	runSection := report.Section{ID: "runs", Heading: "Runs", Parts: []report.Part{
		{Text: intro},
		{Table: runsTable(shown)},
	}}

	page := report.Page{
		Title: "verdict report: " + exp,
		Subtitle: fmt.Sprintf("%d runs, %d evaluations, %d evaluation sets; generated %s by verdict %s",
			len(runs), len(evals), len(sets), time.Now().Local().Format("2006-01-02 15:04 MST"), store.Version()),
		Sections: []report.Section{boards, history, runSection},
	}
	tmp := out + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return userError("--out: %v", err)
	}
	if err := page.WriteHTML(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, out); err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "verdict report: wrote %s (%d leaderboards, %d comparisons, %d runs)\n", out, n, len(hist), len(runs))
	return nil
}

// leaderboardSection is one evaluation set and metric of the report: the
// leaderboard, its notes, its forest plot and the values over time.
func leaderboardSection(c *cli.Context, st *store.Store, exp, set, metric string, opts stats.CompareOptions, n int) (report.Section, error) {
	sec := report.Section{ID: fmt.Sprintf("leaderboard-%d", n), Heading: fmt.Sprintf("%s on %s", metric, set)}
	lb, err := buildLeaderboard(c.Context, st, leaderboardQuery{experiment: exp, evalSet: set, metric: metric, limit: c.Int("limit"), opts: opts})
	if err != nil {
		return sec, err
	}
	notes := leaderboardNotes(lb)
	for i, n := range notes {
		notes[i] = strings.ToUpper(n[:1]) + n[1:] + "."
	}
	sec.Parts = append(sec.Parts, report.Part{Table: leaderboardTable(lb), Caption: strings.Join(notes, " ")})
	if len(lb.Rows) > 1 {
		fig, err := leaderboardForest(lb)()
		if err != nil {
			return sec, err
		}
		sec.Parts = append(sec.Parts, report.Part{Figure: fig})
	}
	if fig, err := leaderboardCD(lb, opts.Alpha); err != nil {
		return sec, err
	} else if fig != nil {
		sec.Parts = append(sec.Parts, report.Part{Figure: fig})
	}
	points := make([]report.HistoryPoint, len(lb.Rows))
	for i, r := range lb.Rows {
		points[i] = report.HistoryPoint{Run: r.Run, Time: r.LoggedAt, Estimate: r.Mean.Estimate, Low: r.Mean.Low, High: r.Mean.High}
	}
	slices.SortStableFunc(points, func(a, b report.HistoryPoint) int { return a.Time.Compare(b.Time) })
	fig, err := report.History(fmt.Sprintf("%s on %s: each run's newest evaluation, by the time it was logged", metric, set),
		fmt.Sprintf("%s (%g%% bootstrap CI)", metric, 100*opts.Confidence), points)
	if err != nil {
		return sec, err
	}
	sec.Parts = append(sec.Parts, report.Part{Figure: fig})
	return sec, nil
}

// leaderboardCD ranks the leaderboard's runs user by user (Friedman, with
// the Nemenyi critical difference) and draws the critical-difference
// diagram from the values the leaderboard read in one query (one row per
// unit, not too many values), when there are three runs or more; otherwise
// it returns nil.
func leaderboardCD(lb leaderboard, alpha float64) (*report.Figure, error) {
	cols := lb.cols
	if len(lb.shown) < 3 || cols == nil {
		return nil, nil
	}
	names := make([]string, len(lb.shown))
	for j, m := range lb.shown {
		names[j] = m.Run
	}
	values := make([][]float64, len(cols[0]))
	for u := range values {
		values[u] = make([]float64, len(cols))
		for j := range cols {
			values[u][j] = cols[j][u]
			if lb.Lower {
				values[u][j] = -values[u][j] // Friedman ranks the highest first
			}
		}
	}
	fr, err := stats.Friedman(values, stats.FriedmanOptions{Names: names, Alpha: alpha})
	if err != nil {
		return nil, fmt.Errorf("%s on %s: %w", lb.Metric, lb.EvalSet, err)
	}
	runs := make([]rankedRun, len(names))
	for j, n := range names {
		runs[j] = rankedRun{Name: n, AvgRank: fr.AvgRanks[j]}
	}
	slices.SortStableFunc(runs, func(a, b rankedRun) int { return cmpFloat(a.AvgRank, b.AvgRank) })
	return report.CriticalDifference(fmt.Sprintf("%s on %s: average ranks over %d users (Nemenyi CD at alpha %g)", lb.Metric, lb.EvalSet, len(values), alpha),
		names, fr.AvgRanks, fr.CD, cliques(runs, fr.CD))
}
