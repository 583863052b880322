package compare

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/verdict-ml/verdict/store"
)

// ErrNeedExperiment is returned by Resolve for a name that is not an
// evaluation ID when no experiment was given to look a run up in.
var ErrNeedExperiment = errors.New("not an evaluation ID, and no experiment to find a run in")

// Resolve finds the evaluation a front end names. Without an experiment,
// arg is an evaluation ID. With one, arg is a run of that experiment, and
// the evaluation is the run's newest on evalSet (or on the run's only
// evaluation set when evalSet is empty).
//
// Errors: store.ErrNotFound when there is no such evaluation or run,
// store.ErrSeveralEvalSets when the run has several sets and none was
// named, ErrNeedExperiment.
func Resolve(ctx context.Context, st *store.Store, experiment, evalSet, arg string) (*store.Evaluation, error) {
	if experiment == "" {
		id, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", arg, ErrNeedExperiment)
		}
		e, err := st.GetEvaluation(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("no evaluation %d: %w", id, store.ErrNotFound)
		}
		return e, err
	}
	return st.LatestEvaluation(ctx, experiment, arg, evalSet)
}
