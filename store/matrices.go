package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// UnitMatrix returns, for the units present in every one of the
// evaluations, each evaluation's value of metric: one row per unit (sample
// ID order), one column per evaluation. A unit with several rows (draws) has
// its rows' mean. It is the input of a Friedman test in which units are
// blocks. Dropped counts the units some of the evaluations have and
// others do not, left out.
func (s *Store) UnitMatrix(ctx context.Context, evals []*Evaluation, metric string) (units []string, values [][]float64, dropped int64, err error) {
	ids := make([]int64, len(evals))
	idx := make([]int32, len(evals))
	for i, e := range evals {
		ids[i] = e.ID
		if err := perUnit(e); err != nil {
			return nil, nil, 0, err
		}
		k, err := metricIndex(e, metric)
		if err != nil {
			return nil, nil, 0, err
		}
		idx[i] = int32(k + 1)
	}
	return s.unitMatrix(ctx, ids, idx)
}

// RunMeansColumns reads the metric of the evaluations behind ms, which have
// one row per unit (no draws) and the same units: cols[j][u] is evaluation
// j's value for units[u], units in sample ID order (as Pair orders them).
// Evaluations whose units differ return ErrNotComparable. A query reads
// evaluations of up to columnsQueryValues values together.
func (s *Store) RunMeansColumns(ctx context.Context, ms []RunMean) (units []string, cols [][]float64, err error) {
	return s.runMeansColumnsBy(ctx, ms, columnsQueryValues)
}

// runMeansColumnsBy is RunMeansColumns in queries of up to perQuery values
// (or one evaluation).
func (s *Store) runMeansColumnsBy(ctx context.Context, ms []RunMean, perQuery int64) (units []string, cols [][]float64, err error) {
	for _, m := range ms {
		if m.Rows != m.Units {
			return nil, nil, fmt.Errorf("evaluation %d has several rows per unit: pair it instead", m.EvaluationID)
		}
	}
	cols = make([][]float64, len(ms))
	for lo := 0; lo < len(ms); {
		hi, values := lo+1, ms[lo].Units
		for hi < len(ms) && values+ms[hi].Units <= perQuery {
			values += ms[hi].Units
			hi++
		}
		if units, err = s.runMeansColumns(ctx, ms, lo, hi, units, cols); err != nil {
			return nil, nil, err
		}
		lo = hi
	}
	return units, cols, nil
}

// columnsQueryValues is the most values RunMeansColumns reads in one query,
// unless one evaluation has more.
const columnsQueryValues = 1_000_000

// runMeansColumns reads cols[lo:hi] of RunMeansColumns, the units of ms[0]
// from ms[0]'s query; it returns the units.
func (s *Store) runMeansColumns(ctx context.Context, ms []RunMean, lo, hi int, units []string, cols [][]float64) ([]string, error) {
	branches := make([]string, 0, hi-lo)
	args := make([]any, 0, hi-lo)
	cells := make([][]cell, hi-lo)
	for j := lo; j < hi; j++ {
		m := ms[j]
		// One branch per evaluation, each on its partition by name (see
		// Pair), unsorted: sorting is cheaper here than in the server.
		branches = append(branches, fmt.Sprintf(`SELECT %d::int AS ord, sample_id, vals[$%d]::double precision FROM %s`, j-lo, j-lo+1, partitionName(m.EvaluationID)))
		args = append(args, m.MetricIndex)
		cells[j-lo] = make([]cell, 0, m.Units)
	}
	rows, err := s.pool.Query(ctx, strings.Join(branches, "\nUNION ALL "), args...)
	if err != nil {
		return nil, fmt.Errorf("read evaluations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var j int32
		var c cell
		if err := rows.Scan(&j, &c.id, &c.v); err != nil {
			return nil, fmt.Errorf("read evaluations: %w", err)
		}
		cells[j] = append(cells[j], c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read evaluations: %w", err)
	}
	for k, cs := range cells {
		j := lo + k
		slices.SortFunc(cs, func(a, b cell) int { return strings.Compare(a.id, b.id) })
		if j == 0 {
			units = make([]string, len(cs))
			for u, c := range cs {
				units[u] = c.id
			}
		}
		if len(cs) != len(units) {
			return nil, fmt.Errorf("%w: evaluation %d has %d units, evaluation %d has %d", ErrNotComparable, ms[0].EvaluationID, len(units), ms[j].EvaluationID, len(cs))
		}
		cols[j] = make([]float64, len(cs))
		for u, c := range cs {
			if c.id != units[u] {
				return nil, fmt.Errorf("%w: evaluations %d and %d score different units (%q, %q)", ErrNotComparable, ms[0].EvaluationID, ms[j].EvaluationID, units[u], c.id)
			}
			cols[j][u] = c.v
		}
	}
	return units, nil
}

// cell is a unit's value as runMeansColumns reads it.
type cell struct {
	id string
	v  float64
}

// unitMatrix reads value idx[i] (1-based) of evaluations ids[i] for the
// units all of them have, and counts the others.
func (s *Store) unitMatrix(ctx context.Context, ids []int64, idx []int32) (units []string, values [][]float64, dropped int64, err error) {
	// One branch per evaluation, each on its partition by name (see Pair).
	branches := make([]string, len(ids))
	for i, id := range ids {
		branches[i] = fmt.Sprintf(`SELECT sample_id, %d AS ord, vals[$%d]::double precision AS v FROM %s`, i+1, i+2, partitionName(id))
	}
	args := []any{len(ids)}
	for _, k := range idx {
		args = append(args, k)
	}
	// A unit some evaluations lack comes back with its sample ID alone,
	// to be counted: its values are not sent.
	rows, err := s.pool.Query(ctx, `
		SELECT sample_id, CASE WHEN count(*) = $1 THEN array_agg(v ORDER BY ord) END
		FROM (
			SELECT sample_id, ord, avg(v) AS v
			FROM (`+strings.Join(branches, "\n\t\t\tUNION ALL ")+`) u
			GROUP BY sample_id, ord
		) per_unit
		GROUP BY sample_id
		ORDER BY sample_id`, args...)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("unit matrix: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var vals []float64
		if err := rows.Scan(&id, &vals); err != nil {
			return nil, nil, 0, err
		}
		if vals == nil {
			dropped++
			continue
		}
		units = append(units, id)
		values = append(values, vals)
	}
	return units, values, dropped, rows.Err()
}

// ValueColumns are evaluations' per-unit values of every metric, each
// evaluation's table read once (ReadValueColumns), from which
// RunMeansColumns serves the leaderboards of several metrics. Values are
// kept as the float32s they are stored as: 4 bytes a unit and metric.
type ValueColumns struct {
	evals map[int64]*evalColumns
}

// evalColumns are one evaluation's units in sample ID order and, for each
// metric position, their values.
type evalColumns struct {
	units []string
	vals  [][]float32
}

// ReadValueColumns reads every value of the evaluations ids, which must
// have one row per unit (no draws).
func (s *Store) ReadValueColumns(ctx context.Context, ids []int64) (*ValueColumns, error) {
	c := &ValueColumns{evals: make(map[int64]*evalColumns, len(ids))}
	for _, id := range ids {
		// The sample IDs' collation is "C": the database's order is the
		// byte order Store.RunMeansColumns sorts by.
		rows, err := s.pool.Query(ctx, `SELECT sample_id, vals FROM `+partitionName(id)+` ORDER BY sample_id`,
			pgx.QueryResultFormats{pgx.TextFormatCode, pgx.BinaryFormatCode})
		if err != nil {
			return nil, fmt.Errorf("read evaluation %d: %w", id, err)
		}
		e := &evalColumns{}
		for rows.Next() {
			raw := rows.RawValues()
			if e.vals == nil && len(raw[1]) >= 16 {
				e.vals = make([][]float32, binary.BigEndian.Uint32(raw[1][12:]))
			}
			e.units = append(e.units, string(raw[0]))
			for k := range e.vals {
				v, err := float4At(raw[1], k)
				if err != nil {
					rows.Close()
					return nil, fmt.Errorf("read evaluation %d: %w", id, err)
				}
				e.vals[k] = append(e.vals[k], v)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("read evaluation %d: %w", id, err)
		}
		if !slices.IsSorted(e.units) {
			continue // another collation: RunMeansColumns reads it itself
		}
		c.evals[id] = e
	}
	return c, nil
}

// RunMeansColumns is Store.RunMeansColumns from the values read: the same
// units, values and errors. ok is false when an evaluation of ms was not
// read.
func (c *ValueColumns) RunMeansColumns(ms []RunMean) (units []string, cols [][]float64, ok bool, err error) {
	for _, m := range ms {
		e := c.evals[m.EvaluationID]
		if e == nil || int(m.MetricIndex) < 1 || int(m.MetricIndex) > len(e.vals) {
			return nil, nil, false, nil
		}
	}
	cols = make([][]float64, len(ms))
	for j, m := range ms {
		if m.Rows != m.Units {
			return nil, nil, true, fmt.Errorf("evaluation %d has several rows per unit: pair it instead", m.EvaluationID)
		}
		e := c.evals[m.EvaluationID]
		if j == 0 {
			units = e.units
		}
		if len(e.units) != len(units) {
			return nil, nil, true, fmt.Errorf("%w: evaluation %d has %d units, evaluation %d has %d", ErrNotComparable, ms[0].EvaluationID, len(units), m.EvaluationID, len(e.units))
		}
		vals := e.vals[m.MetricIndex-1]
		cols[j] = make([]float64, len(units))
		for u, id := range e.units {
			if id != units[u] {
				return nil, nil, true, fmt.Errorf("%w: evaluations %d and %d score different units (%q, %q)", ErrNotComparable, ms[0].EvaluationID, m.EvaluationID, units[u], id)
			}
			cols[j][u] = float64(vals[u])
		}
	}
	return units, cols, true, nil
}

// Pair is Store.Pair of evaluations leftID and rightID, at metric
// positions li and ri (1-based), from the values read: the same units in
// the same order, the same sums (rows of one unit each) and the same
// counts of units on one side only; Left and Right are nil. ok is false
// when either evaluation was not read.
func (c *ValueColumns) Pair(leftID, rightID int64, li, ri int32) (p *Pairs, ok bool) {
	l, r := c.evals[leftID], c.evals[rightID]
	if l == nil || r == nil || li < 1 || ri < 1 || int(li) > len(l.vals) || int(ri) > len(r.vals) {
		return nil, false
	}
	lv, rv := l.vals[li-1], r.vals[ri-1]
	p = &Pairs{}
	i, j := 0, 0
	for i < len(l.units) || j < len(r.units) {
		switch {
		case j == len(r.units) || i < len(l.units) && l.units[i] < r.units[j]:
			p.LeftOnly++
			i++
		case i == len(l.units) || r.units[j] < l.units[i]:
			p.RightOnly++
			j++
		default:
			p.SampleIDs = append(p.SampleIDs, l.units[i])
			p.LeftSum, p.RightSum = append(p.LeftSum, float64(lv[i])), append(p.RightSum, float64(rv[j]))
			p.LeftRows, p.RightRows = append(p.LeftRows, 1), append(p.RightRows, 1)
			i++
			j++
		}
	}
	return p, true
}
