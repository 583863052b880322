package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// runStats runs `verdict stats` with input on stdin (written to a file, as
// the command reads --input).
func runStats(t *testing.T, input string, args ...string) result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "input.json")
	if strings.HasPrefix(strings.TrimSpace(input), "left") || strings.HasPrefix(strings.TrimSpace(input), "id") {
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
		{name: "missing flag", input: `{"left": [1, 2], "right": [2, 1]}`, args: []string{"corrected-t"}, want: "corrected-t needs --n-train and --n-test"},
		{name: "no overlap", input: `{"left": {"a": 1}, "right": {"b": 2}}`, args: []string{"compare"}, want: "none shared"},
		{name: "not JSON", input: `{"left": [1,`, args: []string{"paired-t"}, want: "not a JSON object of arrays"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runStats(t, tt.input, tt.args...)
			require.Equal(t, 2, res.code, "stderr: %s", res.stderr)
			require.Contains(t, res.stderr, tt.want)
		})
	}
}
