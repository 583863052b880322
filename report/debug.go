package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/evaluate"
)

// DebugRows writes debug rows in format: for people (table, markdown), a
// block per row with its metric values, its top items with their scores,
// hits marked *, and its targets; one line per row with every field
// (csv); or JSON. Metric values are written in full, as the per-user file
// has them, in the order of keys (the evaluation's metrics), then any
// others by name.
func DebugRows(w io.Writer, format string, rows []evaluate.DebugRow, keys []string) error {
	switch format {
	case "json":
		return WriteJSON(w, rows)
	case "csv":
		return debugCSV(rows, keys).CSV(w)
	}
	for i, r := range rows {
		if i > 0 {
			fmt.Fprintln(w)
		}
		hits := "no hits"
		if len(r.HitRanks) > 0 {
			hits = "hits at ranks " + joinInts(r.HitRanks, ", ")
		}
		fmt.Fprintf(w, "%s (input row %d): %s, %s\n", Printable(r.SampleID), r.Row, plural(r.TargetCount, "target"), hits)
		var vals []string
		for _, k := range valueKeys(r.Values, keys) {
			vals = append(vals, Printable(k)+" "+strconv.FormatFloat(r.Values[k], 'g', -1, 64))
		}
		fmt.Fprintf(w, "  values:  %s\n", strings.Join(vals, ", "))
		if r.Items != nil {
			fmt.Fprintf(w, "  top %d:  %s\n", len(r.Items), strings.Join(debugItems(r), ", "))
		}
		if r.Targets != nil {
			more := ""
			if n := r.TargetCount - len(r.Targets); n > 0 {
				more = fmt.Sprintf(" (and %d more)", n)
			}
			fmt.Fprintf(w, "  targets: %s%s\n", Printable(strings.Join(r.Targets, ", ")), more)
		}
	}
	return nil
}

// valueKeys are the keys of values: those of keys first, in order, then
// the others sorted.
func valueKeys(values map[string]float64, keys []string) []string {
	var out []string
	for _, k := range keys {
		if _, ok := values[k]; ok {
			out = append(out, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// debugItems is each of r's items, with its score in parentheses when the
// input had scores and a * when it is a hit.
func debugItems(r evaluate.DebugRow) []string {
	out := make([]string, len(r.Items))
	for i, item := range r.Items {
		s := Printable(item)
		if slices.Contains(r.HitRanks, i+1) {
			s += "*"
		}
		if i < len(r.Scores) {
			s += " (" + strconv.FormatFloat(r.Scores[i], 'g', 6, 64) + ")"
		}
		out[i] = s
	}
	return out
}

func debugCSV(rows []evaluate.DebugRow, order []string) *Table {
	all := map[string]float64{}
	for _, r := range rows {
		maps.Copy(all, r.Values)
	}
	keys := valueKeys(all, order)
	t := &Table{Header: append([]string{"sample_id", "row", "n_targets", "hit_ranks", "items", "scores", "targets"}, keys...)}
	for _, r := range rows {
		scores := make([]string, len(r.Scores))
		for i, s := range r.Scores {
			scores[i] = strconv.FormatFloat(s, 'g', -1, 64)
		}
		row := []string{r.SampleID, strconv.FormatInt(r.Row, 10), strconv.Itoa(r.TargetCount), joinInts(r.HitRanks, " "),
			strings.Join(r.Items, " "), strings.Join(scores, " "), strings.Join(r.Targets, " ")}
		for _, k := range keys {
			v, ok := r.Values[k]
			row = append(row, map[bool]string{true: strconv.FormatFloat(v, 'g', -1, 64)}[ok])
		}
		t.Add(row...)
	}
	return t
}
