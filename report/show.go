package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/store"
)

// ShowEvaluation writes a stored evaluation in format: its run, counts,
// protocol, means and whole-set values, and whether it has per-unit values.
// With withDebug it adds the debug rows stored with it (rows; empty when
// none were), or says there are none.
func ShowEvaluation(w io.Writer, format string, e *store.Evaluation, rows []store.DebugRow, withDebug bool) error {
	if format == "json" {
		out := stored(e)
		if withDebug {
			// An empty list, not null or nothing, when none were logged.
			list := debugJSON(rows)
			out.DebugRows = &list
		}
		return WriteJSON(w, out)
	}
	if format == "csv" {
		return evaluationCSV(w, e, rows, withDebug)
	}
	p := e.Protocol
	step := ""
	if e.Step != nil {
		step = fmt.Sprintf(", step %d", *e.Step)
	}
	fmt.Fprintf(w, "evaluation %d: %s/%s on %s%s, logged %s by verdict %s\n", e.ID, Printable(e.Experiment), Printable(e.Run), Printable(e.EvalSet),
		step, e.CreatedAt.Local().Format("2006-01-02 15:04:05"), Printable(e.SoftwareVersion))
	draws := "unknown"
	if p.EvalDraws > 0 {
		draws = strconv.Itoa(p.EvalDraws)
	}
	fmt.Fprintf(w, "  %s (%s scored), %s, eval draws %s\n", plural(int(e.Rows), "row"), Thousands(e.ScoredRows), plural(int(e.Units), "unit"), draws)
	proto := []string{"protocol " + cmp.Or(p.Name, "holdout")}
	if len(p.Cutoffs) > 0 {
		proto = append(proto, "cutoffs "+joinInts(p.Cutoffs, ", "))
	}
	for _, f := range []struct {
		name string
		v    int64
	}{{"required k", int64(p.RequiredK)}, {"folds", int64(p.Folds)}, {"repeats", int64(p.Repeats)}, {"n_train", p.NTrain}, {"n_test", p.NTest}} {
		if f.v > 0 {
			proto = append(proto, f.name+" "+strconv.FormatInt(f.v, 10))
		}
	}
	fmt.Fprintf(w, "  %s\n  %s fingerprint %s\n", strings.Join(proto, ", "), e.FingerprintKind, e.Fingerprint)
	if e.AggregatesOnly {
		fmt.Fprintln(w, "  aggregates only: logged without per-unit values, so it cannot be compared, diffed or ranked unit by unit")
	}
	fmt.Fprintln(w)
	t := &Table{Header: []string{"METRIC", "MEAN", ""}, Right: map[int]bool{1: true}}
	whole := e.WholeSet()
	for _, m := range append(slices.Clone(e.Metrics), whole...) {
		var notes []string
		if slices.Contains(e.LowerIsBetter, m) {
			notes = append(notes, "lower is better")
		}
		if slices.Contains(whole, m) {
			notes = append(notes, "whole set: no per-unit values")
		}
		t.Add(Printable(m), Num(e.Aggregates[m]), strings.Join(notes, "; "))
	}
	if err := t.Write(w, format); err != nil {
		return err
	}
	if !withDebug {
		return nil
	}
	if len(rows) == 0 {
		_, err := fmt.Fprintln(w, "\nno debug rows were logged with this evaluation ('verdict evaluate --debug-users N' logs them)")
		return err
	}
	fmt.Fprintln(w)
	return DebugRows(w, format, rows, e.Metrics)
}

// evaluationCSV writes an evaluation as CSV: one row a metric, with the
// evaluation's identity in every row; with withDebug, its debug rows
// instead (one CSV, one header), as DebugRows writes them.
func evaluationCSV(w io.Writer, e *store.Evaluation, rows []store.DebugRow, withDebug bool) error {
	if withDebug {
		return DebugRows(w, "csv", rows, e.Metrics)
	}
	t := &Table{Header: []string{"evaluation_id", "experiment", "run", "eval_set", "metric", "mean", "lower_is_better", "whole_set"}}
	whole := e.WholeSet()
	id := strconv.FormatInt(e.ID, 10)
	for _, m := range append(slices.Clone(e.Metrics), whole...) {
		t.Add(id, e.Experiment, e.Run, e.EvalSet, m, CSVNum(e.Aggregates[m]),
			strconv.FormatBool(slices.Contains(e.LowerIsBetter, m)), strconv.FormatBool(slices.Contains(whole, m)))
	}
	return t.CSV(w)
}

// debugJSON is rows as the JSON of a shown evaluation has them: each an
// object with its keys in sorted order and every number, the row and the
// counts too, a float64, written in its shortest form (row 1500000 is
// 1.5e+06); a list or map the row lacks is null, and Scores, when empty,
// is left out, as the rows are stored.
func debugJSON(rows []store.DebugRow) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		ranks := make([]float64, len(r.HitRanks))
		for j, k := range r.HitRanks {
			ranks[j] = float64(k)
		}
		o := map[string]any{
			"sample_id": r.SampleID,
			"row":       float64(r.Row),
			"items":     orNull(r.Items, r.Items == nil),
			"targets":   orNull(r.Targets, r.Targets == nil),
			"n_targets": float64(r.TargetCount),
			"hit_ranks": orNull(ranks, r.HitRanks == nil),
			"values":    orNull(r.Values, r.Values == nil),
		}
		if len(r.Scores) > 0 {
			o["scores"] = r.Scores
		}
		out[i] = o
	}
	return out
}

// orNull is v, or nil, which WriteJSON writes as null, when isNil.
func orNull(v any, isNil bool) any {
	if isNil {
		return nil
	}
	return v
}

// joinInts is v in decimal, separated by sep.
func joinInts(v []int, sep string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, sep)
}
