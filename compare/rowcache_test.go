package compare_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// TestRowCacheGivesTheRowsComputedAnew checks a leaderboard through a
// RowCache against the same leaderboard computed without one, as a
// server's dashboard would ask for it: cold, again, after a run is logged,
// after a better run becomes the reference, and with another seed. Each
// must be the computation's own rows, byte for byte in JSON. A row changed
// inside the cache shows that rows are taken from it, and only for the
// seed and reference they were computed with.
func TestRowCacheGivesTheRowsComputedAnew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	// Run r's value of user u: exact as a stored real, a sixty-fourth
	// step, r's skill added; the users differ so that the intervals have
	// width.
	logRun := func(run string, skill int) *store.Evaluation {
		vals := map[string]float64{}
		for u := range 40 {
			vals[fmt.Sprintf("u%02d", u)] = float64((u*37+skill*11)%48+skill) / 64
		}
		return logUnits(t, st, "rc", run, "ndcg@10", false, vals)
	}
	logRun("a", 1)
	b := logRun("b", 3)
	logRun("c", 2)
	cache := compare.NewRowCache(100)
	board := func(seed uint64, rows *compare.RowCache) string {
		t.Helper()
		lb, err := compare.NewLeaderboard(ctx, st, compare.LeaderboardQuery{Experiment: "rc", Metric: "ndcg@10",
			Options: compare.Options{Seed: seed, Resamples: 500}, Rows: rows})
		require.NoError(t, err)
		out, err := json.Marshal(lb)
		require.NoError(t, err)
		return string(out)
	}
	same := func(seed uint64, what string) {
		t.Helper()
		require.JSONEq(t, board(seed, nil), board(seed, cache), what)
	}
	same(1, "cold")
	same(1, "every row from the cache")

	// b, the best, is the reference: its own row is taken from the cache
	// once changed there.
	require.Equal(t, 1, cache.Poke(b.ID, func(r *compare.LeaderboardRow) { r.Mean.Estimate = 7 }))
	require.Contains(t, board(1, cache), `"mean":7,`)
	require.NotContains(t, board(2, cache), `"mean":7,`, "another seed is another row")
	cache = compare.NewRowCache(100)
	same(1, "cold again")

	logRun("d", 0)
	same(1, "a run logged: its row computed, the others kept")
	logRun("e", 9)
	same(1, "a new reference: every difference computed anew")

	// A new reference takes the means kept: d's, changed in the cache,
	// shows in the leaderboard once f is better than e.
	d, err := st.LatestEvaluation(ctx, "rc", "d", "")
	require.NoError(t, err)
	require.Equal(t, 1, cache.PokeMean(d.ID, func(m *stats.Interval) { m.Estimate = 7 }))
	logRun("f", 10)
	require.Contains(t, board(1, cache), `"mean":7,`)
	cache = compare.NewRowCache(100)
	same(1, "cold, with f the reference")
	same(3, "another seed")
	// A cache of two rows keeps the last two computed and gives the
	// others anew.
	small := compare.NewRowCache(2)
	require.JSONEq(t, board(1, nil), board(1, small))
	require.JSONEq(t, board(1, nil), board(1, small))
}
