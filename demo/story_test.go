package demo_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/demo"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// TestTell tells the story twice on a fresh database: the first time logs
// the three models, the second finds them logged. The story's two points
// must hold on the real data: popularity and item-knn cannot be told apart
// on ndcg@10, and popularity beats its recency-weighted variant.
func TestTell(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	defer st.Close()

	var b strings.Builder
	require.NoError(t, demo.Tell(ctx, st, &b))
	out := b.String()
	require.Contains(t, out, "MovieLens latest-small: 100,836 ratings by 610 users")
	require.Contains(t, out, "popularity and item-knn are not distinguishable on ndcg@10 (n = 610)")
	require.Contains(t, out, "Detecting a gap this size with 80% power would take about")
	require.Contains(t, out, "popularity beats recent-popularity on ndcg@10 by")
	require.Contains(t, out, "winner: popularity")
	require.NotContains(t, out, "(already logged)")
	// The classifiers: the 30-feature model wins on each metric, the
	// lower-is-better log loss included, each with its own test.
	require.Contains(t, out, "Breast Cancer Wisconsin (Diagnostic)")
	require.Contains(t, out, "predict the other 189 (70 malignant)")
	require.Contains(t, out, "logistic-all-features beats logistic-radius-texture on roc_auc by 0.0423")
	require.Contains(t, out, "DeLong: AUC 0.9567 (logistic-radius-texture) against 0.9989 (logistic-all-features)")
	require.Contains(t, out, "logistic-all-features beats logistic-radius-texture on log_loss by 0.171 (lower is better;")
	require.Contains(t, out, "logistic-all-features beats logistic-radius-texture on accuracy by 0.090")

	b.Reset()
	require.NoError(t, demo.Tell(ctx, st, &b))
	require.Equal(t, 5, strings.Count(b.String(), "(already logged)"))
	hist, err := st.History(ctx, store.HistoryFilter{Experiment: demo.Experiment})
	require.NoError(t, err)
	require.Len(t, hist, 4, "each telling records its two comparisons")
}
