package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request/cliflag"
	"github.com/verdict-ml/verdict/store"
)

func runsCommand() *cli.Command {
	return &cli.Command{
		Name:        "runs",
		Usage:       "search runs by params, tags and metrics, and list them with their evaluations",
		Description: help("runs"),
		Flags: append(cliflag.Flags(store.RunQuery{}),
			reportFormatFlag(),
		),
		Action: func(c *cli.Context) error {
			if err := noArgs(c, `runs takes no arguments; a direction goes inside --order-by's quotes, as in --order-by "metrics.ndcg@20 desc"`); err != nil {
				return err
			}
			var q store.RunQuery
			if err := cliflag.Decode(c, &q); err != nil {
				return err
			}
			format, st, err := prepare(c)
			if err != nil {
				return err
			}
			defer st.Close()
			// People read a screenful; scripts get everything unless they ask.
			paged := !c.IsSet("limit") && (format == "table" || format == "markdown")
			if paged {
				q.Limit = defaultRunsShown + 1
			}
			runs, err := st.SearchRuns(c.Context, q)
			if err != nil {
				return err
			}
			more := paged && len(runs) > defaultRunsShown
			if more {
				runs = runs[:defaultRunsShown]
			}
			if len(runs) == 0 && format == "table" {
				if e := q.Experiment; e != "" {
					fmt.Fprintf(c.App.Writer, "no runs in experiment %q\n", e)
				} else {
					fmt.Fprintln(c.App.Writer, "no runs yet: log one with 'verdict log' (or try 'verdict demo')")
				}
				return nil
			}
			return report.RunSearch(c.App.Writer, format, q, runs, more)
		},
	}
}

// defaultRunsShown is how many runs a table lists without --limit.
const defaultRunsShown = 50
