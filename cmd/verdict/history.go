package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/sync/errgroup"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

func historyCommand() *cli.Command {
	return &cli.Command{
		Name:  "history",
		Usage: "list recorded comparisons, newest first",
		Description: `history lists the comparisons 'verdict compare' recorded. The same rows are
in the SQL view comparison_history (see docs/schema.md). With --plot and
--metric it also draws the metric's value of each evaluation on either side
of those comparisons against the time it was logged, each with a bootstrap
interval (--confidence, --resamples, --seed).

Example:
  verdict history --experiment movielens --metric ndcg@20 --winner baseline --since 30d`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Aliases: []string{"e"}, Usage: "only experiment `NAME`"},
			&cli.StringFlag{Name: "run", Aliases: []string{"r"}, Usage: "only comparisons with run `NAME` on either side"},
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "only `METRIC`"},
			&cli.StringFlag{Name: "winner", Usage: "only comparisons won by `SIDE`: baseline, candidate or none"},
			&cli.StringFlag{Name: "distinguishable", Usage: "only distinguishable (`true`) or indistinguishable (false) ones"},
			&cli.StringFlag{Name: "since", Usage: "only comparisons since `WHEN`: a date (2026-11-01), or an age such as 30d or 12h"},
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "at most `N` comparisons"},
			reportFormatFlag(),
			plotFlag("the --metric's value of every evaluation compared, over time, with bootstrap intervals"),
			confidenceFlag(), resamplesFlag(), seedFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "history takes no arguments: filter with --experiment, --run, --metric and the other flags"); err != nil {
				return err
			}
			f := store.HistoryFilter{Experiment: c.String("experiment"), Run: c.String("run"), Metric: c.String("metric"), Limit: c.Int("limit")}
			switch w := c.String("winner"); w {
			case "", "baseline", "candidate", "none":
				f.Winner = w
			default:
				return userError("--winner %q: want baseline, candidate or none", w)
			}
			if d := c.String("distinguishable"); d != "" {
				b, err := strconv.ParseBool(d)
				if err != nil {
					return userError("--distinguishable %q: want true or false", d)
				}
				f.Distinguishable = &b
			}
			if s := c.String("since"); s != "" {
				t, err := parseSince(s, time.Now())
				if err != nil {
					return err
				}
				f.Since = t
			}
			format, err := reportFormat(c)
			if err != nil {
				return err
			}
			if err := checkPlotPath(c); err != nil {
				return err
			}
			if c.String("plot") != "" && f.Metric == "" {
				return userError("--plot draws one metric: name it with --metric")
			}
			st, err := openStore(c)
			if err != nil {
				return err
			}
			defer st.Close()
			hist, err := st.History(c.Context, f)
			if err != nil {
				return err
			}
			if path := c.String("plot"); path != "" {
				if err := savePlot(c, path, func() (*report.Figure, error) { return historyPlot(c, st, f.Metric, hist) }); err != nil {
					return err
				}
			}
			if format == "json" {
				return writeJSON(c.App.Writer, toOrderedValue(hist))
			}
			if len(hist) == 0 && format == "table" {
				fmt.Fprintln(c.App.Writer, "no comparisons recorded match (record some with 'verdict compare')")
				return nil
			}
			if format == "csv" {
				return historyCSV(hist).CSV(c.App.Writer)
			}
			return historyTable(hist, false).Write(c.App.Writer, format)
		},
	}
}

func showCommand() *cli.Command {
	return &cli.Command{
		Name:  "show",
		Usage: "show one recorded object",
		Subcommands: []*cli.Command{{
			Name:      "comparison",
			Usage:     "show a recorded comparison with all its parameters and outputs",
			ArgsUsage: "ID",
			Flags:     []cli.Flag{reportFormatFlag()},
			Action: func(c *cli.Context) error {
				id, err := strconv.ParseInt(c.Args().First(), 10, 64)
				if c.NArg() != 1 || err != nil {
					return userError("show comparison takes one comparison ID")
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
				h, err := st.GetComparison(c.Context, id)
				if errors.Is(err, store.ErrNotFound) {
					return userError("no comparison %d", id)
				}
				if err != nil {
					return err
				}
				switch format {
				case "json":
					return writeJSON(c.App.Writer, toOrderedValue(h))
				case "markdown", "csv":
					t, err := fieldTable(toOrderedValue(*h))
					if err != nil {
						return err
					}
					return t.Write(c.App.Writer, format)
				}
				return writeFields(c.App.Writer, toOrderedValue(*h))
			},
		}},
	}
}

// historyTable lists recorded comparisons; withVerdict adds the verdict
// sentence of each.
func historyTable(hist []store.HistoryEntry, withVerdict bool) *report.Table {
	t := &report.Table{Header: []string{"ID", "WHEN", "EXPERIMENT", "METRIC", "BASELINE", "CANDIDATE", "DIFFERENCE [CI]", "P", "WINNER"}, Right: map[int]bool{0: true, 6: true, 7: true}}
	if withVerdict {
		t.Header = append(t.Header, "VERDICT")
		t.Wrap = map[int]bool{9: true}
	}
	for _, h := range hist {
		winner := h.Winner
		if winner == "" {
			winner = "none"
		}
		t.Add(strconv.FormatInt(h.ID, 10), h.CreatedAt.Local().Format("2006-01-02 15:04"), h.Experiment, h.Metric,
			h.BaselineRun, h.CandidateRun, intervalText(h.Difference, h.Low, h.High), pText(pOf(h)), winner)
		if withVerdict {
			t.Rows[len(t.Rows)-1] = append(t.Rows[len(t.Rows)-1], h.Verdict)
		}
		if h.Winner == "" {
			t.Mark(8, report.Dim)
		} else {
			t.Mark(8, report.Strong)
		}
	}
	return t
}

// pOf is the p-value a history row was decided with.
func pOf(h store.HistoryEntry) *float64 {
	if h.PAdjusted != nil {
		return h.PAdjusted
	}
	return h.PValue
}

func pText(p *float64) string {
	if p == nil {
		return "-"
	}
	return report.P(*p)
}

func intervalText(est, low, high *float64) string {
	if est == nil {
		return "-"
	}
	if low == nil || high == nil {
		return report.Signed(*est) + " [-, -]"
	}
	return report.Interval(*est, *low, *high, true)
}

// parseSince reads a date (2006-01-02, or RFC 3339) or an age: a number and
// a unit d, h or m.
func parseSince(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if n, err := strconv.Atoi(strings.TrimRight(s, "dhm")); err == nil && n >= 0 && len(s) > 1 {
		unit := map[byte]time.Duration{'d': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute}[s[len(s)-1]]
		if unit != 0 {
			return now.Add(-time.Duration(n) * unit), nil
		}
	}
	return time.Time{}, userError("--since %q: want a date such as 2026-11-01 or an age such as 30d, 12h or 45m", s)
}

// historyPlot draws the metric's value of every evaluation in hist against
// the time it was logged.
func historyPlot(c *cli.Context, st *store.Store, metric string, hist []store.HistoryEntry) (*report.Figure, error) {
	if len(hist) == 0 {
		return nil, userError("--plot: no comparison matches, so nothing to draw")
	}
	seen := map[int64]bool{}
	var evals []store.Evaluation
	for _, h := range hist {
		for _, id := range []int64{h.BaselineID, h.CandidateID} {
			if seen[id] {
				continue
			}
			seen[id] = true
			e, err := st.GetEvaluation(c.Context, id)
			if err != nil {
				return nil, err
			}
			evals = append(evals, *e)
		}
	}
	opts := stats.CompareOptions{Confidence: c.Float64("confidence"), Resamples: c.Int("resamples"), Seed: c.Uint64("seed")}
	points, err := valuePoints(c.Context, st, evals, metric, opts)
	if err != nil {
		return nil, err
	}
	return report.History(fmt.Sprintf("%s of the evaluations compared, by the time they were logged", metric),
		fmt.Sprintf("%s (%g%% bootstrap CI)", metric, 100*opts.Confidence), points)
}

// valuePoints is each evaluation's mean of metric with its bootstrap
// interval, at the time it was logged.
func valuePoints(ctx context.Context, st *store.Store, evals []store.Evaluation, metric string, opts stats.CompareOptions) ([]report.HistoryPoint, error) {
	points := make([]report.HistoryPoint, len(evals))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i := range evals {
		g.Go(func() error {
			e := &evals[i]
			rm := store.RunMean{EvaluationID: e.ID, Run: e.Run, EvalSet: e.EvalSet, EvalSetID: e.EvalSetID, Units: e.Units, CreatedAt: e.CreatedAt}
			row, err := leaderboardEntry(gctx, st, nil, &rm, metric, opts)
			if err != nil {
				return err
			}
			m := row.Mean
			points[i] = report.HistoryPoint{Run: evals[i].Run, Time: evals[i].CreatedAt, Estimate: m.Estimate, Low: m.Low, High: m.High}
			return nil
		})
	}
	return points, g.Wait()
}
