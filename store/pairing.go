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
// as the independent observation. SampleIDs, LeftRows and RightRows are
// nil when the pairing did not ask for sample IDs and every unit has one
// row on both sides (PairOptions).
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

// Units is the number of paired units.
func (p *Pairs) Units() int { return len(p.LeftSum) }

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
	mp, err := pairMetrics(ctx, tx, leftID, rightID, []string{metric}, PairOptions{Intersect: intersect, SampleIDs: true})
	if err != nil {
		return nil, err
	}
	return mp.Pairs(0), nil
}

// PairOptions say what a pairing of several metrics (PairMetrics) returns
// beside each unit's sums.
type PairOptions struct {
	// Intersect pairs evaluations of different evaluation sets on the
	// units they share, where they are otherwise refused with
	// ErrNotComparable.
	Intersect bool
	// SampleIDs returns each unit's sample ID, and its row counts even
	// when every unit has one row. Without it, units of one row on both
	// sides come as their values only, 8 bytes a unit and metric instead
	// of about 40: the join still merges them in sample ID order, and
	// ships no ID. With draws, the IDs and row counts come either way.
	SampleIDs bool
}

// MetricPairs are several metrics' per-unit sums of two evaluations, from
// one join (PairMetrics). Pairs(k) gives metric k's as a Pairs.
//
// When every unit has one row on both sides, a sum is one stored value, a
// float32, and is kept as one: 8 bytes a unit and metric instead of 16,
// the two sides' interleaved (Values32).
type MetricPairs struct {
	Metrics []string
	shared  Pairs // all but the metric and the sums
	units   int
	// values32 holds, for units of one row, each metric's values as
	// float32 pairs, the left's then the right's, unit by unit; left64
	// and right64 hold the sums otherwise. One of them is nil.
	values32        [][]float32
	left64, right64 [][]float64
}

// Units is the number of paired units.
func (m *MetricPairs) Units() int { return m.units }

// Unpaired counts the units found in one evaluation only, as Pairs'
// LeftOnly and RightOnly do.
func (m *MetricPairs) Unpaired() (leftOnly, rightOnly int64) {
	return m.shared.LeftOnly, m.shared.RightOnly
}

// Rows are each paired unit's rows on either side, shared by every metric;
// the caller must not modify them. They are nil when every unit has one
// row and the pairing asked for no sample IDs.
func (m *MetricPairs) Rows() (left, right []int32) { return m.shared.LeftRows, m.shared.RightRows }

// OneRow reports whether every paired unit has one row on both sides, so
// that Values32 holds the values.
func (m *MetricPairs) OneRow() bool { return m.values32 != nil }

// Values32 returns metric k's values of units of one row as stored: unit
// u's left value at 2u and its right value at 2u + 1. They are the
// caller's to change (a later Pairs(k) widens the changed values) or to
// take over, with Release(k). It returns nil with draws (OneRow false),
// and panics after Release(k).
func (m *MetricPairs) Values32(k int) []float32 {
	if m.values32 == nil {
		return nil
	}
	if m.values32[k] == nil {
		panic("store: values of a released metric")
	}
	return m.values32[k]
}

// Pairs returns metric k's pairs. Its sample IDs and row counts are
// shared with the other metrics' and must not be modified. Its sums are
// made anew from the float32s of units of one row; with draws they are
// the ones kept, so that a change to them shows in a later Pairs(k). It
// panics after Release(k).
func (m *MetricPairs) Pairs(k int) *Pairs {
	p := m.shared
	p.Metric = m.Metrics[k]
	if m.values32 != nil {
		p.LeftSum, p.RightSum = widen(m.Values32(k))
		return &p
	}
	if m.left64[k] == nil {
		panic("store: pairs of a released metric")
	}
	p.LeftSum, p.RightSum = m.left64[k], m.right64[k]
	return &p
}

// Release lets metric k's sums go.
func (m *MetricPairs) Release(k int) {
	if m.values32 != nil {
		m.values32[k] = nil
	} else {
		m.left64[k], m.right64[k] = nil, nil
	}
}

// widen returns the left and right values of interleaved pairs as float64.
func widen(x []float32) (left, right []float64) {
	left, right = make([]float64, len(x)/2), make([]float64, len(x)/2)
	for i := range left {
		left[i], right[i] = float64(x[2*i]), float64(x[2*i+1])
	}
	return left, right
}

// PairMetrics is Pair for several metrics at once: one join of the two
// evaluations returns every metric's per-unit sums, with the sample IDs
// if opts asks for them. The sums take 8 bytes a unit and metric (16 with
// draws): callers with many metrics of many units pair them in batches.
func (t *Tx) PairMetrics(ctx context.Context, leftID, rightID int64, metrics []string, opts PairOptions) (*MetricPairs, error) {
	return pairMetrics(ctx, t.tx, leftID, rightID, metrics, opts)
}

func pairMetrics(ctx context.Context, tx pgx.Tx, leftID, rightID int64, metrics []string, opts PairOptions) (*MetricPairs, error) {
	if len(metrics) == 0 {
		return nil, fmt.Errorf("pair evaluations %d and %d: no metric", leftID, rightID)
	}
	li, ri := make([]int, len(metrics)), make([]int, len(metrics))
	var left, right *Evaluation
	for k, m := range metrics {
		var err error
		if left, right, li[k], ri[k], err = pairable(ctx, tx, leftID, rightID, m, opts.Intersect); err != nil {
			return nil, err
		}
	}
	// The paired units are at most the larger side's: the columns are
	// allocated once, not grown by copying.
	n := min(max(left.Units, right.Units), 1<<31)
	M := len(metrics)
	mp := &MetricPairs{Metrics: metrics}
	p := &mp.shared
	p.Left, p.Right = left, right
	// Without draws on either side every paired unit has one row, and
	// its sum is one stored float32. With draws the IDs name a unit whose
	// rows differ between the sides.
	compact := left.ScoredRows == left.Units && right.ScoredRows == right.Units
	ids := opts.SampleIDs || !compact
	if ids {
		p.SampleIDs, p.LeftRows, p.RightRows = make([]string, 0, n), make([]int32, 0, n), make([]int32, 0, n)
	}
	if compact {
		mp.values32 = make([][]float32, M)
		for k := range M {
			mp.values32[k] = make([]float32, 0, 2*n)
		}
	} else {
		mp.left64, mp.right64 = make([][]float64, M), make([][]float64, M)
		for k := range M {
			mp.left64[k], mp.right64[k] = make([]float64, 0, n), make([]float64, 0, n)
		}
	}
	err := func() error {
		// Merge the two primary-key ranges in sample ID order: the plan
		// the index exists for. Left to itself the planner prefers hash
		// joins and aggregates, then sorts, several times slower on a
		// small server; and its cost estimate of a million-row join turns
		// on JIT compilation, which costs more than the query.
		if _, err := tx.Exec(ctx, `SET LOCAL work_mem = '256MB'; SET LOCAL enable_hashagg = off; SET LOCAL enable_hashjoin = off; SET LOCAL max_parallel_workers_per_gather = 0; SET LOCAL jit = off`); err != nil {
			return err
		}
		// Each side reads its evaluation's partition by name: planning a
		// query on the parent table would consider, and lock, every
		// evaluation's partition, thousands of them in a large store. The
		// metrics' positions are integers of this process, written into
		// the query. The join is inner, so that its merge yields the
		// units in order with no sort; the units found on one side only
		// are the side's units less the paired ones.
		cols := func(idx []int, side, format string) string {
			out := make([]string, len(idx))
			for k, i := range idx {
				out[k] = fmt.Sprintf(format, side, i+1, k)
			}
			return strings.Join(out, ", ")
		}
		// Each row is the unit's sample ID (if asked for), its row count
		// on either side (unless one row is certain), then the metrics'
		// values on the left and on the right.
		id, counts := "", true
		if ids {
			id = "l.sample_id, "
		}
		// Without draws, each unit is one row and its value one real.
		query := `
			SELECT ` + id + `1::int8, 1::int8, ` + cols(li, "l", "%[1]s.vals[%[2]d]") + `, ` + cols(ri, "r", "%[1]s.vals[%[2]d]") + `
			FROM ` + partitionName(leftID) + ` l
			JOIN ` + partitionName(rightID) + ` r ON r.sample_id = l.sample_id
			WHERE l.evaluation_id = $1 AND r.evaluation_id = $2
			ORDER BY l.sample_id`
		if !ids {
			counts = false
			query = `
				SELECT ` + cols(li, "l", "%[1]s.vals[%[2]d]") + `, ` + cols(ri, "r", "%[1]s.vals[%[2]d]") + `
				FROM ` + partitionName(leftID) + ` l
				JOIN ` + partitionName(rightID) + ` r ON r.sample_id = l.sample_id
				WHERE l.evaluation_id = $1 AND r.evaluation_id = $2
				ORDER BY l.sample_id`
		}
		if !compact {
			query = `
				WITH l AS (
					SELECT sample_id, count(*) AS n, ` + cols(li, "", "sum(%svals[%d]::double precision) AS t%d") + `
					FROM ` + partitionName(leftID) + ` WHERE evaluation_id = $1
					GROUP BY sample_id
				), r AS (
					SELECT sample_id, count(*) AS n, ` + cols(ri, "", "sum(%svals[%d]::double precision) AS t%d") + `
					FROM ` + partitionName(rightID) + ` WHERE evaluation_id = $2
					GROUP BY sample_id
				)
				SELECT l.sample_id, l.n, r.n, ` + cols(li, "l", "%s.t%[3]d") + `, ` + cols(ri, "r", "%s.t%[3]d") + `
				FROM l JOIN r ON r.sample_id = l.sample_id
				ORDER BY l.sample_id`
		}
		if leftID == rightID {
			// An evaluation against itself (a leaderboard's own interval,
			// a sanity check): read its range once.
			id = ""
			if ids {
				id = "sample_id, "
			}
			counts = true
			query = `
				SELECT ` + id + `count(*), count(*), ` + cols(li, "", "sum(%[1]svals[%[2]d]::double precision)") + `, ` + cols(ri, "", "sum(%[1]svals[%[2]d]::double precision)") + `
				FROM ` + partitionName(leftID) + ` WHERE evaluation_id = $1 AND $2::bigint = $1
				GROUP BY sample_id
				ORDER BY sample_id`
		}
		// Without draws, for most of a side's metrics, the rows' arrays
		// are as cheap to ship whole as element by element: the server
		// sends an array at the cost of several elements (1M units of 20
		// metrics: 4.6 s for the arrays, 1.8 s for 5 metrics' elements,
		// 3.5 s for 10, 3.5-4.7 s for all 20).
		arrays := compact && leftID != rightID && 4*M >= 3*min(len(left.Metrics), len(right.Metrics))
		if arrays {
			counts = false
			query = `
				SELECT ` + id + `l.vals, r.vals
				FROM ` + partitionName(leftID) + ` l
				JOIN ` + partitionName(rightID) + ` r ON r.sample_id = l.sample_id
				WHERE l.evaluation_id = $1 AND r.evaluation_id = $2
				ORDER BY l.sample_id`
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
		// unit names the unit being read, for errors.
		unit := func(raw [][]byte) string {
			if ids {
				return fmt.Sprintf("unit %q", raw[0])
			}
			return fmt.Sprintf("unit %d in sample ID order", mp.units+1)
		}
		for rows.Next() {
			raw := rows.RawValues()
			if ids {
				if cap(arena)-len(arena) < len(raw[0]) {
					arena = make([]byte, 0, max(1<<20, len(raw[0])))
				}
				start := len(arena)
				arena = append(arena, raw[0]...)
				p.SampleIDs = append(p.SampleIDs, unsafe.String(unsafe.SliceData(arena[start:]), len(raw[0])))
				raw = raw[1:]
			}
			if arrays {
				if ids {
					p.LeftRows, p.RightRows = append(p.LeftRows, 1), append(p.RightRows, 1)
				}
				for k := range M {
					l, err := float4At(raw[0], li[k])
					if err != nil {
						return err
					}
					r, err := float4At(raw[1], ri[k])
					if err != nil {
						return err
					}
					mp.values32[k] = append(mp.values32[k], l, r)
				}
				mp.units++
				continue
			}
			ln, rn := int32(1), int32(1)
			if counts {
				ln, rn = int32(binary.BigEndian.Uint64(raw[0])), int32(binary.BigEndian.Uint64(raw[1]))
				raw = raw[2:]
			}
			if ids {
				p.LeftRows, p.RightRows = append(p.LeftRows, ln), append(p.RightRows, rn)
			}
			for k := range M {
				if compact && leftID != rightID {
					l, r := raw[k], raw[M+k]
					if len(l) != 4 || len(r) != 4 {
						return fmt.Errorf("%s: metric %s is not a 4-byte real", unit(rows.RawValues()), metrics[k])
					}
					mp.values32[k] = append(mp.values32[k], math.Float32frombits(binary.BigEndian.Uint32(l)), math.Float32frombits(binary.BigEndian.Uint32(r)))
					continue
				}
				l := math.Float64frombits(binary.BigEndian.Uint64(raw[k]))
				r := math.Float64frombits(binary.BigEndian.Uint64(raw[M+k]))
				if compact {
					if ln != 1 || rn != 1 {
						return fmt.Errorf("%s has %d and %d rows, where the evaluations' counts say one", unit(rows.RawValues()), ln, rn)
					}
					mp.values32[k] = append(mp.values32[k], float32(l), float32(r))
				} else {
					mp.left64[k], mp.right64[k] = append(mp.left64[k], l), append(mp.right64[k], r)
				}
			}
			mp.units++
		}
		if err := rows.Err(); err != nil {
			return err
		}
		paired := int64(mp.units)
		if leftID != rightID {
			p.LeftOnly, p.RightOnly = left.Units-paired, right.Units-paired
		}
		if p.LeftOnly < 0 || p.RightOnly < 0 {
			return fmt.Errorf("%d units paired, more than the evaluations' %d and %d", paired, left.Units, right.Units)
		}
		return nil
	}()
	if err != nil {
		return nil, fmt.Errorf("pair evaluations %d and %d: %w", leftID, rightID, err)
	}
	return mp, nil
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

// float4At reads element i (0-based) of a one-dimensional real[] without
// NULLs in PostgreSQL's binary array format: the number of dimensions, a
// NULL flag and the element type, then each dimension's length and lower
// bound, then each element as its length (4) and its big-endian bits.
func float4At(arr []byte, i int) (float32, error) {
	const header = 12 + 8 // one dimension
	at := header + 8*i
	if len(arr) < at+8 || binary.BigEndian.Uint32(arr) != 1 || binary.BigEndian.Uint32(arr[at:]) != 4 {
		return 0, fmt.Errorf("per-unit values: element %d of a %d-byte array is not a 4-byte real", i+1, len(arr))
	}
	return math.Float32frombits(binary.BigEndian.Uint32(arr[at+4:])), nil
}
