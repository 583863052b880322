package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/stats"
)

// Ranking writes a Friedman ranking in format: the runs best first with
// each one's Holm-adjusted p against the control, then the test's summary
// and the cliques (table, markdown), one row per run (csv), or the whole
// ranking (json).
func Ranking(w io.Writer, format string, r *compare.Ranking) error {
	switch format {
	case "json":
		return WriteJSON(w, r)
	case "csv":
		return rankingCSV(r).CSV(w)
	}
	f := r.Friedman
	if len(r.Sets) > 0 {
		fmt.Fprintf(w, "blocks: %d evaluation sets (%s)\n", len(r.Sets), Printable(strings.Join(r.Sets, ", ")))
	}
	fmt.Fprintf(w, "%s (%s) over %d units (blocks) and %d runs; rank 1 is best\n\n", Printable(r.Metric), r.Direction, r.Units, len(r.Runs))
	holm := holmByName(r)
	t := Table{Header: []string{"RANK", "RUN", "AVG RANK", "MEAN", "P ADJ VS " + strings.ToUpper(r.Control), "DIFFERENT"}, Right: map[int]bool{0: true, 2: true, 3: true, 4: true}}
	for i, run := range r.Runs {
		padj, diff := "(control)", ""
		if h, ok := holm[run.Name]; ok {
			padj, diff = PValue(h.PAdjusted, r.Alpha), strconv.FormatBool(h.Rejected)
		}
		t.Add(strconv.Itoa(i+1), run.Name, fmt.Sprintf("%.3f", run.AvgRank), Num(run.Mean), padj, diff)
		switch {
		case run.Name == r.Control:
			t.Mark(1, Strong)
		case diff == "false":
			t.Mark(5, Dim)
		}
	}
	if err := t.Write(w, format); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nFriedman chi2 = %s (df %d), %s; Iman-Davenport F = %s, %s\n",
		Num(f.Chi2), f.DF, PValueText(f.PValue, r.Alpha), Num(f.ImanDavenportF), PValueText(f.ImanDavenportP, r.Alpha))
	fmt.Fprintf(w, "Nemenyi critical difference at alpha %g: %.3f\n", r.Alpha, f.CD)
	if len(r.Cliques) == 0 {
		fmt.Fprintln(w, "every pair of runs is further apart than the critical difference")
	}
	for _, g := range r.Cliques {
		fmt.Fprintf(w, "not distinguishable from each other: %s\n", Printable(strings.Join(g, ", ")))
	}
	for _, n := range f.Notes {
		fmt.Fprintln(w, "note:", NoteText(n))
	}
	return nil
}

func holmByName(r *compare.Ranking) map[string]stats.HolmComparison {
	holm := map[string]stats.HolmComparison{}
	for _, h := range r.Friedman.Holm {
		holm[h.Name] = h
	}
	return holm
}

func rankingCSV(r *compare.Ranking) *Table {
	holm := holmByName(r)
	t := &Table{Header: []string{"rank", "run", "evaluation_id", "avg_rank", "mean", "control", "p_value_vs_control", "p_adjusted_vs_control", "different_from_control"}}
	for i, run := range r.Runs {
		p, padj, diff := "", "", ""
		if h, ok := holm[run.Name]; ok {
			p, padj, diff = CSVNum(h.PValue), CSVNum(h.PAdjusted), strconv.FormatBool(h.Rejected)
		}
		id := ""
		if run.EvaluationID != 0 {
			id = strconv.FormatInt(run.EvaluationID, 10)
		}
		t.Add(strconv.Itoa(i+1), run.Name, id, CSVNum(run.AvgRank), CSVNum(run.Mean), r.Control, p, padj, diff)
	}
	return t
}

// RankingCD is the ranking's critical-difference diagram: average ranks,
// best on the left, with the cliques joined.
func RankingCD(r *compare.Ranking, what string) (*Figure, error) {
	names := make([]string, len(r.Runs))
	ranks := make([]float64, len(r.Runs))
	for i, run := range r.Runs {
		names[i], ranks[i] = run.Name, run.AvgRank
	}
	return CriticalDifference(fmt.Sprintf("%s: average ranks over %d %s (Nemenyi CD at alpha %g)", what, r.Units, blocksOf(r), r.Alpha),
		names, ranks, r.Friedman.CD, r.Cliques)
}

func blocksOf(r *compare.Ranking) string {
	if len(r.Sets) > 0 {
		return "evaluation sets"
	}
	return "blocks"
}
