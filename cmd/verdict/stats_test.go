package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/classify"
)

// runStats runs `verdict stats` with input on stdin (written to a file, as
// the command reads --input).
func runStats(t *testing.T, input string, args ...string) result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "input.json")
	if trimmed := strings.TrimSpace(input); strings.HasPrefix(trimmed, "left") || strings.HasPrefix(trimmed, "id") || strings.HasPrefix(trimmed, "label") {
		path = filepath.Join(t.TempDir(), "input.csv")
	}
	require.NoError(t, os.WriteFile(path, []byte(input), 0o644))
	return runVerdict(t, "postgres://unused.invalid/none", append(append([]string{"stats"}, args...), "--input", path)...)
}

func TestStatsCommands(t *testing.T) {
	t.Parallel()
	// Paired t by hand: differences 0.06, 0.01, 0.03, 0.06, 0.09 have mean
	// 0.05 and standard deviation 0.030822; t = 0.05 / (0.030822/sqrt(5)).
	res := runStats(t, `{"left": [0.61, 0.58, 0.72, 0.66, 0.70], "right": [0.55, 0.57, 0.69, 0.60, 0.61]}`, "paired-t", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var tt struct {
		N        int     `json:"n"`
		MeanDiff float64 `json:"mean_diff"`
		T        float64 `json:"t"`
		DF       float64 `json:"df"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &tt))
	require.Equal(t, 5, tt.N)
	require.InDelta(t, 0.05, tt.MeanDiff, 1e-12)
	require.InDelta(t, 3.6273812505500586, tt.T, 1e-9)
	require.Equal(t, 4.0, tt.DF)

	// The same data as CSV columns.
	res = runStats(t, "left,right\n0.61,0.55\n0.58,0.57\n0.72,0.69\n0.66,0.60\n0.70,0.61\n", "paired-t", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, `"t": 3.62738125055`)

	// compare on keyed scores: only a, b and c are shared.
	res = runStats(t, `{"left": {"a": 1, "b": 0.5, "c": 0.2, "d": 0.9}, "right": {"a": 0.8, "b": 0.5, "c": 0.1, "e": 1}}`, "compare", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var cmp map[string]any
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &cmp))
	require.Equal(t, 3.0, cmp["n"])
	require.Nil(t, cmp["winner"])
	require.Equal(t, false, cmp["distinguishable"])
	// right is lower on a and c, for higher-is-better scores: worse there.
	require.Equal(t, 2.0, cmp["candidate_worse"])
	require.Equal(t, 0.0, cmp["candidate_better"])
	require.Equal(t, 1.0, cmp["same"])
	require.Equal(t, "left", cmp["baseline"])
	require.Equal(t, "right", cmp["candidate"])

	res = runVerdict(t, "postgres://unused.invalid/none", "stats", "sample-size", "--delta", "0.25", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var size struct {
		N     int      `json:"n"`
		Notes []string `json:"notes"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &size))
	require.Equal(t, 63, size.N, "the worst case, 2·(1.96 + 0.84)²·¼/0.25²")
	require.Len(t, size.Notes, 1, "the worst-case variance is assumed, and said")
	res = runVerdict(t, "postgres://unused.invalid/none", "stats", "sample-size", "--delta", "0.25", "--variance", "0.1", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &size))
	require.Equal(t, 13, size.N, "(1.959964 + 0.841621)²·0.1/0.25² = 12.56, rounded up")
}

func TestStatsErrorsExitTwo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input string
		args        []string
		want        string
	}{
		{name: "mismatched lengths", input: `{"left": [1, 2, 3], "right": [1, 2]}`, args: []string{"paired-t"}, want: "differ in length"},
		{name: "NaN", input: `{"left": [1, "NaN", 3], "right": [1, 2, 2]}`, args: []string{"paired-t"}, want: "not finite"},
		{name: "missing column", input: `{"left": [1, 2, 3]}`, args: []string{"paired-t"}, want: `no "right" array in the JSON object`},
		{name: "labels not 0/1", input: `{"labels": [0, 1, 2], "left": [0.1, 0.2, 0.3], "right": [0.3, 0.2, 0.1]}`, args: []string{"delong"}, want: "0 or 1"},
		{name: "missing flag", input: `{"left": [1, 2], "right": [2, 1]}`, args: []string{"corrected-t"}, want: "corrected-t needs --n-train and --n-test, or --folds"},
		{name: "one fold", input: `{"left": [1, 2], "right": [2, 1]}`, args: []string{"corrected-t", "--folds", "1"}, want: "at least 2 folds"},
		{name: "decide-at 1", input: `{"left": [1, 2], "right": [2, 1]}`, args: []string{"bayes-t", "--folds", "5", "--decide-at", "1"}, want: "must be in [0.5, 1)"},
		{name: "no overlap", input: `{"left": {"a": 1}, "right": {"b": 2}}`, args: []string{"compare"}, want: "none shared"},
		{name: "not JSON", input: `{"left": [1,`, args: []string{"paired-t"}, want: "not a JSON object of arrays"},
		{name: "classifier flag without --metric", input: `{"left": [1, 2], "right": [2, 1]}`, args: []string{"paired-bootstrap", "--threshold", "0.3"}, want: "--threshold is for a classifier metric: it needs --metric"},
		{name: "unknown classifier metric", input: "label,left,right\n0,0.1,0.2\n1,0.8,0.7\n", args: []string{"paired-bootstrap", "--metric", "gini"}, want: `unknown metric "gini"`},
		{name: "classifier label", input: "label,left,right\n0,0.1,0.2\n0.5,0.8,0.7\n", args: []string{"paired-bootstrap", "--metric", "auc"}, want: "labels[1] is 0.5"},
		{name: "classifier NaN", input: "label,left,right\n0,0.1,0.2\n1,NaN,0.7\n", args: []string{"paired-bootstrap", "--metric", "brier"}, want: "left value is not finite"},
		{name: "classifier one class", input: "label,left,right\n1,0.1,0.2\n1,0.8,0.7\n", args: []string{"paired-bootstrap", "--metric", "ap"}, want: "only one class"},
		{name: "classifier no labels", input: "left,right\n0.1,0.2\n0.8,0.7\n", args: []string{"paired-bootstrap", "--metric", "auc"}, want: `no "label" column`},
		{name: "classifier BCa", input: "label,left,right\n0,0.1,0.2\n1,0.8,0.7\n", args: []string{"paired-bootstrap", "--metric", "auc", "--ci", "bca"}, want: "percentile intervals only"},
		{name: "stratify both ways", input: "label,left,right\n0,0.1,0.2\n1,0.8,0.7\n", args: []string{"paired-bootstrap", "--metric", "auc", "--stratify", "--no-stratify"}, want: "contradict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runStats(t, tt.input, tt.args...)
			require.Equal(t, 2, res.code, "stderr: %s", res.stderr)
			require.Contains(t, res.stderr, tt.want)
		})
	}
}

// classifierInput returns a CSV of label,left,right for n samples: the
// right model sees the label more clearly than the left one.
func classifierInput(n int) (string, []int8, []float64, []float64) {
	r := rand.New(rand.NewPCG(5, 5))
	labels := make([]int8, n)
	left, right := make([]float64, n), make([]float64, n)
	var b strings.Builder
	b.WriteString("label,left,right\n")
	for i := range n {
		if r.Float64() < 0.2 {
			labels[i] = 1
		}
		y := float64(labels[i])
		left[i] = 1 / (1 + math.Exp(-(y + 1.5*r.NormFloat64())))
		right[i] = 1 / (1 + math.Exp(-(2*y + 1.5*r.NormFloat64())))
		fmt.Fprintf(&b, "%d,%v,%v\n", labels[i], left[i], right[i])
	}
	return b.String(), labels, left, right
}

// TestStatsPairedBootstrapMetric runs paired-bootstrap --metric on a CSV of
// labels and two models' scores: the output is classify.PairedBootstrap's
// on the same data and options, whatever name or spelling of the flags.
func TestStatsPairedBootstrapMetric(t *testing.T) {
	t.Parallel()
	input, labels, left, right := classifierInput(300)
	tests := []struct {
		name   string
		args   []string
		metric string
		opts   func(*classify.BootstrapOptions)
	}{
		{name: "auc", args: []string{"--metric", "auc"}, metric: "roc_auc"},
		{name: "roc_auc", args: []string{"--metric", "ROC_AUC"}, metric: "roc_auc"},
		{name: "ap unstratified", args: []string{"--metric", "ap", "--no-stratify"}, metric: "average_precision",
			opts: func(o *classify.BootstrapOptions) { o.Unstratified = true }},
		{name: "logloss", args: []string{"--metric", "logloss", "--stratify=false", "--seed", "7"}, metric: "log_loss",
			opts: func(o *classify.BootstrapOptions) { o.Unstratified, o.Seed = true, 7 }},
		{name: "f1 at a threshold", args: []string{"--metric", "f1", "--threshold", "0.4", "--confidence", "0.9"}, metric: "f1",
			opts: func(o *classify.BootstrapOptions) { o.Threshold, o.Confidence = 0.4, 0.9 }},
		{name: "ece", args: []string{"--metric", "ece", "--bins", "5"}, metric: "ece",
			opts: func(o *classify.BootstrapOptions) { o.Bins = 5 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runStats(t, input, append([]string{"paired-bootstrap", "--resamples", "400", "--format", "json"}, tt.args...)...)
			require.Equal(t, 0, res.code, res.stderr)
			opts := classify.DefaultBootstrapOptions()
			opts.Resamples = 400
			if tt.opts != nil {
				tt.opts(&opts)
			}
			want, err := classify.PairedBootstrap(tt.metric, labels, left, right, opts)
			require.NoError(t, err)
			var got classify.BootstrapResult
			require.NoError(t, json.Unmarshal([]byte(res.stdout), &got))
			require.Equal(t, want, got)
		})
	}

	res := runStats(t, input, "paired-bootstrap", "--metric", "auc")
	require.Equal(t, 0, res.code, res.stderr)
	for _, field := range []string{"metric               roc_auc", "stratified           true", "p_value", "undefined_resamples  0"} {
		require.Contains(t, res.stdout, field)
	}
}

// TestStatsBayesDecision runs bayes-t and corrected-t with --folds: ρ = 1/K
// must give the numbers of --n-train K−1 --n-test 1, and bayes-t prints its
// decision at --decide-at in both formats. The posterior of these 10-fold
// differences has P(left better) = 0.9935 with a ROPE of 0.005
// (stats.ExampleBayesCorrelatedTDiffs).
func TestStatsBayesDecision(t *testing.T) {
	t.Parallel()
	input := `{"diffs": [0.012, 0.02, 0.004, 0.015, 0.009, 0.011, 0.018, 0.007, 0.013, 0.01]}`
	type bayes struct {
		Rho          float64 `json:"rho"`
		PLeftBetter  float64 `json:"p_left_better"`
		PEquivalent  float64 `json:"p_equivalent"`
		PRightBetter float64 `json:"p_right_better"`
		DecideAt     float64 `json:"decide_at"`
		Decision     string  `json:"decision"`
	}
	run := func(args ...string) bayes {
		t.Helper()
		res := runStats(t, input, append(args, "--format", "json")...)
		require.Equal(t, 0, res.code, res.stderr)
		var b bayes
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &b))
		return b
	}
	byFolds := run("bayes-t", "--folds", "10", "--rope", "0.005")
	bySizes := run("bayes-t", "--n-train", "9", "--n-test", "1", "--rope", "0.005")
	require.InDelta(t, 0.1, byFolds.Rho, 1e-15)
	require.InDelta(t, bySizes.PLeftBetter, byFolds.PLeftBetter, 1e-12)
	require.InDelta(t, 0.9935, byFolds.PLeftBetter, 5e-5)
	require.Equal(t, bayes{Rho: byFolds.Rho, PLeftBetter: byFolds.PLeftBetter, PEquivalent: byFolds.PEquivalent, PRightBetter: byFolds.PRightBetter,
		DecideAt: 0.95, Decision: "left_better"}, byFolds)
	require.Equal(t, "undecided", run("bayes-t", "--folds", "10", "--rope", "0.005", "--decide-at", "0.995").Decision)

	res := runStats(t, input, "bayes-t", "--folds", "10", "--rope", "0.005", "--decide-at", "0.99")
	require.Equal(t, 0, res.code, res.stderr)
	require.Regexp(t, `(?m)^decide_at +0\.99$`, res.stdout)
	require.Regexp(t, `(?m)^decision +left_better$`, res.stdout)

	var ct [2]struct {
		T   float64 `json:"t"`
		Rho float64 `json:"rho"`
	}
	for i, args := range [][]string{{"--folds", "10"}, {"--n-train", "9", "--n-test", "1"}} {
		res := runStats(t, input, append([]string{"corrected-t", "--format", "json"}, args...)...)
		require.Equal(t, 0, res.code, res.stderr)
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &ct[i]))
	}
	require.InDelta(t, ct[1].T, ct[0].T, 1e-12)
	require.InDelta(t, 0.1, ct[0].Rho, 1e-15)
}
