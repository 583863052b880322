package store

import (
	"context"
	"fmt"
)

// ExperimentVersion is the ID of the newest evaluation of an experiment, 0
// when it has none. Stored evaluations never change and are never removed,
// so an answer computed from an experiment's evaluations (a leaderboard)
// stays right while its version stays the same.
func (s *Store) ExperimentVersion(ctx context.Context, experiment string) (int64, error) {
	var v int64
	err := s.pool.QueryRow(ctx, `
		SELECT coalesce(max(e.id), 0)
		FROM experiments x
		JOIN runs r ON r.experiment_id = x.id
		JOIN evaluations e ON e.run_id = r.id
		WHERE x.name = $1`, experiment).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("experiment %q: %w", experiment, err)
	}
	return v, nil
}
