package compare

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/verdict-ml/verdict/store"
)

// ExperimentQuery is what an experiment's summary is asked for.
type ExperimentQuery struct {
	Experiment string
	// EvalSet and Metrics narrow the leaderboards; empty means all.
	EvalSet string
	Metrics []string
	// Limit is the runs per leaderboard (the best), 0 for all; History the
	// newest recorded comparisons; Runs the newest runs listed, 0 for all.
	Limit, History, Runs int
	Options              Options
	// Progress, when set, is told of each leaderboard before it is built.
	Progress func(metric, evalSet string)
}

// Experiment is the state of one experiment: a leaderboard, with a
// ranking user by user, for every evaluation set and metric; the newest
// recorded comparisons; and its runs.
type Experiment struct {
	Name         string
	Leaderboards []*Leaderboard
	History      []store.HistoryEntry
	// Runs are the newest runs, newest first; TotalRuns counts them all.
	Runs        []store.Run
	TotalRuns   int
	Evaluations int
	EvalSets    []string
	Options     Options
	// Generated is when the summary was made.
	Generated time.Time
}

// Summarize builds an experiment's summary, the content of its HTML
// report. Leaderboards come in evaluation set order, each set's metrics in
// the order they were first logged.
func Summarize(ctx context.Context, st *store.Store, q ExperimentQuery) (*Experiment, error) {
	if q.Experiment == "" {
		return nil, invalidf("name the experiment")
	}
	evals, err := st.ListEvaluations(ctx, store.EvaluationFilter{Experiment: q.Experiment, EvalSet: q.EvalSet})
	if err != nil {
		return nil, err
	}
	if len(evals) == 0 {
		if q.EvalSet != "" {
			return nil, fmt.Errorf("%w: experiment %q has no evaluations on %s", ErrNoEvaluations, q.Experiment, q.EvalSet)
		}
		return nil, fmt.Errorf("%w: experiment %q has no evaluations", ErrNoEvaluations, q.Experiment)
	}
	metricsOf := map[string][]string{}
	for i := len(evals) - 1; i >= 0; i-- {
		e := evals[i]
		for _, m := range e.Metrics {
			if !slices.Contains(metricsOf[e.EvalSet], m) {
				metricsOf[e.EvalSet] = append(metricsOf[e.EvalSet], m)
			}
		}
	}
	for _, m := range q.Metrics {
		found := false
		for _, ms := range metricsOf {
			found = found || slices.Contains(ms, m)
		}
		if !found {
			return nil, fmt.Errorf("%w: no evaluation of experiment %q has %s", ErrNoEvaluations, q.Experiment, m)
		}
	}
	x := &Experiment{Name: q.Experiment, Evaluations: len(evals), EvalSets: slices.Sorted(maps.Keys(metricsOf)), Options: q.Options.resolved(),
		Generated: time.Now()}
	for _, set := range x.EvalSets {
		for _, metric := range metricsOf[set] {
			if len(q.Metrics) > 0 && !slices.Contains(q.Metrics, metric) {
				continue
			}
			if q.Progress != nil {
				q.Progress(metric, set)
			}
			lb, err := NewLeaderboard(ctx, st, LeaderboardQuery{Experiment: q.Experiment, EvalSet: set, Metric: metric,
				Limit: q.Limit, Ranks: true, Options: q.Options})
			if err != nil {
				return nil, err
			}
			x.Leaderboards = append(x.Leaderboards, lb)
		}
	}
	if x.History, err = st.History(ctx, store.HistoryFilter{Experiment: q.Experiment, Limit: q.History}); err != nil {
		return nil, err
	}
	runs, err := st.SearchRuns(ctx, store.RunQuery{Experiment: q.Experiment})
	if err != nil {
		return nil, err
	}
	x.TotalRuns, x.Runs = len(runs), runs
	if q.Runs > 0 && len(runs) > q.Runs {
		x.Runs = runs[:q.Runs]
	}
	return x, nil
}
