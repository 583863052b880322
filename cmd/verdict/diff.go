package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/urfave/cli/v2"
	"gonum.org/v1/gonum/stat"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "per-user drill-down: which users moved most between two evaluations",
		ArgsUsage: "BASELINE CANDIDATE",
		Description: `diff pairs two evaluations user by user on --metric and shows the users
whose value fell most (--worst N, the default) or rose most (--best N) from
BASELINE to CANDIDATE, with both values; wins, losses and ties; the
quantiles of the per-user change; and how much of the total change those N
users account for. --out writes every pair to CSV. Changes are
CANDIDATE - BASELINE. Flags go before BASELINE and CANDIDATE.

Example:
  verdict diff -e movielens --metric ndcg@20 --worst 20 --out pairs.csv main pr-1234`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Aliases: []string{"e"}, Usage: "experiment `NAME` of runs named as BASELINE and CANDIDATE"},
			&cli.StringFlag{Name: "eval-set", Aliases: []string{"s"}, Usage: "evaluation set `NAME` of the runs' evaluations"},
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "`METRIC` (required)"},
			&cli.IntFlag{Name: "worst", Usage: "show the `N` users whose value fell most (default 10)"},
			&cli.IntFlag{Name: "best", Usage: "show the `N` users whose value rose most"},
			&cli.StringFlag{Name: "out", Usage: "write every pair (sample_id, baseline, candidate, change) to CSV `FILE`"},
			&cli.BoolFlag{Name: "allow-different-targets", Usage: "pair the units two evaluations share even when their targets differ"},
			reportFormatFlag(),
			plotFlag("a histogram of the per-user changes"),
		},
		Action: runDiff,
	}
}

func runDiff(c *cli.Context) error {
	if c.NArg() != 2 {
		return userError("diff takes BASELINE and CANDIDATE, got %d arguments", c.NArg())
	}
	metric := c.String("metric")
	if metric == "" {
		return userError("--metric is required")
	}
	format, err := reportFormat(c)
	if err != nil {
		return err
	}
	if err := checkPlotPath(c); err != nil {
		return err
	}
	n, best := c.Int("worst"), false
	if c.IsSet("best") {
		n, best = c.Int("best"), true
	}
	if n <= 0 {
		n = 10
	}
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	base, err := resolveEvaluation(c, st, c.Args().Get(0))
	if err != nil {
		return err
	}
	cand, err := resolveEvaluation(c, st, c.Args().Get(1))
	if err != nil {
		return err
	}
	p, err := st.Pair(c.Context, base.ID, cand.ID, metric, c.Bool("allow-different-targets"))
	if err != nil {
		return cli.Exit(err.Error(), exitError)
	}
	if len(p.SampleIDs) == 0 {
		return userError("evaluations %d and %d share no unit", base.ID, cand.ID)
	}
	if err := printDiff(c.App.Writer, p, metric, n, best, c.String("out"), format); err != nil {
		return err
	}
	if path := c.String("plot"); path != "" {
		return savePlot(c, path, func() (*report.Figure, error) {
			changes := make([]float64, len(p.SampleIDs))
			for i := range changes {
				changes[i] = p.RightSum[i]/float64(p.RightRows[i]) - p.LeftSum[i]/float64(p.LeftRows[i])
			}
			return report.Histogram(fmt.Sprintf("%s: %s minus %s, %d users", metric, cand.Run, base.Run, len(changes)),
				fmt.Sprintf("change in %s (candidate − baseline)", metric), changes)
		})
	}
	return nil
}

func printDiff(w io.Writer, p *store.Pairs, metric string, n int, best bool, out, format string) error {
	type pair struct {
		id         string
		base, cand float64
	}
	pairs := make([]pair, len(p.SampleIDs))
	changes := make([]float64, len(pairs))
	var wins, losses, ties int
	total := 0.0
	for i, id := range p.SampleIDs {
		b, c := p.LeftSum[i]/float64(p.LeftRows[i]), p.RightSum[i]/float64(p.RightRows[i])
		pairs[i] = pair{id, b, c}
		changes[i] = c - b
		total += c - b
		switch {
		case c > b:
			wins++
		case c < b:
			losses++
		default:
			ties++
		}
	}
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return userError("--out: %v", err)
		}
		cw := csv.NewWriter(f)
		_ = cw.Write([]string{"sample_id", "baseline", "candidate", "change"})
		for _, q := range pairs {
			_ = cw.Write([]string{q.id, strconv.FormatFloat(q.base, 'g', -1, 64), strconv.FormatFloat(q.cand, 'g', -1, 64), strconv.FormatFloat(q.cand-q.base, 'g', -1, 64)})
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int {
		da, db := a.cand-a.base, b.cand-b.base
		if best {
			da, db = -da, -db
		}
		switch {
		case da < db:
			return -1
		case da > db:
			return 1
		}
		return 0
	})
	n = min(n, len(pairs))
	t := report.Table{Header: []string{"SAMPLE ID", "BASELINE", "CANDIDATE", "CHANGE"}, Right: map[int]bool{1: true, 2: true, 3: true}}
	top := 0.0
	var base, cand, change []float64
	for _, q := range pairs[:n] {
		base, cand, change = append(base, q.base), append(cand, q.cand), append(change, q.cand-q.base)
		top += q.cand - q.base
	}
	vals := report.Nums(append(base, cand...), false)
	changeText := report.Nums(change, true)
	for i, q := range pairs[:n] {
		t.Add(q.id, vals[i], vals[n+i], changeText[i])
	}
	slices.Sort(changes)
	quantiles := []float64{changes[0]}
	for _, q := range []float64{0.05, 0.25, 0.5, 0.75, 0.95} {
		quantiles = append(quantiles, stat.Quantile(q, stat.Empirical, changes, nil))
	}
	quantiles = append(quantiles, changes[len(changes)-1])
	switch format {
	case "csv":
		raw := report.Table{Header: []string{"sample_id", "baseline", "candidate", "change"}}
		for _, q := range pairs[:n] {
			raw.Add(q.id, csvNum(q.base), csvNum(q.cand), csvNum(q.cand-q.base))
		}
		return raw.CSV(w)
	case "json":
		type row struct {
			SampleID  string  `json:"sample_id"`
			Baseline  float64 `json:"baseline"`
			Candidate float64 `json:"candidate"`
			Change    float64 `json:"change"`
		}
		out := struct {
			Metric      string    `json:"metric"`
			Units       int       `json:"n"`
			Wins        int       `json:"candidate_better"`
			Losses      int       `json:"candidate_worse"`
			Ties        int       `json:"same"`
			Quantiles   []float64 `json:"change_quantiles_min_5_25_50_75_95_max"`
			Top         []row     `json:"top"`
			TopChange   float64   `json:"top_change"`
			TotalChange float64   `json:"total_change"`
		}{Metric: metric, Units: len(pairs), Wins: wins, Losses: losses, Ties: ties, Quantiles: quantiles, TopChange: top, TotalChange: total}
		for _, q := range pairs[:n] {
			out.Top = append(out.Top, row{q.id, q.base, q.cand, q.cand - q.base})
		}
		return writeJSON(w, toOrderedValue(out))
	}
	what := "fell most"
	if best {
		what = "rose most"
	}
	fmt.Fprintf(w, "%s: evaluation %d (%s) -> %d (%s), %d paired users; change = candidate - baseline\n\n", metric, p.Left.ID, p.Left.Run, p.Right.ID, p.Right.Run, len(pairs))
	fmt.Fprintf(w, "the %d users whose value %s:\n", n, what)
	if err := t.Write(w, format); err != nil {
		return err
	}
	fmt.Fprintf(w, "\ncandidate better for %d users, worse for %d, the same for %d\n", wins, losses, ties)
	q := make([]any, len(quantiles))
	for i, v := range report.Nums(quantiles, true) {
		q[i] = v
	}
	fmt.Fprintf(w, "change quantiles: min %s, 5%% %s, 25%% %s, median %s, 75%% %s, 95%% %s, max %s\n", q...)
	if total != 0 {
		fmt.Fprintf(w, "these %d users account for %s of the total change %s (%.0f%%)\n", n, report.Signed(top), report.Signed(total), 100*top/total)
	} else {
		fmt.Fprintf(w, "these %d users account for %s; the total change is 0\n", n, report.Signed(top))
	}
	return nil
}
