package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func historyCommand() *cli.Command {
	return &cli.Command{
		Name:  "history",
		Usage: "list recorded comparisons, newest first",
		Description: `history lists the comparisons 'verdict compare' recorded. The same rows are
in the SQL view comparison_history (see docs/schema.md).

Example:
  verdict history --experiment movielens --metric ndcg@20 --winner baseline --since 30d`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Aliases: []string{"e"}, Usage: "only experiment `NAME`"},
			&cli.StringFlag{Name: "run", Aliases: []string{"r"}, Usage: "only comparisons with run `NAME` on either side"},
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "only `METRIC`"},
			&cli.StringFlag{Name: "winner", Usage: "only comparisons won by `SIDE`: baseline, candidate or none"},
			&cli.StringFlag{Name: "distinguishable", Usage: "only distinguishable (`true`) or indistinguishable (false) ones"},
			&cli.StringFlag{Name: "since", Usage: "only comparisons since `WHEN`: a date (2026-11-01), or an age such as 30d or 12h"},
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "at most `N` comparisons"},
			reportFormatFlag(),
		},
		Action: func(c *cli.Context) error {
			f := store.HistoryFilter{Experiment: c.String("experiment"), Run: c.String("run"), Metric: c.String("metric"), Limit: c.Int("limit")}
			switch w := c.String("winner"); w {
			case "", "baseline", "candidate", "none":
				f.Winner = w
			default:
				return userError("--winner %q: want baseline, candidate or none", w)
			}
			if d := c.String("distinguishable"); d != "" {
				b, err := strconv.ParseBool(d)
				if err != nil {
					return userError("--distinguishable %q: want true or false", d)
				}
				f.Distinguishable = &b
			}
			if s := c.String("since"); s != "" {
				t, err := parseSince(s, time.Now())
				if err != nil {
					return err
				}
				f.Since = t
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
			hist, err := st.History(c.Context, f)
			if err != nil {
				return err
			}
			if format == "json" {
				return writeJSON(c.App.Writer, toOrderedValue(hist))
			}
			if len(hist) == 0 && format == "table" {
				fmt.Fprintln(c.App.Writer, "no comparisons recorded match (record some with 'verdict compare')")
				return nil
			}
			t := report.Table{Header: []string{"ID", "WHEN", "EXPERIMENT", "METRIC", "BASELINE", "CANDIDATE", "DIFFERENCE [CI]", "P", "WINNER"}, Right: map[int]bool{0: true, 7: true}}
			for _, h := range hist {
				winner := h.Winner
				if winner == "" {
					winner = "none"
				}
				t.Add(strconv.FormatInt(h.ID, 10), h.CreatedAt.Local().Format("2006-01-02 15:04"), h.Experiment, h.Metric,
					h.BaselineRun, h.CandidateRun, intervalText(h.Difference, h.Low, h.High), pText(pOf(h)), winner)
				if h.Winner == "" {
					t.Mark(8, report.Dim)
				} else {
					t.Mark(8, report.Strong)
				}
			}
			return t.Write(c.App.Writer, format)
		},
	}
}

func showCommand() *cli.Command {
	return &cli.Command{
		Name:  "show",
		Usage: "show one recorded object",
		Subcommands: []*cli.Command{{
			Name:      "comparison",
			Usage:     "show a recorded comparison with all its parameters and outputs",
			ArgsUsage: "ID",
			Flags:     []cli.Flag{reportFormatFlag()},
			Action: func(c *cli.Context) error {
				id, err := strconv.ParseInt(c.Args().First(), 10, 64)
				if c.NArg() != 1 || err != nil {
					return userError("show comparison takes one comparison ID")
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
				h, err := st.GetComparison(c.Context, id)
				if errors.Is(err, store.ErrNotFound) {
					return userError("no comparison %d", id)
				}
				if err != nil {
					return err
				}
				switch format {
				case "json":
					return writeJSON(c.App.Writer, toOrderedValue(h))
				case "markdown", "csv":
					t, err := fieldTable(toOrderedValue(*h))
					if err != nil {
						return err
					}
					return t.Write(c.App.Writer, format)
				}
				return writeFields(c.App.Writer, toOrderedValue(*h))
			},
		}},
	}
}

// pOf is the p-value a history row was decided with.
func pOf(h store.HistoryEntry) *float64 {
	if h.PAdjusted != nil {
		return h.PAdjusted
	}
	return h.PValue
}

func pText(p *float64) string {
	if p == nil {
		return "-"
	}
	return report.P(*p)
}

func intervalText(est, low, high *float64) string {
	if est == nil {
		return "-"
	}
	if low == nil || high == nil {
		return report.Signed(*est) + " [-, -]"
	}
	return report.Interval(*est, *low, *high, true)
}

// parseSince reads a date (2006-01-02, or RFC 3339) or an age: a number and
// a unit d, h or m.
func parseSince(s string, now time.Time) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	if n, err := strconv.Atoi(strings.TrimRight(s, "dhm")); err == nil && n >= 0 && len(s) > 1 {
		unit := map[byte]time.Duration{'d': 24 * time.Hour, 'h': time.Hour, 'm': time.Minute}[s[len(s)-1]]
		if unit != 0 {
			return now.Add(-time.Duration(n) * unit), nil
		}
	}
	return time.Time{}, userError("--since %q: want a date such as 2026-11-01 or an age such as 30d, 12h or 45m", s)
}
