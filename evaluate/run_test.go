package evaluate_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// openFixtures opens the NumPy fixtures (see gen_numpy.py) with the sample
// IDs ids, or the row indices when ids is nil.
func openFixtures(t *testing.T, ids []string) *evaluate.NumPyRankings {
	t.Helper()
	dir := copyFixtures(t, "items.npy", "targets.npz")
	idsPath := ""
	if ids != nil {
		idsPath = filepath.Join(dir, "ids.npy")
		require.NoError(t, os.WriteFile(idsPath, inputtest.NPY(1, "'<U2'", "(6,)", inputtest.Strings(2, ids...)), 0o644))
	}
	r, err := evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), "", filepath.Join(dir, "targets.npz"), idsPath, evaluate.RankingOptions{})
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	return r
}

// TestRun evaluates the NumPy fixtures, whose rows numpyRows states by hand:
// rows 1 and 5 have no targets, and the hits of the others give
// hit_rate@1 = (0 + 0 + 0 + 1)/4 and precision@4 = (2 + 2 + 1 + 1)/16.
func TestRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	metrics, err := evaluate.ParseMetrics([]string{"hit_rate@1", "precision@4"})
	require.NoError(t, err)
	perUser := filepath.Join(t.TempDir(), "per-user.csv")
	res, err := evaluate.Run(ctx, openFixtures(t, nil), evaluate.RunOptions{Metrics: metrics, PerUser: perUser, Workers: 2})
	require.NoError(t, err)
	require.Equal(t, []string{"hit_rate@1", "precision@4"}, res.Keys)
	require.InDelta(t, 0.25, res.Means["hit_rate@1"], 1e-15)
	require.InDelta(t, 6.0/16, res.Means["precision@4"], 1e-15)
	require.Equal(t, int64(6), res.Rows)
	require.Equal(t, int64(4), res.ScoredRows)
	require.Equal(t, int64(4), res.Units)
	require.Equal(t, 4, res.RequiredK)
	require.Equal(t, numpyPrint(func(row int) string { return []string{"0", "1", "2", "3", "4", "5"}[row] }), res.TargetFingerprint)
	require.Nil(t, res.EvaluationID)
	require.Nil(t, res.Logged)
	b, err := os.ReadFile(perUser)
	require.NoError(t, err)
	require.Equal(t, "sample_id,hit_rate@1,precision@4\n0,0,0.5\n2,0,0.5\n3,0,0.25\n4,1,0.25\n", string(b))

	require.Equal(t, 4, evaluate.RequiredK(metrics))
	require.Zero(t, evaluate.RequiredK(nil))
}

// TestRunLogs evaluates and logs to a real database: the protocol records
// the cutoffs, the required k and the eval draws, here 2 because u3 has two
// rows with targets.
func TestRunLogs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.NewDatabase(t)
	st, err := store.Open(ctx, url, store.Options{})
	require.NoError(t, err)
	defer st.Close()
	metrics, err := evaluate.ParseMetrics([]string{"ndcg@2,4", "recall@3"})
	require.NoError(t, err)
	ev := store.NewEvaluation{Experiment: "e", Run: "r", EvalSet: "test", Protocol: store.Protocol{Cutoffs: []int{99}}}
	ids := []string{"u0", "u2", "u2", "u3", "u3", "u3"} // rows 1 and 5 have no targets
	res, err := evaluate.Run(ctx, openFixtures(t, ids), evaluate.RunOptions{Metrics: metrics, Store: st, Log: ev})
	require.NoError(t, err)
	require.NotNil(t, res.Logged)
	require.Equal(t, res.Logged.ID, *res.EvaluationID)
	require.False(t, res.Existing)
	require.Equal(t, int64(4), res.ScoredRows)
	require.Equal(t, int64(3), res.Units, "u0, u2 and u3")

	got, err := st.GetEvaluation(ctx, res.Logged.ID)
	require.NoError(t, err)
	require.Equal(t, store.Protocol{Name: "holdout", Cutoffs: []int{2, 3, 4}, RequiredK: 4, EvalDraws: 2}, got.Protocol)
	require.Equal(t, res.TargetFingerprint, got.Fingerprint)
	require.Equal(t, "targets", got.FingerprintKind)
	require.Equal(t, int64(6), got.Rows)
	require.Equal(t, int64(3), got.Units)
	const float4 = 1e-7 // the store keeps the per-user values as reals
	for k, mean := range res.Means {
		require.InDelta(t, mean, got.Aggregates[k], float4, k)
	}

	again, err := evaluate.Run(ctx, openFixtures(t, ids), evaluate.RunOptions{Metrics: metrics, Store: st, Log: ev})
	require.NoError(t, err)
	require.True(t, again.Existing)
	require.Equal(t, *res.EvaluationID, *again.EvaluationID)
}

// TestRunOnBatch evaluates the demo's popularity rankings of MovieLens in
// batches of 64 rows: OnBatch sees each batch once, in input order, so its
// counts are 64 nine times and the remaining 34 of the 610 users.
func TestRunOnBatch(t *testing.T) {
	t.Parallel()
	ids, ranked, targets := movieLens(t, "popularity", 10)
	preds, tgts := movieLensTables(t, ids, ranked, targets, false)
	for _, perUser := range []bool{false, true} {
		t.Run(fmt.Sprint("perUser=", perUser), func(t *testing.T) {
			src, err := evaluate.OpenTableRankings(preds, tgts, evaluate.RankingOptions{BatchSize: 64})
			require.NoError(t, err)
			defer src.Close()
			opts := evaluate.RunOptions{Metrics: []evaluate.Metric{evaluate.NDCG(10)}, Workers: 3}
			if perUser {
				opts.PerUser = filepath.Join(t.TempDir(), "per-user.csv")
			}
			var counts []int
			opts.OnBatch = func(rows int) { counts = append(counts, rows) }
			res, err := evaluate.Run(context.Background(), src, opts)
			require.NoError(t, err)
			require.Equal(t, int64(610), res.Rows)
			require.Equal(t, []int{64, 64, 64, 64, 64, 64, 64, 64, 64, 34}, counts)
			if !perUser {
				return
			}
			// The batches' storage is reused once the rows are written:
			// the per-user values equal those of one batch of every row.
			whole, err := evaluate.OpenTableRankings(preds, tgts, evaluate.RankingOptions{BatchSize: 1000})
			require.NoError(t, err)
			defer whole.Close()
			want := filepath.Join(t.TempDir(), "per-user.csv")
			_, err = evaluate.Run(context.Background(), whole, evaluate.RunOptions{Metrics: opts.Metrics, Workers: 1, PerUser: want})
			require.NoError(t, err)
			got, err := os.ReadFile(opts.PerUser)
			require.NoError(t, err)
			expect, err := os.ReadFile(want)
			require.NoError(t, err)
			require.Equal(t, string(expect), string(got))
			require.Equal(t, 611, bytes.Count(got, []byte("\n")), "a header and 610 users")
		})
	}
}

// TestRunLogsWholeSetAndDebug logs the demo's item-kNN rankings of
// MovieLens with catalogue coverage and debug rows: the store keeps
// coverage@10 among the aggregates, as a whole-set metric with no per-unit
// values, and the debug rows as Run returned them.
func TestRunLogsWholeSetAndDebug(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	defer st.Close()
	ids, ranked, targets := movieLens(t, "knn", 10)
	src, err := evaluate.NewInMemoryRankings(ids, ranked, targets, 0)
	require.NoError(t, err)
	res, err := evaluate.Run(ctx, src, evaluate.RunOptions{
		Metrics:  []evaluate.Metric{evaluate.NDCG(10), evaluate.Recall(10)},
		WholeSet: []evaluate.WholeSetMetric{evaluate.CatalogueCoverage(10, movieLensMovies)},
		Debug:    evaluate.DebugSelection{SampleIDs: []string{"user-7", "user-nobody"}},
		Store:    st,
		Log:      store.NewEvaluation{Experiment: "movielens", Run: "knn", EvalSet: "latest-10"},
	})
	require.NoError(t, err)
	require.Equal(t, []string{"user-nobody"}, res.DebugMissing)
	require.Len(t, res.Debug, 1)
	require.Equal(t, 1, res.DebugStored)

	got, err := st.GetEvaluation(ctx, *res.EvaluationID)
	require.NoError(t, err)
	require.Equal(t, []string{"ndcg@10", "recall@10"}, got.Metrics, "no per-unit column for coverage")
	require.Equal(t, []string{"coverage@10"}, got.WholeSet())
	require.Equal(t, res.Means["coverage@10"], got.Aggregates["coverage@10"])
	require.Equal(t, store.Protocol{Name: "holdout", Cutoffs: []int{10}, RequiredK: 10, EvalDraws: 1}, got.Protocol)

	stored, err := st.DebugRows(ctx, *res.EvaluationID)
	require.NoError(t, err)
	require.Equal(t, res.Debug, stored)
}

// TestRunNoPerUser logs the demo's popularity rankings of MovieLens by their
// aggregates only: the store has the same means and counts as Run, and no
// per-unit values.
func TestRunNoPerUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	defer st.Close()
	ids, ranked, targets := movieLens(t, "popularity", 10)
	src, err := evaluate.NewInMemoryRankings(ids, ranked, targets, 0)
	require.NoError(t, err)
	res, err := evaluate.Run(ctx, src, evaluate.RunOptions{
		Metrics:   []evaluate.Metric{evaluate.NDCG(10), evaluate.HitRate(10)},
		WholeSet:  []evaluate.WholeSetMetric{evaluate.CatalogueCoverage(10, movieLensMovies)},
		Debug:     evaluate.DebugSelection{First: 2},
		NoPerUser: true,
		Store:     st,
		Log:       store.NewEvaluation{Experiment: "movielens", Run: "popularity", EvalSet: "latest-10"},
	})
	require.NoError(t, err)
	require.True(t, res.AggregatesOnly)
	require.Equal(t, 2, res.DebugStored)

	got, err := st.GetEvaluation(ctx, *res.EvaluationID)
	require.NoError(t, err)
	require.True(t, got.AggregatesOnly)
	require.Equal(t, int64(610), got.Rows)
	require.Equal(t, int64(610), got.Units)
	require.Equal(t, res.TargetFingerprint, got.Fingerprint)
	require.Equal(t, store.Protocol{Name: "holdout", Cutoffs: []int{10}, RequiredK: 10, EvalDraws: 1}, got.Protocol)
	for k, mean := range res.Means {
		require.Equal(t, mean, got.Aggregates[k], k)
	}
	_, err = st.Pair(ctx, *res.EvaluationID, *res.EvaluationID, "ndcg@10", false)
	require.ErrorIs(t, err, store.ErrNoUnits, "nothing to pair")
}
