package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// epochScores are 40 users' ndcg after an epoch: user u has (u%4)/8 plus
// epoch/8, so the mean is 3/16 + epoch/8 (the mean of 0, 1/8, 2/8, 3/8 is
// 3/16), every value exact in float4.
func epochScores(epoch int) string {
	var b strings.Builder
	b.WriteString("sample_id,ndcg\n")
	for u := range 40 {
		fmt.Fprintf(&b, "u%02d,%g\n", u, float64(u%4)/8+float64(epoch)/8)
	}
	return b.String()
}

// TestTrackingSteps logs a run at two steps, compares them as RUN@STEP,
// and refuses a step logged again with other content.
func TestTrackingSteps(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	for _, epoch := range []int{1, 2} {
		res := runVerdict(t, url, "log", "-e", "train", "-r", "mf", "-s", "test", "--step", fmt.Sprint(epoch),
			writeFile(t, fmt.Sprintf("epoch%d.csv", epoch), epochScores(epoch)))
		require.Equal(t, 0, res.code, res.stderr)
	}
	require.Equal(t, 2, queryInt(t, url, `SELECT count(*) FROM evaluations WHERE step IS NOT NULL`))
	require.Equal(t, 1, queryInt(t, url, `SELECT id FROM evaluations WHERE step = 1`))

	res := runVerdict(t, url, "compare", "-e", "train", "--no-record", "--format", "json", "mf@1", "mf@2")
	require.Equal(t, 0, res.code, res.stderr)
	var out []compare.MetricResult
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Len(t, out, 1)
	require.Equal(t, 40, out[0].N)
	// Means from epochScores: 3/16 + 1/8 and 3/16 + 2/8; every user gains 1/8.
	require.InDelta(t, 3.0/16+1.0/8, out[0].BaselineMean, 1e-12)
	require.InDelta(t, 3.0/16+2.0/8, out[0].CandidateMean, 1e-12)
	require.InDelta(t, -1.0/8, out[0].Difference.Estimate, 1e-12)
	require.Equal(t, 40, out[0].CandidateBetter)

	// A run is its newest evaluation: mf is mf@2.
	res = runVerdict(t, url, "compare", "-e", "train", "--no-record", "--format", "json", "mf@1", "mf")
	require.Equal(t, 0, res.code, res.stderr)
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.InDelta(t, 3.0/16+2.0/8, out[0].CandidateMean, 1e-12)

	res = runVerdict(t, url, "compare", "-e", "train", "--no-record", "mf@1", "mf@7")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, `run "mf" of experiment "train" has no evaluation at step 7 (its steps are 1, 2)`)

	// Step 2 again with epoch 3's values: refused, nothing written.
	res = runVerdict(t, url, "log", "-e", "train", "-r", "mf", "-s", "test", "--step", "2", writeFile(t, "epoch3.csv", epochScores(3)))
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, `run "mf" already has evaluation 2 on "test" at step 2, logged with other content; nothing was stored`)
	require.Equal(t, 2, queryInt(t, url, `SELECT count(*) FROM evaluations`))
	// The same content again is a retry.
	res = runVerdict(t, url, "log", "-e", "train", "-r", "mf", "-s", "test", "--step", "2", "--format", "json", writeFile(t, "again.csv", epochScores(2)))
	require.Equal(t, 0, res.code, res.stderr)
	var again loggedJSON
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &again))
	require.True(t, again.Existing)
	require.Equal(t, int64(2), again.EvaluationID)
}

// TestTrackingParamsAreFixed: a run logged again with another value of a
// param exits 2 naming the param, both values and the run, and writes
// nothing; the same value, spelled otherwise, and a new param are fine.
func TestTrackingParamsAreFixed(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	csv := writeFile(t, "scores.csv", epochScores(1))
	res := runVerdict(t, url, "log", "-e", "train", "-r", "als", "-s", "test", "--param", "lr=0.1", "--param", "opt=adam", csv)
	require.Equal(t, 0, res.code, res.stderr)
	res = runVerdict(t, url, "log", "-e", "train", "-r", "als", "-s", "test", "--step", "1", "--param", "lr=0.10", "--param", "factors=64", csv)
	require.Equal(t, 0, res.code, res.stderr)
	params := `{"lr": 0.1, "opt": "adam", "factors": 64}`
	require.Equal(t, params, storetest.Scalar[string](t, url, `SELECT params::text FROM runs`))

	res = runVerdict(t, url, "log", "-e", "train", "-r", "als", "-s", "test", "--step", "2", "--param", "lr=0.2", "--param", "epochs=3",
		writeFile(t, "epoch2.csv", epochScores(2)))
	require.Equal(t, 2, res.code)
	require.Equal(t, `verdict: param "lr" of run "als" is 0.1, and this log gives 0.2; nothing was stored: `+
		`a run's params are fixed once logged (new params may be added), so log the new value as a new run`+"\n", res.stderr)
	require.Equal(t, 2, queryInt(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM evaluations WHERE step = 2`))
	require.Equal(t, params, storetest.Scalar[string](t, url, `SELECT params::text FROM runs`), "epochs is not added either")

	res = runVerdict(t, url, "log", "-e", "train", "-r", "als", "-s", "test", "--param", "opt=sgd", csv)
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, `param "opt" of run "als" is "adam", and this log gives "sgd"`)
}

// TestTrackingRunsTags gives tags values, changes one, and filters runs
// by them.
func TestTrackingRunsTags(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	csv := writeFile(t, "scores.csv", epochScores(1))
	res := runVerdict(t, url, "log", "-e", "train", "-r", "als", "-s", "test", "--tag", "team=recsys", "--tag", "nightly", csv)
	require.Equal(t, 0, res.code, res.stderr)
	res = runVerdict(t, url, "log", "-e", "train", "-r", "pop", "-s", "test", "--tag", "team=search", writeFile(t, "pop.csv", epochScores(2)))
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, `{"team": "recsys", "nightly": "true"}`, storetest.Scalar[string](t, url, `SELECT tag_values::text FROM runs WHERE name = 'als'`))

	runs := func(args ...string) []store.Run {
		t.Helper()
		res := runVerdict(t, url, append([]string{"runs", "-e", "train", "--format", "json", "--order-by", "run"}, args...)...)
		require.Equal(t, 0, res.code, res.stderr)
		var out []store.Run
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
		return out
	}
	all := runs()
	require.Len(t, all, 2)
	require.Equal(t, map[string]string{"team": "recsys", "nightly": "true"}, all[0].TagValues)
	require.Equal(t, []string{"nightly", "team=recsys"}, all[0].Tags)
	// Means from epochScores: 3/16 + epoch/8.
	require.InDelta(t, 3.0/16+1.0/8, all[0].Metrics["ndcg"], 1e-12)
	require.InDelta(t, 3.0/16+2.0/8, all[1].Metrics["ndcg"], 1e-12)

	require.Equal(t, []string{"als"}, runNames(runs("--filter", "tags.team = 'recsys'")))
	require.Equal(t, []string{"als"}, runNames(runs("--filter", "tags.nightly = 'true'")))
	require.Equal(t, []string{"pop"}, runNames(runs("--filter", "tags.team = 'search' AND metrics.ndcg > 0.4")))

	// Tags are mutable: als moves to the search team.
	res = runVerdict(t, url, "log", "-e", "train", "-r", "als", "-s", "test", "--tag", "team=search", "--step", "2", writeFile(t, "als2.csv", epochScores(3)))
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, []string{"als", "pop"}, runNames(runs("--filter", "tags.team = 'search'")))
	require.Equal(t, []string{"als"}, runNames(runs("--filter", "tags.nightly = 'true'")), "the other tags stay")
	require.InDelta(t, 3.0/16+3.0/8, runs()[0].Metrics["ndcg"], 1e-12, "the newest evaluation's means")

	res = runVerdict(t, url, "log", "-e", "train", "-r", "als", "-s", "test", "--tag", "=x", csv)
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, `tag "=x": want KEY or KEY=VALUE`)
}

func runNames(runs []store.Run) []string {
	out := []string{}
	for _, r := range runs {
		out = append(out, r.Name)
	}
	return out
}
