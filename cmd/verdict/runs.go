package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func runsCommand() *cli.Command {
	return &cli.Command{
		Name:  "runs",
		Usage: "search runs by params, tags and metrics, and list them with their evaluations",
		Description: `runs lists the runs of one experiment (--experiment) or of all, newest first,
or as --filter and --order-by say.

A filter compares operands with = != < <= > >= LIKE ILIKE or IN (...), joined
by AND, OR, NOT and parentheses. Operands: run, created, git_commit,
params.NAME, tags.NAME ('true' when the run has the tag) and metrics.NAME
(the mean in the run's newest evaluation, on --eval-set if given). Values are
'single-quoted strings' ('' for a quote) or numbers. The filter becomes
parameterised SQL; a syntax error names its column.

Example:
  verdict runs -e movielens --filter "params.lr < 0.01 AND tags.nightly = 'true'" \
      --order-by "metrics.ndcg@20 desc" --limit 10`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Aliases: []string{"e"}, Usage: "only runs of experiment `NAME`"},
			&cli.StringFlag{Name: "filter", Aliases: []string{"f"}, Usage: "only runs matching `EXPR`"},
			&cli.StringFlag{Name: "order-by", Usage: "order by `KEY` [asc|desc], e.g. \"metrics.ndcg@20 desc\" (default: newest first)"},
			&cli.IntFlag{Name: "limit", Usage: "at most `N` runs; 0 for all (default: all for json and csv, 50 for a table or Markdown)"},
			&cli.StringFlag{Name: "eval-set", Aliases: []string{"s"}, Usage: "evaluation set `NAME` that metrics.NAME reads"},
			reportFormatFlag(),
		},
		Action: func(c *cli.Context) error {
			if err := noArgs(c, `runs takes no arguments; a direction goes inside --order-by's quotes, as in --order-by "metrics.ndcg@20 desc"`); err != nil {
				return err
			}
			format, err := reportFormat(c)
			if err != nil {
				return err
			}
			st, err := openStore(c)
			if err != nil {
				return err
			}
			defer st.Close()
			// People read a screenful; scripts get everything unless they ask.
			limit, more := c.Int("limit"), false
			if !c.IsSet("limit") && (format == "table" || format == "markdown") {
				limit = defaultRunsShown + 1
			}
			runs, err := st.SearchRuns(c.Context, store.RunQuery{
				Experiment: c.String("experiment"), EvalSet: c.String("eval-set"),
				Filter: c.String("filter"), OrderBy: c.String("order-by"), Limit: limit,
			})
			if !c.IsSet("limit") && len(runs) > defaultRunsShown && (format == "table" || format == "markdown") {
				runs, more = runs[:defaultRunsShown], true
			}
			if errors.Is(err, store.ErrBadFilter) {
				return cli.Exit(err.Error(), exitError)
			}
			if err != nil {
				return err
			}
			if format == "json" {
				return writeJSON(c.App.Writer, toOrderedValue(runs))
			}
			if len(runs) == 0 && format == "table" {
				if e := c.String("experiment"); e != "" {
					fmt.Fprintf(c.App.Writer, "no runs in experiment %q\n", e)
				} else {
					fmt.Fprintln(c.App.Writer, "no runs yet: log one with 'verdict log' (or try 'verdict demo')")
				}
				return nil
			}
			if format == "csv" {
				return runsCSV(runs).CSV(c.App.Writer)
			}
			if err := runsTable(runs).Write(c.App.Writer, format); err != nil || !more {
				return err
			}
			_, err = fmt.Fprintf(c.App.Writer, "\nmore runs match; these are the first %d (--limit 0 lists them all)\n", defaultRunsShown)
			return err
		},
	}
}

// defaultRunsShown is how many runs a table lists without --limit.
const defaultRunsShown = 50

// reportFormatFlag is the --format of report commands.
func reportFormatFlag() cli.Flag {
	return &cli.StringFlag{Name: "format", Value: "table", Usage: "output `FORMAT`: table, markdown, json or csv"}
}

// reportFormat reads and checks --format.
func reportFormat(c *cli.Context) (string, error) {
	f := c.String("format")
	switch f {
	case "table", "markdown", "json", "csv":
		return f, nil
	}
	return "", userError("--format %q: want table, markdown, json or csv", f)
}

// runsTable lists runs with their params and tags.
func runsTable(runs []store.Run) *report.Table {
	t := &report.Table{Header: []string{"EXPERIMENT", "RUN", "CREATED", "EVALUATIONS", "GIT COMMIT", "TAGS", "PARAMS"}, Right: map[int]bool{3: true}}
	for _, r := range runs {
		commit := r.GitCommit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		t.Add(r.Experiment, r.Name, r.CreatedAt.Local().Format("2006-01-02 15:04"), fmt.Sprint(r.Evaluations), commit,
			strings.Join(r.Tags, ","), paramsText(r.Params))
	}
	return t
}

// paramsText is params as "k=v" pairs in key order, numbers in full.
func paramsText(params map[string]any) string {
	parts := make([]string, 0, len(params))
	for _, k := range slices.Sorted(maps.Keys(params)) {
		v := params[k]
		var text string
		switch x := v.(type) {
		case string:
			text = x
		case float64:
			text = strconv.FormatFloat(x, 'g', -1, 64)
		default:
			b, _ := json.Marshal(x)
			text = string(b)
		}
		parts = append(parts, k+"="+text)
	}
	return strings.Join(parts, " ")
}
