package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/store/storetest"
)

// An evaluation logged with its aggregates only keeps the means and counts
// of the full one, shows in leaderboards and run listings marked as such,
// and is refused, with the reason, by everything that pairs units.
func TestAggregatesOnly(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	metrics := []string{"--metrics", "ndcg@10,recall@10"}
	perUser := filepath.Join(t.TempDir(), "knn.csv")
	logged := map[string]evaluate.Result{}
	for _, run := range []string{"popularity", "knn"} {
		args := append([]string{"evaluate", "-e", "movies", "-r", run, "-s", "latest10", "--format", "json"}, metrics...)
		args = append(args, movieLensArgs(t, run, 10)...)
		if run == "knn" {
			args = append(args, "--per-user-out", perUser)
		}
		res := runVerdict(t, url, args...)
		require.Equal(t, 0, res.code, res.stderr)
		var out evaluate.Result
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
		logged[run] = out
	}

	// The knn run's per-user values, logged again as aggregates only.
	tables := `SELECT count(*) FROM pg_tables WHERE schemaname = 'verdict_units'`
	before := queryInt(t, url, tables)
	res := runVerdict(t, url, "log", perUser, "-e", "movies", "-r", "knn-monitor", "-s", "latest10", "--format", "json", "--aggregates-only",
		"--target-fingerprint", logged["knn"].TargetFingerprint)
	require.Equal(t, 0, res.code, res.stderr)
	var mon struct {
		ID             int64              `json:"evaluation_id"`
		Aggregates     map[string]float64 `json:"aggregates"`
		Units          int64              `json:"n_units"`
		AggregatesOnly bool               `json:"aggregates_only"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &mon))
	require.True(t, mon.AggregatesOnly)
	require.Equal(t, int64(610), mon.Units)
	for k, v := range logged["knn"].Means {
		// The per-user file holds each value as float32 stores it, so the
		// means agree to float32 precision.
		require.InDelta(t, v, mon.Aggregates[k], 1e-7, k)
	}
	require.Equal(t, before, queryInt(t, url, tables),
		"the aggregates-only evaluation has no table of per-unit values")

	// Everything that pairs units refuses it, and says why.
	for _, args := range [][]string{
		{"compare", "-e", "movies", "knn", "knn-monitor"},
		{"diff", "-e", "movies", "knn", "knn-monitor", "--metric", "ndcg@10"},
		{"rank", "-e", "movies", "popularity", "knn", "knn-monitor", "--metric", "ndcg@10"},
	} {
		res := runVerdict(t, url, args...)
		require.Equal(t, 2, res.code, "%v: %s", args, res.stdout)
		require.Contains(t, res.stderr, "aggregates only", args)
		require.Contains(t, res.stderr, "no units to pair", args)
	}
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM comparisons`), "nothing recorded")

	// The leaderboard ranks it by its mean, marked, without a paired test.
	res = runVerdict(t, url, "leaderboard", "-e", "movies", "--metric", "ndcg@10")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "knn-monitor")
	require.Contains(t, res.stdout, "(aggregates only: not paired)")
	res = runVerdict(t, url, "leaderboard", "-e", "movies", "--metric", "ndcg@10", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var lb struct {
		Reference string `json:"reference"`
		Rows      []struct {
			Run            string   `json:"run"`
			AggregatesOnly bool     `json:"aggregates_only"`
			PValue         *float64 `json:"p_value"`
			Mean           float64  `json:"mean"`
			MeanLow        *float64 `json:"mean_ci_low"`
		} `json:"rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &lb))
	require.Equal(t, "knn", lb.Reference, "the reference is the best run with per-unit values")
	require.Len(t, lb.Rows, 3)
	for _, r := range lb.Rows {
		require.Equal(t, r.Run == "knn-monitor", r.AggregatesOnly, r.Run)
		if r.AggregatesOnly {
			require.Nil(t, r.PValue)
			require.Nil(t, r.MeanLow, "no interval without units")
			require.InDelta(t, logged["knn"].Means["ndcg@10"], r.Mean, 1e-7)
		}
	}
	res = runVerdict(t, url, "leaderboard", "-e", "movies", "--metric", "ndcg@10", "--baseline", "knn-monitor")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "aggregates only")

	// Run listings and the evaluation itself say so.
	res = runVerdict(t, url, "runs", "-e", "movies")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "1 (1 aggregates only)")
	res = runVerdict(t, url, "show", "evaluation", strconv.FormatInt(mon.ID, 10))
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "aggregates only: logged without per-unit values")
	require.Contains(t, res.stdout, "eval draws 1")
}
