package store

import (
	"context"
	"fmt"
)

// ExperimentVersions are the IDs of the newest evaluation of an experiment
// and, when history is set, of its newest recorded comparison (0 when it
// has none, or when history is not set: the query then reads no
// comparison). Evaluations and comparisons are never changed or removed,
// and runs change only when an evaluation is logged, so an answer computed
// from an experiment's evaluations (a leaderboard), or from them and its
// history (a report), stays right while these stay the same. It returns
// ErrNotFound when there is no such experiment.
func (s *Store) ExperimentVersions(ctx context.Context, experiment string, history bool) (evaluations, comparisons int64, err error) {
	// A comparison belongs to its left evaluation's experiment, as in the
	// comparison_history view.
	var known bool
	err = s.pool.QueryRow(ctx, `
		SELECT
		  EXISTS (SELECT 1 FROM experiments WHERE name = $1),
		  (SELECT coalesce(max(e.id), 0) FROM experiments x
		   JOIN runs r ON r.experiment_id = x.id JOIN evaluations e ON e.run_id = r.id
		   WHERE x.name = $1),
		  CASE WHEN $2 THEN
		    (SELECT coalesce(max(c.id), 0) FROM experiments x
		     JOIN runs r ON r.experiment_id = x.id JOIN evaluations e ON e.run_id = r.id
		     JOIN comparisons c ON c.left_evaluation_id = e.id
		     WHERE x.name = $1)
		  ELSE 0 END`,
		experiment, history).Scan(&known, &evaluations, &comparisons)
	if err != nil {
		return 0, 0, fmt.Errorf("experiment %q: %w", experiment, err)
	}
	if !known {
		return 0, 0, fmt.Errorf("experiment %q: %w", experiment, ErrNotFound)
	}
	return evaluations, comparisons, nil
}
