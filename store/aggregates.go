package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/verdict-ml/verdict/fingerprint"
	"github.com/verdict-ml/verdict/internal/digest"
)

// MaxDebugBytes bounds the debug rows stored with one evaluation.
const MaxDebugBytes = 1 << 20

// DebugRow describes one scored row in detail: what the model ranked, what
// was relevant, where the hits were, and the value of every per-user
// metric for the row, exactly as the per-user output has it. evaluate.Run
// makes them (evaluate.DebugRow is this type); an evaluation is stored
// with them as a JSON array of these, and DebugRows reads them back.
type DebugRow struct {
	SampleID string `json:"sample_id"`
	// Row is the row's 0-based position in the input.
	Row int64 `json:"row"`
	// Items are the row's top predictions, best first, as the input names
	// them, up to the evaluation's required k (and evaluate.MaxDebugItems);
	// nil when the input does not give them to the evaluator. Scores are
	// theirs, when the input has scores.
	Items  []string  `json:"items"`
	Scores []float64 `json:"scores,omitempty"`
	// Targets are the row's relevant items, as the input names them and in
	// the order its reader holds them (NumPy columns ascending), at most
	// evaluate.MaxDebugTargets of them; nil when the input cannot list
	// them. TargetCount is R, the number of all of them.
	Targets     []string `json:"targets"`
	TargetCount int      `json:"n_targets"`
	// HitRanks are the 1-based ranks of the relevant items among the
	// predictions, up to the required k (and evaluate.MaxDebugItems).
	HitRanks []int `json:"hit_ranks"`
	// Values holds the row's value of each per-user metric, by key.
	Values map[string]float64 `json:"values"`
}

// Aggregates are the means and counts of an evaluation computed elsewhere,
// logged without per-unit values by LogAggregates.
type Aggregates struct {
	// Metrics are the per-unit metrics, in order, and Means their mean over
	// the scored rows: one finite value for each.
	Metrics []string
	Means   map[string]float64
	// Rows, ScoredRows and Units are n_rows, n_scored_rows and n_units.
	Rows, ScoredRows, Units int64
}

// LogAggregates stores an evaluation of which only the means and counts are
// known: the evaluation of `verdict evaluate --no-per-user`, which scored
// every row itself and keeps none. It has no per-unit values, so it cannot
// be paired; Evaluation.AggregatesOnly marks it. ev must carry the target
// fingerprint, since no sample IDs come to derive one from; its
// AggregatesOnly is implied, and its WholeSet and Debug are stored as for
// LogEvaluation. A second log of the same aggregates for the same run and
// evaluation set, or with the same idempotency key, returns the first.
//
// Problems with the input wrap ErrBadInput and leave the database
// unchanged.
func (s *Store) LogAggregates(ctx context.Context, ev NewEvaluation, agg Aggregates) (*Logged, error) {
	start := time.Now()
	ev.AggregatesOnly = true
	if err := checkAggregates(ev, agg); err != nil {
		return nil, err
	}
	if found, err := s.startLog(ctx, &ev); found != nil || err != nil {
		return found, err
	}
	if ev.Protocol.EvalDraws <= 0 && agg.Units == agg.ScoredRows {
		ev.Protocol.EvalDraws = 1
	}
	l := &load{content: digest.New(), buckets: 1}
	l.content.Metrics(agg.Metrics)
	l.content.Means(agg.Metrics, agg.Means)
	l.content.Counts(agg.Rows, agg.ScoredRows, agg.Units)
	l.content.AggregatesOnly()
	res := &Logged{Evaluation: Evaluation{
		Experiment:      ev.Experiment,
		Run:             ev.Run,
		EvalSet:         ev.EvalSet,
		Fingerprint:     ev.TargetFingerprint,
		FingerprintKind: fingerprint.KindTargets,
		Metrics:         slices.Clone(agg.Metrics),
		LowerIsBetter:   ev.LowerIsBetter,
		Aggregates:      maps.Clone(agg.Means),
		Rows:            agg.Rows,
		ScoredRows:      agg.ScoredRows,
		Units:           agg.Units,
		Protocol:        ev.Protocol,
		Metadata:        ev.Metadata,
		IdempotencyKey:  ev.IdempotencyKey,
		SoftwareVersion: Version(),
		AggregatesOnly:  true,
	}}
	if err := addWholeSet(res, ev.WholeSet, &l.content); err != nil {
		return nil, err
	}
	err := s.transact(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT nextval(pg_get_serial_sequence('evaluations', 'id'))`).Scan(&l.id); err != nil {
			return fmt.Errorf("allocate evaluation ID: %w", err)
		}
		res.ID = l.id
		if err := s.insertEvaluation(ctx, tx, ev, l, res); err != nil {
			return err
		}
		if res.Existing {
			return errRollback
		}
		return insertDebugRows(ctx, tx, l.id, ev.Debug)
	})
	return s.settleLog(ctx, ev, res, err, start)
}

// checkAggregates checks what LogAggregates is given.
func checkAggregates(ev NewEvaluation, agg Aggregates) error {
	if ev.TargetFingerprint == "" {
		return fmt.Errorf("%w: an evaluation logged from its aggregates needs the fingerprint of its targets", ErrBadInput)
	}
	if len(ev.Labels) > 0 {
		return fmt.Errorf("%w: labels are recorded for the samples of an evaluation's per-unit values, and this one has none", ErrBadInput)
	}
	if err := checkMetricNames(append(slices.Clone(agg.Metrics), slices.Sorted(maps.Keys(ev.WholeSet))...), ev.LowerIsBetter); err != nil {
		return err
	}
	for _, m := range agg.Metrics {
		v, ok := agg.Means[m]
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			return &InputError{Column: m, Problem: fmt.Sprintf("the mean must be a finite number, got %v", meanText(v, ok))}
		}
	}
	if len(agg.Means) != len(agg.Metrics) {
		return fmt.Errorf("%w: %d means for %d metrics", ErrBadInput, len(agg.Means), len(agg.Metrics))
	}
	if !(agg.ScoredRows > 0 && agg.Rows >= agg.ScoredRows && agg.Units > 0 && agg.Units <= agg.ScoredRows) {
		return fmt.Errorf("%w: counts %d rows, %d scored rows and %d units: want 0 < units ≤ scored rows ≤ rows",
			ErrBadInput, agg.Rows, agg.ScoredRows, agg.Units)
	}
	return nil
}

func meanText(v float64, ok bool) string {
	if !ok {
		return "none"
	}
	return fmt.Sprint(v)
}

// addWholeSet adds the values of whole-set metrics to res's aggregates and
// to the content digest.
func addWholeSet(res *Logged, wholeSet map[string]float64, c *digest.Content) error {
	keys := slices.Sorted(maps.Keys(wholeSet))
	for _, k := range keys {
		v := wholeSet[k]
		if _, dup := res.Aggregates[k]; dup {
			return &InputError{Column: k, Problem: "a whole-set metric has the name of a per-unit metric"}
		}
		if err := checkName("metric name", k); err != nil {
			return &InputError{Problem: err.Error()}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &InputError{Column: k, Problem: fmt.Sprintf("the whole-set value must be a finite number, got %v", v)}
		}
		res.Aggregates[k] = v
	}
	if len(keys) > 0 {
		c.Metrics(keys)
		c.Means(keys, wholeSet)
	}
	return nil
}

// insertDebugRows stores the JSON array debug returns, if any, with the
// evaluation id.
func insertDebugRows(ctx context.Context, tx pgx.Tx, id int64, debug func() json.RawMessage) error {
	if debug == nil {
		return nil
	}
	rows := debug()
	if len(rows) == 0 {
		return nil
	}
	if len(rows) > MaxDebugBytes {
		return fmt.Errorf("%w: the debug rows take %d bytes; at most %d are stored with an evaluation", ErrBadInput, len(rows), MaxDebugBytes)
	}
	var probe []json.RawMessage
	if err := json.Unmarshal(rows, &probe); err != nil {
		return fmt.Errorf("%w: the debug rows are not a JSON array: %v", ErrBadInput, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO evaluation_debug_rows (evaluation_id, rows) VALUES ($1, $2)`, id, string(rows)); err != nil {
		return fmt.Errorf("store debug rows: %w", err)
	}
	return nil
}

// DebugRows returns the debug rows stored with evaluation id, in the order
// they were logged; empty when it has none. An evaluation that does not exist
// is ErrNotFound.
func (s *Store) DebugRows(ctx context.Context, id int64) ([]DebugRow, error) {
	var raw *string
	err := s.pool.QueryRow(ctx, `
		SELECT d.rows::text FROM evaluations e
		LEFT JOIN evaluation_debug_rows d ON d.evaluation_id = e.id
		WHERE e.id = $1`, id).Scan(&raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil || raw == nil {
		return nil, err
	}
	var rows []DebugRow
	if err := json.Unmarshal([]byte(*raw), &rows); err != nil {
		return nil, fmt.Errorf("evaluation %d: its debug rows: %w", id, err)
	}
	return rows, nil
}
