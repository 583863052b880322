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
	Statistic       *float64  `json:"statistic"`
	NRequired       *int64    `json:"n_required"`
	// The comparison's test in its experiment's online FDR stream, when
	// it was tested under one (verdict compare --fdr).
	FDRMethod       string   `json:"fdr_method,omitempty"`
	FDRTest         *int64   `json:"fdr_test,omitempty"`
	FDRLevel        *float64 `json:"fdr_level,omitempty"`
	FDRRejected     *bool    `json:"fdr_rejected,omitempty"`
	FDRWealthBefore *float64 `json:"fdr_wealth_before,omitempty"`
	FDRWealthAfter  *float64 `json:"fdr_wealth_after,omitempty"`
	// Margin is the comparison's practical margin, in the metric's units
	// (the comparisons table's rope column), and MarginDecision what it
	// showed against it: superior, equivalent, non_inferior, inferior or
	// inconclusive. Absent for a comparison without a margin.
	Margin         *float64 `json:"margin,omitempty"`
	MarginDecision string   `json:"margin_decision,omitempty"`
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
	coalesce(winner, ''), lower_is_better, verdict, coalesce(seed, 0), coalesce(resamples, 0), software_version,
	statistic, n_required,
	coalesce(fdr_method, ''), fdr_test, fdr_level, fdr_rejected, fdr_wealth_before, fdr_wealth_after,
	(SELECT c.rope FROM comparisons c WHERE c.id = comparison_id),
	coalesce((SELECT c.outputs->>'margin_decision' FROM comparisons c WHERE c.id = comparison_id), '')`

func scanHistory(row pgx.Row) (*HistoryEntry, error) {
	var h HistoryEntry
	err := row.Scan(&h.ID, &h.CreatedAt, &h.Experiment, &h.EvalSet, &h.Metric,
		&h.BaselineID, &h.BaselineRun, &h.CandidateID, &h.CandidateRun,
		&h.Method, &h.N, &h.BaselineMean, &h.CandidateMean, &h.Difference, &h.Low, &h.High,
		&h.PValue, &h.PAdjusted, &h.Adjustment, &h.Distinguishable,
		&h.Winner, &h.LowerIsBetter, &h.Verdict, &h.Seed, &h.Resamples, &h.SoftwareVersion,
		&h.Statistic, &h.NRequired,
		&h.FDRMethod, &h.FDRTest, &h.FDRLevel, &h.FDRRejected, &h.FDRWealthBefore, &h.FDRWealthAfter,
		&h.Margin, &h.MarginDecision)
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

// ComparisonRecord is one recorded comparison: everything needed to
// reproduce it, and every output.
type ComparisonRecord struct {
	LeftID, RightID int64
	Metric          string
	LowerIsBetter   bool
	Method          string
	Resamples       int
	Seed            uint64
	Confidence      float64
	Alpha           float64
	Adjustment      string
	N               int64
	LeftOnly        int64
	RightOnly       int64
	LeftMean        float64
	RightMean       float64
	Estimate        float64
	Low, High       float64  // the interval of Estimate; NaN for none
	Statistic       *float64 // the test statistic (t, z, W+, chi²); nil for none
	PValue          float64
	PAdjusted       float64
	Distinguishable bool
	Winner          string // "left", "right" or ""
	Wins            int64
	Losses          int64
	Ties            int64
	NRequired       *int64
	Verdict         string
	Parameters      map[string]any
	Outputs         any
	// FDR is the comparison's test in its experiment's online FDR stream;
	// nil when it was tested at a fixed alpha.
	FDR *FDRRecord
	// Margin is the practical margin the comparison was decided against,
	// stored in the rope column; nil for none.
	Margin *float64
}

// RecordComparison stores a comparison in the history and returns its ID.
func (s *Store) RecordComparison(ctx context.Context, r ComparisonRecord) (int64, error) {
	if err := s.writable(); err != nil {
		return 0, err
	}
	return recordComparison(ctx, s.pool, r)
}

func recordComparison(ctx context.Context, q querier, r ComparisonRecord) (int64, error) {
	var winner any
	if r.Winner != "" {
		winner = r.Winner
	}
	var fdr struct{ method, test, level, rejected, before, after any }
	if f := r.FDR; f != nil {
		fdr.method, fdr.test, fdr.level, fdr.rejected, fdr.before, fdr.after = f.Method, f.Test, f.Level, f.Rejected, f.WealthBefore, f.WealthAfter
	}
	var id int64
	err := q.QueryRow(ctx, `
		INSERT INTO comparisons (
			left_evaluation_id, right_evaluation_id, metric, lower_is_better, method,
			resamples, seed, confidence, alpha, adjustment, n, n_left_only, n_right_only,
			left_mean, right_mean, estimate, ci_low, ci_high, p_value, p_adjusted,
			distinguishable, winner, wins, losses, ties, n_required, verdict,
			parameters, outputs, software_version, statistic,
			fdr_method, fdr_test, fdr_level, fdr_rejected, fdr_wealth_before, fdr_wealth_after, rope)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
			$19, $20, $21, $22, $23, $24, $25, $26, $27, coalesce($28::jsonb, '{}'), coalesce($29::jsonb, '{}'), $30, $31,
			$32, $33, $34, $35, $36, $37, $38)
		RETURNING id`,
		r.LeftID, r.RightID, r.Metric, r.LowerIsBetter, r.Method,
		positive(int64(r.Resamples)), int64(r.Seed), level(r.Confidence), level(r.Alpha), nullIfEmpty(r.Adjustment), r.N, r.LeftOnly, r.RightOnly,
		r.LeftMean, r.RightMean, r.Estimate, nullNaN(r.Low), nullNaN(r.High), r.PValue, r.PAdjusted,
		r.Distinguishable, winner, r.Wins, r.Losses, r.Ties, r.NRequired, r.Verdict,
		r.Parameters, r.Outputs, Version(), r.Statistic,
		fdr.method, fdr.test, fdr.level, fdr.rejected, fdr.before, fdr.after, r.Margin).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record comparison: %w", err)
	}
	return id, nil
}
