package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// Evaluations are attached to unit_values in groups of 100 IDs, each group
// created with its first evaluation.
func TestPartitionsGroupEvaluations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	a, err := s.LogEvaluation(ctx, newEval("e", "a"), twoMetricRows())
	require.NoError(t, err)
	b, err := s.LogEvaluation(ctx, newEval("e", "b"), twoMetricRows())
	require.NoError(t, err)
	require.Less(t, b.ID, int64(100))
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'unit_values'::regclass`))
	require.Equal(t, 2, count(t, url, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'verdict_units.unit_values_g0'::regclass`))
	// The primary key reaches every evaluation's index through the group's.
	require.Equal(t, 2, count(t, url, `SELECT count(*) FROM pg_partition_tree('unit_values_pkey') WHERE isleaf`))
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM pg_partition_tree('unit_values_pkey') WHERE level = 1 AND NOT isleaf`))
	// Plain SQL sees every evaluation through unit_values.
	require.Equal(t, 6, count(t, url, `SELECT count(*) FROM unit_values`))
	require.Equal(t, 3, count(t, url, fmt.Sprintf(`SELECT count(*) FROM unit_values WHERE evaluation_id = %d`, a.ID)))
}

// A store logged to before groups existed keeps its evaluations attached to
// unit_values directly; migration 5 moves the next evaluation ID to a
// multiple of 100, so new evaluations go into groups of their own, and the
// two kinds pair with each other. Going down to version 4 puts grouped
// evaluations back under unit_values.
func TestPartitionsOlderEvaluationsStay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	old := make([]int64, 3)
	for i := range old {
		l, err := s.LogEvaluation(ctx, newEval("e", fmt.Sprint("old", i)), twoMetricRows())
		require.NoError(t, err)
		old[i] = l.ID
	}
	require.NoError(t, s.MigrateDownTo(ctx, 4))
	require.Equal(t, 3, count(t, url, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'unit_values'::regclass`), "flattened")
	require.Zero(t, count(t, url, `SELECT count(*) FROM pg_class WHERE relname LIKE 'unit\_values\_g%'`))

	_, err := s.Migrate(ctx)
	require.NoError(t, err)
	l, err := s.LogEvaluation(ctx, newEval("e", "new"), twoMetricRows())
	require.NoError(t, err)
	require.Equal(t, int64(100), l.ID, "the next multiple of 100 after %v", old)
	require.Equal(t, 4, count(t, url, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'unit_values'::regclass`), "3 evaluations and a group")
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'verdict_units.unit_values_g1'::regclass`))

	p, err := s.Pair(ctx, old[0], l.ID, "ndcg@10", false)
	require.NoError(t, err)
	require.Equal(t, []string{"u1", "u2", "u3"}, p.SampleIDs)
	require.Equal(t, []float64{0.5, 0.25, 0}, p.RightSum)
}

// Logs that start two groups at once, from several connections, each find
// their group created once.
func TestPartitionsConcurrentGroups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `SELECT setval(pg_get_serial_sequence('evaluations', 'id'), 95)`)
	require.NoError(t, err)

	const n = 10 // IDs 96 to 105: the end of group 0 and the start of group 1
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = s.LogEvaluation(ctx, newEval("e", fmt.Sprint("run-", i)), twoMetricRows())
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, 4, count(t, url, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'verdict_units.unit_values_g0'::regclass`))
	require.Equal(t, 6, count(t, url, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'verdict_units.unit_values_g1'::regclass`))
	require.Equal(t, n*3, count(t, url, `SELECT count(*) FROM unit_values`))
}
