package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// HistoryEntry is one recorded comparison, as the comparison_history view
// shows it: baseline is the left side, candidate the right.
type HistoryEntry struct {
	ID              int64     `json:"comparison_id"`
	CreatedAt       time.Time `json:"created_at"`
	Experiment      string    `json:"experiment"`
	EvalSet         string    `json:"evaluation_set"`
	Metric          string    `json:"metric"`
	BaselineID      int64     `json:"baseline_evaluation_id"`
	BaselineRun     string    `json:"baseline_run"`
	CandidateID     int64     `json:"candidate_evaluation_id"`
	CandidateRun    string    `json:"candidate_run"`
	Method          string    `json:"method"`
	N               int64     `json:"n"`
	BaselineMean    *float64  `json:"baseline_mean"`
	CandidateMean   *float64  `json:"candidate_mean"`
	Difference      *float64  `json:"difference"`
	Low             *float64  `json:"ci_low"`
	High            *float64  `json:"ci_high"`
	PValue          *float64  `json:"p_value"`
	PAdjusted       *float64  `json:"p_adjusted"`
	Adjustment      string    `json:"adjustment"`
	Distinguishable bool      `json:"distinguishable"`
	Winner          string    `json:"winner"` // baseline, candidate or ""
	LowerIsBetter   bool      `json:"lower_is_better"`
	Verdict         string    `json:"verdict"`
	Seed            int64     `json:"seed"`
	Resamples       int64     `json:"resamples"`
	SoftwareVersion string    `json:"software_version"`
}

// HistoryFilter selects recorded comparisons; empty fields match all.
type HistoryFilter struct {
	Experiment      string
	Run             string // either side
	Metric          string
	Winner          string // baseline, candidate or none
	Distinguishable *bool
	Since           time.Time
	Limit           int // 0 means 50
}

const historyColumns = `
	comparison_id, created_at, experiment, evaluation_set, metric,
	baseline_evaluation_id, baseline_run, candidate_evaluation_id, candidate_run,
	method, n, baseline_mean, candidate_mean, difference, ci_low, ci_high,
	p_value, p_adjusted, coalesce(adjustment, ''), coalesce(distinguishable, false),
	coalesce(winner, ''), lower_is_better, verdict, coalesce(seed, 0), coalesce(resamples, 0), software_version`

func scanHistory(row pgx.Row) (*HistoryEntry, error) {
	var h HistoryEntry
	err := row.Scan(&h.ID, &h.CreatedAt, &h.Experiment, &h.EvalSet, &h.Metric,
		&h.BaselineID, &h.BaselineRun, &h.CandidateID, &h.CandidateRun,
		&h.Method, &h.N, &h.BaselineMean, &h.CandidateMean, &h.Difference, &h.Low, &h.High,
		&h.PValue, &h.PAdjusted, &h.Adjustment, &h.Distinguishable,
		&h.Winner, &h.LowerIsBetter, &h.Verdict, &h.Seed, &h.Resamples, &h.SoftwareVersion)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	return &h, err
}

// History returns recorded comparisons matching f, newest first.
func (s *Store) History(ctx context.Context, f HistoryFilter) ([]HistoryEntry, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = 50
	}
	var since any
	if !f.Since.IsZero() {
		since = f.Since
	}
	rows, err := s.pool.Query(ctx, `SELECT `+historyColumns+`
		FROM comparison_history
		WHERE ($1 = '' OR experiment = $1)
		  AND ($2 = '' OR baseline_run = $2 OR candidate_run = $2)
		  AND ($3 = '' OR metric = $3)
		  AND ($4 = '' OR coalesce(winner, 'none') = $4)
		  AND ($5::boolean IS NULL OR distinguishable = $5)
		  AND ($6::timestamptz IS NULL OR created_at >= $6)
		ORDER BY created_at DESC, comparison_id DESC
		LIMIT $7`, f.Experiment, f.Run, f.Metric, f.Winner, f.Distinguishable, since, limit)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	defer rows.Close()
	var out []HistoryEntry
	for rows.Next() {
		h, err := scanHistory(rows)
		if err != nil {
			return nil, fmt.Errorf("history: %w", err)
		}
		out = append(out, *h)
	}
	return out, rows.Err()
}

// GetComparison returns one recorded comparison, or ErrNotFound.
func (s *Store) GetComparison(ctx context.Context, id int64) (*HistoryEntry, error) {
	h, err := scanHistory(s.pool.QueryRow(ctx, `SELECT `+historyColumns+` FROM comparison_history WHERE comparison_id = $1`, id))
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("comparison %d: %w", id, err)
	}
	return h, err
}
