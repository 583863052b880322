package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request/cliflag"
	"github.com/verdict-ml/verdict/store"
)

func leaderboardCommand() *cli.Command {
	return resultCommand(&cli.Command{Name: "leaderboard", Usage: "runs ranked by a metric, each with its interval and its paired difference to the best"},
		"a forest plot of each run's difference to the reference",
		func(c *cli.Context, st *store.Store, req compare.LeaderboardRequest) (*compare.Leaderboard, error) {
			return compare.NewLeaderboard(c.Context, st, req.Query())
		}, report.Leaderboard, report.LeaderboardForest)
}

// resultCommand makes cmd a report command of the request R: its flags and
// arguments are R's, then --format, --plot (drawing what) and flags. It
// decodes R, opens the store, computes the result with run, writes it in
// the format asked with write and draws it with plot to --plot. Its
// description is help/NAME.txt unless cmd has one.
func resultCommand[R, T any](cmd *cli.Command, what string, run func(*cli.Context, *store.Store, R) (T, error),
	write func(io.Writer, string, T) error, plot func(T) (*report.Figure, error), flags ...cli.Flag) *cli.Command {
	var zero R
	cmd.ArgsUsage, cmd.Flags = cliflag.ArgsUsage(zero), append(append(cliflag.Flags(zero), reportFormatFlag(), plotFlag(what)), flags...)
	if cmd.Description == "" {
		cmd.Description = help(cmd.Name)
	}
	cmd.Action = func(c *cli.Context) error {
		var req R
		if err := cliflag.Decode(c, &req); err != nil {
			return err
		}
		format, st, err := prepare(c)
		if err != nil {
			return err
		}
		defer st.Close()
		res, err := run(c, st, req)
		if err != nil {
			return requestError(req, err)
		}
		if err := write(c.App.Writer, format, res); err != nil {
			return err
		}
		return savePlot(c, func() (*report.Figure, error) { return plot(res) })
	}
	return cmd
}
