package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Run is one trained model of an experiment.
type Run struct {
	ID         int64          `json:"run_id"`
	Experiment string         `json:"experiment"`
	Name       string         `json:"run"`
	Params     map[string]any `json:"params"`
	// Tags lists the run's tags as text, sorted: KEY for a tag whose value
	// is "true" (logged without one), KEY=VALUE otherwise. TagValues holds
	// them as keys and values.
	Tags      []string          `json:"tags"`
	TagValues map[string]string `json:"tag_values"`
	GitCommit string            `json:"git_commit"`
	// Group is the configuration the run trains with one of several
	// seeds, or "".
	Group       string    `json:"group"`
	CreatedAt   time.Time `json:"created_at"`
	Evaluations int64     `json:"evaluations"` // how many evaluations it has
	// AggregatesOnly is how many of them were logged with their aggregates
	// only: they chart and rank by their means, but cannot be paired.
	AggregatesOnly int64     `json:"aggregates_only_evaluations"`
	LastLogged     time.Time `json:"last_logged"` // when its newest evaluation was logged

	// Metrics are the means (aggregates, whole-set metrics included) of
	// the run's newest evaluation on the query's evaluation set
	// (RunQuery.EvalSet), or without one, of its newest evaluation on any
	// set; empty when it has none. The filter's metrics.NAME reads the
	// newest evaluation that has NAME, which is the same one unless the
	// run's evaluations have different metrics.
	Metrics map[string]float64 `json:"metrics"`
}

// runColumns are the columns scanRun reads; evalSet is the SQL of the
// evaluation set name Metrics reads (empty for any).
func runColumns(evalSet string) string {
	return `
	r.id, x.name, r.name, r.params, r.tags, r.tag_values, coalesce(r.git_commit, ''), coalesce(r.config_group, ''), r.created_at,
	(SELECT count(*) FROM evaluations e WHERE e.run_id = r.id),
	(SELECT count(*) FROM evaluations e WHERE e.run_id = r.id AND e.aggregates_only),
	coalesce((SELECT max(e.created_at) FROM evaluations e WHERE e.run_id = r.id), r.created_at),
	coalesce((SELECT e.aggregates FROM evaluations e
	          WHERE e.run_id = r.id
	            AND (` + evalSet + ` = '' OR e.evaluation_set_id IN (SELECT s.id FROM evaluation_sets s WHERE s.name = ` + evalSet + `))
	          ORDER BY e.created_at DESC, e.id DESC
	          LIMIT 1), '{}')`
}

func scanRun(row pgx.Row) (*Run, error) {
	var r Run
	err := row.Scan(&r.ID, &r.Experiment, &r.Name, &r.Params, &r.Tags, &r.TagValues, &r.GitCommit, &r.Group, &r.CreatedAt, &r.Evaluations, &r.AggregatesOnly, &r.LastLogged, &r.Metrics)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	return &r, err
}

// GetRun returns a run by experiment and name, or ErrNotFound.
func (s *Store) GetRun(ctx context.Context, experiment, name string) (*Run, error) {
	r, err := scanRun(s.pool.QueryRow(ctx, `SELECT `+runColumns("''::text")+`
		FROM runs r JOIN experiments x ON x.id = r.experiment_id
		WHERE x.name = $1 AND r.name = $2`, experiment, name))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("get run %s/%s: %w", experiment, name, err)
	}
	return r, err
}

// ListRuns returns the runs of an experiment ("" for all), newest first.
func (s *Store) ListRuns(ctx context.Context, experiment string) ([]Run, error) {
	return s.SearchRuns(ctx, RunQuery{Experiment: experiment})
}
