package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/store"
)

// stepOf is an evaluation's step as the run page shows it, "-" for none.
func stepOf(e *store.Evaluation) string {
	if e.Step == nil {
		return "-"
	}
	return strconv.FormatInt(*e.Step, 10)
}

// hasSteps reports whether any of evals was logged with a step.
func hasSteps(evals []store.Evaluation) bool {
	return slices.ContainsFunc(evals, func(e store.Evaluation) bool { return e.Step != nil })
}

// runCurves is a run's training curves: for each evaluation set and
// metric of its evaluations with a step, the mean at each step with its
// bootstrap interval (compare.Curve, the defaults of verdict curve), drawn
// and listed. ok is false when no evaluation has a step.
func (s *Server) runCurves(ctx context.Context, experiment, run string, evals []store.Evaluation) (sec report.Section, ok bool, err error) {
	metrics := map[string]map[string]bool{} // by evaluation set
	for _, e := range evals {
		if e.Step == nil {
			continue
		}
		if metrics[e.EvalSet] == nil {
			metrics[e.EvalSet] = map[string]bool{}
		}
		for _, m := range e.Metrics {
			metrics[e.EvalSet][m] = true
		}
		for m := range e.Aggregates {
			metrics[e.EvalSet][m] = true
		}
	}
	if len(metrics) == 0 {
		return sec, false, nil
	}
	sec = report.Section{ID: "curves", Heading: "Curves by step", Parts: []report.Part{{Text: fmt.Sprintf(
		"The mean of each metric at each step of %s, with its bootstrap interval (verdict curve -e %s -r %s -m METRIC).", run, experiment, run)}}}
	for _, set := range slices.Sorted(maps.Keys(metrics)) {
		for _, m := range slices.Sorted(maps.Keys(metrics[set])) {
			var req compare.CurveRequest
			if err := request.Decode(request.Values{"experiment": {experiment}, "run": {run}, "metric": {m}, "eval_set": {set}}, &req); err != nil {
				return sec, false, err
			}
			c, err := compare.Curve(ctx, s.store, req)
			if errors.Is(err, compare.ErrNoEvaluations) {
				continue
			}
			if err != nil {
				return sec, false, err
			}
			fig, err := report.CurvePlot(c)
			switch {
			case errors.Is(err, report.ErrNothingToPlot), errors.Is(err, report.ErrPlotInput):
			case err != nil:
				return sec, false, err
			default:
				sec.Parts = append(sec.Parts, report.Part{Figure: fig})
			}
			sec.Parts = append(sec.Parts, report.Part{Table: report.CurveTable(c), Caption: fmt.Sprintf("%s on %s at each step, with its %g%% bootstrap interval.", m, set, 100*c.Confidence)})
		}
	}
	return sec, true, nil
}
