package compare

import (
	"context"
	"errors"
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
	// GroupBoards rank the experiment's groups of runs (configurations
	// trained with several seeds), where it has some: a leaderboard by
	// group for every evaluation set and metric every grouped run has.
	GroupBoards []*Leaderboard
	History     []store.HistoryEntry
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
	all, err := st.ListRuns(ctx, q.Experiment)
	if err != nil {
		return nil, err
	}
	grouped := slices.ContainsFunc(all, func(r store.Run) bool { return r.Group != "" })
	for _, set := range x.EvalSets {
		read, err := readOnce(ctx, st, q, set, metricsOf[set], len(metricsOf[set]))
		if err != nil {
			return nil, err
		}
		for _, metric := range metricsOf[set] {
			if len(q.Metrics) > 0 && !slices.Contains(q.Metrics, metric) {
				continue
			}
			if q.Progress != nil {
				q.Progress(metric, set)
			}
			lb, err := NewLeaderboard(ctx, st, LeaderboardQuery{Experiment: q.Experiment, EvalSet: set, Metric: metric,
				Limit: q.Limit, Ranks: true, Options: q.Options, Columns: read})
			if err != nil {
				return nil, err
			}
			x.Leaderboards = append(x.Leaderboards, lb)
			if grouped {
				gb, err := NewLeaderboard(ctx, st, LeaderboardQuery{Experiment: q.Experiment, EvalSet: set, Metric: metric,
					Limit: q.Limit, ByGroup: true, Options: q.Options})
				switch {
				case err == nil:
					x.GroupBoards = append(x.GroupBoards, gb)
				case !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrUnknownMetric) && !errors.Is(err, store.ErrNoUnits) &&
					!errors.Is(err, store.ErrNotComparable) && !errors.Is(err, ErrNothingShared) && !errors.Is(err, store.ErrSeveralEvalSets):
					return nil, err
				}
				// else: a grouped run has no per-unit values of this
				// metric on this set; its groups are not ranked here.
			}
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

// readBudget bounds the values readOnce holds: 4 bytes a unit and metric,
// so 64 million of them.
const readBudget = 256 << 20

// readOnce reads at once the values of the evaluations the leaderboards of
// metrics on set rank, each evaluation's table once rather than once a
// metric, when they fit in readBudget (width is the most metrics an
// evaluation of the set has) and the leaderboards would read them all
// (no more runs than q.Limit shows, and the baseline); nil otherwise.
// Evaluations with draws are left to the leaderboards.
func readOnce(ctx context.Context, st *store.Store, q ExperimentQuery, set string, metrics []string, width int) (*store.ValueColumns, error) {
	if len(q.Metrics) > 0 {
		metrics = slices.DeleteFunc(slices.Clone(metrics), func(m string) bool { return !slices.Contains(q.Metrics, m) })
	}
	if len(metrics) < 2 {
		return nil, nil
	}
	units := map[int64]int64{}
	var values int64
	for _, m := range metrics {
		means, err := st.LatestMeans(ctx, q.Experiment, set, m)
		if err != nil {
			return nil, err
		}
		for _, e := range means {
			if e.NoUnits || e.Predictions || e.Rows != e.Units {
				continue
			}
			if _, ok := units[e.EvaluationID]; !ok {
				units[e.EvaluationID] = e.Units
				values += e.Units * int64(width) // every metric of the evaluation is read
			}
		}
	}
	// With a limit, each leaderboard reads its best runs only: reading
	// every run's values would read more than the leaderboards show.
	if len(units) == 0 || 4*values > readBudget || q.Limit > 0 && len(units) > q.Limit+1 {
		return nil, nil
	}
	return st.ReadValueColumns(ctx, slices.Sorted(maps.Keys(units)))
}
