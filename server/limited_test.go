package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// notLists are the GET routes that list nothing, each with why. Every
// other GET route of the router is a list, and
// TestListsKeepToTheTokensExperiment checks it: a new list route is
// covered without a change here, and a new route that lists nothing must
// say so here.
var notLists = map[string]string{
	"GET /healthz":                    "says that the server answers, and its version: no experiment's data",
	"GET /api/v1/openapi.json":        "describes the API: no experiment's data",
	"GET /api/v1/evaluations/{id}":    "one evaluation, which the router holds to the token's experiment",
	"GET /api/v1/comparisons/{id}":    "one comparison, which the router holds to the token's experiment, on both its sides",
	"GET /comparisons/{id}":           "the page of one comparison, held as GET /api/v1/comparisons/{id} is",
	"GET /api/v1/compare":             "compares the two evaluations the request names, each held to the token's experiment",
	"GET /api/v1/diff":                "compares the two evaluations the request names, each held to the token's experiment",
	"GET /api/v1/rank":                "ranks the evaluations the request names, each held to the token's experiment",
	"GET /experiments/{name}/compare": "the page comparing the two runs the request names, of the path's experiment, held to the token's",
	"GET /api/v1/tokens":              "tokens are no experiment's: only a token limited to no experiment may list them",
}

// twoExperiments is a store with experiments alpha and bravo, each with two
// runs, an evaluation of each and a recorded comparison, and two
// comparisons across them, made by unlimited tokens naming evaluations by
// ID: alpha's baseline against bravo's candidate, which the history files
// under alpha, and the other way round. Everything of bravo's that has a
// name has "bravo" in it.
type twoExperiments struct {
	alpha, bravo fixture
	// acrossID is the comparison filed under alpha whose candidate,
	// bravoCand, is bravo's.
	acrossID, bravoCand int64
	// bravoIDs are the IDs, by kind (evaluation, run, comparison), that
	// name bravo's data, the comparisons across the two included.
	bravoIDs map[string]map[int64]bool
}

func setupTwoExperiments(t *testing.T, ts *testServer) *twoExperiments {
	t.Helper()
	ctx := context.Background()
	w := ts.token(t, store.TokenWriter, "")
	log := func(exp, run, evalSet string, extra url.Values, csv string) int64 {
		q := url.Values{"experiment": {exp}, "run": {run}, "eval_set": {evalSet}}
		for k, v := range extra {
			q[k] = v
		}
		status, b := ts.do(t, "POST", "/api/v1/evaluations?"+q.Encode(), w, strings.NewReader(csv), "Content-Type", "text/csv")
		require.Equal(t, http.StatusCreated, status, string(b))
		var got logAnswer
		require.NoError(t, json.Unmarshal(b, &got))
		return got.ID
	}
	record := func(q url.Values) int64 {
		q.Set("seed", "1")
		status, b := ts.do(t, "POST", "/api/v1/compare?"+q.Encode(), w, nil)
		require.Equal(t, http.StatusOK, status, string(b))
		var got []struct {
			ID int64 `json:"comparison_id"`
		}
		require.NoError(t, json.Unmarshal(b, &got))
		require.Len(t, got, 1, string(b))
		return got[0].ID
	}
	x := &twoExperiments{
		alpha: fixture{experiment: "alpha", baseline: "alpha-base", candidate: "alpha-cand", evalSet: "alpha-set", metric: "x"},
		bravo: fixture{experiment: "bravo", baseline: "bravo-base", candidate: "bravo-cand", evalSet: "bravo-set", metric: "x"},
	}
	// Each evaluation is at step 1, a point of its run's curve.
	alphaBase := log("alpha", "alpha-base", "alpha-set", url.Values{"tag": {"alpha-tag"}, "step": {"1"}}, "sample_id,x\nu1,0.5\nu2,0.25\nu3,1\nu4,0\n")
	alphaCand := log("alpha", "alpha-cand", "alpha-set", url.Values{"step": {"1"}}, "sample_id,x\nu1,0.75\nu2,0.25\nu3,1\nu4,0.5\n")
	extra := url.Values{"tag": {"bravo-tag"}, "param": {"bravo_lr=0.1"}, "meta": {"bravo_note=secret"}, "step": {"1"}}
	bravoBase := log("bravo", "bravo-base", "bravo-set", extra, "sample_id,x,bravo_metric\nu1,0.5,1\nu2,0.5,0\nu3,0,1\nu4,1,1\n")
	bravoCand := log("bravo", "bravo-cand", "bravo-set", extra, "sample_id,x,bravo_metric\nu1,1,1\nu2,0.5,1\nu3,0.25,0\nu4,1,1\n")
	x.alpha.evalID, x.bravo.evalID, x.bravoCand = alphaBase, bravoBase, bravoCand
	x.alpha.cmpID = record(url.Values{"experiment": {"alpha"}, "baseline": {"alpha-base"}, "candidate": {"alpha-cand"}, "metric": {"x"}})
	x.bravo.cmpID = record(url.Values{"experiment": {"bravo"}, "baseline": {"bravo-base"}, "candidate": {"bravo-cand"}, "metric": {"x"}})
	across := func(baseline, candidate int64) int64 {
		return record(url.Values{"baseline": {fmt.Sprint(baseline)}, "candidate": {fmt.Sprint(candidate)}, "metric": {"x"},
			"allow_different_targets": {"true"}})
	}
	x.acrossID = across(alphaBase, bravoCand)
	backwards := across(bravoBase, alphaCand)

	x.bravoIDs = map[string]map[int64]bool{
		"evaluation": {bravoBase: true, bravoCand: true},
		"comparison": {x.bravo.cmpID: true, x.acrossID: true, backwards: true},
		"run":        {},
	}
	runs, err := ts.st.SearchRuns(ctx, store.RunQuery{Experiment: "bravo"})
	require.NoError(t, err)
	require.Len(t, runs, 2)
	for _, r := range runs {
		x.bravoIDs["run"][r.ID] = true
	}
	return x
}

// idKinds are the kinds of the IDs an answer's JSON holds, by key.
var idKinds = map[string]string{
	"evaluation_id":           "evaluation",
	"baseline_evaluation_id":  "evaluation",
	"candidate_evaluation_id": "evaluation",
	"run_id":                  "run",
	"comparison_id":           "comparison",
}

// pageIDs are the links of a page that hold an ID, by kind.
var pageIDs = map[string]*regexp.Regexp{
	"evaluation": regexp.MustCompile(`/api/v1/evaluations/(\d+)`),
	"comparison": regexp.MustCompile(`/comparisons/(\d+)`),
}

// requireNothingOfBravo fails the test when an answer names anything of
// bravo's or holds one of its IDs: in the JSON of an answer of the API,
// under any key that holds an ID, and in the links of a page.
func (x *twoExperiments) requireNothingOfBravo(t *testing.T, what string, body []byte) {
	t.Helper()
	require.False(t, strings.Contains(strings.ToLower(string(body)), "bravo"), "%s shows bravo's data:\n%s", what, body)
	var doc any
	if json.Unmarshal(body, &doc) != nil {
		for kind, re := range pageIDs {
			for _, m := range re.FindAllStringSubmatch(string(body), -1) {
				id, err := strconv.ParseInt(m[1], 10, 64)
				require.NoError(t, err)
				require.False(t, x.bravoIDs[kind][id], "%s links to bravo's %s %d", what, kind, id)
			}
		}
		return
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, e := range v {
				if n, ok := e.(float64); ok && (k == "id" || strings.HasSuffix(k, "_id")) {
					kind, known := idKinds[k]
					require.True(t, known, "%s: key %q holds an ID of a kind the test does not know: add it to idKinds", what, k)
					require.False(t, x.bravoIDs[kind][int64(n)], "%s holds bravo's %s %d under %q", what, kind, int64(n), k)
				}
				walk(e)
			}
		}
	}
	walk(doc)
}

// TestListsKeepToTheTokensExperiment takes every GET route of the router,
// with data in two experiments, alpha and bravo, and comparisons across
// them. Every list (each GET route not in notLists) answers a token
// limited to alpha with alpha's data and nothing of bravo's, names or IDs,
// while it shows bravo's to a token limited to no experiment, so that the
// check could see a leak. No GET route, list or not, shows anything of
// bravo's to that token, whether asked for alpha, for bravo, or for the
// comparison filed under alpha whose candidate is bravo's.
func TestListsKeepToTheTokensExperiment(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	x := setupTwoExperiments(t, ts)
	// An admin token limited to alpha reaches every route a limited token
	// may; an unlimited reader sees everything.
	limited := ts.token(t, store.TokenAdmin, "alpha")
	unlimited := ts.token(t, store.TokenReader, "")

	gets := map[string]bool{}
	lists := 0
	for _, rt := range ts.routes {
		if rt.method != "GET" {
			continue
		}
		name := rt.method + " " + rt.pattern
		gets[name] = true
		_, isNot := notLists[name]
		if !isNot {
			lists++
			// Covered: alpha's data, and nothing of bravo's.
			_, path, _ := requestFor(rt, x.alpha)
			status, b := ts.do(t, "GET", path, limited, nil)
			require.Equal(t, http.StatusOK, status, "%s %s: a list must answer the fixture's request; if it needs more parameters, teach requestFor\n%s", name, path, b)
			require.Contains(t, string(b), "alpha", "%s %s shows alpha's data", name, path)
			x.requireNothingOfBravo(t, name+" for alpha", b)
			// The same route shows bravo's data to a token that may see it.
			_, path, _ = requestFor(rt, x.bravo)
			status, b = ts.do(t, "GET", path, unlimited, nil)
			require.Equal(t, http.StatusOK, status, "%s %s: %s", name, path, b)
			require.Contains(t, string(b), "bravo", "%s %s shows bravo's data to an unlimited token", name, path)
		}
		// Nothing of bravo's, whatever the request names.
		across := x.alpha
		across.cmpID = x.acrossID
		for _, f := range []struct {
			what string
			f    fixture
		}{{"for alpha", x.alpha}, {"for bravo", x.bravo}, {"for the comparison across", across}} {
			_, path, _ := requestFor(rt, f.f)
			status, b := ts.do(t, "GET", path, limited, nil)
			require.NotEqual(t, http.StatusInternalServerError, status, "%s %s: %s", name, path, b)
			x.requireNothingOfBravo(t, name+" "+f.what, b)
		}
	}
	for name, why := range notLists {
		require.True(t, gets[name], "notLists holds %s (%s), which is no GET route of the router", name, why)
	}
	require.GreaterOrEqual(t, lists, 7, "experiments, runs, evaluations, leaderboard, history and two pages are lists")

	// Only what crosses is held back: alpha's own comparison is listed.
	status, b := ts.do(t, "GET", "/experiments/alpha", limited, nil)
	require.Equal(t, http.StatusOK, status, string(b))
	require.Contains(t, string(b), fmt.Sprintf(`href="/comparisons/%d"`, x.alpha.cmpID))

	// The comparison across is an unlimited token's, and refused, with the
	// router's message, to a token limited to either experiment.
	status, b = ts.do(t, "GET", fmt.Sprintf("/api/v1/comparisons/%d", x.acrossID), unlimited, nil)
	require.Equal(t, http.StatusOK, status, string(b))
	require.Contains(t, string(b), `"candidate_run": "bravo-cand"`)
	for _, exp := range []string{"alpha", "bravo"} {
		status, b := ts.do(t, "GET", fmt.Sprintf("/api/v1/comparisons/%d", x.acrossID), ts.token(t, store.TokenReader, exp), nil)
		require.Equal(t, http.StatusForbidden, status, string(b))
		_, msg := apiError(t, b)
		require.Equal(t, fmt.Sprintf("this token is limited to experiment %q", exp), msg)
	}
}

// TestLimitedHistoryKeepsItsLimit: a limited token asking for the newest N
// comparisons gets N of its experiment's when there are, even when
// comparisons across experiments are among the newest.
func TestLimitedHistoryKeepsItsLimit(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	x := setupTwoExperiments(t, ts)
	// The comparison across is the newest of alpha's, then alpha's own.
	w := ts.token(t, store.TokenWriter, "")
	for range 3 {
		status, b := ts.do(t, "POST", fmt.Sprintf("/api/v1/compare?baseline=%d&candidate=%d&metric=x&allow_different_targets=true", x.alpha.evalID, x.bravoCand), w, nil)
		require.Equal(t, http.StatusOK, status, string(b))
	}
	type entry struct {
		ID int64 `json:"comparison_id"`
	}
	history := func(token, limit string) []entry {
		status, b := ts.do(t, "GET", "/api/v1/history?experiment=alpha&limit="+limit, token, nil)
		require.Equal(t, http.StatusOK, status, string(b))
		var got []entry
		require.NoError(t, json.Unmarshal(b, &got))
		return got
	}
	newest := history(ts.token(t, store.TokenReader, ""), "1")
	require.Len(t, newest, 1)
	require.NotEqual(t, x.alpha.cmpID, newest[0].ID, "the newest of alpha's is a comparison across")
	require.Equal(t, []entry{{x.alpha.cmpID}}, history(ts.token(t, store.TokenReader, "alpha"), "1"))
	require.Equal(t, []entry{{x.alpha.cmpID}}, history(ts.token(t, store.TokenReader, "alpha"), "0"))
}

// A token limited to an experiment may name its evaluations by ID, without
// naming the experiment, and is refused evaluations of another.
func TestLimitedTokenComparesItsEvaluationsByID(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	w := ts.token(t, store.TokenWriter, "")
	a1 := ts.logCSV(t, w, "alpha", "one", "sample_id,x\nu1,1\nu2,0\nu3,1\n")
	a2 := ts.logCSV(t, w, "alpha", "two", "sample_id,x\nu1,0\nu2,0\nu3,1\n")
	b1 := ts.logCSV(t, w, "bravo", "one", "sample_id,x\nu1,1\nu2,1\nu3,1\n")
	alpha := ts.token(t, store.TokenWriter, "alpha")
	ids := func(route string, pairs ...any) string {
		q := url.Values{}
		for i := 0; i+1 < len(pairs); i += 2 {
			q.Add(pairs[i].(string), fmt.Sprint(pairs[i+1]))
		}
		return route + "?" + q.Encode()
	}
	for _, tc := range []struct {
		method, path string
		status       int
	}{
		{"GET", ids("/api/v1/compare", "baseline", a1, "candidate", a2), 200},
		{"POST", ids("/api/v1/compare", "baseline", a1, "candidate", a2), 200},
		{"GET", ids("/api/v1/diff", "baseline", a1, "candidate", a2, "metric", "x"), 200},
		{"GET", ids("/api/v1/rank", "run", a1, "run", a2, "metric", "x"), 200},
		{"GET", ids("/api/v1/compare", "baseline", a1, "candidate", b1), 403},
		{"GET", ids("/api/v1/compare", "baseline", b1, "candidate", a1), 403},
		{"GET", ids("/api/v1/rank", "run", a1, "run", b1, "metric", "x"), 403},
	} {
		status, b := ts.do(t, tc.method, tc.path, alpha, nil)
		require.Equal(t, tc.status, status, "%s %s: %s", tc.method, tc.path, b)
		if status == 403 {
			_, msg := apiError(t, b)
			require.Contains(t, msg, `limited to experiment "alpha"`)
			require.NotContains(t, string(b), "bravo")
		}
	}
}
