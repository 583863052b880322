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
	"github.com/verdict-ml/verdict/request/cliflag"
	"github.com/verdict-ml/verdict/store"
)

func reportCommand() *cli.Command {
	return &cli.Command{
		Name:        "report",
		Usage:       "write one self-contained HTML report of an experiment",
		Description: help("report"),
		Flags: append(cliflag.Flags(compare.ExperimentRequest{}),
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "HTML `FILE` to write (required)"},
		),
		Action: runReport,
	}
}

func runReport(c *cli.Context) error {
	var req compare.ExperimentRequest
	if err := cliflag.Decode(c, &req); err != nil {
		return err
	}
	out := c.String("out")
	if out == "" {
		return userError("report needs --out FILE.html (see 'verdict report --help')")
	}
	if ext := strings.ToLower(filepath.Ext(out)); ext != ".html" && ext != ".htm" {
		return userError("--out %s: the report is HTML; name the file .html", out)
	}
	defer holdingValues()()
	var x *compare.Experiment
	if err := withStore(c, func(st *store.Store) (err error) {
		q := req.Query()
		q.Progress = func(metric, set string) {
			fmt.Fprintf(c.App.ErrWriter, "verdict report: leaderboard %s on %s\n", metric, set)
		}
		x, err = compare.Summarize(c.Context, st, q)
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
