package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/report"
)

func runsCommand() *cli.Command {
	return &cli.Command{
		Name:  "runs",
		Usage: "list runs with their number of evaluations",
		Description: `runs lists the runs of one experiment (--experiment) or of all, newest first.

Example:
  verdict runs --experiment movielens`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Aliases: []string{"e"}, Usage: "only runs of experiment `NAME`"},
		},
		Action: func(c *cli.Context) error {
			st, err := openStore(c)
			if err != nil {
				return err
			}
			defer st.Close()
			runs, err := st.ListRuns(c.Context, c.String("experiment"))
			if err != nil {
				return err
			}
			if len(runs) == 0 {
				if e := c.String("experiment"); e != "" {
					fmt.Fprintf(c.App.Writer, "no runs in experiment %q\n", e)
				} else {
					fmt.Fprintln(c.App.Writer, "no runs yet: log one with 'verdict log' (or try 'verdict demo')")
				}
				return nil
			}
			t := report.Table{Header: []string{"EXPERIMENT", "RUN", "CREATED", "EVALUATIONS", "GIT COMMIT"}, Right: map[int]bool{3: true}}
			for _, r := range runs {
				commit := r.GitCommit
				if len(commit) > 12 {
					commit = commit[:12]
				}
				t.Add(r.Experiment, r.Name, r.CreatedAt.Local().Format("2006-01-02 15:04"), fmt.Sprint(r.Evaluations), commit)
			}
			return t.Render(c.App.Writer)
		},
	}
}
