package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// LatestEvaluation returns the newest evaluation of a run: on evalSet when it
// is not empty, else on the run's only evaluation set. ErrNotFound when there
// is none; ErrSeveralEvalSets, naming the sets, when the run has several and
// evalSet is empty.
func (s *Store) LatestEvaluation(ctx context.Context, experiment, run, evalSet string) (*Evaluation, error) {
	evals, err := s.ListEvaluations(ctx, EvaluationFilter{Experiment: experiment, Run: run, EvalSet: evalSet})
	if err != nil {
		return nil, err
	}
	if len(evals) == 0 {
		return nil, fmt.Errorf("run %q of experiment %q has no evaluation%s: %w", run, experiment, onSet(evalSet), ErrNotFound)
	}
	if evalSet == "" {
		sets := map[string]bool{}
		for _, e := range evals {
			sets[e.EvalSet] = true
		}
		if len(sets) > 1 {
			var names []string
			for n := range sets {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("%w: run %q has evaluations on %s; name one", ErrSeveralEvalSets, run, strings.Join(names, ", "))
		}
	}
	return &evals[0], nil
}

func onSet(evalSet string) string {
	if evalSet == "" {
		return ""
	}
	return fmt.Sprintf(" on %q", evalSet)
}
