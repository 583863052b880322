package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store/storetest"
)

func TestLogPredictionsBinary(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	// Positives score 0.9, 0.6 and 0.3, negatives 0.5 and 0.3. By hand:
	// of the 6 positive-negative pairs the positive ranks higher in 4 and
	// ties in 1, so roc_auc = 4.5/6 = 0.75; at the threshold 0.5, s1, s3
	// and s4 are right (0.5 itself predicts 1, wrongly for s2; 0.3 predicts
	// 0, wrongly for s5): accuracy 3/5.
	file := writeFile(t, "p.csv", "sample_id,label,score\ns1,1,0.9\ns2,0,0.5\ns3,1,0.6\ns4,0,0.3\ns5,1,0.3\n")
	res := runVerdict(t, url, "log", "-e", "clf", "-r", "a", "-s", "test", "--predictions", file, "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var out struct {
		EvaluationID    int64              `json:"evaluation_id"`
		Aggregates      map[string]float64 `json:"aggregates"`
		Metrics         []string           `json:"metrics"`
		FingerprintKind string             `json:"fingerprint_kind"`
		Task            string             `json:"task"`
		Threshold       float64            `json:"threshold"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Equal(t, 0.75, out.Aggregates["roc_auc"])
	require.Equal(t, 0.6, out.Aggregates["accuracy"])
	require.Equal(t, []string{"roc_auc", "average_precision", "log_loss", "brier", "accuracy", "precision", "recall", "f1", "ece"}, out.Metrics)
	require.Equal(t, "labels", out.FingerprintKind)
	require.Equal(t, "binary", out.Task)
	require.Equal(t, 0.5, out.Threshold)

	// The stored metrics are metrics like any other.
	res = runVerdict(t, url, "runs", "-e", "clf", "--filter", "metrics.roc_auc > 0.7")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "clf ")
	res = runVerdict(t, url, "runs", "-e", "clf", "--filter", "metrics.roc_auc > 0.8")
	require.NotContains(t, res.stdout, "clf ")

	// A higher threshold: 0.6 and 0.9 predict 1, so s1, s2, s3 and s4 are
	// right.
	res = runVerdict(t, url, "log", "-e", "clf", "-r", "b", "-s", "test", "--predictions", file, "--threshold", "0.55")
	require.Equal(t, 0, res.code, res.stderr)
	require.Regexp(t, `accuracy +0\.8000`, res.stdout)

	// Logits: the metrics that need probabilities are left out, and said so.
	logits := writeFile(t, "logits.csv", "sample_id,label,score\ns1,1,2.5\ns2,0,-1\ns3,1,0.4\ns4,0,-3\ns5,1,-0.2\n")
	res = runVerdict(t, url, "log", "-e", "clf", "-r", "logit", "-s", "test", "--predictions", logits)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, "note: log_loss is not stored: it needs probabilities in [0, 1], and score 1 is 2.5")
	require.NotContains(t, res.stdout, "brier")
	require.Contains(t, res.stdout, "roc_auc")
}

func TestLogPredictionsRefusesBadFilesAndStoresNothing(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	require.Equal(t, 0, runVerdict(t, url, "runs").code, "the schema, for the counts below")
	for _, tc := range []struct{ name, content, want string }{
		{"label.csv", "sample_id,label,score\ns1,1,0.9\ns2,2,0.5\n", `label.csv: line 3 (sample "s2"), column "label"`},
		{"dup.csv", "sample_id,label,score\ns1,1,0.9\ns1,0,0.5\n", `dup.csv: line 3 (sample "s1")`},
		{"nan.csv", "sample_id,label,score\ns1,1,NaN\n", `nan.csv: line 2 (sample "s1")`},
		{"sum.csv", "sample_id,label,p_a,p_b,p_c\nx,a,0.5,0.3,0.1\n", `sum.csv: line 2 (sample "x")`},
		{"class.csv", "sample_id,label,p_a,p_b\nx,c,0.5,0.5\n", `class.csv: line 2 (sample "x"), column "label"`},
		{"prob.csv", "sample_id,label,p_a,p_b\nx,a,1.5,-0.5\n", `prob.csv: line 2 (sample "x")`},
	} {
		res := runVerdict(t, url, "log", "-e", "clf", "-r", "a", "-s", "test", "--predictions", writeFile(t, tc.name, tc.content))
		require.Equal(t, 2, res.code, tc.name)
		require.Contains(t, res.stderr, tc.want, tc.name)
	}
	require.Zero(t, queryInt(t, url, `SELECT count(*) FROM evaluations`))
	require.Zero(t, queryInt(t, url, `SELECT count(*) FROM predictions`))

	ok := writeFile(t, "ok.csv", "sample_id,label,score\ns1,1,0.9\ns2,0,0.1\n")
	for _, args := range [][]string{
		{"--labels", ok}, {"--target-fingerprint", strings.Repeat("a", 64)}, {"--lower-is-better", "brier"}, {"--bins", "0"}, {ok},
	} {
		res := runVerdict(t, url, append([]string{"log", "-e", "clf", "-r", "a", "-s", "test", "--predictions", ok}, args...)...)
		require.Equal(t, 2, res.code, "%v", args)
	}
	res := runVerdict(t, url, "log", "-e", "clf", "-r", "a", "-s", "test", "--threshold", "0.3", ok)
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "--threshold does not apply without --predictions")
}

// classifierFiles writes two binary prediction files on the same 1,000
// labels: "sharp" separates the classes well, "blurred" less so.
func classifierFiles(t *testing.T) (sharp, blurred string) {
	rng := rand.New(rand.NewPCG(3, 4))
	var a, b strings.Builder
	a.WriteString("sample_id,label,score\n")
	b.WriteString("sample_id,label,score\n")
	for i := range 1000 {
		y := 0
		if i%10 == 0 {
			y = 1
		}
		z := rng.NormFloat64()
		s := float64(2*y - 1)
		fmt.Fprintf(&a, "s%d,%d,%v\n", i, y, 1/(1+math.Exp(-(2*s+z))))
		fmt.Fprintf(&b, "s%d,%d,%v\n", i, y, 1/(1+math.Exp(-(0.7*s+z+rng.NormFloat64()))))
	}
	return writeFile(t, "sharp.csv", a.String()), writeFile(t, "blurred.csv", b.String())
}

func TestComparePredictionsGatesRegressions(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	sharp, blurred := classifierFiles(t)
	for run, f := range map[string]string{"main": sharp, "pr": blurred} {
		res := runVerdict(t, url, "log", "-e", "clf", "-r", run, "-s", "test", "--predictions", f)
		require.Equal(t, 0, res.code, res.stderr)
	}
	// The candidate is worse on every metric, the lower-is-better log loss
	// included: the gate fails, and the sentences name main the winner.
	res := runVerdict(t, url, "compare", "-e", "clf", "-m", "roc_auc", "-m", "log_loss", "-m", "accuracy", "--fail-on", "regression", "main", "pr")
	require.Equal(t, 1, res.code, res.stderr)
	require.Contains(t, res.stdout, "main beats pr on roc_auc by")
	require.Contains(t, res.stdout, "DeLong: AUC")
	require.Contains(t, res.stdout, "main beats pr on log_loss by")
	require.Contains(t, res.stdout, "lower is better")
	require.Contains(t, res.stdout, "Stratified paired bootstrap")
	require.Contains(t, res.stdout, "main beats pr on accuracy by")
	require.Contains(t, res.stdout, "McNemar")
	require.Equal(t, 3, queryInt(t, url, `SELECT count(*) FROM comparison_history WHERE winner = 'baseline' AND baseline_run = 'main'`))
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM comparisons WHERE method = 'stratified-bootstrap'`))

	// The other way round nothing regresses; --no-stratify is recorded.
	res = runVerdict(t, url, "compare", "-e", "clf", "-m", "f1", "--no-stratify", "--fail-on", "regression", "pr", "main")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "main beats pr on f1")
	require.Contains(t, res.stdout, "Paired bootstrap, f1")
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM comparisons WHERE method = 'paired-bootstrap'`))

	// A leaderboard by a lower-is-better metric puts the sharp model first.
	res = runVerdict(t, url, "leaderboard", "-e", "clf", "--metric", "brier")
	require.Equal(t, 0, res.code, res.stderr)
	require.Regexp(t, `(?m)^ +1 +main `, res.stdout)

	// diff and rank work on per-unit values, which predictions are not.
	for _, args := range [][]string{{"diff", "-e", "clf", "--metric", "log_loss", "main", "pr"}, {"rank", "-e", "clf", "--metric", "roc_auc", "main", "pr"}} {
		res = runVerdict(t, url, args...)
		require.Equal(t, 2, res.code, "%v", args)
		require.Contains(t, res.stderr, "holds a classifier's predictions, whose metrics are computed over the whole set", "%v", args)
	}
}

func TestComparePredictionsMulticlass(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	rng := rand.New(rand.NewPCG(5, 6))
	classes := []string{"cat", "dog", "eel"}
	var a, b strings.Builder
	for _, w := range []*strings.Builder{&a, &b} {
		w.WriteString("sample_id,label,p_cat,p_dog,p_eel\n")
	}
	for i := range 600 {
		y := i % 3
		for k, w := range []*strings.Builder{&a, &b} {
			sharp := []float64{3, 0.8}[k]
			e := make([]float64, 3)
			var sum float64
			for c := range e {
				e[c] = math.Exp(rng.NormFloat64())
				if c == y {
					e[c] *= math.Exp(sharp)
				}
				sum += e[c]
			}
			fmt.Fprintf(w, "x%d,%s,%v,%v,%v\n", i, classes[y], e[0]/sum, e[1]/sum, 1-e[0]/sum-e[1]/sum)
		}
	}
	for run, content := range map[string]string{"a": a.String(), "b": b.String()} {
		res := runVerdict(t, url, "log", "-e", "zoo", "-r", run, "-s", "test", "--predictions", writeFile(t, run+".csv", content))
		require.Equal(t, 0, res.code, res.stderr)
		require.Contains(t, res.stdout, "(3 classes)")
		require.Contains(t, res.stdout, "macro_roc_auc")
	}
	res := runVerdict(t, url, "compare", "-e", "zoo", "--format", "json", "a", "b")
	require.Equal(t, 0, res.code, res.stderr)
	var out []struct {
		Metric string `json:"metric"`
		Method string `json:"method"`
		Winner string `json:"winner"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	got := map[string]string{}
	for _, r := range out {
		got[r.Metric] = r.Method
		require.Equal(t, "baseline", r.Winner, r.Metric)
	}
	require.Equal(t, map[string]string{"accuracy": "mcnemar+stratified-bootstrap-interval", "macro_f1": "stratified-bootstrap",
		"micro_f1": "stratified-bootstrap", "log_loss": "stratified-bootstrap", "macro_roc_auc": "stratified-bootstrap"}, got)
}
