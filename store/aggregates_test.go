package store_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// countTables counts the tables that hold per-unit values.
func countTables(t *testing.T, url string) int {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var n int
	require.NoError(t, conn.QueryRow(context.Background(),
		`SELECT count(*) FROM pg_tables WHERE schemaname = 'verdict_units'`).Scan(&n))
	return n
}

func TestLogAggregatesOnly(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	full, err := s.LogEvaluation(ctx, newEval("monitor", "full"), twoMetricRows())
	require.NoError(t, err)
	tables := countTables(t, url)

	// The same rows, kept as aggregates only: the same means and counts,
	// no table of per-unit values, and not mistaken for the full log.
	ev := newEval("monitor", "full")
	ev.AggregatesOnly = true
	ev.Debug = func() json.RawMessage { return json.RawMessage(`[{"sample_id":"u1"}]`) }
	agg, err := s.LogEvaluation(ctx, ev, twoMetricRows())
	require.NoError(t, err)
	require.False(t, agg.Existing)
	require.NotEqual(t, full.ID, agg.ID)
	require.True(t, agg.AggregatesOnly)
	require.Equal(t, full.Aggregates, agg.Aggregates)
	require.Equal(t, full.Units, agg.Units)
	require.Equal(t, full.Fingerprint, agg.Fingerprint)
	require.Equal(t, tables, countTables(t, url))

	stored, err := s.GetEvaluation(ctx, agg.ID)
	require.NoError(t, err)
	require.True(t, stored.AggregatesOnly)
	debug, err := s.DebugRows(ctx, agg.ID)
	require.NoError(t, err)
	require.Equal(t, []store.DebugRow{{SampleID: "u1"}}, debug)
	none, err := s.DebugRows(ctx, full.ID)
	require.NoError(t, err)
	require.Nil(t, none)
	_, err = s.DebugRows(ctx, 1<<30)
	require.ErrorIs(t, err, store.ErrNotFound)

	// Logged again, it is found.
	again, err := s.LogEvaluation(ctx, ev, twoMetricRows())
	require.NoError(t, err)
	require.True(t, again.Existing)
	require.Equal(t, agg.ID, again.ID)

	// Nothing to pair: every reader of per-unit values refuses, saying why.
	_, err = s.Pair(ctx, full.ID, agg.ID, "ndcg@10", false)
	require.ErrorIs(t, err, store.ErrNoUnits)
	require.ErrorContains(t, err, "aggregates only")
	_, _, _, err = s.UnitMatrix(ctx, []*store.Evaluation{&full.Evaluation, stored}, "ndcg@10")
	require.ErrorIs(t, err, store.ErrNoUnits)

	// The leaderboard's reader sees it, marked.
	means, err := s.LatestMeans(ctx, "monitor", "", "ndcg@10")
	require.NoError(t, err)
	require.Len(t, means, 1)
	require.True(t, means[0].NoUnits)
	require.Equal(t, agg.ID, means[0].EvaluationID)
}

func TestLogAggregates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	fp := strings.Repeat("ab", 32)
	ev := newEval("monitor", "service")
	ev.TargetFingerprint = fp
	ev.Protocol.EvalDraws = 2
	ev.WholeSet = map[string]float64{"coverage@10": 0.25}
	ev.LowerIsBetter = []string{"coverage@10"}
	agg := store.Aggregates{Metrics: []string{"ndcg@10"}, Means: map[string]float64{"ndcg@10": 0.125}, Rows: 10, ScoredRows: 8, Units: 4}
	got, err := s.LogAggregates(ctx, ev, agg)
	require.NoError(t, err)
	require.True(t, got.AggregatesOnly)
	require.Equal(t, map[string]float64{"ndcg@10": 0.125, "coverage@10": 0.25}, got.Aggregates)
	stored, err := s.GetEvaluation(ctx, got.ID)
	require.NoError(t, err)
	require.Equal(t, got.Aggregates, stored.Aggregates)
	require.Equal(t, []string{"ndcg@10"}, stored.Metrics)
	require.Equal(t, []string{"coverage@10"}, stored.WholeSet())
	require.Equal(t, 2, stored.Protocol.EvalDraws)
	require.Equal(t, int64(4), stored.Units)
	require.Equal(t, fp, stored.Fingerprint)

	again, err := s.LogAggregates(ctx, ev, agg)
	require.NoError(t, err)
	require.True(t, again.Existing)

	// A whole-set metric has a leaderboard entry without units.
	means, err := s.LatestMeans(ctx, "monitor", "", "coverage@10")
	require.NoError(t, err)
	require.Len(t, means, 1)
	require.True(t, means[0].NoUnits)
	require.True(t, means[0].LowerIsBetter)

	for name, bad := range map[string]func(*store.NewEvaluation, *store.Aggregates){
		"no fingerprint": func(e *store.NewEvaluation, a *store.Aggregates) { e.TargetFingerprint = "" },
		"NaN mean":       func(e *store.NewEvaluation, a *store.Aggregates) { a.Means = map[string]float64{"ndcg@10": math.NaN()} },
		"missing mean":   func(e *store.NewEvaluation, a *store.Aggregates) { a.Means = map[string]float64{"recall@10": 1} },
		"units > rows":   func(e *store.NewEvaluation, a *store.Aggregates) { a.Units = 9 },
		"clash":          func(e *store.NewEvaluation, a *store.Aggregates) { e.WholeSet = map[string]float64{"ndcg@10": 1} },
		"debug too big": func(e *store.NewEvaluation, a *store.Aggregates) {
			e.Debug = func() json.RawMessage { return json.RawMessage(`["` + strings.Repeat("x", store.MaxDebugBytes) + `"]`) }
		},
		"debug not an array": func(e *store.NewEvaluation, a *store.Aggregates) {
			e.Debug = func() json.RawMessage { return json.RawMessage(`{"a":1}`) }
		},
	} {
		e, a := newEval("monitor", "bad"), agg
		e.TargetFingerprint = fp
		bad(&e, &a)
		_, err := s.LogAggregates(ctx, e, a)
		require.ErrorIs(t, err, store.ErrBadInput, name)
	}
	_, err = s.GetRun(ctx, "monitor", "bad")
	require.ErrorIs(t, err, store.ErrNotFound, "a refused log leaves nothing")
}
