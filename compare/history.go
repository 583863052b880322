package compare

import (
	"context"
	"runtime"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// History returns the recorded comparisons matching f, newest first: every
// comparison Evaluations recorded, and each Holm test of a recorded Rank
// (method "friedman+holm").
func History(ctx context.Context, st *store.Store, f store.HistoryFilter) ([]store.HistoryEntry, error) {
	return st.History(ctx, f)
}

// GetComparison returns one recorded comparison, or store.ErrNotFound.
func GetComparison(ctx context.Context, st *store.Store, id int64) (*store.HistoryEntry, error) {
	return st.GetComparison(ctx, id)
}

// ValuePoint is an evaluation's mean of a metric, with its bootstrap
// interval, at the time it was logged.
type ValuePoint struct {
	Run      string
	LoggedAt time.Time
	Mean     stats.Interval
}

// ValuesOverTime is the mean of metric, with its bootstrap interval, of
// every evaluation on either side of the comparisons in hist, once each,
// in the order they first appear.
func ValuesOverTime(ctx context.Context, st *store.Store, hist []store.HistoryEntry, metric string, opts Options) ([]ValuePoint, error) {
	seen := map[int64]bool{}
	var evals []*store.Evaluation
	for _, h := range hist {
		for _, id := range []int64{h.BaselineID, h.CandidateID} {
			if seen[id] {
				continue
			}
			seen[id] = true
			e, err := st.GetEvaluation(ctx, id)
			if err != nil {
				return nil, err
			}
			evals = append(evals, e)
		}
	}
	points := make([]ValuePoint, len(evals))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, e := range evals {
		g.Go(func() error {
			rm := store.RunMean{EvaluationID: e.ID, Run: e.Run, EvalSet: e.EvalSet, EvalSetID: e.EvalSetID, Units: e.Units, CreatedAt: e.CreatedAt}
			row, err := leaderboardEntry(gctx, st, nil, &rm, metric, opts)
			if err != nil {
				return err
			}
			points[i] = ValuePoint{Run: e.Run, LoggedAt: e.CreatedAt, Mean: row.Mean}
			return nil
		})
	}
	return points, g.Wait()
}
