package report

import (
	"fmt"
	"io"
	"strconv"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
)

// HistoryEntries writes recorded comparisons, newest first, in format: a table
// (table, markdown), every column of the comparison_history view (csv), or
// the entries (json).
func HistoryEntries(w io.Writer, format string, hist []store.HistoryEntry) error {
	switch format {
	case "json":
		return WriteJSON(w, hist)
	case "csv":
		return historyCSV(hist).CSV(w)
	}
	if len(hist) == 0 && format == "table" {
		_, err := fmt.Fprintln(w, "no comparisons recorded match (record some with 'verdict compare')")
		return err
	}
	return HistoryTable(hist, false).Write(w, format)
}

// HistoryTable lists recorded comparisons; withVerdict adds the verdict
// sentence of each. The method column tells compare's tests from rank's
// Holm tests (friedman+holm), whose difference has no interval.
func HistoryTable(hist []store.HistoryEntry, withVerdict bool) *Table {
	t := &Table{Header: []string{"ID", "WHEN", "EXPERIMENT", "METRIC", "METHOD", "BASELINE", "CANDIDATE", "DIFFERENCE [CI]", "P", "WINNER"},
		Right: map[int]bool{0: true, 7: true, 8: true}}
	if withVerdict {
		t.Header = append(t.Header, "VERDICT")
		t.Wrap = map[int]bool{10: true}
	}
	for _, h := range hist {
		winner := h.Winner
		if winner == "" {
			winner = "none"
		}
		p := "-"
		if pp := decidedP(h); pp != nil {
			p = PValue(*pp, 0)
		}
		t.Add(strconv.FormatInt(h.ID, 10), h.CreatedAt.Local().Format("2006-01-02 15:04"), h.Experiment, h.Metric, h.Method,
			h.BaselineRun, h.CandidateRun, intervalText(h.Difference, h.Low, h.High), p, winner)
		if withVerdict {
			t.Rows[len(t.Rows)-1] = append(t.Rows[len(t.Rows)-1], h.Verdict)
		}
		if h.Winner == "" {
			t.Mark(9, Dim)
		} else {
			t.Mark(9, Strong)
		}
	}
	return t
}

// decidedP is the p-value a history row was decided with.
func decidedP(h store.HistoryEntry) *float64 {
	if h.PAdjusted != nil {
		return h.PAdjusted
	}
	return h.PValue
}

func intervalText(est, low, high *float64) string {
	if est == nil {
		return "-"
	}
	if low == nil || high == nil {
		return Signed(*est) + " [-, -]"
	}
	return Interval(*est, *low, *high, true)
}

func historyCSV(hist []store.HistoryEntry) *Table {
	t := &Table{Header: []string{"comparison_id", "created_at", "experiment", "evaluation_set", "metric", "baseline_evaluation_id", "baseline_run",
		"candidate_evaluation_id", "candidate_run", "method", "n", "baseline_mean", "candidate_mean", "difference", "ci_low", "ci_high",
		"statistic", "p_value", "p_adjusted", "adjustment", "distinguishable", "winner", "lower_is_better", "n_required"}}
	for _, h := range hist {
		need := ""
		if h.NRequired != nil {
			need = strconv.FormatInt(*h.NRequired, 10)
		}
		t.Add(strconv.FormatInt(h.ID, 10), CSVTime(h.CreatedAt), h.Experiment, h.EvalSet, h.Metric,
			strconv.FormatInt(h.BaselineID, 10), h.BaselineRun, strconv.FormatInt(h.CandidateID, 10), h.CandidateRun,
			h.Method, strconv.FormatInt(h.N, 10), CSVPtr(h.BaselineMean), CSVPtr(h.CandidateMean), CSVPtr(h.Difference),
			CSVPtr(h.Low), CSVPtr(h.High), CSVPtr(h.Statistic), CSVPtr(h.PValue), CSVPtr(h.PAdjusted), h.Adjustment,
			strconv.FormatBool(h.Distinguishable), h.Winner, strconv.FormatBool(h.LowerIsBetter), need)
	}
	return t
}

// Recorded writes one recorded comparison with all its fields: aligned
// lines (table), a FIELD/VALUE table (markdown, csv) or JSON.
func Recorded(w io.Writer, format string, h *store.HistoryEntry) error {
	switch format {
	case "json":
		return WriteJSON(w, h)
	case "markdown", "csv":
		t, err := FieldTable(*h)
		if err != nil {
			return err
		}
		return t.Write(w, format)
	}
	return WriteFields(w, *h)
}

// ValuesOverTime plots each evaluation's mean of metric with its interval
// against the time it was logged.
func ValuesOverTime(title, metric string, confidence float64, points []compare.ValuePoint) (*Figure, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("%w: no evaluation to draw", ErrNothingToPlot)
	}
	hp := make([]HistoryPoint, len(points))
	for i, p := range points {
		hp[i] = HistoryPoint{Run: p.Run, Time: p.LoggedAt, Estimate: p.Mean.Estimate, Low: p.Mean.Low, High: p.Mean.High}
	}
	return History(title, fmt.Sprintf("%s (%g%% bootstrap CI)", metric, 100*confidence), hp)
}
