package compare

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/store"
)

// ErrNeedExperiment is returned by Resolve for a name that is not an
// evaluation ID when no experiment was given to look a run up in.
var ErrNeedExperiment = errors.New("not an evaluation ID, and no experiment to find a run in")

// Resolve finds the evaluation a front end names. Without an experiment,
// arg is an evaluation ID. With one, arg is a run of that experiment, and
// the evaluation is the run's newest on evalSet (or on the run's only
// evaluation set when evalSet is empty), or RUN@STEP, the run's
// evaluation at a step (store.NewEvaluation.Step) on that set.
//
// Run names may hold '@', so a run named arg wins: a@3 is the run a@3
// when the experiment has one, and else step 3 of run a. The step is the
// whole number after the last '@'; with anything else there, arg is a run
// name only.
//
// Errors: store.ErrNotFound when there is no such evaluation or run (for
// RUN@STEP, the message lists the run's steps), store.ErrSeveralEvalSets
// when the run has several sets and none was named, ErrNeedExperiment.
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
	run, step, ok := splitStep(arg)
	if !ok {
		return st.LatestEvaluation(ctx, experiment, arg, evalSet)
	}
	_, err := st.GetRun(ctx, experiment, arg)
	switch {
	case err == nil:
		return st.LatestEvaluation(ctx, experiment, arg, evalSet)
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	return st.EvaluationAtStep(ctx, experiment, run, evalSet, step)
}

// splitStep splits RUN@STEP at its last '@'; ok is false when arg has no
// '@', nothing before it, or no whole number after it.
func splitStep(arg string) (run string, step int64, ok bool) {
	at := strings.LastIndexByte(arg, '@')
	if at <= 0 {
		return "", 0, false
	}
	step, err := strconv.ParseInt(arg[at+1:], 10, 64)
	if err != nil {
		return "", 0, false
	}
	return arg[:at], step, true
}

// evaluationName names an evaluation beside another of its run: RUN@STEP
// when it has a step, as a user names it, else RUN#ID.
func evaluationName(e *store.Evaluation) string {
	if e.Step != nil {
		return fmt.Sprintf("%s@%d", e.Run, *e.Step)
	}
	return fmt.Sprintf("%s#%d", e.Run, e.ID)
}
