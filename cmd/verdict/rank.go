package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func rankCommand() *cli.Command {
	return resultCommand(&cli.Command{Name: "rank", Usage: "rank several evaluations with a Friedman test over the units they share"},
		"a critical-difference diagram",
		func(c *cli.Context, st *store.Store, req compare.RankRequest) (*compare.Ranking, error) {
			return req.Run(c.Context, st, nil, !c.Bool("no-record"), report.RankVerdict)
		}, report.Ranking, func(r *compare.Ranking) (*report.Figure, error) { return report.RankingCD(r, r.Metric) },
		&cli.BoolFlag{Name: "no-record", Usage: "do not record the ranking in the history"})
}
