package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/store"
)

// Runs writes runs in format: a table with their params and tags (table,
// markdown), one row per run with params as JSON (csv), or JSON. With more,
// a table says that more runs match than it lists.
func Runs(w io.Writer, format string, runs []store.Run, more bool) error {
	switch format {
	case "json":
		return WriteJSON(w, runs)
	case "csv":
		return runsCSV(runs).CSV(w)
	}
	if err := RunsTable(runs).Write(w, format); err != nil || !more {
		return err
	}
	_, err := fmt.Fprintf(w, "\nmore runs match; these are the first %d (--limit 0 lists them all)\n", len(runs))
	return err
}

// RunsTable lists runs with their params and tags.
func RunsTable(runs []store.Run) *Table {
	t := &Table{Header: []string{"EXPERIMENT", "RUN", "CREATED", "EVALUATIONS", "GIT COMMIT", "TAGS", "PARAMS"}, Right: map[int]bool{3: true}}
	for _, r := range runs {
		commit := r.GitCommit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		evals := fmt.Sprint(r.Evaluations)
		if r.AggregatesOnly > 0 {
			evals += fmt.Sprintf(" (%d aggregates only)", r.AggregatesOnly)
		}
		t.Add(r.Experiment, r.Name, r.CreatedAt.Local().Format("2006-01-02 15:04"), evals, commit,
			strings.Join(r.Tags, ","), paramsText(r.Params))
	}
	return t
}

// paramsText is params as "k=v" pairs in key order, numbers in full.
func paramsText(params map[string]any) string {
	parts := make([]string, 0, len(params))
	for _, k := range slices.Sorted(maps.Keys(params)) {
		var text string
		switch x := params[k].(type) {
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

func runsCSV(runs []store.Run) *Table {
	t := &Table{Header: []string{"run_id", "experiment", "run", "created_at", "last_logged", "evaluations", "git_commit", "tags", "params", "aggregates_only_evaluations"}}
	for _, r := range runs {
		params := "{}"
		if len(r.Params) > 0 {
			if b, err := json.Marshal(r.Params); err == nil {
				params = string(b)
			} else {
				params = ""
			}
		}
		t.Add(strconv.FormatInt(r.ID, 10), r.Experiment, r.Name, CSVTime(r.CreatedAt), CSVTime(r.LastLogged),
			strconv.FormatInt(r.Evaluations, 10), r.GitCommit, strings.Join(r.Tags, ","), params, strconv.FormatInt(r.AggregatesOnly, 10))
	}
	return t
}
