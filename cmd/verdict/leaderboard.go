package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
)

func leaderboardCommand() *cli.Command {
	return &cli.Command{
		Name:        "leaderboard",
		Usage:       "runs ranked by a metric, each with its interval and its paired difference to the best",
		Description: help("leaderboard"),
		Flags: []cli.Flag{
			experimentFlag("experiment `NAME` (required)"), evalSetFlag(),
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "`METRIC` to rank by (required)"},
			&cli.StringFlag{Name: "baseline", Usage: "compare every run with run `NAME` instead of the best"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: 10, Usage: "show the best `N` runs (and the baseline); 0 shows every run"},
			alphaFlag(), confidenceFlag(), resamplesFlag(), seedFlag(),
			reportFormatFlag(),
			plotFlag("a forest plot of each run's difference to the reference"),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, "leaderboard takes no arguments: runs are ranked by --metric"); err != nil {
				return err
			}
			if c.String("experiment") == "" || c.String("metric") == "" {
				return userError("leaderboard needs --experiment and --metric")
			}
			format, st, err := prepare(c)
			if err != nil {
				return err
			}
			defer st.Close()
			lb, err := compare.NewLeaderboard(c.Context, st, compare.LeaderboardQuery{
				Experiment: c.String("experiment"), EvalSet: c.String("eval-set"), Metric: c.String("metric"),
				Baseline: c.String("baseline"), Limit: c.Int("limit"), Options: compareOptions(c),
			})
			if err != nil {
				return withHint(err)
			}
			if err := report.Leaderboard(c.App.Writer, format, lb); err != nil {
				return err
			}
			return savePlot(c, func() (*report.Figure, error) { return report.LeaderboardForest(lb) })
		},
	}
}
