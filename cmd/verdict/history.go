package main

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request/cliflag"
	"github.com/verdict-ml/verdict/store"
)

func historyCommand() *cli.Command {
	return &cli.Command{
		Name:        "history",
		Usage:       "list recorded comparisons, newest first",
		Description: help("history"),
		Flags: append(append(cliflag.Flags(compare.HistoryQuery{}),
			reportFormatFlag(),
			plotFlag("the --metric's value of every evaluation compared, over time, with bootstrap intervals"),
		), cliflag.Flags(compare.Intervals{})...),
		Action: func(c *cli.Context) error {
			var q compare.HistoryQuery
			var plot compare.Intervals
			if err := cliflag.Decode(c, &q); err != nil {
				return err
			}
			if err := cliflag.Decode(c, &plot); err != nil {
				return err
			}
			f, err := q.Filter(time.Now())
			if err != nil {
				return userError("--%v", err)
			}
			if c.String("plot") != "" && f.Metric == "" {
				return userError("--plot draws one metric: name it with --metric")
			}
			format, st, err := prepare(c)
			if err != nil {
				return err
			}
			defer st.Close()
			hist, err := compare.History(c.Context, st, f)
			if err != nil {
				return err
			}
			if err := savePlot(c, func() (*report.Figure, error) {
				opts := plot.Options()
				points, err := compare.ValuesOverTime(c.Context, st, hist, f.Metric, opts)
				if err != nil {
					return nil, err
				}
				return report.ValuesOverTime(fmt.Sprintf("%s of the evaluations compared, by the time they were logged", f.Metric), f.Metric, opts.Confidence, points)
			}); err != nil {
				return err
			}
			if q.FDR {
				l, err := compare.Ledger(c.Context, st, f.Experiment)
				if err != nil {
					return err
				}
				return report.HistoryFDR(c.App.Writer, format, l, hist)
			}
			return report.HistoryEntries(c.App.Writer, format, hist)
		},
	}
}

func showCommand() *cli.Command {
	return &cli.Command{
		Name:  "show",
		Usage: "show one recorded object",
		Subcommands: []*cli.Command{
			showSubcommand("comparison", "show a recorded comparison with all its parameters and outputs", nil,
				func(c *cli.Context, st *store.Store, id int64, format string) error {
					h, err := compare.GetComparison(c.Context, st, id)
					if err != nil {
						return err
					}
					return report.Recorded(c.App.Writer, format, h)
				}),
			showSubcommand("evaluation", "show a logged evaluation: its run, counts, protocol (eval draws included), means and, with --debug, its debug rows",
				cliflag.Flags(store.EvaluationView{}),
				func(c *cli.Context, st *store.Store, id int64, format string) error {
					var view store.EvaluationView
					if err := cliflag.DecodeFlags(c, &view); err != nil {
						return err
					}
					e, rows, err := view.Get(c.Context, st, id)
					if err != nil {
						return err
					}
					return report.ShowEvaluation(c.App.Writer, format, e, rows, view.Debug)
				}),
		},
	}
}

// showSubcommand is `verdict show NAME ID`: it reads the ID, the format and
// the store, and runs show.
func showSubcommand(name, usage string, flags []cli.Flag, show func(*cli.Context, *store.Store, int64, string) error) *cli.Command {
	return &cli.Command{
		Name: name, Usage: usage, ArgsUsage: "ID", Flags: append(flags, reportFormatFlag()),
		Action: func(c *cli.Context) error {
			id, err := strconv.ParseInt(c.Args().First(), 10, 64)
			if c.NArg() != 1 || err != nil {
				return userError("show %s takes one %s ID", name, name)
			}
			format, st, err := prepare(c)
			if err != nil {
				return err
			}
			defer st.Close()
			if err = show(c, st, id, format); errors.Is(err, store.ErrNotFound) {
				return userError("no %s %d", name, id)
			}
			return err
		},
	}
}
