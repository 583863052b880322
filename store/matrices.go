package store

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

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
		if err := perUnit(e); err != nil {
			return nil, nil, err
		}
		k, err := metricIndex(e, metric)
		if err != nil {
			return nil, nil, err
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
