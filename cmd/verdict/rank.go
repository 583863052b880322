package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request/cliflag"
)

func rankCommand() *cli.Command {
	return &cli.Command{
		Name:        "rank",
		Usage:       "rank several evaluations with a Friedman test over the units they share",
		ArgsUsage:   cliflag.ArgsUsage(compare.RankRequest{}),
		Description: help("rank"),
		Flags: append(cliflag.Flags(compare.RankRequest{}),
			reportFormatFlag(),
			plotFlag("a critical-difference diagram"),
			&cli.BoolFlag{Name: "no-record", Usage: "do not record the ranking in the history"},
		),
		Action: func(c *cli.Context) error {
			var req compare.RankRequest
			if err := cliflag.Decode(c, &req); err != nil {
				return err
			}
			format, st, err := prepare(c)
			if err != nil {
				return err
			}
			defer st.Close()
			r, err := req.Run(c.Context, st, nil, !c.Bool("no-record"), report.RankVerdict)
			if err != nil {
				return requestError(req, err)
			}
			if err := report.Ranking(c.App.Writer, format, r); err != nil {
				return err
			}
			return savePlot(c, func() (*report.Figure, error) { return report.RankingCD(r, r.Metric) })
		},
	}
}
