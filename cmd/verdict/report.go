package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:        "report",
		Usage:       "write one self-contained HTML report of an experiment",
		Description: help("report"),
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
	defer holdingValues()()
	var x *compare.Experiment
	if err := withStore(c, func(st *store.Store) (err error) {
		x, err = compare.Summarize(c.Context, st, compare.ExperimentQuery{
			Experiment: exp, EvalSet: c.String("eval-set"), Metrics: c.StringSlice("metric"),
			Limit: c.Int("limit"), History: c.Int("history"), Runs: c.Int("runs"), Options: compareOptions(c),
			Progress: func(metric, set string) {
				fmt.Fprintf(c.App.ErrWriter, "verdict report: leaderboard %s on %s\n", metric, set)
			},
		})
		return err
	}); err != nil {
		return withHint(err)
	}
	page, err := report.ExperimentPage(x, time.Now(), store.Version())
	if err != nil {
		return err
	}
	if err := writeAtomically(out, func(f *os.File) error { return page.WriteHTML(f) }); err != nil {
		return userError("--out: %v", err)
	}
	fmt.Fprintf(c.App.ErrWriter, "verdict report: wrote %s (%d leaderboards, %d comparisons, %d runs)\n", out, len(x.Leaderboards), len(x.History), x.TotalRuns)
	return nil
}
