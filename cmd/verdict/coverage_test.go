package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// coverageArgs evaluates the NumPy fixtures (see evaluateArgs) with the
// metric specs metrics alone, and extra.
func coverageArgs(metrics string, extra ...string) []string {
	dir := filepath.Join("..", "..", "evaluate", "testdata", "rankings")
	args := []string{"evaluate",
		"--items", filepath.Join(dir, "items.npy"),
		"--targets", filepath.Join(dir, "targets.npz"),
		"--sample-ids", filepath.Join(dir, "ids_str.npy"),
		"-m", metrics, "--format", "json"}
	return append(args, extra...)
}

// TestEvaluateCoverage asks for coverage@10 on the command line. The
// fixtures' targets have shape (6, 10): a catalogue of 10 items. The scored
// rows u0, u2, u3 and u4 (see evaluateArgs) predict 3 1 4 0, 0 6 8 2,
// 9 8 7 6 and 5 4 3 2, which between them name every item from 0 to 9, so
// by hand coverage@10 = 10/10 = 1, and 10/20 = 0.5 with --catalogue-size 20.
// With coverage the only spec, the per-user metrics are still the
// defaults, calibrated_recall@4 and ndcg@4; calibrated_recall@4 is recall@4
// here, since no row has more than 4 relevant items: 0.875, as in
// TestEvaluateNoLog.
func TestEvaluateCoverage(t *testing.T) {
	t.Parallel()
	res := runVerdict(t, "postgres://unused.invalid/none", coverageArgs("coverage@10", "--no-log")...)
	require.Equal(t, 0, res.code, res.stderr)
	var out evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Equal(t, []string{"calibrated_recall@4", "ndcg@4"}, out.Keys, "the per-user defaults")
	require.Equal(t, []string{"coverage@10"}, out.WholeSetKeys)
	require.Equal(t, 1.0, out.Means["coverage@10"])
	require.InDelta(t, 0.875, out.Means["calibrated_recall@4"], 1e-15)
	require.Contains(t, out.Means, "ndcg@4")
	require.Equal(t, int64(4), out.ScoredRows)

	res = runVerdict(t, "postgres://unused.invalid/none", coverageArgs("ndcg@4,COVERAGE@10", "--catalogue-size", "20", "--no-log")...)
	require.Equal(t, 0, res.code, res.stderr)
	out = evaluate.Result{}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Equal(t, []string{"ndcg@4"}, out.Keys)
	require.Equal(t, 0.5, out.Means["coverage@10"])

	// TREC input has no catalogue to count: coverage needs its size.
	dir := filepath.Join("..", "..", "evaluate", "testdata", "rankings")
	res = runVerdict(t, "postgres://unused.invalid/none", "evaluate", "--no-log", "--format", "json",
		"--trec-run", filepath.Join(dir, "trec.run"), "--trec-qrels", filepath.Join(dir, "trec.qrels"), "-m", "coverage@10")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "coverage@10 needs the catalogue's size")
	require.Contains(t, res.stderr, "catalogue")

	res = runVerdict(t, "postgres://unused.invalid/none", coverageArgs("covrage@10", "--no-log")...)
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "the metrics are ndcg, recall, calibrated_recall, precision, hit_rate, mrr, map and coverage")
}

// TestEvaluateLogsCoverage logs an evaluation with coverage@10: the store
// keeps it as an aggregate of the evaluation (1, as above), beside the
// default per-user metrics, with no per-unit values of it.
func TestEvaluateLogsCoverage(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	res := runVerdict(t, url, coverageArgs("coverage@10", "-e", "movies", "-r", "model", "-s", "test")...)
	require.Equal(t, 0, res.code, res.stderr)
	var out evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.NotNil(t, out.EvaluationID)
	require.Equal(t, 1.0, out.Means["coverage@10"])

	ctx := context.Background()
	st, err := store.Open(ctx, url, store.Options{})
	require.NoError(t, err)
	defer st.Close()
	got, err := st.GetEvaluation(ctx, *out.EvaluationID)
	require.NoError(t, err)
	require.Equal(t, []string{"calibrated_recall@4", "ndcg@4"}, got.Metrics)
	require.Equal(t, []string{"coverage@10"}, got.WholeSet())
	require.Equal(t, 1.0, got.Aggregates["coverage@10"])
	require.InDelta(t, out.Means["ndcg@4"], got.Aggregates["ndcg@4"], 1e-6, "per-unit values are stored as float4")
	require.Equal(t, 4, queryInt(t, url, `SELECT count(*) FROM unit_values`), "the 4 scored users, no coverage column")
}
