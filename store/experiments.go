package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Experiment is one experiment with counts of what it holds.
type Experiment struct {
	Name        string     `json:"name"`
	Runs        int64      `json:"runs"`
	Evaluations int64      `json:"evaluations"`
	LastLogged  *time.Time `json:"last_logged,omitempty"`
}

// ListExperiments returns the experiments by name, or only the one named
// when only is not empty.
func (s *Store) ListExperiments(ctx context.Context, only string) ([]Experiment, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT x.name,
		       (SELECT count(*) FROM runs r WHERE r.experiment_id = x.id),
		       (SELECT count(*) FROM evaluations e JOIN runs r ON r.id = e.run_id WHERE r.experiment_id = x.id),
		       (SELECT max(e.created_at) FROM evaluations e JOIN runs r ON r.id = e.run_id WHERE r.experiment_id = x.id)
		FROM experiments x
		WHERE $1 = '' OR x.name = $1
		ORDER BY x.name`, only)
	if err != nil {
		return nil, fmt.Errorf("list experiments: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Experiment, error) {
		var e Experiment
		err := r.Scan(&e.Name, &e.Runs, &e.Evaluations, &e.LastLogged)
		return e, err
	})
}
