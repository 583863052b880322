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
// the three models and the six seeded runs, the second finds them logged.
// The story's points must hold on the real data: popularity and item-knn
// cannot be told apart on ndcg@10, popularity beats its recency-weighted
// variant, and the seeded runs are logged in their configurations' groups,
// whose seeds move a run by more than the configurations differ.
// The figures are the demo's own output on the embedded data.
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
	// The seeds: seed 1 of each configuration, compared as one pair.
	require.Contains(t, out, "verdict evaluate -e movielens-demo -s latest-10-ratings -r mf-16-seed1 --group mf-16 --param factors=16 --param seed=1")
	require.Contains(t, out, "verdict compare -e movielens-demo mf-16-seed1 mf-32-seed1 --metric ndcg@10")
	require.Contains(t, out, "mf-16-seed1 and mf-32-seed1 are not distinguishable on ndcg@10 (n = 610): the difference mf-16-seed1 − mf-32-seed1 is -0.00142")
	require.Contains(t, out, "warning: the two runs belong to groups mf-16 and mf-32, configurations trained with several seeds")
	// Then the configurations over their three seeds each: mf-32 is ahead
	// but the seeds move a run by more than the gap, and both comparisons
	// agree that neither configuration is shown better.
	require.Contains(t, out, "verdict compare -e movielens-demo --groups mf-16 mf-32 --metric ndcg@10")
	require.Contains(t, out, "mf-16 and mf-32 are not distinguishable on ndcg@10 (n = 610): the difference mf-16 − mf-32 is -0.0036")
	require.Contains(t, out, "Seed noise dominates: two runs of one configuration typically differ by 0.00652 on these users")
	require.Contains(t, out, "A single run of mf-32 beats a single run of mf-16 in 78% of the 9 pairs of runs.")
	require.Contains(t, out, "both agree: neither the single pair of runs nor the configurations over 3 seeds each are distinguishable; seed noise is as large as the gap")
	require.Contains(t, out, "verdict leaderboard -e movielens-demo --metric ndcg@10 --by-group")
	runs, err := st.ListRuns(ctx, demo.Experiment)
	require.NoError(t, err)
	groups := map[string]string{}
	for _, r := range runs {
		groups[r.Name] = r.Group
	}
	require.Equal(t, map[string]string{"popularity": "", "recent-popularity": "", "item-knn": "",
		"mf-16-seed1": "mf-16", "mf-16-seed2": "mf-16", "mf-16-seed3": "mf-16",
		"mf-32-seed1": "mf-32", "mf-32-seed2": "mf-32", "mf-32-seed3": "mf-32"}, groups)
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
	require.Equal(t, 11, strings.Count(b.String(), "(already logged)"), "3 models, 6 seeded runs, 2 classifiers")
	hist, err := st.History(ctx, store.HistoryFilter{Experiment: demo.Experiment})
	require.NoError(t, err)
	require.Len(t, hist, 6, "each telling records its three comparisons of two evaluations")
}
