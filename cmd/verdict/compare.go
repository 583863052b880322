package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request/cliflag"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:        "compare",
		Usage:       "is the winner real? pair two evaluations user by user and test the difference",
		ArgsUsage:   cliflag.ArgsUsage(compare.Request{}),
		Description: help("compare"),
		Flags: append(cliflag.Flags(compare.Request{}),
			reportFormatFlag(),
			plotFlag("a forest plot of the differences, one row per metric"),
			&cli.BoolFlag{Name: "no-record", Usage: "do not record the comparison in the history"},
		),
		Action: runCompare,
	}
}

func runCompare(c *cli.Context) error {
	var req compare.Request
	if err := cliflag.Decode(c, &req); err != nil {
		return err
	}
	record := !c.Bool("no-record")
	if _, _, err := req.Options(record); err != nil {
		return requestError(req, err)
	}
	format, st, err := prepare(c)
	if err != nil {
		return err
	}
	defer st.Close()
	defer holdingValues()()
	res, err := req.Run(c.Context, st, nil, record, report.Verdict)
	if err != nil {
		return requestError(req, err)
	}
	if err := report.Comparison(c.App.Writer, format, res); err != nil {
		return err
	}
	if err := savePlot(c, func() (*report.Figure, error) { return report.ComparisonForest(res) }); err != nil {
		return err
	}
	if r := res.Failed(res.Gate); r != nil {
		return cli.Exit(report.GateFailure(r, res.Gate), exitGate)
	}
	return nil
}
