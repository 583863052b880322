package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// TestVerdictOnACitusCoordinator starts a real 3-node Citus cluster and
// runs verdict on its coordinator as on a single server: the migrations
// apply, an evaluation logs, pairs and records a comparison, and the
// Poisson weights are drawn there as in Go. Until the database is
// distributed every table is the coordinator's own.
func TestVerdictOnACitusCoordinator(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.Citus(t)
	require.Equal(t, int64(2), storetest.Scalar[int64](t, url, `SELECT count(*) FROM citus_get_active_worker_nodes()`))

	s, err := store.Open(ctx, url, store.Options{})
	require.NoError(t, err)
	defer s.Close()
	current, known, err := s.SchemaVersions(ctx)
	require.NoError(t, err)
	require.Equal(t, known, current)

	a, err := s.LogEvaluation(ctx, newEval("e", "a"), twoMetricRows())
	require.NoError(t, err)
	rows := twoMetricRows()
	rows.vals[0][0] = 0.75
	b, err := s.LogEvaluation(ctx, newEval("e", "b"), rows)
	require.NoError(t, err)
	p, err := s.Pair(ctx, a.ID, b.ID, "ndcg@10", false)
	require.NoError(t, err)
	require.Equal(t, []string{"u1", "u2", "u3"}, p.SampleIDs)
	require.Equal(t, []float64{0.5, 0.25, 0}, p.LeftSum)
	require.Equal(t, []float64{0.75, 0.25, 0}, p.RightSum)
	_, err = s.RecordComparison(ctx, store.ComparisonRecord{LeftID: a.ID, RightID: b.ID, Metric: "ndcg@10", Method: "paired-t",
		Confidence: 0.95, Alpha: 0.05, N: 3, Verdict: "v", Parameters: map[string]any{}, Outputs: map[string]any{}})
	require.NoError(t, err)
	_, err = s.LogPredictions(ctx, newEval("e", "clf"), binarySet())
	require.NoError(t, err)
	for b := range int32(20) {
		require.Equal(t, int64(stats.PoissonWeight("user-00042", b, 9)),
			storetest.Scalar[int64](t, url, `SELECT verdict_poisson_weight('user-00042', $1, 9)::bigint`, b))
	}
}
