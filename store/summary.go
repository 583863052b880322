package store

import (
	"context"
	"fmt"
	"math/big"

	"github.com/jackc/pgx/v5"
)

// The queries below pair two evaluations and reduce the pairs where the
// values are stored: on a distributed database (`verdict db distribute`)
// each runs on the workers shard by shard, the join of two evaluations
// co-located by sample ID, and only its aggregates reach the coordinator:
// a fixed number of sums for the t-test, one row per distinct magnitude
// for the signed-rank test, and for the Poisson bootstrap each pair's
// hashed sample ID and difference, which Go resamples as they stream.
// They are plain SQL and give the same answer on a single server, where
// tests check them against the Go computations (stats.SummarizePairs,
// stats.HashedReplicates, stats.SignedRanksOfPairs).
//
// Sums are exact: each value v, a float32 widened to float8, is split
// into integers with v·2⁶⁴ = hi·2⁶⁴ + mid·2³² + low (hi = ⌊v⌋, 0 ≤ mid,
// low < 2³²), every step of which is exact in float8 for |v| < 2²⁴ and
// v·2⁶⁴ an integer (stats' Q64), and sums of bigints are exact in
// PostgreSQL. A unit whose value is outside is counted in Summary.Outside,
// and the caller pairs the units instead. Values equal within the
// precision they are stored at are made equal first, as the comparison
// does with pairs: |l − r| ≤ 2⁻²³·max(|l|, |r|).

// noJIT switches off JIT compilation and parallel workers for the rest of
// the transaction, on the workers too. The queries' long expressions
// (the fixed-point parts, a ranking's K² comparisons) took seconds to
// compile, longer than the work they speed up; and a shard's parallel
// workers sent every row through a Gather, where a shard's own process
// aggregates it faster (the shards are the parallelism). On a server
// without Citus the first setting is an unused placeholder.
func (t *Tx) noJIT(ctx context.Context) error {
	_, err := t.tx.Exec(ctx, `SET LOCAL citus.propagate_set_commands = 'local'; SET LOCAL jit = off; SET LOCAL max_parallel_workers_per_gather = 0`)
	return err
}

// Summary is two evaluations' paired values of one metric reduced to
// counts and exact sums: the units both have (N) and either alone, the
// units with left > right and left < right, the units with a value other
// than 0 or 1, and, at scale 2⁶⁴, Σ left, Σ right, Σ d with d = left −
// right, and Σ d² at scale 2¹²⁸.
type Summary struct {
	Left, Right         *Evaluation
	Metric              string
	N                   int64
	LeftOnly, RightOnly int64
	Greater, Less       int64
	NonBinary           int64
	// Outside counts the paired units with a value outside Q64: when it is
	// not zero the sums are not set.
	Outside                               int64
	SumLeft, SumRight, SumDiff, SumDiffSq *big.Int
}

// OneRowPerUnit reports whether both evaluations hold one row per unit,
// the condition for Summarize, StreamDifferences and SignedRanks.
func OneRowPerUnit(left, right *Evaluation) bool {
	return left.Units == left.ScoredRows && right.Units == right.ScoredRows
}

// fixedHi and fixedLo are the SQL of the parts of a float8 v in Q64,
// v·2⁶⁴ = hi·2³² + lo with 0 ≤ lo < 2³²: hi = ⌊v·2³²⌋ and lo the fraction
// of v·2³² times 2³², every step exact (v·2³² scales by a power of two,
// and a float's fraction is its own low bits); inFixed is true when v is
// in Q64, that is when |v| < 2²⁴ and lo is an integer.
func fixedHi(v string) string { return "floor(" + v + " * 4294967296.0)::bigint" }

func fixedLo(v string) string { return "(" + fixedFrac(v) + ")::bigint" }

func inFixed(v string) string {
	return "(" + inRange(v) + " AND " + fixedFrac(v) + " = trunc(" + fixedFrac(v) + "))"
}

// inRange is true when |v| < 2²⁴, where fixedHi and fixedLo are defined.
func inRange(v string) string { return "abs(" + v + ") < 16777216" }

// fixedFrac is the fraction of v·2³² times 2³², a float8.
func fixedFrac(v string) string {
	return "((" + v + " * 4294967296.0 - floor(" + v + " * 4294967296.0)) * 4294967296.0)"
}

// pairedValues is the query text of the two evaluations' values of the
// metrics at $1 and $2 joined by sample ID (a FULL JOIN when full, else
// an inner join), with, per unit: the sample ID sid, the values l and r
// (r made equal to l within storage precision), ok when both are in Q64,
// and then dhi and dlo, d·2⁶⁴ = dhi·2³² + dlo, and lhi, llo, rhi, rlo the
// same for each side (fixedHi, fixedLo), NULL where not ok.
func pairedValues(leftID, rightID int64, full bool) string {
	join := "JOIN"
	if full {
		join = "FULL JOIN"
	}
	// Each level's columns are computed once per pair behind a fence (see
	// fence). Each side's parts are computed once, where |v| < 2²⁴ (a
	// cast of NaN or of a larger v would fail), then masked where the
	// pair is not ok.
	return `(
		SELECT sid, l, r, ok, ` + fence + `,
		       CASE WHEN eq THEN 0 WHEN ok THEN lh - rh END AS dhi,
		       CASE WHEN eq THEN 0 WHEN ok THEN lf - rf END AS dlo,
		       CASE WHEN ok THEN lh END AS lhi, CASE WHEN ok THEN lf END AS llo,
		       CASE WHEN ok AND eq THEN lh WHEN ok THEN rh END AS rhi,
		       CASE WHEN ok AND eq THEN lf WHEN ok THEN rf END AS rlo
		FROM (
			SELECT sid, l, eq, CASE WHEN eq THEN l ELSE r0 END AS r,
			       lin AND lfrac = trunc(lfrac) AND (eq OR rin AND rfrac = trunc(rfrac)) AS ok,
			       CASE WHEN lin THEN ` + fixedHi("l") + ` END AS lh, CASE WHEN lin THEN lfrac::bigint END AS lf,
			       CASE WHEN rin THEN ` + fixedHi("r0") + ` END AS rh, CASE WHEN rin THEN rfrac::bigint END AS rf,
			       ` + fence + `
			FROM (
				SELECT sid, l, r0, eq, ` + inRange("l") + ` AS lin, ` + inRange("r0") + ` AS rin,
				       ` + fixedFrac("l") + ` AS lfrac, ` + fixedFrac("r0") + ` AS rfrac, ` + fence + `
				FROM (
					SELECT coalesce(a.sample_id, b.sample_id) AS sid, a.vals[$1]::float8 AS l, b.vals[$2]::float8 AS r0,
					       abs(a.vals[$1]::float8 - b.vals[$2]::float8)
					           <= 1.1920928955078125e-07 * greatest(abs(a.vals[$1]::float8), abs(b.vals[$2]::float8)) AS eq,
					       ` + fence + `
					FROM ` + partitionName(leftID) + ` a ` + join + ` ` + partitionName(rightID) + ` b ON b.sample_id = a.sample_id
				) e
			) f
		) w
	) p`
}

// fence is a column that keeps a subquery from being merged into the
// query that reads it, so that the subquery's columns are computed once a
// row. Merged, every column would be recomputed wherever it is read. A
// volatile function in a select list is such a fence, and random() a
// cheap one: generate_series(1, 1), the fence of a set-returning
// function, set up and tore down a memory context a row, and cost more
// than the arithmetic it guarded (1.4 s against 0.35 s for the value sums
// of a million units on one server). Citus runs it on the workers with
// the rest of the query.
const fence = `random() AS fence`

// dExpr is d·2⁶⁴ as a numeric, from pairedValues' columns.
const dExpr = `(p.dhi::numeric * 4294967296 + p.dlo)`

// squareLimbs is the SQL of six bigint products whose sums give Σ x², x·2⁶⁴
// = hi·2³² + lo for the bigint columns hi and lo of the query it reads
// (|x| < 2²⁵, |lo| < 2³²), without a numeric a row: x·2⁶⁴ = A·2⁶⁰ + B·2³¹
// + C with A = q >> 29, B = q & (2²⁹ − 1), q = 2·hi + (lo >> 31), and C =
// lo & (2³¹ − 1), so that x²·2¹²⁸ = A²·2¹²⁰ + AB·2⁹² + AC·2⁶¹ + B²·2⁶² +
// BC·2³² + C², every product below 2⁶³ (squareSum adds them up). The
// limbs are computed once a row behind a fence in the subquery that squareLimbsOf writes.
const squareLimbs = `sum(sa * sa)::text, sum(sa * sb)::text, sum(sa * sc)::text, sum(sb * sb)::text, sum(sb * sc)::text, sum(sc * sc)::text`

// squareLimbsOf wraps the query text from, whose rows have bigint columns
// hi and lo (NULL together), as a subquery p with every column of from
// and the limbs sa, sb and sc that squareLimbs sums.
func squareLimbsOf(from, hi, lo string) string {
	return `(
		SELECT p.*, ((2 * p.` + hi + `) + (p.` + lo + ` >> 31)) >> 29 AS sa, ((2 * p.` + hi + `) + (p.` + lo + ` >> 31)) & 536870911 AS sb,
		       p.` + lo + ` & 2147483647 AS sc, ` + fence + `2
		FROM ` + from + `
	) p`
}

// squareSum is Σ x² at scale 2¹²⁸ from the six sums of squareLimbs.
func squareSum(v []*big.Int) *big.Int {
	z := new(big.Int)
	for i, shift := range []uint{120, 92, 61, 62, 32, 0} {
		z.Add(z, new(big.Int).Lsh(v[i], shift))
	}
	return z
}

// Summarize reduces the paired values of metric to a Summary in one
// aggregate query. Both evaluations must hold one row per unit
// (OneRowPerUnit). Errors are Pair's.
func (t *Tx) Summarize(ctx context.Context, leftID, rightID int64, metric string, intersect bool) (*Summary, error) {
	left, right, li, ri, err := pairable(ctx, t.tx, leftID, rightID, metric, intersect)
	if err != nil {
		return nil, err
	}
	if err := t.noJIT(ctx); err != nil {
		return nil, err
	}
	s := &Summary{Left: left, Right: right, Metric: metric}
	var sums [12]*string
	err = t.tx.QueryRow(ctx, summaryQuery(leftID, rightID), li+1, ri+1).Scan(&s.N, &s.LeftOnly, &s.RightOnly, &s.Greater, &s.Less, &s.NonBinary, &s.Outside,
		&sums[0], &sums[1], &sums[2], &sums[3], &sums[4], &sums[5], &sums[6], &sums[7], &sums[8], &sums[9], &sums[10], &sums[11])
	if err != nil {
		return nil, fmt.Errorf("summarize evaluations %d and %d: %w", leftID, rightID, err)
	}
	if s.Outside > 0 {
		return s, nil
	}
	v, err := integers(sums[:])
	if err != nil {
		return nil, fmt.Errorf("summarize evaluations %d and %d: %w", leftID, rightID, err)
	}
	s.SumLeft, s.SumRight = q64(v[0], v[1]), q64(v[2], v[3])
	s.SumDiff, s.SumDiffSq = q64(v[4], v[5]), squareSum(v[6:])
	return s, nil
}

// summaryQuery is Summarize's query; $1 and $2 are the metric's indexes.
func summaryQuery(leftID, rightID int64) string {
	return `
		SELECT count(*) FILTER (WHERE l IS NOT NULL AND r IS NOT NULL),
		       count(*) FILTER (WHERE r IS NULL), count(*) FILTER (WHERE l IS NULL),
		       count(*) FILTER (WHERE l > r), count(*) FILTER (WHERE l < r),
		       count(*) FILTER (WHERE (l NOT IN (0, 1) OR r NOT IN (0, 1)) AND l IS NOT NULL AND r IS NOT NULL),
		       count(*) FILTER (WHERE NOT ok AND l IS NOT NULL AND r IS NOT NULL),
		       sum(p.lhi)::text, sum(p.llo)::text, sum(p.rhi)::text, sum(p.rlo)::text,
		       sum(p.dhi)::text, sum(p.dlo)::text, ` + squareLimbs + `
		FROM ` + squareLimbsOf(pairedValues(leftID, rightID, true), "dhi", "dlo")
}

// ValueSums is one evaluation's values of one metric reduced to exact
// sums: the units (N), those with a value outside Q64 (Outside: when it
// is not zero the sums are not set), Σ v at scale 2⁶⁴ and Σ v² at scale
// 2¹²⁸. A mean's t interval reads nothing more.
type ValueSums struct {
	Evaluation *Evaluation
	Metric     string
	N, Outside int64
	Sum, SumSq *big.Int
}

// SummarizeValues reduces an evaluation's values of metric to ValueSums in
// one aggregate query over its units: on a distributed database each
// shard sums its own and about 100 bytes a shard reach the caller. The
// evaluation must hold one row per unit.
func (t *Tx) SummarizeValues(ctx context.Context, id int64, metric string) (*ValueSums, error) {
	e, err := getEvaluation(ctx, t.tx, id)
	if err != nil {
		return nil, fmt.Errorf("evaluation %d: %w", id, err)
	}
	if err := perUnit(e); err != nil {
		return nil, err
	}
	if e.Units != e.ScoredRows {
		return nil, fmt.Errorf("%w: evaluation %d has several rows per unit", ErrBadInput, id)
	}
	i, err := metricIndex(e, metric)
	if err != nil {
		return nil, err
	}
	if err := t.noJIT(ctx); err != nil {
		return nil, err
	}
	s := &ValueSums{Evaluation: e, Metric: metric}
	var sums [8]*string
	if err := t.tx.QueryRow(ctx, valueSumsQuery(id), i+1).Scan(&s.N, &s.Outside, &sums[0], &sums[1], &sums[2], &sums[3], &sums[4], &sums[5], &sums[6], &sums[7]); err != nil {
		return nil, fmt.Errorf("summarize evaluation %d: %w", id, err)
	}
	if s.Outside > 0 {
		return s, nil
	}
	v, err := integers(sums[:])
	if err != nil {
		return nil, fmt.Errorf("summarize evaluation %d: %w", id, err)
	}
	s.Sum, s.SumSq = q64(v[0], v[1]), squareSum(v[2:])
	return s, nil
}

// valueSumsQuery is SummarizeValues' query; $1 is the metric's index. As
// in pairedValues, a fence keeps each level's columns computed once a
// unit, and every sum is of bigints (squareLimbs).
func valueSumsQuery(id int64) string {
	return `
		SELECT count(*), count(*) FILTER (WHERE NOT ok), sum(hi)::text, sum(lo)::text, ` + squareLimbs + `
		FROM ` + squareLimbsOf(`(
			SELECT ok, CASE WHEN ok THEN `+fixedHi("v")+` END AS hi, CASE WHEN ok THEN frac::bigint END AS lo,
			       `+fence+`
			FROM (
				SELECT v, `+inRange("v")+` AND frac = trunc(frac) AS ok, frac, `+fence+`
				FROM (
					SELECT v, `+fixedFrac("v")+` AS frac, `+fence+`
					FROM (SELECT a.vals[$1]::float8 AS v, `+fence+` FROM `+partitionName(id)+` a) x
				) y
			) w
		) p`, "hi", "lo")
}

// integers parses the sums an aggregate query gave as text, a NULL sum
// (of no rows) as 0.
func integers(sums []*string) ([]*big.Int, error) {
	v := make([]*big.Int, len(sums))
	for i, p := range sums {
		v[i] = new(big.Int)
		if p != nil {
			if _, ok := v[i].SetString(*p, 10); !ok {
				return nil, fmt.Errorf("sum %q is not an integer", *p)
			}
		}
	}
	return v, nil
}

// q64 is hi·2³² + lo.
func q64(hi, lo *big.Int) *big.Int {
	z := new(big.Int).Lsh(hi, 32)
	return z.Add(z, lo)
}

// differencesBatch is the number of units StreamDifferences hands over
// at a time: 1.5 MB of them.
const differencesBatch = 1 << 16

// differencesQuery is StreamDifferences' query; $1 and $2 are the
// metric's indexes, $3 the seed.
func differencesQuery(leftID, rightID int64) string {
	return `SELECT hashtextextended(p.sid, $3), p.dhi, p.dlo FROM ` + pairedValues(leftID, rightID, false)
}

// StreamDifferences reads the paired units of s's evaluations, in no
// particular order, and hands them to fn in batches: each unit's sample
// ID hashed with seed (hashtextextended, what the Poisson weights of
// stats.Replicates start from) and its difference d, d·2⁶⁴ = hi·2³² + lo.
// On a distributed database the workers pair and hash; 24 bytes a unit
// reach the caller, which holds one batch at a time. s must come from
// Summarize, with no unit outside Q64. fn's slices are reused after it
// returns; its error stops the stream and is returned.
func (t *Tx) StreamDifferences(ctx context.Context, s *Summary, seed uint64, fn func(hashes, hi, lo []int64) error) error {
	return t.streamDifferences(ctx, s, seed, differencesBatch, fn)
}

func (t *Tx) streamDifferences(ctx context.Context, s *Summary, seed uint64, batch int, fn func(hashes, hi, lo []int64) error) error {
	leftID, rightID := s.Left.ID, s.Right.ID
	_, _, li, ri, err := pairable(ctx, t.tx, leftID, rightID, s.Metric, true)
	if err != nil {
		return err
	}
	if err := t.noJIT(ctx); err != nil {
		return err
	}
	rows, err := t.tx.Query(ctx, differencesQuery(leftID, rightID), li+1, ri+1, int64(seed))
	if err != nil {
		return fmt.Errorf("read the differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	defer rows.Close()
	hashes, hi, lo := make([]int64, batch), make([]int64, batch), make([]int64, batch)
	n := 0
	for rows.Next() {
		var dhi, dlo *int64
		if err := rows.Scan(&hashes[n], &dhi, &dlo); err != nil {
			return fmt.Errorf("read the differences of evaluations %d and %d: %w", leftID, rightID, err)
		}
		if dhi == nil || dlo == nil {
			return fmt.Errorf("read the differences of evaluations %d and %d: a pair outside fixed point", leftID, rightID)
		}
		hi[n], lo[n] = *dhi, *dlo
		if n++; n == batch {
			if err := fn(hashes, hi, lo); err != nil {
				return err
			}
			n = 0
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read the differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	if n > 0 {
		return fn(hashes[:n], hi[:n], lo[:n])
	}
	return nil
}

// RankGroup counts the positive and negative differences of one
// magnitude.
type RankGroup struct{ Pos, Neg int64 }

// signedRanksQuery is SignedRanks' query; $1 and $2 are the metric's
// indexes.
func signedRanksQuery(leftID, rightID int64) string {
	return `
		SELECT count(*) FILTER (WHERE ` + dExpr + ` > 0), count(*) FILTER (WHERE ` + dExpr + ` < 0)
		FROM ` + pairedValues(leftID, rightID, false) + `
		WHERE ` + dExpr + ` <> 0
		GROUP BY abs(` + dExpr + `)
		ORDER BY abs(` + dExpr + `)`
}

// SignedRanks groups the non-zero paired differences by magnitude, in
// increasing order, for the signed-rank test: one row per distinct |d|
// reaches the caller, counted on the workers. Units in Q64 only.
func (t *Tx) SignedRanks(ctx context.Context, leftID, rightID int64, metric string) ([]RankGroup, error) {
	_, _, li, ri, err := pairable(ctx, t.tx, leftID, rightID, metric, true)
	if err != nil {
		return nil, err
	}
	if err := t.noJIT(ctx); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, signedRanksQuery(leftID, rightID), li+1, ri+1)
	if err != nil {
		return nil, fmt.Errorf("rank differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	groups, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (RankGroup, error) {
		var g RankGroup
		err := row.Scan(&g.Pos, &g.Neg)
		return g, err
	})
	if err != nil {
		return nil, fmt.Errorf("rank differences of evaluations %d and %d: %w", leftID, rightID, err)
	}
	return groups, nil
}
