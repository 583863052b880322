package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
)

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:        "diff",
		Usage:       "per-user drill-down: which users moved most between two evaluations",
		ArgsUsage:   "BASELINE CANDIDATE",
		Description: help("diff"),
		Flags: []cli.Flag{
			experimentFlag("experiment `NAME` of runs named as BASELINE and CANDIDATE"), evalSetFlag(),
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "`METRIC` (required)"},
			&cli.IntFlag{Name: "worst", Usage: "show the `N` users for whom the candidate did worst (default 10)"},
			&cli.IntFlag{Name: "best", Usage: "show the `N` users for whom the candidate did best"},
			&cli.StringFlag{Name: "out", Usage: "write every pair (sample_id, baseline, candidate, difference) to CSV `FILE`"},
			allowDifferentTargetsFlag("pair"),
			reportFormatFlag(),
			plotFlag("a histogram of the per-user differences"),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return userError("diff takes BASELINE and CANDIDATE, got %d arguments", c.NArg())
			}
			q := compare.DiffQuery{Metric: c.String("metric"), N: c.Int("worst"), AllowDifferentTargets: c.Bool("allow-different-targets")}
			if q.Metric == "" {
				return userError("--metric is required")
			}
			if c.IsSet("best") {
				q.N, q.Best = c.Int("best"), true
			}
			format, st, err := prepare(c)
			if err != nil {
				return err
			}
			defer st.Close()
			evals, err := resolveArgs(c, st)
			if err != nil {
				return err
			}
			d, err := compare.Diff(c.Context, st, evals[0], evals[1], q)
			if err != nil {
				return withHint(err)
			}
			if out := c.String("out"); out != "" {
				if err := writeAtomically(out, func(f *os.File) error { return report.DiffPairs(f, d) }); err != nil {
					return userError("--out: %v", err)
				}
			}
			if err := report.Diff(c.App.Writer, format, d); err != nil {
				return err
			}
			return savePlot(c, func() (*report.Figure, error) { return report.DiffHistogram(d) })
		},
	}
}

// writeAtomically writes a file through a temporary one renamed into place, so
// that a failure leaves no half-written file behind.
func writeAtomically(path string, write func(*os.File) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
