package server

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// TestLeaderboardKeptUntilANewEvaluation: the same leaderboard asked for
// again, or by 16 readers at once, is computed once and answered with the
// same bytes; a new evaluation of the experiment changes the answer, and
// another experiment's does not.
func TestLeaderboardKeptUntilANewEvaluation(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	w := ts.token(t, store.TokenWriter, "")
	rows := func(shift int) string {
		var b strings.Builder
		b.WriteString("sample_id,ndcg\n")
		for i := range 100 {
			fmt.Fprintf(&b, "u%d,%g\n", i, float64((i+shift)%10)/10)
		}
		return b.String()
	}
	ts.logCSV(t, w, "e", "a", rows(0))
	ts.logCSV(t, w, "e", "b", rows(3))
	const path = "/api/v1/leaderboard?experiment=e&metric=ndcg&seed=1"
	var wg sync.WaitGroup
	bodies := make([][]byte, 16)
	for i := range bodies {
		wg.Go(func() {
			status, b := ts.do(t, "GET", path, w, nil)
			require.Equal(t, 200, status, string(b))
			bodies[i] = b
		})
	}
	wg.Wait()
	for _, b := range bodies[1:] {
		require.Equal(t, string(bodies[0]), string(b))
	}
	require.Equal(t, 1, ts.answers.lru.Len(), "computed once")
	require.NotContains(t, string(bodies[0]), `"run": "c"`)

	ts.logCSV(t, w, "other", "c", rows(5))
	_, same := ts.do(t, "GET", path, w, nil)
	require.Equal(t, string(bodies[0]), string(same))
	require.Equal(t, 1, ts.answers.lru.Len(), "another experiment's evaluation changes nothing")

	ts.logCSV(t, w, "e", "c", rows(5))
	_, changed := ts.do(t, "GET", path, w, nil)
	require.Contains(t, string(changed), `"run": "c"`)
	require.Equal(t, 2, ts.answers.lru.Len())

	// Other parameters are other answers.
	status, b := ts.do(t, "GET", path+"&limit=1", w, nil)
	require.Equal(t, 200, status, string(b))
	require.NotEqual(t, string(changed), string(b))
}
