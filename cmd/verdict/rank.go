package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
)

func rankCommand() *cli.Command {
	return &cli.Command{
		Name:        "rank",
		Usage:       "rank several evaluations with a Friedman test over the units they share",
		ArgsUsage:   "EVAL EVAL [EVAL...]",
		Description: help("rank"),
		Flags: []cli.Flag{
			experimentFlag("experiment `NAME` of runs named as EVALs"), evalSetFlag(),
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "`METRIC` to rank on (required)"},
			&cli.StringFlag{Name: "control", Usage: "control run `NAME` of the Holm comparisons (default: the best)"},
			alphaFlag(),
			reportFormatFlag(),
			plotFlag("a critical-difference diagram"),
			&cli.BoolFlag{Name: "no-record", Usage: "do not record the ranking in the history"},
			&cli.BoolFlag{Name: "across-eval-sets", Usage: "blocks are evaluation sets (data sets), as in Demšar 2006: EVALs are runs of --experiment, each run's mean on every evaluation set they all have"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() < 2 {
				return userError("rank takes at least two evaluations, got %d (see 'verdict rank --help')", c.NArg())
			}
			if c.String("metric") == "" {
				return userError("--metric is required")
			}
			format, st, err := prepare(c)
			if err != nil {
				return err
			}
			defer st.Close()
			var r *compare.Ranking
			if c.Bool("across-eval-sets") {
				r, err = compare.RankAcrossSets(c.Context, st, c.String("experiment"), c.Args().Slice(), c.String("metric"), c.String("control"), c.Float64("alpha"))
			} else {
				q := compare.RankQuery{Metric: c.String("metric"), Control: c.String("control"), Alpha: c.Float64("alpha"),
					Record: !c.Bool("no-record"), Sentence: report.RankVerdict}
				if q.Evaluations, err = resolveArgs(c, st); err != nil {
					return err
				}
				r, err = compare.Rank(c.Context, st, q)
			}
			if err != nil {
				return withHint(err)
			}
			if err := report.Ranking(c.App.Writer, format, r); err != nil {
				return err
			}
			return savePlot(c, func() (*report.Figure, error) { return report.RankingCD(r, r.Metric) })
		},
	}
}
