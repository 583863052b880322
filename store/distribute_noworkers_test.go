package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// A coordinator whose workers were removed has nowhere to put shards:
// Distribute refuses with ErrNoWorkers, and the database stays as it was,
// its evaluations still pairable.
func TestDistributeRefusesWithoutWorkers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.Citus(t)
	s, err := store.Open(ctx, url, store.Options{})
	require.NoError(t, err)
	defer s.Close()
	a, err := s.LogEvaluation(ctx, newEval("e", "a"), twoMetricRows())
	require.NoError(t, err)
	storetest.Exec(t, url, `SELECT citus_remove_node(nodename, nodeport) FROM pg_dist_node WHERE groupid <> 0`)
	require.Zero(t, storetest.Scalar[int64](t, url, `SELECT count(*) FROM citus_get_active_worker_nodes()`))

	_, err = s.Distribute(ctx, store.DistributeOptions{})
	require.ErrorIs(t, err, store.ErrNoWorkers)
	distributed, err := s.Distributed(ctx)
	require.NoError(t, err)
	require.False(t, distributed)
	p, err := s.Pair(ctx, a.ID, a.ID, "ndcg@10", false)
	require.NoError(t, err)
	require.Equal(t, []float64{0.5, 0.25, 0}, p.LeftSum)
}
