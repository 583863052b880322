package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/store/storetest"
)

// perUserFile reads a --per-user-out file: each sample ID's row, as text.
func perUserFile(t *testing.T, path string) (header []string, rows map[string][]string) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	rows = map[string][]string{}
	for _, r := range all[1:] {
		rows[r[0]] = r
	}
	return all[0], rows
}

// Debug rows of the MovieLens demo rankings carry exactly the values the
// per-user file has for the same users, are stored with the evaluation,
// and come back from `show evaluation --debug` unchanged.
func TestEvaluateDebugRows(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	perUser := filepath.Join(t.TempDir(), "per-user.csv")
	args := append([]string{"evaluate", "-e", "movies", "-r", "knn", "-s", "latest10", "--format", "json",
		"--metrics", "ndcg@10,20", "--metrics", "recall@20,mrr@20", "--per-user-out", perUser, "--debug-users", "5"},
		movieLensArgs(t, "knn", 20)...)
	res := runVerdict(t, url, args...)
	require.Equal(t, 0, res.code, res.stderr)
	var out evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Len(t, out.Debug, 5)
	require.Equal(t, 5, out.DebugStored)

	header, rows := perUserFile(t, perUser)
	for i, d := range out.Debug {
		want, ok := rows[d.SampleID]
		require.True(t, ok, d.SampleID)
		require.Equal(t, int64(i), d.Row, "every MovieLens user has targets, so the first five rows")
		require.Len(t, d.Values, len(header)-1)
		for j, key := range header[1:] {
			// Written as the per-user file writes a value: the shortest
			// text that reads back as the same float64.
			require.Equal(t, want[j+1], strconv.FormatFloat(d.Values[key], 'g', -1, 64), "%s %s", d.SampleID, key)
		}
		require.Len(t, d.Items, 20)
		require.Len(t, d.Scores, 20)
		require.Equal(t, 0.5, d.Scores[0], "the tables score rank 1 as 1/2")
		require.Equal(t, 10, d.TargetCount, "the demo holds out each user's 10 latest ratings")
		require.Len(t, d.Targets, 10)
		for _, r := range d.HitRanks {
			require.Contains(t, d.Targets, d.Items[r-1], "a hit is a target")
		}
		hits := 0
		for _, item := range d.Items {
			for _, g := range d.Targets {
				if item == g {
					hits++
				}
			}
		}
		require.Len(t, d.HitRanks, hits)
	}

	// Stored with the evaluation, and shown back.
	id := strconv.FormatInt(*out.EvaluationID, 10)
	res = runVerdict(t, url, "show", "evaluation", id, "--debug", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var shown struct {
		EvaluationID int64 `json:"evaluation_id"`
		Protocol     struct {
			EvalDraws int `json:"eval_draws"`
		} `json:"protocol"`
		DebugRows []evaluate.DebugRow `json:"debug_rows"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &shown))
	require.Equal(t, out.Debug, shown.DebugRows)
	require.Equal(t, 1, shown.Protocol.EvalDraws, res.stdout)

	res = runVerdict(t, url, "show", "evaluation", id, "--debug")
	require.Equal(t, 0, res.code, res.stderr)
	first := out.Debug[0]
	require.Contains(t, res.stdout, first.SampleID+" (input row 0): 10 targets")
	require.Contains(t, res.stdout, "ndcg@10 "+rows[first.SampleID][1])
	require.Contains(t, res.stdout, "eval draws 1")

	// By sample ID, anywhere in the input; an unknown one is reported.
	res = runVerdict(t, url, append([]string{"evaluate", "--no-log", "--metrics", "ndcg@10", "--debug-sample-ids", "user-610,nobody", "--debug-sample-ids", "user-3"},
		movieLensArgs(t, "knn", 10)...)...)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "user-3 (input row 2)")
	require.Contains(t, res.stdout, "user-610 (input row 609)")
	require.Contains(t, res.stdout, "no row with targets has sample ID nobody")

	// Without debug rows, show says there are none.
	res = runVerdict(t, url, append([]string{"evaluate", "-e", "movies", "-r", "pop", "-s", "latest10", "--metrics", "ndcg@10"}, movieLensArgs(t, "popularity", 10)...)...)
	require.Equal(t, 0, res.code, res.stderr)
	res = runVerdict(t, url, "show", "evaluation", "2", "--debug")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "no debug rows were logged")
	res = runVerdict(t, url, "show", "evaluation", "99")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "no evaluation 99")
}

// --no-per-user logs the means and counts of a full evaluation, and no
// per-user values.
func TestEvaluateNoPerUser(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	var full, mon evaluate.Result
	for run, out := range map[string]*evaluate.Result{"knn": &full, "knn-monitor": &mon} {
		args := append([]string{"evaluate", "-e", "movies", "-r", run, "-s", "latest10", "--format", "json", "--metrics", "ndcg@10,recall@10"},
			movieLensArgs(t, "knn", 10)...)
		if run == "knn-monitor" {
			args = append(args, "--no-per-user")
		}
		res := runVerdict(t, url, args...)
		require.Equal(t, 0, res.code, res.stderr)
		require.NoError(t, json.Unmarshal([]byte(res.stdout), out))
	}
	require.True(t, mon.AggregatesOnly)
	require.False(t, full.AggregatesOnly)
	require.Equal(t, full.Means, mon.Means, "the same rows scored the same way")
	require.Equal(t, full.Units, mon.Units)
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM unit_values WHERE evaluation_id = $1`, *mon.EvaluationID))
	require.Equal(t, 610, queryInt(t, url, `SELECT count(*) FROM unit_values WHERE evaluation_id = $1`, *full.EvaluationID))
	require.Equal(t, 1, queryInt(t, url, `SELECT eval_draws FROM evaluations WHERE id = $1`, *mon.EvaluationID))

	res := runVerdict(t, url, "compare", "-e", "movies", "knn", "knn-monitor")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "no units to pair")

	res = runVerdict(t, url, "evaluate", "--no-log", "--no-per-user", "--trec-run", "x", "--trec-qrels", "y")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "--no-per-user logs the means without per-user values, and --no-log logs nothing")
}

// The eval draws are recorded whenever a log has draws, and shown.
func TestShowEvaluationEvalDraws(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	// Two draws for u1 and u2, one for u3: the most rows a user has is 2.
	path := writeFile(t, "draws.csv", "sample_id,draw,ndcg@10\nu1,1,0.5\nu1,2,0.25\nu2,1,0\nu2,2,1\nu3,1,0.75\n")
	for _, args := range [][]string{
		{"log", path, "-e", "x", "-r", "full", "-s", "test"},
		{"log", path, "-e", "x", "-r", "monitor", "-s", "test", "--aggregates-only"},
	} {
		res := runVerdict(t, url, args...)
		require.Equal(t, 0, res.code, res.stderr)
	}
	for id, want := range map[string]string{"1": "", "2": "aggregates only"} {
		res := runVerdict(t, url, "show", "evaluation", id)
		require.Equal(t, 0, res.code, res.stderr)
		require.Contains(t, res.stdout, "5 rows (5 scored), 3 units, eval draws 2")
		require.Contains(t, res.stdout, want)
		require.Contains(t, res.stdout, "ndcg@10  0.5000") // (0.5+0.25+0+1+0.75)/5
		res = runVerdict(t, url, "show", "evaluation", id, "--format", "json")
		require.Equal(t, 0, res.code, res.stderr)
		var e struct {
			Protocol struct {
				EvalDraws int `json:"eval_draws"`
			} `json:"protocol"`
			AggregatesOnly bool `json:"aggregates_only"`
		}
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &e))
		require.Equal(t, 2, e.Protocol.EvalDraws)
		require.Equal(t, want != "", e.AggregatesOnly)
	}
}
