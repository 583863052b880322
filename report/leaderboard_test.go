package report_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
)

// testLeaderboard has a reference, a run compared with it and a run logged
// with its aggregates only.
func testLeaderboard() *compare.Leaderboard {
	at := time.Date(2024, 3, 1, 14, 30, 0, 0, time.UTC)
	p, padj := 0.01, 0.02
	nan := math.NaN()
	return &compare.Leaderboard{Metric: "ndcg", EvalSet: "test", Reference: "knn", Runs: 3,
		Options: compare.Options{Alpha: 0.05, Confidence: 0.95},
		Rows: []compare.LeaderboardRow{
			{Rank: 1, Run: "knn", EvaluationID: 7, Units: 100, LoggedAt: at, SameGroup: true,
				Mean: stats.Interval{Estimate: 0.5, Low: 0.25, High: 0.75, Confidence: 0.95}},
			{Rank: 2, Run: "pop", EvaluationID: 8, Units: 100, LoggedAt: at, Distinguishable: true, Better: compare.Baseline,
				Mean:       stats.Interval{Estimate: 0.375, Low: 0.125, High: 0.625, Confidence: 0.95},
				Difference: &stats.Interval{Estimate: 0.125, Low: 0.0625, High: 0.1875, Confidence: 0.95}, PValue: &p, PAdjusted: &padj},
			{Rank: 3, Run: "monitor", EvaluationID: 9, Units: 100, LoggedAt: at, AggregatesOnly: true,
				Mean: stats.Interval{Estimate: 0.25, Low: nan, High: nan, Confidence: 0.95}},
		}}
}

func TestLeaderboardJSONMeanIsANumber(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, report.Leaderboard(&b, "json", testLeaderboard()))
	out := b.String()
	require.Contains(t, out, "\"evaluation_id\": 7,\n    \"mean\": 0.5,\n    \"mean_ci_low\": 0.25,\n    \"mean_ci_high\": 0.75,\n    \"confidence\": 0.95,\n    \"n_units\": 100,",
		"the mean is a number with its bounds beside it, in the row's order")
	var raw struct {
		Rows []map[string]any `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &raw))
	require.Equal(t, 0.375, raw.Rows[1]["mean"])
	require.Equal(t, 0.125, raw.Rows[1]["mean_ci_low"])
	require.Equal(t, 0.625, raw.Rows[1]["mean_ci_high"])
	require.Equal(t, 0.25, raw.Rows[2]["mean"])
	require.Nil(t, raw.Rows[2]["mean_ci_low"], "no interval without units")
	require.Contains(t, raw.Rows[2], "mean_ci_high")
	require.Equal(t, true, raw.Rows[2]["aggregates_only"])

	// The rows read back as they were.
	var lb compare.Leaderboard
	require.NoError(t, json.Unmarshal(b.Bytes(), &lb))
	require.Equal(t, stats.Interval{Estimate: 0.375, Low: 0.125, High: 0.625, Confidence: 0.95}, lb.Rows[1].Mean)
	require.Equal(t, 0.125, lb.Rows[1].Difference.Estimate)
	require.True(t, math.IsNaN(lb.Rows[2].Mean.Low))
}

func TestLeaderboardCSVNamesTheMeansBoundsAsJSON(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, report.Leaderboard(&b, "csv", testLeaderboard()))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.True(t, strings.HasPrefix(lines[0], "rank,run,evaluation_id,metric,mean,mean_ci_low,mean_ci_high,confidence,n_units,"), lines[0])
	require.True(t, strings.HasPrefix(lines[2], "2,pop,8,ndcg,0.375,0.125,0.625,0.95,100,"), lines[2])
	require.True(t, strings.HasPrefix(lines[3], "3,monitor,9,ndcg,0.25,,,0.95,100,"), lines[3])
	b.Reset()
	require.NoError(t, report.Leaderboard(&b, "table", testLeaderboard()))
	require.Contains(t, b.String(), "0.2500 (aggregates only)")
}
