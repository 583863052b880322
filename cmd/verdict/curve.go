package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func curveCommand() *cli.Command {
	return resultCommand(&cli.Command{Name: "curve", Usage: "a training curve: a metric's mean with its bootstrap interval at each step of runs",
		Description: help("curve")},
		"the curve, one line per run, with each step's interval", func(c *cli.Context, st *store.Store, req compare.CurveRequest) (*compare.TrainingCurve, error) {
			return compare.Curve(c.Context, st, req)
		}, report.Curve, report.CurvePlot)
}
