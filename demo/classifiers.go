package demo

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
)

// The classification story's experiment and evaluation set.
const (
	ClassifierExperiment = "breast-cancer-demo"
	ClassifierEvalSet    = "every-third-tumour"
)

// tellClassifiers tells the classification part of the story: the two
// logistic regressions of BreastCancerModels score the held-out tumours,
// each model's predictions are logged with their metrics as `verdict log
// --predictions` does, and the two are compared tumour by tumour with
// each metric's own test.
func tellClassifiers(ctx context.Context, st *store.Store, w io.Writer) error {
	models, err := BreastCancerModels()
	if err != nil {
		return err
	}
	n, pos := len(models[0].Labels), 0
	for _, l := range models[0].Labels {
		pos += int(l)
	}
	fmt.Fprintf(w, "\nA classifier too: the Breast Cancer Wisconsin (Diagnostic) data (Wolberg, Street and Mangasarian; UCI Machine Learning Repository, CC BY 4.0), 569 tumours. Two logistic regressions learn malignancy from two thirds of them and predict the other %d (%d malignant):\n\n", n, pos)
	show := []string{"roc_auc", "average_precision", "log_loss", "accuracy"}
	t := report.Table{Header: append(append([]string{"MODEL"}, show...), "EVALUATION"), Right: map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true}}
	evals := map[string]*store.Evaluation{}
	for _, m := range models {
		logged, err := logClassifier(ctx, st, m)
		if err != nil {
			return err
		}
		evals[m.Name] = &logged.Evaluation
		row := []string{m.Name}
		for _, k := range show {
			row = append(row, strconv.FormatFloat(logged.Aggregates[k], 'f', 4, 64))
		}
		note := strconv.FormatInt(logged.ID, 10)
		if logged.Existing {
			note += " (already logged)"
		}
		t.Add(append(row, note)...)
	}
	if err := t.Write(w, "table"); err != nil {
		return err
	}
	base, cand := models[0].Name, models[1].Name
	fmt.Fprintf(w, "\nverdict compare %s %s (paired by tumour: DeLong for roc_auc, McNemar for accuracy, a stratified bootstrap for log_loss):\n", base, cand)
	res, err := compare.Evaluations(ctx, st, evals[base], evals[cand],
		compare.Options{Metrics: []string{"roc_auc", "log_loss", "accuracy"}, Record: true, Sentence: report.Verdict})
	if err != nil {
		return err
	}
	for _, r := range res.Metrics {
		fmt.Fprintf(w, "  %s\n", r.Verdict)
	}
	return nil
}

// logClassifier computes one model's metrics and logs its predictions, as
// `verdict log --predictions` does with a file.
func logClassifier(ctx context.Context, st *store.Store, m ClassifierPredictions) (*store.Logged, error) {
	p := &scores.Predictions{Path: m.Name, Task: scores.TaskBinary, Classes: []string{"0", "1"},
		SampleIDs: m.SampleIDs, Labels: make([]int32, len(m.Labels)), Scores: m.Scores, Probabilities: true}
	for i, l := range m.Labels {
		p.Labels[i] = int32(l)
	}
	logged, _, err := p.Log(ctx, st, store.NewEvaluation{
		Experiment: ClassifierExperiment,
		Run:        m.Name,
		EvalSet:    ClassifierEvalSet,
		Params:     m.Params,
		Tags:       []string{"demo"},
		Metadata:   map[string]any{"data": "Breast Cancer Wisconsin (Diagnostic), UCI, CC BY 4.0", "label": "1 = malignant"},
	}, classify.DefaultOptions())
	return logged, err
}
