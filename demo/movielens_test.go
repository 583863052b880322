package demo_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/demo"
)

func TestMovieLensSplitAndModels(t *testing.T) {
	t.Parallel()
	ratings, err := demo.LoadMovieLens()
	require.NoError(t, err)
	require.Len(t, ratings, 100836, "the data set's README: 100,836 ratings")

	s := demo.SplitLatest(ratings, 10)
	require.Len(t, s.Users, 610, "by 610 users")
	for _, u := range s.Users {
		// Every user rated at least 20 movies, so each has 10 targets.
		require.Len(t, s.Targets[u], 10)
	}
	for _, m := range []demo.Model{demo.Popularity(s), demo.RecentPopularity(s, 180), demo.ItemKNN(s, 50, 100)} {
		ids, ranked, targets := demo.Rankings(s, m, 20)
		require.Len(t, ids, 610, m.Name)
		require.Len(t, targets, 610)
		seen := map[int64]bool{}
		for _, mv := range s.Train[s.Users[0]] {
			seen[mv] = true
		}
		require.Len(t, ranked[0], 20)
		for _, mv := range ranked[0] {
			require.False(t, seen[mv], "%s recommends only unseen movies", m.Name)
		}
	}
}
