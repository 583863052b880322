package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

func rankCommand() *cli.Command {
	return &cli.Command{
		Name:      "rank",
		Usage:     "rank several evaluations with a Friedman test over the units they share",
		ArgsUsage: "EVAL EVAL [EVAL...]",
		Description: `rank compares K evaluations at once (Demšar 2006): every unit (sample ID)
present in all of them is a block, the runs are ranked within it (best = 1,
ties averaged), and a Friedman test with the Iman-Davenport correction says
whether they differ at all. The Nemenyi critical difference (CD) and Holm's
step-down tests against --control (default: the best run) say which do.
Runs whose average ranks differ by less than the CD form cliques: groups that
cannot be told apart.

EVALs are evaluation IDs, or run names with --experiment. Flags go before
the EVALs.

Example:
  verdict rank -e movielens --metric ndcg@10 popularity recent-popularity item-knn`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Aliases: []string{"e"}, Usage: "experiment `NAME` of runs named as EVALs"},
			&cli.StringFlag{Name: "eval-set", Aliases: []string{"s"}, Usage: "evaluation set `NAME` of the runs' evaluations"},
			&cli.StringFlag{Name: "metric", Aliases: []string{"m"}, Usage: "`METRIC` to rank on (required)"},
			&cli.StringFlag{Name: "control", Usage: "control run `NAME` of the Holm comparisons (default: the best)"},
			alphaFlag(),
			reportFormatFlag(),
			plotFlag("a critical-difference diagram"),
			&cli.BoolFlag{Name: "no-record", Usage: "do not record the ranking in the history"},
			&cli.BoolFlag{Name: "across-eval-sets", Usage: "blocks are evaluation sets (data sets), as in Demšar 2006: RUNs of --experiment, each run's mean on every evaluation set they all have"},
		},
		Action: runRank,
	}
}

// rankResult is what rank prints.
type rankResult struct {
	Metric   string               `json:"metric"`
	Units    int                  `json:"n_units"`
	Runs     []rankedRun          `json:"runs"`
	Friedman stats.FriedmanResult `json:"friedman"`
	Cliques  [][]string           `json:"cliques"`
}

type rankedRun struct {
	Name         string  `json:"name"`
	EvaluationID int64   `json:"evaluation_id"`
	AvgRank      float64 `json:"avg_rank"`
	Mean         float64 `json:"mean"`
}

func runRank(c *cli.Context) error {
	if c.NArg() < 2 {
		return userError("rank takes at least two evaluations, got %d (see 'verdict rank --help')", c.NArg())
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
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()
	if c.Bool("across-eval-sets") {
		return rankAcrossSets(c, st, metric, format)
	}
	var evals []*store.Evaluation
	var names []string
	for _, arg := range c.Args().Slice() {
		e, err := resolveEvaluation(c, st, arg)
		if err != nil {
			return err
		}
		if len(evals) > 0 && e.EvalSetID != evals[0].EvalSetID {
			return userError("evaluations %d and %d were scored on different evaluation sets or targets; rank needs one", evals[0].ID, e.ID)
		}
		name := e.Run
		if slices.Contains(names, name) {
			name = fmt.Sprintf("%s#%d", e.Run, e.ID)
		}
		evals, names = append(evals, e), append(names, name)
	}
	units, values, err := st.UnitMatrix(c.Context, evals, metric)
	if err != nil {
		return cli.Exit(err.Error(), exitError)
	}
	if len(units) == 0 {
		return userError("the evaluations share no unit")
	}
	// Friedman ranks the highest score first; flip lower-is-better metrics.
	if slices.Contains(evals[0].LowerIsBetter, metric) {
		for _, row := range values {
			for j := range row {
				row[j] = -row[j]
			}
		}
	}
	res := rankResult{Metric: metric, Units: len(units)}
	first, err := stats.Friedman(values, stats.FriedmanOptions{Names: names, Alpha: c.Float64("alpha")})
	if err != nil {
		return cli.Exit(err.Error(), exitError)
	}
	control := c.String("control")
	if control == "" {
		best := 0
		for j, r := range first.AvgRanks {
			if r < first.AvgRanks[best] {
				best = j
			}
		}
		control = names[best]
	}
	if !slices.Contains(names, control) {
		return userError("--control %q is not among the runs (%s)", control, strings.Join(names, ", "))
	}
	res.Friedman, err = stats.Friedman(values, stats.FriedmanOptions{Names: names, Alpha: c.Float64("alpha"), Control: control})
	if err != nil {
		return cli.Exit(err.Error(), exitError)
	}
	for j, e := range evals {
		sum := 0.0
		for _, row := range values {
			sum += row[j]
		}
		mean := sum / float64(len(values))
		if slices.Contains(evals[0].LowerIsBetter, metric) {
			mean = -mean
		}
		res.Runs = append(res.Runs, rankedRun{Name: names[j], EvaluationID: e.ID, AvgRank: res.Friedman.AvgRanks[j], Mean: mean})
	}
	slices.SortStableFunc(res.Runs, func(a, b rankedRun) int { return cmpFloat(a.AvgRank, b.AvgRank) })
	res.Cliques = cliques(res.Runs, res.Friedman.CD)
	if !c.Bool("no-record") {
		if err := recordRank(c, st, evals, names, control, res); err != nil {
			return err
		}
	}
	if format == "json" {
		return writeJSON(c.App.Writer, toOrderedValue(res))
	}
	return finishRank(c, format, res, control)
}

// cliques groups runs, in rank order, into maximal runs of consecutive runs
// whose average ranks differ by less than the critical difference; groups
// contained in another are dropped.
func cliques(runs []rankedRun, cd float64) [][]string {
	var out [][]string
	lastEnd := -1
	for i := range runs {
		j := i
		for j+1 < len(runs) && runs[j+1].AvgRank-runs[i].AvgRank < cd {
			j++
		}
		if j > i && j > lastEnd {
			var g []string
			for _, r := range runs[i : j+1] {
				g = append(g, r.Name)
			}
			out = append(out, g)
			lastEnd = j
		}
	}
	return out
}

func printRank(w io.Writer, format string, res rankResult, control string, alpha float64) error {
	f := res.Friedman
	if format == "csv" {
		return rankCSV(res, control).CSV(w)
	}
	fmt.Fprintf(w, "%s over %d units (blocks) and %d runs\n\n", res.Metric, res.Units, len(res.Runs))
	holm := map[string]stats.HolmComparison{}
	for _, h := range f.Holm {
		holm[h.Name] = h
	}
	t := report.Table{Header: []string{"RANK", "RUN", "AVG RANK", "MEAN", "P ADJ VS " + strings.ToUpper(control), "DIFFERENT"}, Right: map[int]bool{0: true, 2: true, 3: true, 4: true}}
	for i, r := range res.Runs {
		padj, diff := "(control)", ""
		if h, ok := holm[r.Name]; ok {
			padj, diff = report.P(h.PAdjusted), strconv.FormatBool(h.Rejected)
		}
		t.Add(strconv.Itoa(i+1), r.Name, fmt.Sprintf("%.3f", r.AvgRank), report.Num(r.Mean), padj, diff)
		switch {
		case r.Name == control:
			t.Mark(1, report.Strong)
		case diff == "false":
			t.Mark(5, report.Dim)
		}
	}
	if err := t.Write(w, format); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nFriedman chi2 = %s (df %d), %s; Iman-Davenport F = %s, %s\n",
		report.Num(f.Chi2), f.DF, report.PText(f.PValue), report.Num(f.ImanDavenportF), report.PText(f.ImanDavenportP))
	fmt.Fprintf(w, "Nemenyi critical difference at alpha %g: %.3f\n", alpha, f.CD)
	if len(res.Cliques) == 0 {
		fmt.Fprintln(w, "every pair of runs is further apart than the critical difference")
	}
	for _, g := range res.Cliques {
		fmt.Fprintf(w, "not distinguishable from each other: %s\n", strings.Join(g, ", "))
	}
	for _, n := range f.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	return nil
}

// recordRank records each Holm comparison of the control with another run
// in the history, as method "friedman+holm": the means are the metric's, the
// p-values Holm's raw and adjusted ones, and distinguishable is Holm's
// rejection; the whole ranking is kept in outputs.
func recordRank(c *cli.Context, st *store.Store, evals []*store.Evaluation, names []string, control string, res rankResult) error {
	ci := slices.Index(names, control)
	means := map[string]float64{}
	for _, r := range res.Runs {
		means[r.Name] = r.Mean
	}
	for _, h := range res.Friedman.Holm {
		j := slices.Index(names, h.Name)
		winner, verdict := "", fmt.Sprintf("%s and %s are not distinguishable on %s by rank (Holm %s, n = %d units)", control, h.Name, res.Metric, report.PText(h.PAdjusted), res.Units)
		if h.Rejected {
			winner = "left"
			better, worse := control, h.Name
			if res.Friedman.AvgRanks[j] < res.Friedman.AvgRanks[ci] {
				winner, better, worse = "right", h.Name, control
			}
			verdict = fmt.Sprintf("%s ranks better than %s on %s (Holm %s, n = %d units)", better, worse, res.Metric, report.PText(h.PAdjusted), res.Units)
		}
		_, err := st.RecordComparison(c.Context, store.ComparisonRecord{
			LeftID: evals[ci].ID, RightID: evals[j].ID, Metric: res.Metric,
			LowerIsBetter: slices.Contains(evals[0].LowerIsBetter, res.Metric), Method: "friedman+holm",
			Alpha: c.Float64("alpha"), Adjustment: "holm", N: int64(res.Units),
			LeftMean: means[control], RightMean: means[h.Name], Estimate: means[control] - means[h.Name], Low: math.NaN(), High: math.NaN(),
			PValue: h.PValue, PAdjusted: h.PAdjusted, Distinguishable: h.Rejected, Winner: winner,
			Verdict: verdict, Parameters: map[string]any{"control": control, "alpha": c.Float64("alpha")}, Outputs: res,
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// rankAcrossSets ranks runs with data sets as blocks: each block is an
// evaluation set every run has an evaluation on, and a run's value there is
// its newest evaluation's mean of the metric.
func rankAcrossSets(c *cli.Context, st *store.Store, metric, format string) error {
	exp := c.String("experiment")
	if exp == "" {
		return userError("--across-eval-sets ranks runs of --experiment")
	}
	runs := c.Args().Slice()
	perSet := map[string][]float64{}
	var lowerIsBetter bool
	for j, run := range runs {
		evals, err := st.ListEvaluations(c.Context, store.EvaluationFilter{Experiment: exp, Run: run})
		if err != nil {
			return err
		}
		if len(evals) == 0 {
			return userError("run %q of experiment %q has no evaluation", run, exp)
		}
		seen := map[string]bool{}
		for _, e := range evals { // newest first
			mean, ok := e.Aggregates[metric]
			if !ok || seen[e.EvalSet] {
				continue
			}
			seen[e.EvalSet] = true
			lowerIsBetter = lowerIsBetter || slices.Contains(e.LowerIsBetter, metric)
			if perSet[e.EvalSet] == nil {
				perSet[e.EvalSet] = make([]float64, len(runs))
				for k := range perSet[e.EvalSet] {
					perSet[e.EvalSet][k] = math.NaN()
				}
			}
			perSet[e.EvalSet][j] = mean
		}
	}
	var sets []string
	var values [][]float64
	for set, row := range perSet {
		if !slices.ContainsFunc(row, math.IsNaN) {
			sets = append(sets, set)
		}
	}
	slices.Sort(sets)
	for _, set := range sets {
		row := slices.Clone(perSet[set])
		if lowerIsBetter {
			for k := range row {
				row[k] = -row[k]
			}
		}
		values = append(values, row)
	}
	if len(values) < 2 {
		return userError("the runs share %d evaluation sets with %s; ranking across data sets needs at least 2", len(values), metric)
	}
	fr, err := stats.Friedman(values, stats.FriedmanOptions{Names: runs, Alpha: c.Float64("alpha"), Control: c.String("control")})
	if err != nil {
		return cli.Exit(err.Error(), exitError)
	}
	res := rankResult{Metric: metric, Units: len(values), Friedman: fr}
	for j, run := range runs {
		mean := 0.0
		for _, row := range values {
			mean += row[j] / float64(len(values))
		}
		if lowerIsBetter {
			mean = -mean
		}
		res.Runs = append(res.Runs, rankedRun{Name: run, AvgRank: fr.AvgRanks[j], Mean: mean})
	}
	slices.SortStableFunc(res.Runs, func(a, b rankedRun) int { return cmpFloat(a.AvgRank, b.AvgRank) })
	res.Cliques = cliques(res.Runs, fr.CD)
	if format == "json" {
		return writeJSON(c.App.Writer, toOrderedValue(res))
	}
	control := c.String("control")
	if control == "" {
		control = runs[0]
	}
	fmt.Fprintf(c.App.Writer, "blocks: %d evaluation sets (%s)\n", len(sets), strings.Join(sets, ", "))
	return finishRank(c, format, res, control)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// finishRank prints a ranking and draws its --plot.
func finishRank(c *cli.Context, format string, res rankResult, control string) error {
	if format == "json" {
		if err := writeJSON(c.App.Writer, toOrderedValue(res)); err != nil {
			return err
		}
	} else if err := printRank(c.App.Writer, format, res, control, c.Float64("alpha")); err != nil {
		return err
	}
	path := c.String("plot")
	if path == "" {
		return nil
	}
	return savePlot(c, path, func() (*report.Figure, error) {
		names := make([]string, len(res.Runs))
		ranks := make([]float64, len(res.Runs))
		for i, r := range res.Runs {
			names[i], ranks[i] = r.Name, r.AvgRank
		}
		return report.CriticalDifference(fmt.Sprintf("%s: average ranks over %d blocks (Nemenyi CD at alpha %g)", res.Metric, res.Units, c.Float64("alpha")),
			names, ranks, res.Friedman.CD, res.Cliques)
	})
}
