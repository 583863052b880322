package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/jackc/pgx/v5"
)

// ErrNotComparable is returned by Pair when two evaluations were scored
// against different targets (or different evaluation sets) and the caller did
// not ask for their intersection.
var ErrNotComparable = errors.New("evaluations are not comparable")

// ErrUnknownMetric is returned by Pair when an evaluation lacks the metric.
var ErrUnknownMetric = errors.New("unknown metric")

// Pairs are two evaluations' values of one metric, aligned by unit (sample
// ID) in sample ID order. With several rows per unit (draws), each unit
// carries its row sum and row count, so that resampling can treat the unit
// as the independent observation.
type Pairs struct {
	Left, Right *Evaluation
	Metric      string
	SampleIDs   []string
	LeftSum     []float64
	RightSum    []float64
	LeftRows    []int32
	RightRows   []int32
	// LeftOnly and RightOnly count the units found in one evaluation only;
	// they are not paired.
	LeftOnly, RightOnly int64
}

// Draws reports whether any paired unit has more than one row on a side.
func (p *Pairs) Draws() bool {
	for i := range p.LeftRows {
		if p.LeftRows[i] != 1 || p.RightRows[i] != 1 {
			return true
		}
	}
	return false
}

// Pair joins two evaluations' per-unit values of metric by sample ID, inside
// PostgreSQL: each side is an index range of unit_values' primary key,
// aggregated per unit, and the two are merged with a full join so that units
// missing on either side are counted. Evaluations of different evaluation
// sets (different targets) are refused with ErrNotComparable unless
// intersect is true.
func (s *Store) Pair(ctx context.Context, leftID, rightID int64, metric string, intersect bool) (*Pairs, error) {
	var p *Pairs
	err := s.transact(ctx, func(tx pgx.Tx) error {
		var err error
		p, err = pair(ctx, tx, leftID, rightID, metric, intersect)
		return err
	})
	return p, err
}

// Tx is a transaction in which a comparison reads its evaluations, pairs
// them and records its results, so that what is recorded is what was read.
type Tx struct {
	tx pgx.Tx
	s  *Store
}

// InTx runs fn in a transaction, committed when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(*Tx) error) error {
	return s.transact(ctx, func(tx pgx.Tx) error { return fn(&Tx{tx: tx, s: s}) })
}

// Pair is Store.Pair within the transaction.
func (t *Tx) Pair(ctx context.Context, leftID, rightID int64, metric string, intersect bool) (*Pairs, error) {
	return pair(ctx, t.tx, leftID, rightID, metric, intersect)
}

// Labels is Store.Labels within the transaction.
func (t *Tx) Labels(ctx context.Context, setID int64) (map[string]int16, error) {
	return labels(ctx, t.tx, setID)
}

// RecordComparison is Store.RecordComparison within the transaction.
func (t *Tx) RecordComparison(ctx context.Context, r ComparisonRecord) (int64, error) {
	if err := t.s.writable(); err != nil {
		return 0, err
	}
	return recordComparison(ctx, t.tx, r)
}

func pair(ctx context.Context, tx pgx.Tx, leftID, rightID int64, metric string, intersect bool) (*Pairs, error) {
	left, err := getEvaluation(ctx, tx, leftID)
	if err != nil {
		return nil, fmt.Errorf("evaluation %d: %w", leftID, err)
	}
	right, err := getEvaluation(ctx, tx, rightID)
	if err != nil {
		return nil, fmt.Errorf("evaluation %d: %w", rightID, err)
	}
	if left.EvalSetID != right.EvalSetID && !intersect {
		return nil, fmt.Errorf("%w: evaluation %d (%s) and evaluation %d (%s) were scored on different evaluation sets or targets; pass --allow-different-targets to compare the units they share",
			ErrNotComparable, left.ID, describeSet(left), right.ID, describeSet(right))
	}
	li, ri := slices.Index(left.Metrics, metric), slices.Index(right.Metrics, metric)
	switch {
	case li < 0:
		return nil, fmt.Errorf("%w: evaluation %d has no %q (it has %s)", ErrUnknownMetric, left.ID, metric, strings.Join(left.Metrics, ", "))
	case ri < 0:
		return nil, fmt.Errorf("%w: evaluation %d has no %q (it has %s)", ErrUnknownMetric, right.ID, metric, strings.Join(right.Metrics, ", "))
	}
	p := &Pairs{Left: left, Right: right, Metric: metric}
	err = func() error {
		// Merge the two primary-key ranges in sample ID order, each grouped
		// as it streams: the plan the index exists for. Left to itself the
		// planner prefers parallel hash aggregates, which spill to disk and
		// then sort, several times slower on a small server.
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'; SET LOCAL enable_hashagg = off; SET LOCAL max_parallel_workers_per_gather = 0`); err != nil {
			return err
		}
		// Each side reads its evaluation's partition by name: planning a
		// query on the parent table would consider, and lock, every
		// evaluation's partition, thousands of them in a large store.
		query := `
			WITH l AS (
				SELECT sample_id, sum(vals[$3]::double precision) AS total, count(*) AS n
				FROM ` + partitionName(leftID) + ` WHERE evaluation_id = $1
				GROUP BY sample_id
			), r AS (
				SELECT sample_id, sum(vals[$4]::double precision) AS total, count(*) AS n
				FROM ` + partitionName(rightID) + ` WHERE evaluation_id = $2
				GROUP BY sample_id
			)
			SELECT coalesce(l.sample_id, r.sample_id), l.total, l.n, r.total, r.n
			FROM l FULL JOIN r ON r.sample_id = l.sample_id
			ORDER BY 1`
		if leftID == rightID && li == ri {
			// An evaluation against itself (a leaderboard's own interval,
			// a sanity check): read its range once.
			query = `
				SELECT sample_id, sum(vals[$3]::double precision), count(*),
				       sum(vals[$4]::double precision), count(*)
				FROM ` + partitionName(leftID) + ` WHERE evaluation_id = $1 AND $2::bigint = $1
				GROUP BY sample_id
				ORDER BY sample_id`
		}
		rows, err := tx.Query(ctx, query, pgx.QueryResultFormats{pgx.BinaryFormatCode}, leftID, rightID, li+1, ri+1)
		if err != nil {
			return err
		}
		defer rows.Close()
		// Decode the binary columns in place: sample IDs go into shared
		// arenas, numbers straight into the slices, so that a million
		// pairs cost no allocation each.
		var arena []byte
		for rows.Next() {
			raw := rows.RawValues()
			switch {
			case raw[1] == nil:
				p.RightOnly++
			case raw[3] == nil:
				p.LeftOnly++
			default:
				if cap(arena)-len(arena) < len(raw[0]) {
					arena = make([]byte, 0, max(1<<20, len(raw[0])))
				}
				start := len(arena)
				arena = append(arena, raw[0]...)
				p.SampleIDs = append(p.SampleIDs, unsafe.String(unsafe.SliceData(arena[start:]), len(raw[0])))
				p.LeftSum = append(p.LeftSum, math.Float64frombits(binary.BigEndian.Uint64(raw[1])))
				p.LeftRows = append(p.LeftRows, int32(binary.BigEndian.Uint64(raw[2])))
				p.RightSum = append(p.RightSum, math.Float64frombits(binary.BigEndian.Uint64(raw[3])))
				p.RightRows = append(p.RightRows, int32(binary.BigEndian.Uint64(raw[4])))
			}
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, fmt.Errorf("pair evaluations %d and %d: %w", leftID, rightID, err)
	}
	return p, nil
}

func describeSet(e *Evaluation) string {
	fp := e.Fingerprint
	if len(fp) > 12 {
		fp = fp[:12]
	}
	return fmt.Sprintf("%s/%s on %q, %s fingerprint %s", e.Experiment, e.Run, e.EvalSet, e.FingerprintKind, fp)
}

// LatestEvaluation returns the newest evaluation of a run: on evalSet when it
// is not empty, else on the run's only evaluation set. ErrNotFound when there
// is none; an error naming the sets when the run has several and evalSet is
// empty.
func (s *Store) LatestEvaluation(ctx context.Context, experiment, run, evalSet string) (*Evaluation, error) {
	evals, err := s.ListEvaluations(ctx, EvaluationFilter{Experiment: experiment, Run: run, EvalSet: evalSet})
	if err != nil {
		return nil, err
	}
	if len(evals) == 0 {
		return nil, fmt.Errorf("run %q of experiment %q has no evaluation%s: %w", run, experiment, onSet(evalSet), ErrNotFound)
	}
	if evalSet == "" {
		sets := map[string]bool{}
		for _, e := range evals {
			sets[e.EvalSet] = true
		}
		if len(sets) > 1 {
			var names []string
			for n := range sets {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("run %q has evaluations on several evaluation sets (%s): name one with --eval-set", run, strings.Join(names, ", "))
		}
	}
	return &evals[0], nil
}

func onSet(evalSet string) string {
	if evalSet == "" {
		return ""
	}
	return fmt.Sprintf(" on %q", evalSet)
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
	Low, High       float64 // the interval of Estimate; NaN for none
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
	var id int64
	err := q.QueryRow(ctx, `
		INSERT INTO comparisons (
			left_evaluation_id, right_evaluation_id, metric, lower_is_better, method,
			resamples, seed, confidence, alpha, adjustment, n, n_left_only, n_right_only,
			left_mean, right_mean, estimate, ci_low, ci_high, p_value, p_adjusted,
			distinguishable, winner, wins, losses, ties, n_required, verdict,
			parameters, outputs, software_version)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18,
			$19, $20, $21, $22, $23, $24, $25, $26, $27, coalesce($28::jsonb, '{}'), coalesce($29::jsonb, '{}'), $30)
		RETURNING id`,
		r.LeftID, r.RightID, r.Metric, r.LowerIsBetter, r.Method,
		positive(int64(r.Resamples)), int64(r.Seed), level(r.Confidence), level(r.Alpha), nullIfEmpty(r.Adjustment), r.N, r.LeftOnly, r.RightOnly,
		r.LeftMean, r.RightMean, r.Estimate, nullNaN(r.Low), nullNaN(r.High), r.PValue, r.PAdjusted,
		r.Distinguishable, winner, r.Wins, r.Losses, r.Ties, r.NRequired, r.Verdict,
		r.Parameters, r.Outputs, Version()).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("record comparison: %w", err)
	}
	return id, nil
}

// level maps an unset probability level (0) to SQL NULL.
func level(v float64) any {
	if v == 0 {
		return nil
	}
	return v
}

func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// UnitMatrix returns, for the units present in every one of the
// evaluations, each evaluation's value of metric: one row per unit (sample
// ID order), one column per evaluation. A unit with several rows (draws) has
// its rows' mean. It is the input of a Friedman test in which units are
// blocks.
func (s *Store) UnitMatrix(ctx context.Context, evals []*Evaluation, metric string) (units []string, values [][]float64, err error) {
	ids := make([]int64, len(evals))
	idx := make([]int32, len(evals))
	for i, e := range evals {
		ids[i] = e.ID
		k := slices.Index(e.Metrics, metric)
		if k < 0 {
			return nil, nil, fmt.Errorf("%w: evaluation %d has no %q (it has %s)", ErrUnknownMetric, e.ID, metric, strings.Join(e.Metrics, ", "))
		}
		idx[i] = int32(k + 1)
	}
	return s.unitMatrix(ctx, ids, idx)
}

// RunMeansColumns reads the metric of the evaluations behind ms, which have
// one row per unit (no draws) and the same units: cols[j][u] is evaluation
// j's value for units[u], units in sample ID order (as Pair orders them).
// Evaluations whose units differ return ErrNotComparable.
func (s *Store) RunMeansColumns(ctx context.Context, ms []RunMean) (units []string, cols [][]float64, err error) {
	branches := make([]string, len(ms))
	args := make([]any, len(ms))
	for j, m := range ms {
		if m.Rows != m.Units {
			return nil, nil, fmt.Errorf("evaluation %d has several rows per unit: pair it instead", m.EvaluationID)
		}
		// One branch per evaluation, each on its partition by name (see
		// Pair), unsorted: sorting is cheaper here than in the server.
		branches[j] = fmt.Sprintf(`SELECT %d::int AS ord, sample_id, vals[$%d]::double precision FROM %s`, j, j+1, partitionName(m.EvaluationID))
		args[j] = m.MetricIndex
	}
	rows, err := s.pool.Query(ctx, strings.Join(branches, "\nUNION ALL "), args...)
	if err != nil {
		return nil, nil, fmt.Errorf("read evaluations: %w", err)
	}
	defer rows.Close()
	type cell struct {
		id string
		v  float64
	}
	cells := make([][]cell, len(ms))
	for rows.Next() {
		var j int32
		var c cell
		if err := rows.Scan(&j, &c.id, &c.v); err != nil {
			return nil, nil, fmt.Errorf("read evaluations: %w", err)
		}
		cells[j] = append(cells[j], c)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read evaluations: %w", err)
	}
	cols = make([][]float64, len(ms))
	for j, cs := range cells {
		slices.SortFunc(cs, func(a, b cell) int { return strings.Compare(a.id, b.id) })
		if j == 0 {
			units = make([]string, len(cs))
			for u, c := range cs {
				units[u] = c.id
			}
		}
		if len(cs) != len(units) {
			return nil, nil, fmt.Errorf("%w: evaluation %d has %d units, evaluation %d has %d", ErrNotComparable, ms[0].EvaluationID, len(units), ms[j].EvaluationID, len(cs))
		}
		cols[j] = make([]float64, len(cs))
		for u, c := range cs {
			if c.id != units[u] {
				return nil, nil, fmt.Errorf("%w: evaluations %d and %d score different units (%q, %q)", ErrNotComparable, ms[0].EvaluationID, ms[j].EvaluationID, units[u], c.id)
			}
			cols[j][u] = c.v
		}
	}
	return units, cols, nil
}

// unitMatrix reads value idx[i] (1-based) of evaluations ids[i].
func (s *Store) unitMatrix(ctx context.Context, ids []int64, idx []int32) (units []string, values [][]float64, err error) {
	// One branch per evaluation, each on its partition by name (see Pair).
	branches := make([]string, len(ids))
	for i, id := range ids {
		branches[i] = fmt.Sprintf(`SELECT sample_id, %d AS ord, vals[$%d]::double precision AS v FROM %s`, i+1, i+2, partitionName(id))
	}
	args := []any{len(ids)}
	for _, k := range idx {
		args = append(args, k)
	}
	rows, err := s.pool.Query(ctx, `
		SELECT sample_id, array_agg(v ORDER BY ord)
		FROM (
			SELECT sample_id, ord, avg(v) AS v
			FROM (`+strings.Join(branches, "\n\t\t\tUNION ALL ")+`) u
			GROUP BY sample_id, ord
		) per_unit
		GROUP BY sample_id
		HAVING count(*) = $1
		ORDER BY sample_id`, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("unit matrix: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var vals []float64
		if err := rows.Scan(&id, &vals); err != nil {
			return nil, nil, err
		}
		units = append(units, id)
		values = append(values, vals)
	}
	return units, values, rows.Err()
}

// nullNaN is x, or SQL NULL for NaN.
func nullNaN(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}
