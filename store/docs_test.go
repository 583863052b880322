package store_test

import (
	"context"
	"os"
	"regexp"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// TestSchemaDocQueriesRun runs every SQL example in docs/schema.md against two
// logged evaluations and checks that each returns rows.
func TestSchemaDocQueriesRun(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	doc, err := os.ReadFile("../docs/schema.md")
	require.NoError(t, err)
	queries := regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(doc), -1)
	require.GreaterOrEqual(t, len(queries), 3)

	for i, run := range []string{"baseline", "candidate"} {
		rows := &memRows{
			metrics: []string{"ndcg@20", "recall@20"},
			ids:     []string{"u1", "u2", "u3", "u4"},
			vals:    [][]float64{{0.5, 1}, {0.25, 0}, {0, 0.5}, {float64(i), 1}},
		}
		got, err := s.LogEvaluation(ctx, newEval("demo", run), rows)
		require.NoError(t, err)
		require.Equal(t, int64(i+1), got.ID)
	}

	// A recorded comparison in which the candidate won on ndcg@20, for the
	// history examples.
	_, err = s.RecordComparison(ctx, store.ComparisonRecord{LeftID: 1, RightID: 2, Metric: "ndcg@20",
		Method: "bootstrap+randomization", Alpha: 0.05, Confidence: 0.95, N: 4, Distinguishable: true, Winner: "right", Verdict: "candidate wins"})
	require.NoError(t, err)

	// An evaluation of predictions, for the examples of predictions.
	_, err = s.LogPredictions(ctx, newEval("demo", "classifier"), binarySet())
	require.NoError(t, err)

	// Two steps of a run in training, for the examples of curves.
	for step := range int64(2) {
		ev := newEval("demo", "als")
		ev.Step = ptr(step + 1)
		_, err = s.LogEvaluation(ctx, ev, &memRows{metrics: []string{"ndcg@20"}, ids: []string{"u1", "u2"}, vals: [][]float64{{0.25}, {0.25 * float64(step)}}})
		require.NoError(t, err)
	}

	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	for _, q := range queries {
		rows, err := conn.Query(ctx, q[1])
		require.NoError(t, err, q[1])
		n := 0
		for rows.Next() {
			n++
		}
		require.NoError(t, rows.Err(), q[1])
		require.Positive(t, n, "no rows from:\n%s", q[1])
	}
}
