package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func testRuns() []store.Run {
	at := time.Date(2024, 3, 1, 14, 30, 0, 0, time.UTC)
	return []store.Run{
		{ID: 1, Experiment: "movies", Name: "knn", CreatedAt: at, LastLogged: at, Evaluations: 1, Params: map[string]any{"k": 50.0},
			Metrics: map[string]float64{"ndcg@10": 0.4125, "recall@20": 0.25}},
		{ID: 2, Experiment: "movies", Name: "pop", CreatedAt: at, LastLogged: at, Evaluations: 1,
			Metrics: map[string]float64{"ndcg@10": 0.3, "coverage@10": 0.5}},
		{ID: 3, Experiment: "movies", Name: "new", CreatedAt: at, LastLogged: at},
	}
}

func TestRunMetrics(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{"mrr", "a", "ndcg@20", "recall@10", "a.b"}, report.RunMetrics(store.RunQuery{
		Metrics: []string{"mrr,a"},
		Filter:  `params.lr < 0.01 AND Metrics.ndcg@20 >= 0.3 AND run = 'metrics.no' AND metrics . recall@10 > 0 OR metrics.'a.b' IN (1, 2)`,
		OrderBy: "metrics.ndcg@20 desc",
	}))
	require.Empty(t, report.RunMetrics(store.RunQuery{Filter: "tags.metrics = 'x'", OrderBy: "created"}))
}

func TestRunSearchShowsMetrics(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, report.RunSearch(&b, "csv", store.RunQuery{}, testRuns(), false))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.True(t, strings.HasSuffix(lines[0], ",aggregates_only_evaluations,metrics.coverage@10,metrics.ndcg@10,metrics.recall@20"), lines[0])
	require.True(t, strings.HasSuffix(lines[1], ",0,,0.4125,0.25"), lines[1])
	require.True(t, strings.HasSuffix(lines[2], ",0,0.5,0.3,"), lines[2])
	require.True(t, strings.HasSuffix(lines[3], ",0,,,"), lines[3])

	b.Reset()
	require.NoError(t, report.RunSearch(&b, "json", store.RunQuery{}, testRuns(), false))
	var runs []map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &runs))
	require.Equal(t, map[string]any{"ndcg@10": 0.4125, "recall@20": 0.25}, runs[0]["metrics"])

	b.Reset()
	q := store.RunQuery{Filter: "metrics.recall@20 > 0", OrderBy: "metrics.ndcg@10 desc"}
	require.NoError(t, report.RunSearch(&b, "markdown", q, testRuns(), false))
	md := strings.Split(b.String(), "\n")
	require.Contains(t, md[0], "| EVALUATIONS | RECALL@20 | NDCG@10 | GIT COMMIT |")
	require.Contains(t, md[2], "| 1 | 0.2500 | 0.4125 |")
	require.Contains(t, md[3], "| 1 |  | 0.3000 |")
	require.NotContains(t, b.String(), "COVERAGE", "a table shows the metrics asked for only")

	b.Reset()
	require.NoError(t, report.RunSearch(&b, "markdown", store.RunQuery{}, testRuns(), false))
	require.NotContains(t, b.String(), "NDCG")
}
