package server

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestRecordedCompareReplaysWithTheSameKey: a recorded compare sent again
// with the same Idempotency-Key, as a client does after losing the answer,
// gets the first answer and records nothing more; a new key records again.
func TestRecordedCompareReplaysWithTheSameKey(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	w := ts.token(t, store.TokenWriter, "")
	ts.logCSV(t, w, "e", "a", "sample_id,x\nu1,1\nu2,0\nu3,1\n")
	ts.logCSV(t, w, "e", "b", "sample_id,x\nu1,0\nu2,0\nu3,1\n")
	const path = "/api/v1/compare?experiment=e&baseline=a&candidate=b"
	history := func() int {
		h, err := ts.st.History(context.Background(), store.HistoryFilter{})
		require.NoError(t, err)
		return len(h)
	}
	var wg sync.WaitGroup
	bodies := make([]string, 4)
	for i := range bodies {
		wg.Go(func() {
			status, b := ts.do(t, "POST", path, w, nil, "Idempotency-Key", "gate-1")
			require.Equal(t, 200, status, string(b))
			bodies[i] = string(b)
		})
	}
	wg.Wait()
	for _, b := range bodies[1:] {
		require.Equal(t, bodies[0], b)
	}
	require.Equal(t, 1, history())
	status, _ := ts.do(t, "POST", path, w, nil, "Idempotency-Key", "gate-2")
	require.Equal(t, 200, status)
	require.Equal(t, 2, history())
	status, _ = ts.do(t, "POST", path, w, nil)
	require.Equal(t, 200, status)
	require.Equal(t, 3, history(), "without a key, every request records")
	// Another token's request with the same key is its own.
	status, _ = ts.do(t, "POST", path, ts.token(t, store.TokenWriter, ""), nil, "Idempotency-Key", "gate-1")
	require.Equal(t, 200, status)
	require.Equal(t, 4, history())
	// The same key with other parameters is another request: refused, and
	// nothing recorded, rather than recorded anew or answered as the first.
	status, b := ts.do(t, "POST", path+"&seed=9", w, nil, "Idempotency-Key", "gate-1")
	require.Equal(t, 409, status, string(b))
	code, msg := apiError(t, b)
	require.Equal(t, "conflict", code)
	require.Contains(t, msg, "Idempotency-Key was sent before with other parameters")
	require.Equal(t, 4, history())
}

// TestAnswersKeepAtMostMaxKeptBytes fills the leaderboard answers with
// answers of 3 MB, as polling a growing experiment of thousands of runs
// makes them: the bytes kept stay within maxKeptBytes, the newest are the
// ones kept, and an answer evicted is computed again when asked for.
func TestAnswersKeepAtMostMaxKeptBytes(t *testing.T) {
	t.Parallel()
	a := newAnswers(256)
	computed := 0
	get := func(k int) []byte {
		v, err := a.get(fmt.Sprint(k), func() (any, error) {
			computed++
			return make([]byte, 3<<20), nil
		})
		require.NoError(t, err)
		return v.([]byte)
	}
	for k := range 40 {
		require.Len(t, get(k), 3<<20)
		require.LessOrEqual(t, a.bytes, maxKeptBytes, "after %d answers", k+1)
	}
	require.Equal(t, 40, computed)
	kept := maxKeptBytes / (3 << 20) // 10
	require.Equal(t, kept, a.lru.Len())
	get(39)
	require.Equal(t, 40, computed, "the newest is kept")
	get(0)
	require.Equal(t, 41, computed, "the oldest was let go")
}

// TestBoardLocksOneAtATime: leaderboards of one experiment are computed
// one at a time, those of another beside them, and a lock no one holds
// or waits for is let go.
func TestBoardLocksOneAtATime(t *testing.T) {
	t.Parallel()
	var b boardLocks
	var mu sync.Mutex
	inside := map[string]int{}
	most := map[string]int{}
	var wg sync.WaitGroup
	for i := range 40 {
		exp := []string{"e", "f"}[i%2]
		wg.Go(func() {
			unlock := b.lock(exp)
			mu.Lock()
			inside[exp]++
			most[exp] = max(most[exp], inside[exp])
			mu.Unlock()
			time.Sleep(2 * time.Millisecond) // long enough for the others to arrive
			mu.Lock()
			inside[exp]--
			mu.Unlock()
			unlock()
		})
	}
	wg.Wait()
	require.Equal(t, map[string]int{"e": 1, "f": 1}, most)
	require.Empty(t, b.locks)
}
