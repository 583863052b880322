package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/store"
)

// loggedJSON is the JSON form of a logged evaluation.
type loggedJSON struct {
	EvaluationID    int64              `json:"evaluation_id"`
	Existing        bool               `json:"existing"`
	Experiment      string             `json:"experiment"`
	Run             string             `json:"run"`
	EvalSet         string             `json:"evaluation_set"`
	Step            *int64             `json:"step"`
	Rows            int64              `json:"n_rows"`
	ScoredRows      int64              `json:"n_scored_rows"`
	Units           int64              `json:"n_units"`
	Metrics         []string           `json:"metrics"`
	Aggregates      map[string]float64 `json:"aggregates"`
	Fingerprint     string             `json:"fingerprint"`
	FingerprintKind string             `json:"fingerprint_kind"`
	Seconds         float64            `json:"seconds"`
	AggregatesOnly  bool               `json:"aggregates_only,omitempty"`
	// An evaluation of predictions' task, classes and parameters.
	Task      string   `json:"task,omitempty"`
	Classes   []string `json:"classes,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`
	Bins      *int     `json:"bins,omitempty"`
}

func (j loggedJSON) withPredictions(p *store.PredictionInfo) loggedJSON {
	if p != nil {
		j.Task, j.Classes = p.Task, p.Classes
		if p.Task == store.TaskBinary {
			j.Threshold, j.Bins = &p.Threshold, &p.Bins
		}
	}
	return j
}

// Logged says what `verdict log` stored: a line for people, or JSON.
func Logged(w io.Writer, format string, l *store.Logged) error {
	var err error
	set := Printable(l.EvalSet)
	if l.Step != nil {
		set += fmt.Sprintf(" at step %d", *l.Step)
	}
	switch {
	case format == "json":
		err = WriteJSON(w, loggedJSON{
			EvaluationID: l.ID, Existing: l.Existing, Experiment: l.Experiment, Run: l.Run, EvalSet: l.EvalSet, Step: l.Step,
			Rows: l.Rows, ScoredRows: l.ScoredRows, Units: l.Units, Metrics: l.Metrics, Aggregates: l.Aggregates,
			Fingerprint: l.Fingerprint, FingerprintKind: l.FingerprintKind, Seconds: l.Elapsed.Seconds(), AggregatesOnly: l.AggregatesOnly,
		}.withPredictions(l.Predictions))
	case l.Existing:
		_, err = fmt.Fprintf(w, "evaluation %d: already logged for %s/%s on %s (same content or idempotency key); nothing written\n",
			l.ID, Printable(l.Experiment), Printable(l.Run), set)
	case l.Predictions != nil:
		p := l.Predictions
		task := fmt.Sprintf("binary, threshold %g, %d ece bins", p.Threshold, p.Bins)
		if p.Task != store.TaskBinary {
			task = fmt.Sprintf("%d classes", len(p.Classes))
		}
		if _, err = fmt.Fprintf(w, "evaluation %d: %s/%s on %s: %s (%s) in %.2f s\n", l.ID, Printable(l.Experiment), Printable(l.Run), set,
			plural(int(l.Units), "prediction"), task, l.Elapsed.Seconds()); err != nil {
			return err
		}
		for _, m := range l.Metrics {
			if _, err = fmt.Fprintf(w, "  %-18s %s\n", Printable(m), Num(l.Aggregates[m])); err != nil {
				return err
			}
		}
	default:
		kept := ""
		if l.AggregatesOnly {
			kept = " (aggregates only: no per-unit values kept)"
		}
		_, err = fmt.Fprintf(w, "evaluation %d: %s/%s on %s: %s, %s, %s in %.2f s%s\n", l.ID, Printable(l.Experiment), Printable(l.Run), set,
			plural(int(l.Rows), "row"), plural(int(l.Units), "unit"), plural(len(l.Metrics), "metric"), l.Elapsed.Seconds(), kept)
	}
	return err
}

// storedJSON is the JSON form of a stored evaluation, as the HTTP API's
// GET /api/v1/evaluations/{id} gives it: a logged evaluation's fields
// without those of the log itself (existing, seconds), plus when it was
// logged, its directions, protocol and metadata.
type storedJSON struct {
	EvaluationID    int64              `json:"evaluation_id"`
	Experiment      string             `json:"experiment"`
	Run             string             `json:"run"`
	EvalSet         string             `json:"evaluation_set"`
	Step            *int64             `json:"step"`
	CreatedAt       string             `json:"created_at"`
	Rows            int64              `json:"n_rows"`
	ScoredRows      int64              `json:"n_scored_rows"`
	Units           int64              `json:"n_units"`
	Metrics         []string           `json:"metrics"`
	LowerIsBetter   []string           `json:"lower_is_better"`
	Aggregates      map[string]float64 `json:"aggregates"`
	Fingerprint     string             `json:"fingerprint"`
	FingerprintKind string             `json:"fingerprint_kind"`
	Protocol        protocolJSON       `json:"protocol"`
	Metadata        map[string]any     `json:"metadata"`
	IdempotencyKey  string             `json:"idempotency_key,omitempty"`
	SoftwareVersion string             `json:"software_version"`
	// AggregatesOnly: logged without per-unit values. WholeSet: the keys of
	// aggregates that are whole-set metrics, with no per-unit values.
	AggregatesOnly bool     `json:"aggregates_only"`
	WholeSet       []string `json:"whole_set_metrics"`
	// DebugRows, for `verdict show evaluation --debug`, are the rows
	// logged with it; nil leaves the field out.
	DebugRows *[]any `json:"debug_rows,omitempty"`
}

type protocolJSON struct {
	Name      string `json:"name"`
	Cutoffs   []int  `json:"cutoffs"`
	RequiredK int    `json:"required_k"`
	EvalDraws int    `json:"eval_draws"`
	Folds     int    `json:"folds"`
	Repeats   int    `json:"repeats"`
	NTrain    int64  `json:"n_train"`
	NTest     int64  `json:"n_test"`
}

// Stored writes a stored evaluation as JSON.
func Stored(w io.Writer, e *store.Evaluation) error { return WriteJSON(w, stored(e)) }

// StoredList writes stored evaluations as a JSON array.
func StoredList(w io.Writer, list []store.Evaluation) error {
	out := make([]storedJSON, len(list))
	for i := range list {
		out[i] = stored(&list[i])
	}
	return WriteJSON(w, out)
}

func stored(e *store.Evaluation) storedJSON {
	p := e.Protocol
	return storedJSON{
		EvaluationID: e.ID, Experiment: e.Experiment, Run: e.Run, EvalSet: e.EvalSet, Step: e.Step, CreatedAt: e.CreatedAt.UTC().Format(time.RFC3339Nano),
		Rows: e.Rows, ScoredRows: e.ScoredRows, Units: e.Units, Metrics: e.Metrics, LowerIsBetter: nonNil(e.LowerIsBetter),
		Aggregates: e.Aggregates, Fingerprint: e.Fingerprint, FingerprintKind: e.FingerprintKind,
		Protocol: protocolJSON{Name: p.Name, Cutoffs: p.Cutoffs, RequiredK: p.RequiredK, EvalDraws: p.EvalDraws,
			Folds: p.Folds, Repeats: p.Repeats, NTrain: p.NTrain, NTest: p.NTest},
		Metadata: e.Metadata, IdempotencyKey: e.IdempotencyKey, SoftwareVersion: e.SoftwareVersion,
		AggregatesOnly: e.AggregatesOnly, WholeSet: nonNil(e.WholeSet()),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Evaluation writes what `verdict evaluate` computed: each metric's mean
// with the counts and the targets' fingerprint, and whether it was logged
// (table, markdown), the means alone (csv), or JSON.
func Evaluation(w io.Writer, format string, r *evaluate.Result) error {
	if format == "json" {
		return WriteJSON(w, r)
	}
	means := make([]float64, len(r.Keys))
	for i, k := range r.Keys {
		means[i] = r.Means[k]
	}
	t := Table{Header: []string{"METRIC", "MEAN"}, Right: map[int]bool{1: true}}
	texts := Nums(means, false)
	if format == "csv" {
		t.Header = []string{"metric", "mean"}
		for i := range texts {
			texts[i] = CSVNum(means[i])
		}
	}
	for i, k := range r.Keys {
		t.Add(k, texts[i])
	}
	for _, k := range r.WholeSetKeys {
		t.Add(k+" (whole set)", map[bool]string{true: CSVNum(r.Means[k]), false: Num(r.Means[k])}[format == "csv"])
	}
	if err := t.Write(w, format); err != nil || format == "csv" {
		return err
	}
	fmt.Fprintf(w, "\n%s rows, %s scored, %s units, required k %d, targets %s\n",
		Thousands(r.Rows), Thousands(r.ScoredRows), Thousands(r.Units), r.RequiredK, r.TargetFingerprint[:12])
	if r.ServiceLogError != "" {
		fmt.Fprintf(w, "service log: turned off after an error, nothing more was written to it: %s\n", Printable(r.ServiceLogError))
	}
	switch {
	case r.EvaluationID == nil:
		fmt.Fprintln(w, "not logged (--no-log)")
	case r.Existing:
		fmt.Fprintf(w, "evaluation %d: already logged with the same content; nothing written\n", *r.EvaluationID)
	case r.AggregatesOnly:
		fmt.Fprintf(w, "logged as evaluation %d, aggregates only (--no-per-user): it cannot be compared\n", *r.EvaluationID)
	default:
		fmt.Fprintf(w, "logged as evaluation %d\n", *r.EvaluationID)
	}
	if len(r.DebugMissing) > 0 {
		fmt.Fprintf(w, "no row with targets has sample ID %s\n", Printable(strings.Join(r.DebugMissing, ", ")))
	}
	if len(r.Debug) == 0 {
		return nil
	}
	if r.EvaluationID != nil && !r.Existing && r.DebugStored < len(r.Debug) {
		fmt.Fprintf(w, "the first %d debug rows were stored with it; the rest exceed %d bytes\n", r.DebugStored, store.MaxDebugBytes)
	}
	fmt.Fprintln(w)
	return DebugRows(w, format, r.Debug, r.Keys)
}

// Fingerprint is the fingerprint of one targets file.
type Fingerprint struct {
	File            string `json:"file"`
	Fingerprint     string `json:"fingerprint"`
	FingerprintKind string `json:"fingerprint_kind"`
	Samples         int64  `json:"samples"`
}

// Fingerprints writes the fingerprints of targets files: one line each,
// fingerprint, file and samples separated by tabs, for `cut -f1`; or JSON,
// an object for one file and an array for several.
func Fingerprints(w io.Writer, format string, fps []Fingerprint) error {
	switch {
	case format == "json" && len(fps) == 1:
		return WriteJSON(w, fps[0])
	case format == "json":
		return WriteJSON(w, fps)
	}
	for _, f := range fps {
		if _, err := fmt.Fprintf(w, "%s\t%s\t%d samples with targets\n", f.Fingerprint, Printable(f.File), f.Samples); err != nil {
			return err
		}
	}
	return nil
}

// MissingRankings says, on w, how many samples with targets had no
// predictions (Rankings.Missing): qrels queries missing from a TREC run,
// samples of a table's targets with no predicted rows. Both were scored as
// rows with no hits.
func MissingRankings(w io.Writer, src evaluate.Rankings) {
	if n, what := src.Missing(); n > 0 {
		fmt.Fprintf(w, "verdict: %d %s\n", n, what)
	}
}
