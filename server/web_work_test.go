package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// TestWebCompareForms: a reader reads a comparison but is offered no
// recording and may not record; a writer's record form carries the
// session's CSRF token, without which the server refuses it; a token
// limited to another experiment reaches none of the pages to work in.
func TestWebCompareForms(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	writer := ts.token(t, store.TokenWriter, "")
	ts.logRuns(t, writer, "demo", []string{"pop", "knn"}, 60)
	ts.logRuns(t, writer, "other", []string{"pop", "knn"}, 60)
	compareURL := "/experiments/demo/compare?" + url.Values{"baseline": {"pop"}, "candidate": {"knn"}}.Encode()
	history := func() int {
		h, err := ts.st.History(context.Background(), store.HistoryFilter{Experiment: "demo"})
		require.NoError(t, err)
		return len(h)
	}

	reader := newWebClient(t, ts)
	reader.signIn(compareURL, ts.token(t, store.TokenReader, ""))
	status, body := reader.get(compareURL)
	require.Equal(t, http.StatusOK, status, body)
	tags, text := parsePage(t, body)
	require.Contains(t, text, "knn")
	require.Contains(t, text, "Users who moved most")
	for _, f := range tags["form"] {
		if attr(f, "method") == "post" {
			require.Equal(t, "/logout", attr(f, "action"), "a reader is offered no recording")
		}
	}
	resp, body := reader.post("/experiments/demo/compare", url.Values{"csrf": {formCSRF(t, body)}, "baseline": {"pop"}, "candidate": {"knn"}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	require.Zero(t, history())

	wc := newWebClient(t, ts)
	wc.signIn(compareURL, writer)
	status, page := wc.get(compareURL)
	require.Equal(t, http.StatusOK, status, page)
	require.Contains(t, page, `action="/experiments/demo/compare"`)
	require.Contains(t, page, `id="record"`)
	// Without the CSRF token, or with another, nothing is recorded.
	for _, csrf := range []string{"", "forged"} {
		resp, body = wc.post("/experiments/demo/compare", url.Values{"csrf": {csrf}, "baseline": {"pop"}, "candidate": {"knn"}})
		require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	}
	require.Zero(t, history())
	// A form whose value holds a NUL byte is refused before it is read.
	resp, body = wc.post("/experiments/demo/compare", url.Values{"csrf": {formCSRF(t, page)}, "baseline": {"pop\x00"}, "candidate": {"knn"}})
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
	require.Zero(t, history())
	// With the session's, it is recorded, and the answer is its page.
	resp, body = wc.post("/experiments/demo/compare", url.Values{"csrf": {formCSRF(t, page)}, "baseline": {"pop"}, "candidate": {"knn"}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, body)
	require.Equal(t, 1, history())
	require.True(t, strings.HasPrefix(resp.Header.Get("Location"), "/comparisons/"), resp.Header.Get("Location"))
	status, body = wc.get(resp.Header.Get("Location"))
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, "Where the candidate did best")

	// A comparison that cannot be made: the form again, with why.
	status, body = wc.get("/experiments/demo/compare?baseline=pop")
	require.Equal(t, http.StatusUnprocessableEntity, status, body)
	_, text = parsePage(t, body)
	require.Contains(t, text, "candidate")
	require.Contains(t, body, `id="compare-problem"`)

	// A token limited to experiment other reaches none of demo's pages,
	// nor demo's evaluations through other's.
	limited := newWebClient(t, ts)
	limited.signIn("/experiments/other/runs", ts.token(t, store.TokenReader, "other"))
	for _, path := range []string{"/experiments/demo/runs", "/experiments/demo/runs/pop", compareURL} {
		status, _ := limited.get(path)
		require.Equal(t, http.StatusForbidden, status, path)
	}
	demo, err := ts.st.LatestEvaluation(context.Background(), "demo", "pop", "")
	require.NoError(t, err)
	status, body = limited.get(fmt.Sprintf("/experiments/other/compare?by=evaluation&baseline=%d&candidate=%d", demo.ID, demo.ID))
	require.NotEqual(t, http.StatusOK, status, body)
	require.NotContains(t, body, `p class="verdict"`)
}

// TestWebCompareGroups: the comparison page compares two groups of runs
// (configurations of several seeds) when asked with groups, says what the
// seeds do, and offers no recording, which a comparison of groups has not.
func TestWebCompareGroups(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	writer := ts.token(t, store.TokenWriter, "")
	for i, run := range []string{"a1", "a2", "b1", "b2"} {
		var b strings.Builder
		b.WriteString("sample_id,ndcg@10\n")
		for u := range 30 {
			// Run i scores user u as (u % 4)/8 + i/16: every b run is
			// better than every a run.
			fmt.Fprintf(&b, "user-%03d,%g\n", u, float64(u%4)/8+float64(i)/16)
		}
		q := url.Values{"experiment": {"seeds"}, "run": {run}, "eval_set": {"test"}, "group": {"cfg-" + run[:1]}}
		status, body := ts.do(t, "POST", "/api/v1/evaluations?"+q.Encode(), writer, strings.NewReader(b.String()), "Content-Type", "text/csv")
		require.Equal(t, http.StatusCreated, status, body)
	}
	compareURL := "/experiments/seeds/compare?" + url.Values{"baseline": {"cfg-a"}, "candidate": {"cfg-b"}, "groups": {"true"}}.Encode()
	wc := newWebClient(t, ts)
	wc.signIn(compareURL, writer)
	status, page := wc.get(compareURL)
	require.Equal(t, http.StatusOK, status, page)
	_, text := parsePage(t, page)
	require.Contains(t, text, "Two-level bootstrap of 2 runs of cfg-a, 2 of cfg-b and the users")
	require.Contains(t, text, "A single run of cfg-b beats a single run of cfg-a in 100% of the 4 pairs of runs.")
	require.NotContains(t, page, `id="record"`)
}
