package main

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// The --format csv tables: one value a cell, numbers at full precision, no
// units or brackets, an empty cell for none, so that a spreadsheet or a
// script reads them as they are. The text tables are for people.

// csvNum is x in full, or empty for NaN and ±Inf.
func csvNum(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// csvPtr is csvNum of *p, or empty for nil.
func csvPtr(p *float64) string {
	if p == nil {
		return ""
	}
	return csvNum(*p)
}

func csvTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// csvInterval is an interval's estimate, low and high, or three empty cells.
func csvInterval(i *stats.Interval) []string {
	if i == nil {
		return []string{"", "", ""}
	}
	return []string{csvNum(i.Estimate), csvNum(i.Low), csvNum(i.High)}
}

func leaderboardCSV(lb leaderboard) *report.Table {
	t := &report.Table{Header: []string{"rank", "run", "evaluation_id", "metric", "mean", "mean_low", "mean_high", "confidence", "n_units",
		"difference_to_reference", "difference_low", "difference_high", "p_value", "p_adjusted", "distinguishable", "same_group_as_reference", "logged_at"}}
	for _, r := range lb.Rows {
		row := []string{strconv.Itoa(r.Rank), r.Run, strconv.FormatInt(r.EvaluationID, 10), lb.Metric}
		row = append(row, csvInterval(&r.Mean)...)
		row = append(row, csvNum(r.Mean.Confidence), strconv.FormatInt(r.Units, 10))
		row = append(row, csvInterval(r.Difference)...)
		row = append(row, csvPtr(r.PValue), csvPtr(r.PAdjusted), strconv.FormatBool(r.Distinguishable), strconv.FormatBool(r.SameGroup), csvTime(r.LoggedAt))
		t.Add(row...)
	}
	return t
}

func comparisonsCSV(results []*metricComparison) *report.Table {
	t := &report.Table{Header: []string{"metric", "method", "n", "baseline_mean", "candidate_mean", "difference", "ci_low", "ci_high", "confidence",
		"p_value", "p_adjusted", "adjustment", "distinguishable", "winner", "wins", "losses", "ties", "comparison_id"}}
	for _, r := range results {
		id := ""
		if r.ComparisonID != nil {
			id = strconv.FormatInt(*r.ComparisonID, 10)
		}
		row := []string{r.Metric, r.Method, strconv.Itoa(r.N), csvNum(r.BaselineMean), csvNum(r.CandidateMean)}
		row = append(row, csvInterval(&r.Difference)...)
		row = append(row, csvNum(r.Difference.Confidence), csvNum(r.PValue))
		padj := ""
		if r.Adjustment != "" {
			padj = csvNum(r.PAdjusted)
		}
		row = append(row, padj, r.Adjustment, strconv.FormatBool(r.Distinguishable), r.Winner,
			strconv.Itoa(r.Wins), strconv.Itoa(r.Losses), strconv.Itoa(r.Ties), id)
		t.Add(row...)
	}
	return t
}

func rankCSV(res rankResult, control string) *report.Table {
	holm := map[string]stats.HolmComparison{}
	for _, h := range res.Friedman.Holm {
		holm[h.Name] = h
	}
	t := &report.Table{Header: []string{"rank", "run", "evaluation_id", "avg_rank", "mean", "control", "p_value_vs_control", "p_adjusted_vs_control", "different_from_control"}}
	for i, r := range res.Runs {
		p, padj, diff := "", "", ""
		if h, ok := holm[r.Name]; ok {
			p, padj, diff = csvNum(h.PValue), csvNum(h.PAdjusted), strconv.FormatBool(h.Rejected)
		}
		id := ""
		if r.EvaluationID != 0 {
			id = strconv.FormatInt(r.EvaluationID, 10)
		}
		t.Add(strconv.Itoa(i+1), r.Name, id, csvNum(r.AvgRank), csvNum(r.Mean), control, p, padj, diff)
	}
	return t
}

func historyCSV(hist []store.HistoryEntry) *report.Table {
	t := &report.Table{Header: []string{"comparison_id", "created_at", "experiment", "evaluation_set", "metric", "baseline_evaluation_id", "baseline_run",
		"candidate_evaluation_id", "candidate_run", "method", "n", "baseline_mean", "candidate_mean", "difference", "ci_low", "ci_high",
		"p_value", "p_adjusted", "adjustment", "distinguishable", "winner", "lower_is_better"}}
	for _, h := range hist {
		t.Add(strconv.FormatInt(h.ID, 10), csvTime(h.CreatedAt), h.Experiment, h.EvalSet, h.Metric,
			strconv.FormatInt(h.BaselineID, 10), h.BaselineRun, strconv.FormatInt(h.CandidateID, 10), h.CandidateRun,
			h.Method, strconv.FormatInt(h.N, 10), csvPtr(h.BaselineMean), csvPtr(h.CandidateMean), csvPtr(h.Difference),
			csvPtr(h.Low), csvPtr(h.High), csvPtr(h.PValue), csvPtr(h.PAdjusted), h.Adjustment,
			strconv.FormatBool(h.Distinguishable), h.Winner, strconv.FormatBool(h.LowerIsBetter))
	}
	return t
}

// paramsJSON is params as a JSON object, keys sorted.
func paramsJSON(params map[string]any) string {
	if len(params) == 0 {
		return "{}"
	}
	b, err := json.Marshal(params)
	if err != nil {
		return ""
	}
	return string(b)
}

func runsCSV(runs []store.Run) *report.Table {
	t := &report.Table{Header: []string{"run_id", "experiment", "run", "created_at", "last_logged", "evaluations", "git_commit", "tags", "params"}}
	for _, r := range runs {
		t.Add(strconv.FormatInt(r.ID, 10), r.Experiment, r.Name, csvTime(r.CreatedAt), csvTime(r.LastLogged),
			strconv.FormatInt(r.Evaluations, 10), r.GitCommit, strings.Join(r.Tags, ","), paramsJSON(r.Params))
	}
	return t
}
