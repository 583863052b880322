package store

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The queries below are what a per-unit drill-down (compare.Diff) reads
// of two evaluations' paired values when it need not hold every pair:
// counts and exact sums, the units that moved most, and the differences
// near given ranks. On a distributed database each runs on the workers,
// shard by shard, and what reaches the caller is a row of sums, N rows a
// shard for the units listed, and at most a bucket a shard and bucket for
// a ranking. Both evaluations must hold one row per unit
// (OneRowPerUnit); d is a unit's left value minus its right value, the
// right made equal to the left within storage precision, as pairedValues
// has them.

// DifferenceSums are two evaluations' paired values of one metric
// reduced for a drill-down: the paired units (N), those with left >
// right and left < right, those with a value outside Q64 (Outside: when
// it is not zero the sums are not set), Σ d and Σ |d| at scale 2⁶⁴, and
// the smallest and largest d.
type DifferenceSums struct {
	N, Greater, Less, Outside int64
	Sum, SumAbs               *big.Int
	Min, Max                  float64
}

// differenceOf is the difference of pairedValues' columns in float8, the
// subtraction Go does of the two float64 values.
const differenceOf = `(p.l - p.r)`

// SummarizeDifferences reduces the paired values of metric to
// DifferenceSums in one aggregate query. Errors are Pair's.
func (t *Tx) SummarizeDifferences(ctx context.Context, leftID, rightID int64, metric string, intersect bool) (*DifferenceSums, error) {
	li, ri, err := t.onePairable(ctx, leftID, rightID, metric, intersect)
	if err != nil {
		return nil, err
	}
	s := &DifferenceSums{}
	var sums [4]*string
	var lo, hi *float64
	err = t.tx.QueryRow(ctx, differenceSumsQuery(leftID, rightID), li+1, ri+1).Scan(&s.N, &s.Greater, &s.Less, &s.Outside, &sums[0], &sums[1], &sums[2], &sums[3], &lo, &hi)
	if err != nil {
		return nil, fmt.Errorf("summarize the differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	if lo != nil && hi != nil {
		s.Min, s.Max = *lo, *hi
	}
	if s.Outside > 0 {
		return s, nil
	}
	v, err := integers(sums[:])
	if err != nil {
		return nil, fmt.Errorf("summarize the differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	s.Sum, s.SumAbs = q64(v[0], v[1]), q64(v[2], v[3])
	return s, nil
}

// differenceSumsQuery is SummarizeDifferences' query; $1 and $2 are the
// metric's indexes. Its sums are of bigints: Σ d is Σ dhi and Σ dlo, and
// Σ |d| the same of each negative d negated (d·2⁶⁴ = dhi·2³² + dlo < 0
// exactly when dhi < 0, or dhi = 0 and dlo < 0, as |dlo| < 2³²).
func differenceSumsQuery(leftID, rightID int64) string {
	return `
		SELECT count(*), count(*) FILTER (WHERE p.l > p.r), count(*) FILTER (WHERE p.l < p.r), count(*) FILTER (WHERE NOT p.ok),
		       sum(p.dhi)::text, sum(p.dlo)::text,
		       sum(CASE WHEN p.dhi < 0 OR p.dhi = 0 AND p.dlo < 0 THEN -p.dhi ELSE p.dhi END)::text,
		       sum(CASE WHEN p.dhi < 0 OR p.dhi = 0 AND p.dlo < 0 THEN -p.dlo ELSE p.dlo END)::text, min(` + differenceOf + `), max(` + differenceOf + `)
		FROM ` + pairedValues(leftID, rightID, false)
}

// onePairable checks that two evaluations can be paired on metric by the
// queries of one row per unit, returns the metric's indexes in each, and
// switches off JIT compilation for the transaction (noJIT).
func (t *Tx) onePairable(ctx context.Context, leftID, rightID int64, metric string, intersect bool) (li, ri int, err error) {
	left, right, li, ri, err := pairable(ctx, t.tx, leftID, rightID, metric, intersect)
	if err != nil {
		return 0, 0, err
	}
	if !OneRowPerUnit(left, right) {
		return 0, 0, fmt.Errorf("%w: evaluations %d and %d do not both hold one row per unit", ErrBadInput, leftID, rightID)
	}
	return li, ri, t.noJIT(ctx)
}

// PairedValue is one unit's values on either side, the right made equal
// to the left within storage precision.
type PairedValue struct {
	SampleID    string
	Left, Right float64
}

// TopDifferences lists the n paired units with the largest d (the
// smallest, when ascending), ties in sample ID order, the order Pair
// returns units in. On a distributed database each shard returns its own
// first n and the caller merges them.
func (t *Tx) TopDifferences(ctx context.Context, leftID, rightID int64, metric string, intersect bool, n int, ascending bool) ([]PairedValue, error) {
	li, ri, err := t.onePairable(ctx, leftID, rightID, metric, intersect)
	if err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, topDifferencesQuery(leftID, rightID, ascending), li+1, ri+1, n)
	if err != nil {
		return nil, fmt.Errorf("list the differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PairedValue, error) {
		var v PairedValue
		err := r.Scan(&v.SampleID, &v.Left, &v.Right)
		return v, err
	})
	if err != nil {
		return nil, fmt.Errorf("list the differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	return out, nil
}

// topDifferencesQuery is TopDifferences' query; $1 and $2 are the
// metric's indexes, $3 the number of units.
func topDifferencesQuery(leftID, rightID int64, ascending bool) string {
	order := "DESC"
	if ascending {
		order = "ASC"
	}
	return `
		SELECT p.sid, p.l, p.r FROM ` + pairedValues(leftID, rightID, false) + `
		ORDER BY ` + differenceOf + ` ` + order + `, p.sid
		LIMIT $3`
}

// DifferenceBucket is one bucket of DifferenceBuckets: its index, how
// many differences fall in it, and the smallest and largest of them.
type DifferenceBucket struct {
	Bucket   int64
	N        int64
	Min, Max float64
}

// DifferenceBuckets counts the differences d in [lo, hi] (lo < hi) in
// buckets ⌊(d − lo) / (hi − lo) · buckets⌋, the largest in the last: the
// buckets are ordered as the differences are, and only those holding a
// difference are returned, in order.
func (t *Tx) DifferenceBuckets(ctx context.Context, leftID, rightID int64, metric string, intersect bool, lo, hi float64, buckets int) ([]DifferenceBucket, error) {
	li, ri, err := t.onePairable(ctx, leftID, rightID, metric, intersect)
	if err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, differenceBucketsQuery(leftID, rightID), li+1, ri+1, lo, hi, float64(buckets))
	if err != nil {
		return nil, fmt.Errorf("count the differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (DifferenceBucket, error) {
		var b DifferenceBucket
		err := r.Scan(&b.Bucket, &b.N, &b.Min, &b.Max)
		return b, err
	})
	if err != nil {
		return nil, fmt.Errorf("count the differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	return out, nil
}

// differenceBucketsQuery is DifferenceBuckets' query; $1 and $2 are the
// metric's indexes, $3 and $4 the range, $5 the number of buckets.
func differenceBucketsQuery(leftID, rightID int64) string {
	return `
		SELECT least(floor((d - $3) / ($4 - $3) * $5), $5 - 1)::bigint, count(*), min(d), max(d)
		FROM (SELECT ` + differenceOf + ` AS d FROM ` + pairedValues(leftID, rightID, false) + `) x
		WHERE d BETWEEN $3 AND $4
		GROUP BY 1 ORDER BY 1`
}

// DifferenceCount is a distinct difference and how many units have it.
type DifferenceCount struct {
	D float64
	N int64
}

// DifferenceValues lists the distinct differences d within any of the
// ranges [lo[i], hi[i]], ascending, each with its count.
func (t *Tx) DifferenceValues(ctx context.Context, leftID, rightID int64, metric string, intersect bool, lo, hi []float64) ([]DifferenceCount, error) {
	if len(lo) != len(hi) || len(lo) == 0 {
		return nil, fmt.Errorf("%w: %d lower and %d upper bounds", ErrBadInput, len(lo), len(hi))
	}
	li, ri, err := t.onePairable(ctx, leftID, rightID, metric, intersect)
	if err != nil {
		return nil, err
	}
	args := []any{li + 1, ri + 1}
	for i := range lo {
		args = append(args, lo[i], hi[i])
	}
	rows, err := t.tx.Query(ctx, differenceValuesQuery(leftID, rightID, len(lo)), args...)
	if err != nil {
		return nil, fmt.Errorf("read the differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (DifferenceCount, error) {
		var c DifferenceCount
		err := r.Scan(&c.D, &c.N)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("read the differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	return out, nil
}

// differenceValuesQuery is DifferenceValues' query for ranges ranges;
// $1 and $2 are the metric's indexes, $3 and $4 the first range, $5 and
// $6 the second, and so on.
func differenceValuesQuery(leftID, rightID int64, ranges int) string {
	within := make([]string, ranges)
	for i := range within {
		within[i] = "d BETWEEN $" + strconv.Itoa(3+2*i) + " AND $" + strconv.Itoa(4+2*i)
	}
	return `
		SELECT d, count(*)
		FROM (SELECT ` + differenceOf + ` AS d FROM ` + pairedValues(leftID, rightID, false) + `) x
		WHERE ` + strings.Join(within, " OR ") + `
		GROUP BY d ORDER BY d`
}
