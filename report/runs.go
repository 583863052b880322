package report

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/verdict-ml/verdict/store"
)

// Runs writes runs in format: a table with their params and tags (table,
// markdown), one row per run with params as JSON and a column per metric
// (csv), or JSON. With more, a table says that more runs match than it
// lists.
func Runs(w io.Writer, format string, runs []store.Run, more bool) error {
	return RunSearch(w, format, store.RunQuery{}, runs, more)
}

// RunSearch writes the runs q found as Runs does; a table also shows, as
// columns, the newest evaluation's mean of each metric q names (RunMetrics).
// JSON and CSV show every metric.
func RunSearch(w io.Writer, format string, q store.RunQuery, runs []store.Run, more bool) error {
	switch format {
	case "json":
		return WriteJSON(w, runs)
	case "csv":
		return runsCSV(runs).CSV(w)
	}
	if err := RunsTable(runs, RunMetrics(q)...).Write(w, format); err != nil || !more {
		return err
	}
	_, err := fmt.Fprintf(w, "\nmore runs match; these are the first %d (--limit 0 lists them all)\n", len(runs))
	return err
}

// RunsTable lists runs with their params and tags, and the newest
// evaluation's mean of each of metrics, after the evaluations.
func RunsTable(runs []store.Run, metrics ...string) *Table {
	t := &Table{Header: []string{"EXPERIMENT", "RUN", "CREATED", "EVALUATIONS"}, Right: map[int]bool{3: true}}
	for _, m := range metrics {
		t.Right[len(t.Header)] = true
		t.Header = append(t.Header, strings.ToUpper(m))
	}
	t.Header = append(t.Header, "GIT COMMIT", "TAGS", "PARAMS")
	for _, r := range runs {
		commit := r.GitCommit
		if len(commit) > 12 {
			commit = commit[:12]
		}
		evals := fmt.Sprint(r.Evaluations)
		if r.AggregatesOnly > 0 {
			evals += fmt.Sprintf(" (%d aggregates only)", r.AggregatesOnly)
		}
		row := []string{r.Experiment, r.Name, r.CreatedAt.Local().Format("2006-01-02 15:04"), evals}
		for _, m := range metrics {
			cell := ""
			if x, ok := r.Metrics[m]; ok {
				cell = Num(x)
			}
			row = append(row, cell)
		}
		t.Add(append(row, commit, strings.Join(r.Tags, ","), paramsText(r.Params))...)
	}
	return t
}

// RunMetrics are the metrics a table of q's runs shows: those q.Metrics
// names (a name may be a comma-separated list), then those of q.Filter and
// q.OrderBy's metrics.NAME, each once.
func RunMetrics(q store.RunQuery) []string {
	var names []string
	add := func(m string) {
		if m = strings.TrimSpace(m); m != "" && !slices.Contains(names, m) {
			names = append(names, m)
		}
	}
	for _, m := range q.Metrics {
		for _, part := range strings.Split(m, ",") {
			add(part)
		}
	}
	for _, m := range filterMetrics(q.Filter) {
		add(m)
	}
	for _, m := range filterMetrics(q.OrderBy) {
		add(m)
	}
	return names
}

// filterMetrics are the NAMEs of the metrics.NAME operands of a run filter
// or order, in the order they come: a bare name (ndcg@20) or a quoted one
// ('a.b'). Quoted strings elsewhere are values, and skipped.
func filterMetrics(expr string) []string {
	var names []string
	rs := []rune(expr)
	nameRune := func(r rune) bool {
		return r == '_' || r == '@' || r == '-' || r == ':' || r == '/' || unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	skipSpace := func(i int) int {
		for i < len(rs) && unicode.IsSpace(rs[i]) {
			i++
		}
		return i
	}
	// quoted reads the string that opens at rs[i], '' for a quote, and
	// returns it and the index after it.
	quoted := func(i int) (string, int) {
		var b strings.Builder
		for i++; i < len(rs); i++ {
			if rs[i] == '\'' {
				if i+1 < len(rs) && rs[i+1] == '\'' {
					b.WriteRune('\'')
					i++
					continue
				}
				return b.String(), i + 1
			}
			b.WriteRune(rs[i])
		}
		return b.String(), i
	}
	for i := 0; i < len(rs); {
		switch {
		case rs[i] == '\'':
			_, i = quoted(i)
		case nameRune(rs[i]):
			j := i
			for j < len(rs) && nameRune(rs[j]) {
				j++
			}
			word := string(rs[i:j])
			i = j
			if !strings.EqualFold(word, "metrics") {
				continue
			}
			if k := skipSpace(i); k < len(rs) && rs[k] == '.' {
				k = skipSpace(k + 1)
				switch {
				case k < len(rs) && rs[k] == '\'':
					var name string
					name, i = quoted(k)
					names = append(names, name)
				case k < len(rs) && nameRune(rs[k]):
					j := k
					for j < len(rs) && nameRune(rs[j]) {
						j++
					}
					names = append(names, string(rs[k:j]))
					i = j
				}
			}
		default:
			i++
		}
	}
	return names
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

// runsCSV is a row per run, with a column metrics.NAME per metric any of
// the runs has, in name order, after the run's own columns.
func runsCSV(runs []store.Run) *Table {
	t := &Table{Header: []string{"run_id", "experiment", "run", "created_at", "last_logged", "evaluations", "git_commit", "tags", "params", "aggregates_only_evaluations"}}
	var metrics []string
	for _, r := range runs {
		for m := range r.Metrics {
			if !slices.Contains(metrics, m) {
				metrics = append(metrics, m)
			}
		}
	}
	slices.Sort(metrics)
	for _, m := range metrics {
		t.Header = append(t.Header, "metrics."+m)
	}
	for _, r := range runs {
		params := "{}"
		if len(r.Params) > 0 {
			if b, err := json.Marshal(r.Params); err == nil {
				params = string(b)
			} else {
				params = ""
			}
		}
		row := []string{strconv.FormatInt(r.ID, 10), r.Experiment, r.Name, CSVTime(r.CreatedAt), CSVTime(r.LastLogged),
			strconv.FormatInt(r.Evaluations, 10), r.GitCommit, strings.Join(r.Tags, ","), params, strconv.FormatInt(r.AggregatesOnly, 10)}
		for _, m := range metrics {
			cell := ""
			if x, ok := r.Metrics[m]; ok {
				cell = CSVNum(x)
			}
			row = append(row, cell)
		}
		t.Add(row...)
	}
	return t
}
