package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/jackc/pgx/v5"
)

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
	ps, err := pairMetrics(ctx, tx, leftID, rightID, []string{metric}, intersect)
	if err != nil {
		return nil, err
	}
	return ps[0], nil
}

// PairMetrics is Pair for several metrics at once: one join of the two
// evaluations returns every metric's per-unit sums, and the Pairs it
// returns, one per metric in order, share their SampleIDs and row counts
// (which the caller must not modify). Each metric's sums are its own. The
// sums take 16 bytes a unit and metric: callers with many metrics of many
// units pair them in batches.
func (t *Tx) PairMetrics(ctx context.Context, leftID, rightID int64, metrics []string, intersect bool) ([]*Pairs, error) {
	return pairMetrics(ctx, t.tx, leftID, rightID, metrics, intersect)
}

func pairMetrics(ctx context.Context, tx pgx.Tx, leftID, rightID int64, metrics []string, intersect bool) ([]*Pairs, error) {
	if len(metrics) == 0 {
		return nil, fmt.Errorf("pair evaluations %d and %d: no metric", leftID, rightID)
	}
	li, ri := make([]int, len(metrics)), make([]int, len(metrics))
	var left, right *Evaluation
	for k, m := range metrics {
		var err error
		if left, right, li[k], ri[k], err = pairable(ctx, tx, leftID, rightID, m, intersect); err != nil {
			return nil, err
		}
	}
	// The paired units are at most the larger side's: the columns are
	// allocated once, not grown by copying.
	n := min(max(left.Units, right.Units), 1<<31)
	ps := make([]*Pairs, len(metrics))
	for k, m := range metrics {
		ps[k] = &Pairs{Left: left, Right: right, Metric: m, LeftSum: make([]float64, 0, n), RightSum: make([]float64, 0, n)}
	}
	ps[0].SampleIDs, ps[0].LeftRows, ps[0].RightRows = make([]string, 0, n), make([]int32, 0, n), make([]int32, 0, n)
	p := ps[0] // holds the shared columns until the end
	err := func() error {
		// Merge the two primary-key ranges in sample ID order, each grouped
		// as it streams: the plan the index exists for. Left to itself the
		// planner prefers parallel hash aggregates, which spill to disk and
		// then sort, several times slower on a small server.
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'; SET LOCAL enable_hashagg = off; SET LOCAL max_parallel_workers_per_gather = 0`); err != nil {
			return err
		}
		// Each side reads its evaluation's partition by name: planning a
		// query on the parent table would consider, and lock, every
		// evaluation's partition, thousands of them in a large store. The
		// metrics' positions are integers of this process, written into
		// the query.
		sums := func(idx []int, prefix string) string {
			cols := make([]string, len(idx))
			for k, i := range idx {
				cols[k] = fmt.Sprintf("sum(vals[%d]::double precision) AS %s%d", i+1, prefix, k)
			}
			return strings.Join(cols, ", ")
		}
		outCols := func(side, prefix string) string {
			cols := make([]string, len(metrics))
			for k := range metrics {
				cols[k] = fmt.Sprintf("%s.%s%d", side, prefix, k)
			}
			return strings.Join(cols, ", ")
		}
		query := `
			WITH l AS (
				SELECT sample_id, count(*) AS n, ` + sums(li, "t") + `
				FROM ` + partitionName(leftID) + ` WHERE evaluation_id = $1
				GROUP BY sample_id
			), r AS (
				SELECT sample_id, count(*) AS n, ` + sums(ri, "t") + `
				FROM ` + partitionName(rightID) + ` WHERE evaluation_id = $2
				GROUP BY sample_id
			)
			SELECT coalesce(l.sample_id, r.sample_id), l.n, r.n, ` + outCols("l", "t") + `, ` + outCols("r", "t") + `
			FROM l FULL JOIN r ON r.sample_id = l.sample_id
			ORDER BY 1`
		if leftID == rightID {
			// An evaluation against itself (a leaderboard's own interval,
			// a sanity check): read its range once.
			query = `
				SELECT sample_id, count(*), count(*), ` + sums(li, "l") + `, ` + sums(ri, "r") + `
				FROM ` + partitionName(leftID) + ` WHERE evaluation_id = $1 AND $2::bigint = $1
				GROUP BY sample_id
				ORDER BY sample_id`
		}
		rows, err := tx.Query(ctx, query, pgx.QueryResultFormats{pgx.BinaryFormatCode}, leftID, rightID)
		if err != nil {
			return err
		}
		defer rows.Close()
		// Decode the binary columns in place: sample IDs go into shared
		// arenas, numbers straight into the slices, so that a million
		// pairs cost no allocation each.
		var arena []byte
		M := len(metrics)
		for rows.Next() {
			raw := rows.RawValues()
			switch {
			case raw[1] == nil:
				p.RightOnly++
			case raw[2] == nil:
				p.LeftOnly++
			default:
				if cap(arena)-len(arena) < len(raw[0]) {
					arena = make([]byte, 0, max(1<<20, len(raw[0])))
				}
				start := len(arena)
				arena = append(arena, raw[0]...)
				p.SampleIDs = append(p.SampleIDs, unsafe.String(unsafe.SliceData(arena[start:]), len(raw[0])))
				p.LeftRows = append(p.LeftRows, int32(binary.BigEndian.Uint64(raw[1])))
				p.RightRows = append(p.RightRows, int32(binary.BigEndian.Uint64(raw[2])))
				for k, q := range ps {
					q.LeftSum = append(q.LeftSum, math.Float64frombits(binary.BigEndian.Uint64(raw[3+k])))
					q.RightSum = append(q.RightSum, math.Float64frombits(binary.BigEndian.Uint64(raw[3+M+k])))
				}
			}
		}
		return rows.Err()
	}()
	if err != nil {
		return nil, fmt.Errorf("pair evaluations %d and %d: %w", leftID, rightID, err)
	}
	for _, q := range ps[1:] {
		q.SampleIDs, q.LeftRows, q.RightRows, q.LeftOnly, q.RightOnly = p.SampleIDs, p.LeftRows, p.RightRows, p.LeftOnly, p.RightOnly
	}
	return ps, nil
}

// pairable reads two evaluations and checks that their per-unit values of
// metric can be paired: li and ri are the metric's indexes in each.
func pairable(ctx context.Context, tx pgx.Tx, leftID, rightID int64, metric string, intersect bool) (left, right *Evaluation, li, ri int, err error) {
	if left, err = getEvaluation(ctx, tx, leftID); err != nil {
		return nil, nil, 0, 0, fmt.Errorf("evaluation %d: %w", leftID, err)
	}
	if right, err = getEvaluation(ctx, tx, rightID); err != nil {
		return nil, nil, 0, 0, fmt.Errorf("evaluation %d: %w", rightID, err)
	}
	for _, e := range []*Evaluation{left, right} {
		if err := perUnit(e); err != nil {
			return nil, nil, 0, 0, err
		}
	}
	if left.EvalSetID != right.EvalSetID && !intersect {
		return nil, nil, 0, 0, fmt.Errorf("%w: evaluation %d (%s) and evaluation %d (%s) were scored on different evaluation sets or targets",
			ErrNotComparable, left.ID, describeSet(left), right.ID, describeSet(right))
	}
	if li, err = metricIndex(left, metric); err != nil {
		return nil, nil, 0, 0, err
	}
	if ri, err = metricIndex(right, metric); err != nil {
		return nil, nil, 0, 0, err
	}
	return left, right, li, ri, nil
}

func describeSet(e *Evaluation) string {
	fp := e.Fingerprint
	if len(fp) > 12 {
		fp = fp[:12]
	}
	return fmt.Sprintf("%s/%s on %q, %s fingerprint %s", e.Experiment, e.Run, e.EvalSet, e.FingerprintKind, fp)
}
