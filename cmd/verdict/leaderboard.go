package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request/cliflag"
)

func leaderboardCommand() *cli.Command {
	return &cli.Command{
		Name:        "leaderboard",
		Usage:       "runs ranked by a metric, each with its interval and its paired difference to the best",
		Description: help("leaderboard"),
		Flags: append(cliflag.Flags(compare.LeaderboardRequest{}),
			reportFormatFlag(),
			plotFlag("a forest plot of each run's difference to the reference"),
		),
		Action: func(c *cli.Context) error {
			var req compare.LeaderboardRequest
			if err := cliflag.Decode(c, &req); err != nil {
				return err
			}
			format, st, err := prepare(c)
			if err != nil {
				return err
			}
			defer st.Close()
			lb, err := compare.NewLeaderboard(c.Context, st, req.Query())
			if err != nil {
				return requestError(req, err)
			}
			if err := report.Leaderboard(c.App.Writer, format, lb); err != nil {
				return err
			}
			return savePlot(c, func() (*report.Figure, error) { return report.LeaderboardForest(lb) })
		},
	}
}
