package store

import (
	"context"
	"fmt"
)

// ExperimentVersions are the IDs of the newest evaluation and of the newest
// recorded comparison of an experiment, 0 when it has none. Evaluations and
// comparisons are never changed or removed, and runs change only when an
// evaluation is logged, so an answer computed from an experiment's
// evaluations (a leaderboard), or from them and its history (a report),
// stays right while these stay the same.
func (s *Store) ExperimentVersions(ctx context.Context, experiment string) (evaluations, comparisons int64, err error) {
	err = s.pool.QueryRow(ctx, `
		SELECT
		  (SELECT coalesce(max(e.id), 0) FROM experiments x
		   JOIN runs r ON r.experiment_id = x.id JOIN evaluations e ON e.run_id = r.id
		   WHERE x.name = $1),
		  (SELECT coalesce(max(c.comparison_id), 0) FROM comparison_history c WHERE c.experiment = $1)`,
		experiment).Scan(&evaluations, &comparisons)
	if err != nil {
		return 0, 0, fmt.Errorf("experiment %q: %w", experiment, err)
	}
	return evaluations, comparisons, nil
}
