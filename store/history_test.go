package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// TestHistoryMargin checks that a comparison's practical margin is stored
// in the rope column and read back with its decision (from the outputs),
// by History and GetComparison; a comparison without one has neither.
func TestHistoryMargin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	var ids []int64
	for _, run := range []string{"a", "b"} {
		l, err := s.LogEvaluation(ctx, newEval("m", run), &memRows{metrics: []string{"y"}, ids: []string{"u1", "u2"}, vals: [][]float64{{0.5}, {1}}})
		require.NoError(t, err)
		ids = append(ids, l.ID)
	}
	margin := 0.005
	with, err := s.RecordComparison(ctx, store.ComparisonRecord{LeftID: ids[0], RightID: ids[1], Metric: "y", Method: "paired-t", Alpha: 0.05, N: 2,
		Margin: &margin, Outputs: map[string]any{"margin": margin, "margin_decision": "non_inferior"}})
	require.NoError(t, err)
	without, err := s.RecordComparison(ctx, store.ComparisonRecord{LeftID: ids[0], RightID: ids[1], Metric: "y", Method: "paired-t", Alpha: 0.05, N: 2})
	require.NoError(t, err)
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM comparisons WHERE rope = 0.005`))

	h, err := s.GetComparison(ctx, with)
	require.NoError(t, err)
	require.NotNil(t, h.Margin)
	require.Equal(t, margin, *h.Margin)
	require.Equal(t, "non_inferior", h.MarginDecision)
	h, err = s.GetComparison(ctx, without)
	require.NoError(t, err)
	require.Nil(t, h.Margin)
	require.Empty(t, h.MarginDecision)

	all, err := s.History(ctx, store.HistoryFilter{Experiment: "m"})
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, without, all[0].ID, "newest first")
	require.Nil(t, all[0].Margin)
	require.Equal(t, margin, *all[1].Margin)
	require.Equal(t, "non_inferior", all[1].MarginDecision)
}
