package scores

import (
	"context"
	"errors"
	"fmt"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/store"
)

// Skipped is a metric left out of an evaluation of predictions, with why.
type Skipped struct {
	Metric, Reason string
}

// evaluate computes every metric defined on the predictions: the binary
// metrics at opts' threshold and bins (log_loss, brier and ece only when
// every score is a probability; the ranking metrics only with both
// classes), or the multi-class ones. It returns the set ready to log, and
// the metrics left out with the reason, and the metrics' directions. Errors
// wrap ErrBadPredictions.
func (p *Predictions) evaluate(opts classify.Options) (*store.PredictionSet, *classify.Evaluation, []Skipped, error) {
	var ev *classify.Evaluation
	var err error
	set := &store.PredictionSet{
		PredictionInfo: store.PredictionInfo{Task: p.Task, Classes: p.Classes},
		SampleIDs:      p.SampleIDs, Labels: p.Labels, Scores: p.Scores,
	}
	switch p.Task {
	case TaskBinary:
		set.Threshold, set.Bins = opts.Threshold, opts.Bins
		labels := make([]int8, len(p.Labels))
		for i, l := range p.Labels {
			labels[i] = int8(l)
		}
		ev, err = classify.EvaluateBinary(labels, p.Scores, opts)
	default:
		ev, err = classify.EvaluateMulticlass(p.Labels, p.Scores, len(p.Classes))
	}
	if err != nil {
		if errors.Is(err, classify.ErrBadParameter) {
			return nil, nil, nil, err
		}
		return nil, nil, nil, fmt.Errorf("%w: %s: %w", ErrBadPredictions, p.Path, err)
	}
	if len(ev.Metrics) == 0 {
		return nil, nil, nil, fmt.Errorf("%w: %s: no metric is defined on these predictions", ErrBadPredictions, p.Path)
	}
	set.Metrics, set.Values = ev.Metrics, ev.Values
	var skipped []Skipped
	for _, m := range classify.Metrics() {
		if why, ok := ev.Skipped[m.Name]; ok {
			skipped = append(skipped, Skipped{Metric: m.Name, Reason: why})
		}
	}
	return set, ev, skipped, nil
}

// Log computes the predictions' metrics and stores them with
// every prediction in st as the evaluation ev, in one transaction, with
// the metrics where lower is better marked so. It returns the metrics left
// out, with why.
func (p *Predictions) Log(ctx context.Context, st *store.Store, ev store.NewEvaluation, opts classify.Options) (*store.Logged, []Skipped, error) {
	set, metrics, skipped, err := p.evaluate(opts)
	if err != nil {
		return nil, nil, err
	}
	ev.LowerIsBetter = metrics.LowerIsBetter
	logged, err := st.LogPredictions(ctx, ev, set)
	return logged, skipped, err
}
