package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
)

// Comparison writes a comparison of two evaluations in format: a table
// with one row per metric and the verdict sentences under it (table,
// markdown), one row per metric with every number in full (csv), or the
// metrics' results as a JSON array (json).
func Comparison(w io.Writer, format string, c *compare.Comparison) error {
	switch format {
	case "json":
		return WriteJSON(w, c.Metrics)
	case "csv":
		return comparisonCSV(c).CSV(w)
	}
	t := comparisonTable(c)
	b, cd := c.BaselineEval, c.CandidateEval
	if format == "markdown" {
		if b != nil && cd != nil {
			fmt.Fprintf(w, "**verdict compare**: baseline `%s/%s` (evaluation %d) vs candidate `%s/%s` (evaluation %d) on `%s`; difference = baseline − candidate\n\n",
				Printable(b.Experiment), Printable(b.Run), b.ID, Printable(cd.Experiment), Printable(cd.Run), cd.ID, Printable(b.EvalSet))
		} else {
			fmt.Fprintf(w, "**verdict compare --groups**: baseline group `%s` (%s) vs candidate group `%s` (%s); difference = baseline − candidate, of the groups' means over their runs; not recorded in the history\n\n",
				Printable(c.Baseline), groupRunsText(c.BaselineRuns, "`"), Printable(c.Candidate), groupRunsText(c.CandidateRuns, "`"))
		}
		if err := t.Markdown(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
		if d := droppedText(c); d != "" {
			fmt.Fprintf(w, "%s\n\n", d)
		}
		for _, r := range c.Metrics {
			fmt.Fprintf(w, "- **%s**: %s\n", Printable(r.Metric), r.Verdict)
			for _, x := range r.Warnings {
				fmt.Fprintf(w, "  - **warning**: %s\n", WarningText(x))
			}
		}
		return nil
	}
	if b != nil && cd != nil {
		fmt.Fprintf(w, "baseline: evaluation %d (%s/%s on %s)\ncandidate: evaluation %d (%s/%s on %s)\n",
			b.ID, Printable(b.Experiment), Printable(b.Run), Printable(b.EvalSet), cd.ID, Printable(cd.Experiment), Printable(cd.Run), Printable(cd.EvalSet))
		fmt.Fprintln(w, "difference = baseline − candidate; BETTER/WORSE/SAME count units where the candidate is better, worse, the same; P(SUP) is the share of units where the candidate is better, ties counted half")
	} else {
		fmt.Fprintf(w, "baseline: group %s, %s\ncandidate: group %s, %s\n",
			Printable(c.Baseline), groupRunsText(c.BaselineRuns, ""), Printable(c.Candidate), groupRunsText(c.CandidateRuns, ""))
		fmt.Fprintln(w, "difference = baseline − candidate, of the groups' means over their runs, tested by a two-level bootstrap of runs and users; BETTER/WORSE/SAME and P(SUP) compare each user's mean over the runs; not recorded in the history")
	}
	if d := droppedText(c); d != "" {
		fmt.Fprintln(w, d)
	}
	fmt.Fprintln(w)
	if err := t.Write(w, "table"); err != nil {
		return err
	}
	fmt.Fprintln(w)
	for _, r := range c.Metrics {
		fmt.Fprintf(w, "%s: %s\n", Paint(t.Color, Strong, Printable(r.Metric)), r.Verdict)
		if r.ComparisonID != nil {
			fmt.Fprintf(w, "  (recorded as comparison %d)\n", *r.ComparisonID)
		}
		for _, x := range r.Warnings {
			fmt.Fprintf(w, "  %s %s\n", Paint(t.Color, Bad, "warning:"), WarningText(x))
		}
	}
	return nil
}

// comparisonTable is one row per metric, the winner coloured: green when
// the candidate wins, red when the baseline does.
func comparisonTable(c *compare.Comparison) *Table {
	t := &Table{
		Header: []string{"METRIC", "BASELINE", "CANDIDATE", "DIFFERENCE [CI]", "P", "P ADJ", "DISTINGUISHABLE", "WINNER", "BETTER/WORSE/SAME", "P(SUP)", "N"},
		Right:  map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 9: true, 10: true},
	}
	var means []float64
	for _, r := range c.Metrics {
		means = append(means, r.BaselineMean, r.CandidateMean)
	}
	meanText := Nums(means, false)
	for i, r := range c.Metrics {
		padj := "-"
		if r.Adjustment != "" {
			padj = PValue(r.PAdjusted, r.Alpha)
		}
		winner := "none"
		if r.Winner != compare.Neither {
			winner = string(r.Winner)
		}
		metric := r.Metric
		if r.LowerIsBetter {
			metric += " (lower is better)"
		}
		d := r.Difference
		counts := fmt.Sprintf("%d/%d/%d", r.CandidateBetter, r.CandidateWorse, r.Same)
		if r.DeLong != nil || r.Bootstrap != nil {
			counts = "-" // a metric of the whole set: no unit is better or worse
		}
		t.Add(metric, meanText[2*i], meanText[2*i+1], Interval(d.Estimate, d.Low, d.High, true),
			PValue(r.PValue, r.Alpha), padj, strconv.FormatBool(r.Distinguishable), winner,
			counts, ProbSuperiorityText(r), strconv.Itoa(r.N))
		switch r.Winner {
		case compare.Candidate:
			t.Mark(7, Good)
		case compare.Baseline:
			t.Mark(7, Bad)
		default:
			t.Mark(7, Dim)
		}
	}
	addMarginColumn(t, c)
	return t
}

// hasMargin reports whether any metric of c was decided against a
// practical margin.
func hasMargin(c *compare.Comparison) bool {
	for _, r := range c.Metrics {
		if r.Margin != nil {
			return true
		}
	}
	return false
}

// addMarginColumn adds the column MARGIN to a comparison's table when a
// metric has a margin: the decision, the margin and the one-sided bounds
// of how much worse the candidate is, as "non_inferior (Δ 0.005; worse by
// -0.0012 to 0.0031)".
func addMarginColumn(t *Table, c *compare.Comparison) {
	if !hasMargin(c) {
		return
	}
	t.Header = append(t.Header, "MARGIN")
	for i, r := range c.Metrics {
		cellText := "-"
		if m := r.MarginTest; r.Margin != nil && m != nil {
			w := m.Worse
			cellText = fmt.Sprintf("%s (Δ %s; worse by %s to %s)", r.MarginDecision, strconv.FormatFloat(*r.Margin, 'g', -1, 64),
				Num(w.Low), Num(w.High))
		}
		t.Rows[i] = append(t.Rows[i], cellText)
	}
}

func comparisonCSV(c *compare.Comparison) *Table {
	t := &Table{Header: []string{"metric", "lower_is_better", "method", "baseline", "candidate", "n", "baseline_mean", "candidate_mean",
		"difference", "ci_low", "ci_high", "confidence", "statistic", "p_value", "p_adjusted", "adjustment", "distinguishable", "winner",
		"candidate_better", "candidate_worse", "same", "n_required", "comparison_id",
		"n_baseline_only", "n_candidate_only", "effect_size_dz", "prob_superiority", "prob_superiority_ci_low", "prob_superiority_ci_high"}}
	// With a margin, its columns: the margin, the decision and the
	// one-sided bounds of how much worse the candidate is.
	margins := hasMargin(c)
	if margins {
		t.Header = append(t.Header, "margin", "margin_decision", "worse_by_low", "worse_by_high")
	}
	// A comparison of groups adds what the seeds do.
	seeds := c.BaselineRuns != nil
	if seeds {
		t.Header = append(t.Header, "n_baseline_runs", "n_candidate_runs", "se", "df", "seed_variance", "run_to_run_sd", "p_candidate_run_better", "seed_noise_dominates", "n_dropped_units")
	}
	for _, r := range c.Metrics {
		id, stat, need := "", "", ""
		if r.ComparisonID != nil {
			id = strconv.FormatInt(*r.ComparisonID, 10)
		}
		if r.Statistic != nil {
			stat = CSVNum(r.Statistic.Value)
		}
		if r.NRequired != nil {
			need = strconv.Itoa(*r.NRequired)
		}
		padj := ""
		if r.Adjustment != "" {
			padj = CSVNum(r.PAdjusted)
		}
		d := r.Difference
		row := []string{r.Metric, strconv.FormatBool(r.LowerIsBetter), r.Method, r.Baseline, r.Candidate, strconv.Itoa(r.N),
			CSVNum(r.BaselineMean), CSVNum(r.CandidateMean)}
		row = append(row, CSVInterval(d.Estimate, d.Low, d.High)...)
		row = append(row, CSVNum(d.Confidence), stat, CSVNum(r.PValue), padj, r.Adjustment, strconv.FormatBool(r.Distinguishable),
			string(r.Winner), strconv.Itoa(r.CandidateBetter), strconv.Itoa(r.CandidateWorse), strconv.Itoa(r.Same), need, id,
			strconv.FormatInt(r.BaselineOnly, 10), strconv.FormatInt(r.CandidateOnly, 10),
			csvPtr(r.EffectSizeDz), csvPtr(r.ProbSuperiority), csvPtr(r.ProbSuperiorityLow), csvPtr(r.ProbSuperiorityHigh))
		if margins {
			lo, hi := "", ""
			if m := r.MarginTest; m != nil {
				lo, hi = CSVNum(m.Worse.Low), CSVNum(m.Worse.High)
			}
			row = append(row, csvPtr(r.Margin), string(r.MarginDecision), lo, hi)
		}
		if s := r.Seeds; seeds && s != nil {
			row = append(row, strconv.Itoa(len(s.BaselineRuns)), strconv.Itoa(len(s.CandidateRuns)), CSVNum(s.SE), CSVNum(s.DF), CSVNum(s.SeedVariance),
				CSVNum(s.RunToRun), CSVNum(s.PCandidateRunBetter), strconv.FormatBool(s.SeedNoiseDominates), strconv.FormatInt(s.DroppedUnits, 10))
		}
		t.Add(row...)
	}
	return t
}

// csvPtr is *x in full, or empty for nil.
func csvPtr(x *float64) string {
	if x == nil {
		return ""
	}
	return CSVNum(*x)
}

// groupRunsText lists a group's runs, each with its evaluation, as "3
// runs: a (evaluation 4), b (evaluation 5), c (evaluation 6) on set",
// each name between quote.
func groupRunsText(evals []*store.Evaluation, quote string) string {
	var names []string
	for _, e := range evals {
		names = append(names, fmt.Sprintf("%s%s%s (evaluation %d)", quote, Printable(e.Run), quote, e.ID))
	}
	set := ""
	if len(evals) > 0 {
		set = " on " + quote + Printable(evals[0].EvalSet) + quote
	}
	return plural(len(evals), "run") + ": " + strings.Join(names, ", ") + set
}

// droppedText says how many units a comparison left out because one side
// only has them (with --allow-different-targets), or "" when none.
func droppedText(c *compare.Comparison) string {
	var base, cand, runs int64
	for _, r := range c.Metrics {
		base, cand = max(base, r.BaselineOnly), max(cand, r.CandidateOnly)
		if r.Seeds != nil {
			runs = max(runs, r.Seeds.DroppedUnits)
		}
	}
	if runs > 0 {
		return fmt.Sprintf("dropped: %s that some run was not evaluated on, left out of every run", plural(int(runs), "unit"))
	}
	if base == 0 && cand == 0 {
		return ""
	}
	return fmt.Sprintf("dropped: %s of the baseline only and %s of the candidate only, not paired",
		plural(int(base), "unit"), plural(int(cand), "unit"))
}

// ComparisonForest is a forest plot of a comparison's differences, one row
// per metric, each labelled in its own precision.
func ComparisonForest(c *compare.Comparison) (*Figure, error) {
	rows := make([]ForestRow, len(c.Metrics))
	for i, r := range c.Metrics {
		d := r.Difference
		rows[i] = ForestRow{Label: r.Metric, Estimate: d.Estimate, Low: d.Low, High: d.High, Distinguishable: r.Distinguishable,
			Worse: r.Regression()}
	}
	return Forest(fmt.Sprintf("%s minus %s", c.Baseline, c.Candidate),
		fmt.Sprintf("baseline − candidate, %g%% CI (filled: distinguishable; red: the candidate is worse)", 100*c.Metrics[0].Difference.Confidence), rows)
}
