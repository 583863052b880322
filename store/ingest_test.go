package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

func newEval(experiment, run string) store.NewEvaluation {
	return store.NewEvaluation{Experiment: experiment, Run: run, EvalSet: "test"}
}

func twoMetricRows() *memRows {
	return &memRows{
		metrics: []string{"ndcg@10", "recall@10"},
		ids:     []string{"u1", "u2", "u3"},
		vals:    [][]float64{{0.5, 1}, {0.25, 0}, {0, 0.5}},
	}
}

func TestLogWide(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	ev := newEval("movies", "pop")
	ev.Params = map[string]any{"k": 10.0}
	ev.Tags = []string{"baseline"}
	ev.GitCommit = "abc123"
	got, err := s.LogEvaluation(ctx, ev, twoMetricRows())
	require.NoError(t, err)
	require.False(t, got.Existing)
	require.Equal(t, []string{"ndcg@10", "recall@10"}, got.Metrics)
	require.Equal(t, int64(3), got.Rows)
	require.Equal(t, int64(3), got.ScoredRows)
	require.Equal(t, int64(3), got.Units)
	require.Equal(t, "samples", got.FingerprintKind)
	// Means by hand: (0.5+0.25+0)/3 and (1+0+0.5)/3; all values are exact in float4.
	require.True(t, scalar.EqualWithinAbs(got.Aggregates["ndcg@10"], 0.75/3, 1e-15))
	require.True(t, scalar.EqualWithinAbs(got.Aggregates["recall@10"], 0.5, 1e-15))

	stored, err := s.GetEvaluation(ctx, got.ID)
	require.NoError(t, err)
	require.Equal(t, got.Aggregates, stored.Aggregates)
	require.Equal(t, "pop", stored.Run)
	require.Equal(t, "test", stored.EvalSet)

	run, err := s.GetRun(ctx, "movies", "pop")
	require.NoError(t, err)
	require.Equal(t, map[string]any{"k": 10.0}, run.Params)
	require.Equal(t, []string{"baseline"}, run.Tags)
	require.Equal(t, "abc123", run.GitCommit)
	require.Equal(t, int64(1), run.Evaluations)

	// The long view gives the values back, one row per metric.
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var sum float64
	var n int
	require.NoError(t, conn.QueryRow(ctx, `
		SELECT sum(value), count(*) FROM unit_values_long
		WHERE evaluation_id = $1 AND metric = 'recall@10'`, got.ID).Scan(&sum, &n))
	require.Equal(t, 3, n)
	require.InDelta(t, 1.5, sum, 1e-12)

	// The same sample IDs in another order give the same fingerprint, hence
	// the same evaluation set.
	other := &memRows{metrics: []string{"ndcg@10"}, ids: []string{"u3", "u1", "u2"}, vals: [][]float64{{1}, {1}, {0}}}
	got2, err := s.LogEvaluation(ctx, newEval("movies", "knn"), other)
	require.NoError(t, err)
	require.Equal(t, got.Fingerprint, got2.Fingerprint)
	require.Equal(t, got.EvalSetID, got2.EvalSetID)

	// One sample fewer is a different evaluation set.
	fewer := &memRows{metrics: []string{"ndcg@10"}, ids: []string{"u1", "u2"}, vals: [][]float64{{1}, {0}}}
	got3, err := s.LogEvaluation(ctx, newEval("movies", "knn2"), fewer)
	require.NoError(t, err)
	require.NotEqual(t, got.Fingerprint, got3.Fingerprint)
	require.NotEqual(t, got.EvalSetID, got3.EvalSetID)
}

func TestLogDrawsAndTargetFingerprint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)

	rows := &memRows{
		metrics: []string{"hit_rate@5"},
		hasDraw: true,
		ids:     []string{"a", "a", "b", "c", "c", "c"},
		draws:   []int64{0, 1, 0, 0, 1, 2},
		vals:    [][]float64{{1}, {0}, {1}, {1}, {1}, {0}},
	}
	ev := newEval("e", "r")
	ev.Protocol = store.Protocol{EvalDraws: 3, Cutoffs: []int{5}, RequiredK: 5}
	got, err := s.LogEvaluation(ctx, ev, rows)
	require.NoError(t, err)
	require.Equal(t, int64(6), got.Rows)
	require.Equal(t, int64(3), got.Units, "units are distinct sample IDs")
	require.InDelta(t, 4.0/6, got.Aggregates["hit_rate@5"], 1e-15, "the row-weighted mean")

	// The fingerprint of the distinct IDs equals the one of the same IDs
	// logged without draws.
	plain := &memRows{metrics: []string{"x"}, ids: []string{"c", "b", "a"}, vals: [][]float64{{1}, {1}, {1}}}
	got2, err := s.LogEvaluation(ctx, newEval("e", "r2"), plain)
	require.NoError(t, err)
	require.Equal(t, got.Fingerprint, got2.Fingerprint)

	stored, err := s.GetEvaluation(ctx, got.ID)
	require.NoError(t, err)
	require.Equal(t, []int{5}, stored.Protocol.Cutoffs)
	require.Equal(t, 3, stored.Protocol.EvalDraws)
	require.Equal(t, 5, stored.Protocol.RequiredK)
	require.Equal(t, "holdout", stored.Protocol.Name)

	ev = newEval("e", "r3")
	ev.TargetFingerprint = targetsFingerprint("t-123")
	got3, err := s.LogEvaluation(ctx, ev, twoMetricRows())
	require.NoError(t, err)
	require.Equal(t, targetsFingerprint("t-123"), got3.Fingerprint)
	require.Equal(t, "targets", got3.FingerprintKind)
}

// targetsFingerprint stands for the fingerprint of some targets: a SHA-256
// digest in hexadecimal, as package fingerprint writes it.
func targetsFingerprint(name string) string {
	sum := sha256.Sum256([]byte(name))
	return hex.EncodeToString(sum[:])
}

func TestTargetFingerprintMustBeSHA256(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	fp := targetsFingerprint("targets.npz")
	for i, ok := range []string{fp, strings.ToUpper(fp)} {
		ev := newEval("e", fmt.Sprintf("ok-%d", i))
		ev.TargetFingerprint = ok
		got, err := s.LogEvaluation(ctx, ev, twoMetricRows())
		require.NoError(t, err, ok)
		require.Equal(t, fp, got.Fingerprint, "recorded in lower case")
	}
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM evaluation_sets`), "either case is the same evaluation set")

	for _, tt := range []struct{ fingerprint, want string }{
		{"targets-1", `"targets-1"`},
		{fp[:63], fmt.Sprintf("%q", fp[:40]) + "…"},
		{fp + "0", fmt.Sprintf("%q", fp[:40]) + "…"},
		{"sha256:" + fp[:57], `"sha256:` + fp[:33] + `"…`},
		{strings.Repeat("g", 64), fmt.Sprintf("%q…", strings.Repeat("g", 40))},
		{" " + fp[1:], fmt.Sprintf("%q…", " "+fp[1:40])},
	} {
		ev := newEval("e", "bad")
		ev.TargetFingerprint = tt.fingerprint
		_, err := s.LogEvaluation(ctx, ev, twoMetricRows())
		require.ErrorIs(t, err, store.ErrBadInput, tt.fingerprint)
		require.EqualError(t, err, "bad input: the target fingerprint "+tt.want+" is not a SHA-256 digest: want 64 hexadecimal digits")
	}
	require.Zero(t, count(t, url, `SELECT count(*) FROM runs WHERE name = 'bad'`))
}

func TestLogIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	first, err := s.LogEvaluation(ctx, newEval("e", "r"), twoMetricRows())
	require.NoError(t, err)
	again, err := s.LogEvaluation(ctx, newEval("e", "r"), twoMetricRows())
	require.NoError(t, err)
	require.True(t, again.Existing)
	require.Equal(t, first.ID, again.ID)
	require.Equal(t, first.Aggregates, again.Aggregates)

	// Different content is a new evaluation...
	changed := twoMetricRows()
	changed.vals[0][0] = 0.75
	second, err := s.LogEvaluation(ctx, newEval("e", "r"), changed)
	require.NoError(t, err)
	require.False(t, second.Existing)

	// ...unless the idempotency key says it is a retry.
	keyed := newEval("e", "r")
	keyed.IdempotencyKey = "job-42"
	k1, err := s.LogEvaluation(ctx, keyed, &memRows{metrics: []string{"m"}, ids: []string{"x"}, vals: [][]float64{{1}}})
	require.NoError(t, err)
	k2, err := s.LogEvaluation(ctx, keyed, &memRows{metrics: []string{"m"}, ids: []string{"y"}, vals: [][]float64{{0}}})
	require.NoError(t, err)
	require.True(t, k2.Existing)
	require.Equal(t, k1.ID, k2.ID)

	require.Equal(t, 3, count(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, 3, count(t, url, `SELECT count(*) FROM pg_partition_tree('unit_values') WHERE isleaf`))
	require.Equal(t, 3, count(t, url, `SELECT count(*) FROM pg_tables WHERE schemaname = 'verdict_units' AND tablename NOT LIKE 'unit\_values\_g%'`), "no partition left behind")
}

func TestLogRefusesBadInput(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	m := []string{"ndcg@10", "recall@10"}
	tests := []struct {
		name string
		rows store.Rows
		ev   func(*store.NewEvaluation)
		want string
	}{
		{name: "NaN", rows: &memRows{metrics: m, ids: []string{"u1", "u2"}, vals: [][]float64{{1, 1}, {math.NaN(), 0}}},
			want: `mem: row 2 (sample "u2"), column "ndcg@10": value is NaN`},
		{name: "+Inf", rows: &memRows{metrics: m, ids: []string{"u1"}, vals: [][]float64{{1, math.Inf(1)}}},
			want: `mem: row 1 (sample "u1"), column "recall@10": value is +Inf`},
		{name: "-Inf", rows: &memRows{metrics: m, ids: []string{"u1"}, vals: [][]float64{{math.Inf(-1), 1}}},
			want: `mem: row 1 (sample "u1"), column "ndcg@10": value is -Inf`},
		{name: "out of float4 range", rows: &memRows{metrics: m, ids: []string{"u1"}, vals: [][]float64{{1e39, 1}}},
			want: `mem: row 1 (sample "u1"), column "ndcg@10": value 1e+39 is out of range for a real (float4)`},
		{name: "empty sample ID", rows: &memRows{metrics: m, ids: []string{"u1", ""}, vals: [][]float64{{1, 1}, {1, 1}}},
			want: `mem: row 2: empty sample ID`},
		{name: "adjacent duplicate", rows: &memRows{metrics: m, ids: []string{"u1", "u1"}, vals: [][]float64{{1, 1}, {1, 1}}},
			want: `mem: row 2: duplicate row: sample "u1" occurs more than once`},
		{name: "distant duplicate", rows: &memRows{metrics: m, ids: []string{"u2", "u1", "u2"}, vals: [][]float64{{1, 1}, {1, 1}, {0, 0}}},
			want: `duplicate row: sample "u2" occurs more than once`},
		{name: "duplicate draw", rows: &memRows{metrics: m, hasDraw: true, ids: []string{"u1", "u2", "u1"}, draws: []int64{1, 1, 1}, vals: [][]float64{{1, 1}, {1, 1}, {0, 0}}},
			want: `duplicate row: sample "u1", draw 1 occurs more than once`},
		{name: "draw out of range", rows: &memRows{metrics: m, hasDraw: true, ids: []string{"u1"}, draws: []int64{40000}, vals: [][]float64{{1, 1}}},
			want: `mem: row 1 (sample "u1"), column "draw": draw 40000 is outside 0..32767`},
		{name: "zero rows", rows: &memRows{metrics: m},
			want: `no rows: the input holds no per-unit values`},
		{name: "no metrics", rows: &memRows{ids: []string{"u1"}, vals: [][]float64{{}}},
			want: `no metric columns`},
		{name: "duplicate metric", rows: &memRows{metrics: []string{"a", "a"}, ids: []string{"u1"}, vals: [][]float64{{1, 1}}},
			want: `column "a": metric appears twice`},
		{name: "unknown lower-is-better metric", rows: twoMetricRows(), ev: func(e *store.NewEvaluation) { e.LowerIsBetter = []string{"logloss"} },
			want: `bad input: "logloss" is marked lower-is-better but is not among the metrics (ndcg@10, recall@10)`},
		{name: "empty run", rows: twoMetricRows(), ev: func(e *store.NewEvaluation) { e.Run = " " },
			want: `bad input: the run name is empty`},
		{name: "negative required k", rows: twoMetricRows(), ev: func(e *store.NewEvaluation) { e.Protocol.RequiredK = -10 },
			want: `bad input: the protocol's required k is -10; it must be positive, or 0 for unknown`},
		{name: "negative eval draws", rows: twoMetricRows(), ev: func(e *store.NewEvaluation) { e.Protocol.EvalDraws = -1 },
			want: `bad input: the protocol's eval draws is -1; it must be positive, or 0 for unknown`},
		{name: "zero cutoff", rows: twoMetricRows(), ev: func(e *store.NewEvaluation) { e.Protocol.Cutoffs = []int{10, 0} },
			want: `bad input: cutoff 0; cutoffs must be positive`},
		{name: "long: value twice", rows: nil, want: ""},
	}
	for _, tt := range tests {
		if tt.rows == nil {
			continue
		}
		t.Run(tt.name, func(t *testing.T) {
			ev := newEval("e", "r")
			if tt.ev != nil {
				tt.ev(&ev)
			}
			_, err := s.LogEvaluation(ctx, ev, tt.rows)
			require.ErrorIs(t, err, store.ErrBadInput)
			require.EqualError(t, err, tt.want)
		})
	}
	require.Equal(t, 0, count(t, url, `SELECT count(*) FROM evaluations`), "nothing was written")
	require.Equal(t, 0, count(t, url, `SELECT count(*) FROM runs`))
	require.Equal(t, 0, count(t, url, `SELECT count(*) FROM experiments`))
	require.Equal(t, 0, count(t, url, `SELECT count(*) FROM pg_tables WHERE schemaname = 'verdict_units'`))
}

// countedRows is a source that numbers the rows of its sample IDs itself,
// as an evaluation of predictions does.
type countedRows struct {
	*memRows
	units, draws int64
}

func (r *countedRows) Units() int64     { return r.units }
func (r *countedRows) EvalDraws() int64 { return r.draws }

// TestLogRecordsEvalDraws logs sources with and without draws: every
// evaluation records its eval draws, the most rows any sample ID has,
// counted by the database unless the source counted them or the protocol
// names them.
func TestLogRecordsEvalDraws(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	// a has 2 rows, b 1 and c 3, with draws numbered as a file may: not
	// from 0, with gaps.
	drawn := func() *memRows {
		return &memRows{metrics: []string{"x"}, hasDraw: true,
			ids: []string{"a", "a", "b", "c", "c", "c"}, draws: []int64{1, 5, 0, 0, 1, 2},
			vals: [][]float64{{1}, {0}, {1}, {1}, {1}, {0}}}
	}
	drawnLong := &memLong{hasDraw: true, ids: []string{"c", "a", "c", "c", "a"}, draws: []int64{0, 0, 1, 2, 1},
		metrics: []string{"x", "x", "x", "x", "x"}, vals: []float64{1, 1, 1, 0, 0}}
	tests := []struct {
		name  string
		log   func(ev store.NewEvaluation) (*store.Logged, error)
		ev    func(*store.NewEvaluation)
		draws int
		units int64
	}{
		{name: "wide, no draw column", log: func(ev store.NewEvaluation) (*store.Logged, error) { return s.LogEvaluation(ctx, ev, twoMetricRows()) },
			draws: 1, units: 3},
		{name: "wide with draws, samples fingerprint", log: func(ev store.NewEvaluation) (*store.Logged, error) { return s.LogEvaluation(ctx, ev, drawn()) },
			draws: 3, units: 3},
		{name: "wide with draws, target fingerprint", log: func(ev store.NewEvaluation) (*store.Logged, error) { return s.LogEvaluation(ctx, ev, drawn()) },
			ev: func(ev *store.NewEvaluation) { ev.TargetFingerprint = targetsFingerprint("t-1") }, draws: 3, units: 3},
		{name: "wide with draws over several connections", log: func(ev store.NewEvaluation) (*store.Logged, error) { return s.LogEvaluation(ctx, ev, drawn()) },
			ev: func(ev *store.NewEvaluation) { ev.Connections = 2 }, draws: 3, units: 3},
		{name: "counted by the source", log: func(ev store.NewEvaluation) (*store.Logged, error) {
			return s.LogEvaluation(ctx, ev, &countedRows{memRows: drawn(), units: 3, draws: 4})
		}, ev: func(ev *store.NewEvaluation) { ev.TargetFingerprint = targetsFingerprint("t-2") }, draws: 4, units: 3},
		{name: "named by the protocol", log: func(ev store.NewEvaluation) (*store.Logged, error) { return s.LogEvaluation(ctx, ev, drawn()) },
			ev: func(ev *store.NewEvaluation) { ev.Protocol.EvalDraws = 5 }, draws: 5, units: 3},
		{name: "long with draws", log: func(ev store.NewEvaluation) (*store.Logged, error) { return s.LogEvaluationLong(ctx, ev, drawnLong) },
			draws: 3, units: 2},
		{name: "long without draws", log: func(ev store.NewEvaluation) (*store.Logged, error) {
			return s.LogEvaluationLong(ctx, ev, &memLong{ids: []string{"u1", "u2"}, metrics: []string{"x", "x"}, vals: []float64{1, 0}})
		}, draws: 1, units: 2},
	}
	for i, tt := range tests {
		ev := newEval("e", fmt.Sprintf("r%d", i))
		if tt.ev != nil {
			tt.ev(&ev)
		}
		got, err := tt.log(ev)
		require.NoError(t, err, tt.name)
		require.Equal(t, tt.draws, got.Protocol.EvalDraws, tt.name)
		require.Equal(t, tt.units, got.Units, tt.name)
		require.Equal(t, tt.draws, count(t, url, fmt.Sprintf(`SELECT eval_draws FROM evaluations WHERE id = %d`, got.ID)), tt.name)
	}
}

func TestLogLong(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	// Metric-major order, as pandas.melt writes it.
	long := &memLong{
		ids:     []string{"u1", "u2", "u3", "u1", "u2", "u3"},
		metrics: []string{"ndcg@10", "ndcg@10", "ndcg@10", "recall@10", "recall@10", "recall@10"},
		vals:    []float64{0.5, 0.25, 0, 1, 0, 0.5},
	}
	got, err := s.LogEvaluationLong(ctx, newEval("e", "long"), long)
	require.NoError(t, err)
	require.Equal(t, []string{"ndcg@10", "recall@10"}, got.Metrics)
	require.Equal(t, int64(3), got.Rows)
	require.Equal(t, int64(3), got.Units)
	require.InDelta(t, 0.25, got.Aggregates["ndcg@10"], 1e-15)
	require.InDelta(t, 0.5, got.Aggregates["recall@10"], 1e-15)

	wide, err := s.LogEvaluation(ctx, newEval("e", "wide"), twoMetricRows())
	require.NoError(t, err)
	require.Equal(t, wide.Fingerprint, got.Fingerprint, "long and wide input of the same IDs share the evaluation set")
	require.Equal(t, 0, count(t, url, fmt.Sprintf(`
		SELECT count(*) FROM unit_values a JOIN unit_values b USING (sample_id, draw)
		WHERE a.evaluation_id = %d AND b.evaluation_id = %d AND a.vals <> b.vals`, got.ID, wide.ID)),
		"the pivot gives the same per-unit values as the wide input")

	tests := []struct {
		name string
		rows *memLong
		want string
	}{
		{name: "value twice", rows: &memLong{ids: []string{"u1", "u1", "u1"}, metrics: []string{"a", "b", "a"}, vals: []float64{1, 1, 0}},
			want: `mem.csv: line 4 (sample "u1"), column "a": value given twice (first at mem.csv: line 2)`},
		{name: "metric missing", rows: &memLong{ids: []string{"u1", "u1", "u2"}, metrics: []string{"a", "b", "a"}, vals: []float64{1, 1, 0}},
			want: `mem.csv: line 4 (sample "u2"), column "b": value missing: the sample has no "b"`},
		{name: "NaN", rows: &memLong{ids: []string{"u1"}, metrics: []string{"a"}, vals: []float64{math.NaN()}},
			want: `mem.csv: line 2 (sample "u1"), column "a": value is NaN`},
		{name: "zero rows", rows: &memLong{},
			want: `no rows: the input holds no per-unit values`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.LogEvaluationLong(ctx, newEval("e", "bad"), tt.rows)
			require.ErrorIs(t, err, store.ErrBadInput)
			require.EqualError(t, err, tt.want)
		})
	}
	require.Equal(t, 2, count(t, url, `SELECT count(*) FROM evaluations`))
}

func TestConcurrentLogsIntoOneExperiment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	const n = 8
	var wg sync.WaitGroup
	ids := make([]int64, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			got, err := s.LogEvaluation(ctx, newEval("shared", fmt.Sprintf("run-%d", i)), twoMetricRows())
			if err == nil {
				ids[i] = got.ID
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, n, count(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM experiments`))
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM evaluation_sets`))
	require.Equal(t, n*3, count(t, url, `SELECT count(*) FROM unit_values`))
}

func count(t *testing.T, url, query string) int {
	t.Helper()
	return storetest.Scalar[int](t, url, query)
}

// scoredRows is a source that logs some of its input rows and knows its
// targets' fingerprint, as an evaluation of predictions does.
type scoredRows struct {
	*memRows
	input int64
	fp    string
}

func (r *scoredRows) InputRows() int64          { return r.input }
func (r *scoredRows) TargetFingerprint() string { return r.fp }

func TestLogFromASourceThatSkipsRows(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	got, err := s.LogEvaluation(ctx, newEval("e", "r"), &scoredRows{memRows: twoMetricRows(), input: 5, fp: "abc"})
	require.NoError(t, err)
	require.Equal(t, int64(5), got.Rows)
	require.Equal(t, int64(3), got.ScoredRows)
	require.Equal(t, "abc", got.Fingerprint)
	require.Equal(t, "targets", got.FingerprintKind)
}

// TestConcurrentIdempotencyKeyDifferentContent logs many evaluations of one
// run at once under one idempotency key, each with other values: one is
// stored, and every caller gets that one back, as a retry would.
func TestConcurrentIdempotencyKeyDifferentContent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	// The run exists, so that every log reaches the insert of the
	// evaluation rather than racing to create the run.
	_, err := s.LogEvaluation(ctx, newEval("e", "r"), twoMetricRows())
	require.NoError(t, err)

	const n = 16
	var wg sync.WaitGroup
	got := make([]*store.Logged, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			ev := newEval("e", "r")
			ev.IdempotencyKey = "job-42"
			rows := &memRows{metrics: []string{"m"}, ids: []string{fmt.Sprintf("u%d", i), "shared"}, vals: [][]float64{{float64(i)}, {1}}}
			got[i], errs[i] = s.LogEvaluation(ctx, ev, rows)
		})
	}
	wg.Wait()

	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM evaluations WHERE idempotency_key = 'job-42'`))
	stored := count(t, url, `SELECT id FROM evaluations WHERE idempotency_key = 'job-42'`)
	fresh := 0
	for i := range n {
		require.NoError(t, errs[i], "caller %d", i)
		require.Equal(t, int64(stored), got[i].ID, "caller %d gets the stored evaluation", i)
		require.Equal(t, "job-42", got[i].IdempotencyKey)
		if !got[i].Existing {
			fresh++
		}
	}
	require.Equal(t, 1, fresh, "one caller stored it; the others were told it existed")
	require.Equal(t, 2, count(t, url, `SELECT count(*) FROM pg_partition_tree('unit_values') WHERE isleaf`), "no partition of a loser is left")
}

// TestIdempotencyKeyWithDigest: a key logged with a request digest holds
// that request only. The same digest is a retry, answered with the first
// evaluation; another is refused with ErrConflict and writes nothing, also
// when the logs run at once.
func TestIdempotencyKeyWithDigest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	digest := func(c byte) func() string { return func() string { return strings.Repeat(string(c), 64) } }
	keyed := func(d func() string) store.NewEvaluation {
		ev := newEval("e", "r")
		ev.IdempotencyKey, ev.RequestDigest = "job-42", d
		return ev
	}
	first, err := s.LogEvaluation(ctx, keyed(digest('a')), &memRows{metrics: []string{"m"}, ids: []string{"x"}, vals: [][]float64{{1}}})
	require.NoError(t, err)
	again, err := s.LogEvaluation(ctx, keyed(digest('a')), &memRows{metrics: []string{"m"}, ids: []string{"x"}, vals: [][]float64{{1}}})
	require.NoError(t, err)
	require.True(t, again.Existing)
	require.Equal(t, first.ID, again.ID)

	_, err = s.LogEvaluation(ctx, keyed(digest('b')), &memRows{metrics: []string{"m"}, ids: []string{"y"}, vals: [][]float64{{0}}})
	require.ErrorIs(t, err, store.ErrConflict)
	var conflict *store.IdempotencyConflictError
	require.ErrorAs(t, err, &conflict)
	require.Equal(t, store.IdempotencyConflictError{Key: "job-42", Run: "r", EvaluationID: first.ID}, *conflict)

	found, err := s.FindRetry(ctx, "e", "r", "job-42", digest('a'))
	require.NoError(t, err)
	require.Equal(t, first.ID, found.ID)
	_, err = s.FindRetry(ctx, "e", "r", "job-42", digest('b'))
	require.ErrorIs(t, err, store.ErrConflict)
	found, err = s.FindRetry(ctx, "e", "r", "job-43", func() string { panic("no key, no digest needed") })
	require.NoError(t, err)
	require.Nil(t, found)

	// At once, under a new key, each with its own digest: one is stored,
	// every other is refused.
	const n = 8
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			ev := keyed(digest("0123456789abcdef"[i]))
			ev.IdempotencyKey = "job-43"
			_, errs[i] = s.LogEvaluation(ctx, ev, &memRows{metrics: []string{"m"}, ids: []string{fmt.Sprintf("u%d", i)}, vals: [][]float64{{float64(i)}}})
		})
	}
	wg.Wait()
	stored := 0
	for i := range n {
		if errs[i] == nil {
			stored++
			continue
		}
		require.ErrorIs(t, errs[i], store.ErrConflict, "caller %d", i)
	}
	require.Equal(t, 1, stored)
	require.Equal(t, 2, count(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, 2, count(t, url, `SELECT count(*) FROM pg_partition_tree('unit_values') WHERE isleaf`))
	require.Equal(t, 2, count(t, url, `SELECT count(*) FROM pg_tables WHERE schemaname = 'verdict_units' AND tablename NOT LIKE 'unit\_values\_g%'`), "no partition left behind")
}

// TestConcurrentLogsOfTheSameContent logs one evaluation many times at once
// without a key: it is stored once, and every caller gets it.
func TestConcurrentLogsOfTheSameContent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	_, err := s.LogEvaluation(ctx, newEval("e", "r"), &memRows{metrics: []string{"m"}, ids: []string{"x"}, vals: [][]float64{{0}}})
	require.NoError(t, err)

	const n = 8
	var wg sync.WaitGroup
	got := make([]*store.Logged, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { got[i], errs[i] = s.LogEvaluation(ctx, newEval("e", "r"), twoMetricRows()) })
	}
	wg.Wait()
	require.Equal(t, 2, count(t, url, `SELECT count(*) FROM evaluations`))
	for i := range n {
		require.NoError(t, errs[i])
		require.Equal(t, got[0].ID, got[i].ID)
	}
}

func TestLabelsForUnknownSamplesRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	labels := func(ids ...string) []store.Label {
		out := make([]store.Label, len(ids))
		for i, id := range ids {
			out[i] = store.Label{SampleID: id, Label: int16(i % 2)}
		}
		return out
	}

	// Labels of some or all of the evaluation's samples are recorded.
	ev := newEval("e", "some")
	ev.Labels = labels("u3", "u1")
	_, err := s.LogEvaluation(ctx, ev, twoMetricRows())
	require.NoError(t, err)
	ev = newEval("e", "all")
	ev.Labels = labels("u3", "u1", "u2")
	ev.Labels[0].Label, ev.Labels[1].Label = 0, 1
	_, err = s.LogEvaluation(ctx, ev, twoMetricRows())
	require.NoError(t, err)
	require.Equal(t, 3, count(t, url, `SELECT count(*) FROM sample_labels`))

	long := func() *memLong {
		return &memLong{ids: []string{"u1", "u2", "u3"}, metrics: []string{"m", "m", "m"}, vals: []float64{1, 0, 1}}
	}
	for _, tt := range []struct {
		name   string
		labels []store.Label
		log    func(ev store.NewEvaluation) error
		want   string
	}{
		{name: "wide", labels: labels("u1", "u9", "u8"),
			log:  func(ev store.NewEvaluation) error { _, err := s.LogEvaluation(ctx, ev, twoMetricRows()); return err },
			want: `bad input: sample "u9" is labelled, but the evaluation has no such sample`},
		{name: "wide over several connections", labels: labels("x", "u1"),
			log: func(ev store.NewEvaluation) error {
				ev.Connections = 2
				_, err := s.LogEvaluation(ctx, ev, manyRows(100, false))
				return err
			},
			want: `bad input: sample "x" is labelled, but the evaluation has no such sample`},
		{name: "long", labels: labels("u2", "U2"),
			log:  func(ev store.NewEvaluation) error { _, err := s.LogEvaluationLong(ctx, ev, long()); return err },
			want: `bad input: sample "U2" is labelled, but the evaluation has no such sample`},
		{name: "empty sample ID", labels: labels("u1", ""),
			log:  func(ev store.NewEvaluation) error { _, err := s.LogEvaluation(ctx, ev, twoMetricRows()); return err },
			want: `bad input: label 2: empty sample ID`},
	} {
		ev := newEval("e", "bad")
		ev.Labels = tt.labels
		err := tt.log(ev)
		require.ErrorIs(t, err, store.ErrBadInput, tt.name)
		require.EqualError(t, err, tt.want, tt.name)
	}
	require.Equal(t, 2, count(t, url, `SELECT count(*) FROM evaluations`), "nothing was written")
	require.Equal(t, 3, count(t, url, `SELECT count(*) FROM sample_labels`))
	require.Zero(t, count(t, url, `SELECT count(*) FROM runs WHERE name = 'bad'`))
}

func TestNegativeProtocolSizesRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	for _, tt := range []struct {
		set  func(*store.Protocol)
		want string
	}{
		{func(p *store.Protocol) { p.Folds = -3 }, `bad input: the protocol's folds is -3; it must be positive, or 0 for unknown`},
		{func(p *store.Protocol) { p.Repeats = -1 }, `bad input: the protocol's repeats is -1; it must be positive, or 0 for unknown`},
		{func(p *store.Protocol) { p.NTrain = -100 }, `bad input: the protocol's training set size is -100; it must be positive, or 0 for unknown`},
		{func(p *store.Protocol) { p.NTest = -1 }, `bad input: the protocol's test set size is -1; it must be positive, or 0 for unknown`},
		{func(p *store.Protocol) { p.RequiredK = -10 }, `bad input: the protocol's required k is -10; it must be positive, or 0 for unknown`},
		{func(p *store.Protocol) { p.EvalDraws = -2 }, `bad input: the protocol's eval draws is -2; it must be positive, or 0 for unknown`},
		{func(p *store.Protocol) { p.Cutoffs = []int{10, -5} }, `bad input: cutoff -5; cutoffs must be positive`},
	} {
		ev := newEval("e", "r")
		ev.Protocol.Name = "kfold"
		tt.set(&ev.Protocol)
		_, err := s.LogEvaluation(ctx, ev, twoMetricRows())
		require.ErrorIs(t, err, store.ErrBadInput)
		require.EqualError(t, err, tt.want)
	}
	require.Zero(t, count(t, url, `SELECT count(*) FROM evaluations`))
}
