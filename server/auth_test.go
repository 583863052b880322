package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

// fixture is what requestFor fills a route's request with: an experiment,
// two of its runs, their evaluation set and a metric they share, and the
// IDs a path takes.
type fixture struct {
	experiment, baseline, candidate, evalSet, metric string
	evalID, cmpID, tokenID                           int64
}

// requestFor builds a request that a route would serve for fixture f's
// experiment: path values and the parameters it requires filled with what
// the store holds, so that a refusal comes from the router and not from a
// missing parameter.
func requestFor(rt route, f fixture) (method, path string, body string) {
	p := strings.NewReplacer("{id}", fmt.Sprint(f.evalID), "{name}", url.PathEscape(f.experiment), "{run}", url.PathEscape(f.baseline), "{$}", "").Replace(rt.pattern)
	if strings.HasPrefix(rt.pattern, "/api/v1/comparisons/") || rt.pattern == "/comparisons/{id}" {
		p = strings.Replace(rt.pattern, "{id}", fmt.Sprint(f.cmpID), 1)
	}
	if strings.HasPrefix(rt.pattern, "/api/v1/tokens/") {
		p = strings.Replace(rt.pattern, "{id}", fmt.Sprint(f.tokenID), 1)
	}
	q := url.Values{}
	for _, prm := range rt.params {
		switch prm.name {
		case "experiment":
			q.Set("experiment", f.experiment)
		case "run":
			q.Add("run", f.baseline)
			if prm.repeat {
				q.Add("run", f.candidate)
			}
		case "eval_set":
			q.Set("eval_set", f.evalSet)
		case "metric":
			q.Set("metric", f.metric)
		case "baseline":
			q.Set("baseline", f.baseline)
		case "candidate":
			q.Set("candidate", f.candidate)
		case "name":
			q.Set("name", "made-by-test")
		case "role":
			q.Set("role", "reader")
		}
	}
	if rt.method == "POST" && rt.pattern == "/api/v1/evaluations" {
		q.Set("input_format", "csv")
		body = "sample_id,x\nu1,1\nu2,0\n"
	}
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	return rt.method, p, body
}

// TestEveryRouteRefusesWhoItShould takes every route of the router, so that
// a new route is covered without a change here, and sends it a request with
// no token, a wrong token, a revoked token, a token of too low a role, and a
// token limited to another experiment. Each must be refused, by the router,
// with 401 or 403 and the API's error body (or, for a page, the sign-in
// form), before the handler runs: nothing is logged or recorded.
func TestEveryRouteRefusesWhoItShould(t *testing.T) {
	t.Parallel()
	// Every route's wrong and revoked tokens are failures of one address:
	// allow them all, so that each is answered 401 (TestFailedTokensThrottled
	// checks the limit).
	ts := startServer(t, Config{FailedAuthBurst: 1000})
	ctx := context.Background()
	admin := ts.token(t, store.TokenAdmin, "")
	evalA := ts.logCSV(t, admin, "a", "base", "sample_id,x\nu1,0.5\nu2,0.25\nu3,1\n")
	ts.logCSV(t, admin, "a", "cand", "sample_id,x\nu1,0.25\nu2,0.75\nu3,1\n")
	status, b := ts.do(t, "POST", "/api/v1/compare?experiment=a&baseline=base&candidate=cand&metric=x", admin, nil)
	require.Equal(t, 200, status, string(b))
	hist, err := ts.st.History(ctx, store.HistoryFilter{Limit: 1})
	require.NoError(t, err)
	require.Len(t, hist, 1)
	cmpA := hist[0].ID

	revoked := ts.token(t, store.TokenAdmin, "")
	list, err := ts.st.ListTokens(ctx)
	require.NoError(t, err)
	_, err = ts.st.RevokeToken(ctx, list[len(list)-1].ID)
	require.NoError(t, err)
	otherExperiment := map[store.TokenRole]string{
		store.TokenReader: ts.token(t, store.TokenReader, "b"),
		store.TokenWriter: ts.token(t, store.TokenWriter, "b"),
		store.TokenAdmin:  ts.token(t, store.TokenAdmin, "b"),
	}
	below := map[store.TokenRole]string{
		store.TokenWriter: ts.token(t, store.TokenReader, ""),
		store.TokenAdmin:  ts.token(t, store.TokenWriter, ""),
	}
	victim, _, err := ts.st.CreateToken(ctx, "to revoke", store.TokenReader, "")
	require.NoError(t, err)
	wrong := admin[:len(admin)-4] + "AAAA"
	if wrong == admin {
		wrong = admin[:len(admin)-4] + "BBBB"
	}

	countEvals := func() int {
		list, err := ts.st.ListEvaluations(ctx, store.EvaluationFilter{})
		require.NoError(t, err)
		return len(list)
	}
	before := countEvals()
	covered := 0
	for _, rt := range ts.routes {
		method, path, body := requestFor(rt, fixture{experiment: "a", baseline: "base", candidate: "cand", evalSet: "test", metric: "x",
			evalID: evalA, cmpID: cmpA, tokenID: victim.ID})
		name := rt.method + " " + rt.pattern
		send := func(token string) (int, []byte) {
			return ts.do(t, method, path, token, strings.NewReader(body), "Content-Type", "text/csv")
		}
		if rt.public {
			status, b := send("")
			require.Equal(t, http.StatusOK, status, "%s: %s", name, b)
			continue
		}
		covered++
		refused := func(who, token string, want int) {
			t.Helper()
			status, b := send(token)
			require.Equal(t, want, status, "%s with %s: %s", name, who, b)
			if rt.web {
				if want == http.StatusUnauthorized && !rt.formToken {
					require.Contains(t, string(b), `action="/login"`, "%s with %s", name, who)
				}
				return
			}
			code, msg := apiError(t, b)
			require.Equal(t, map[int]string{401: "unauthorized", 403: "forbidden"}[want], code, "%s with %s: %s", name, who, msg)
			require.NotContains(t, msg, admin, "the message never quotes a token")
		}
		noToken := http.StatusUnauthorized
		if rt.formToken {
			noToken = http.StatusForbidden // the sign-in form's CSRF cookie is missing
		}
		refused("no token", "", noToken)
		refused("a wrong token", wrong, noToken)
		refused("a revoked token", revoked, noToken)
		if tok, ok := below[rt.role]; ok {
			refused("a token of a lower role", tok, http.StatusForbidden)
		}
		if rt.scope.name != "none" && !rt.scope.filtered && !rt.formToken {
			refused("a token of another experiment", otherExperiment[rt.role], http.StatusForbidden)
		}
		// The right token gets past the router.
		if !rt.formToken {
			status, b := send(admin)
			require.NotContains(t, []int{401, 403}, status, "%s with an admin token: %s", name, b)
		}
	}
	require.Greater(t, covered, 15, "every route but /healthz is covered")
	// The admin's successful calls logged one evaluation; the refused ones
	// nothing.
	require.Equal(t, before+1, countEvals())

	// A limited token sees its experiment alone in lists.
	status, b = ts.do(t, "GET", "/api/v1/experiments", otherExperiment[store.TokenReader], nil)
	require.Equal(t, 200, status)
	require.JSONEq(t, `[]`, string(b))
	status, b = ts.do(t, "GET", "/api/v1/experiments", ts.token(t, store.TokenReader, "a"), nil)
	require.Equal(t, 200, status)
	require.Contains(t, string(b), `"name": "a"`)

	// No request logged a token.
	for _, secret := range []string{admin, revoked, wrong, otherExperiment[store.TokenReader]} {
		require.NotContains(t, ts.log.String(), secret)
	}
	require.Contains(t, ts.log.String(), `"token_id"`)
}

// TestRoutesMustDeclareRoleAndScope: a route that declares no role or no
// scope, or is public but is not /healthz, stops the server from starting.
func TestRoutesMustDeclareRoleAndScope(t *testing.T) {
	t.Parallel()
	h := func(http.ResponseWriter, *http.Request, *caller) error { return nil }
	for _, tc := range []struct {
		rt   route
		want string
	}{
		{route{method: "GET", pattern: "/x", handle: h, scope: scopeQuery}, "declares no role"},
		{route{method: "GET", pattern: "/x", handle: h, role: "root", scope: scopeQuery}, "declares no role"},
		{route{method: "GET", pattern: "/x", handle: h, role: store.TokenReader}, "declares no scope"},
		{route{method: "GET", pattern: "/x", handle: h, public: true}, "only GET /healthz may be"},
		{route{method: "GET", pattern: "/x", role: store.TokenReader, scope: scopeQuery}, "has no handler"},
	} {
		err := checkRoutes([]route{tc.rt})
		require.ErrorContains(t, err, tc.want)
	}
	require.ErrorContains(t, checkRoutes([]route{
		{method: "GET", pattern: "/x", handle: h, role: store.TokenReader, scope: scopeQuery},
		{method: "GET", pattern: "/x", handle: h, role: store.TokenReader, scope: scopeQuery},
	}), "declared twice")
	s := &Server{}
	require.NoError(t, checkRoutes(s.table()))
}

// TestOpenAPIDescribesEveryRoute reads /api/v1/openapi.json and finds every
// route of the router in it, with its role.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	status, b := ts.do(t, "GET", "/api/v1/openapi.json", ts.token(t, store.TokenReader, ""), nil)
	require.Equal(t, 200, status)
	var spec struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	require.NoError(t, jsonUnmarshal(b, &spec))
	require.Equal(t, "3.1.0", spec.OpenAPI)
	n := 0
	for _, p := range spec.Paths {
		n += len(p)
	}
	require.Equal(t, len(ts.routes), n, "no operation that the router lacks")
	for _, rt := range ts.routes {
		op := spec.Paths[openAPIPath(rt.pattern)][strings.ToLower(rt.method)]
		require.NotNil(t, op, "%s %s", rt.method, rt.pattern)
		require.Equal(t, rt.summary, op["summary"])
		if !rt.public {
			require.Equal(t, string(rt.role), op["x-verdict-role"], "%s %s", rt.method, rt.pattern)
		}
	}
}

// TestAPIAnswersAsTheCommandLine compares, for the same seed, the API's
// compare, leaderboard and history with what the report functions the
// command line's --format json uses write for the same library calls.
func TestAPIAnswersAsTheCommandLine(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	ctx := context.Background()
	w := ts.token(t, store.TokenWriter, "")
	var base, cand strings.Builder
	base.WriteString("sample_id,ndcg,loss\n")
	cand.WriteString("sample_id,ndcg,loss\n")
	for i := range 200 {
		fmt.Fprintf(&base, "u%03d,%g,%g\n", i, float64(i%7)/7, float64(i%5)/5)
		fmt.Fprintf(&cand, "u%03d,%g,%g\n", i, float64((i+2)%7)/7, float64((i+1)%5)/6)
	}
	status, b := ts.do(t, "POST", "/api/v1/evaluations?experiment=e&run=base&eval_set=test&lower_is_better=loss", w, strings.NewReader(base.String()), "Content-Type", "text/csv")
	require.Equal(t, 201, status, string(b))
	status, b = ts.do(t, "POST", "/api/v1/evaluations?experiment=e&run=cand&eval_set=test&lower_is_better=loss", w, strings.NewReader(cand.String()), "Content-Type", "text/csv")
	require.Equal(t, 201, status, string(b))

	status, got := ts.do(t, "GET", "/api/v1/compare?experiment=e&baseline=base&candidate=cand&seed=7", w, nil)
	require.Equal(t, 200, status, string(got))
	be, err := ts.st.LatestEvaluation(ctx, "e", "base", "")
	require.NoError(t, err)
	ce, err := ts.st.LatestEvaluation(ctx, "e", "cand", "")
	require.NoError(t, err)
	res, err := compare.Evaluations(ctx, ts.st, be, ce, compare.Options{Seed: 7, Sentence: report.Verdict})
	require.NoError(t, err)
	var want strings.Builder
	require.NoError(t, report.Comparison(&want, "json", res))
	require.JSONEq(t, want.String(), string(got))
	require.Contains(t, string(got), "lower is better", "the loss is decided lower-is-better, as on the command line")

	status, got = ts.do(t, "GET", "/api/v1/leaderboard?experiment=e&metric=loss&seed=3", w, nil)
	require.Equal(t, 200, status, string(got))
	lb, err := compare.NewLeaderboard(ctx, ts.st, compare.LeaderboardQuery{Experiment: "e", Metric: "loss", Options: compare.Options{Seed: 3}})
	require.NoError(t, err)
	want.Reset()
	require.NoError(t, report.Leaderboard(&want, "json", lb))
	require.JSONEq(t, want.String(), string(got))

	// GET records nothing; POST records one row per metric.
	hist, err := ts.st.History(ctx, store.HistoryFilter{})
	require.NoError(t, err)
	require.Empty(t, hist)
	status, got = ts.do(t, "POST", "/api/v1/compare?experiment=e&baseline=base&candidate=cand&seed=7", w, nil)
	require.Equal(t, 200, status, string(got))
	hist, err = ts.st.History(ctx, store.HistoryFilter{})
	require.NoError(t, err)
	require.Len(t, hist, 2)
	status, got = ts.do(t, "GET", "/api/v1/history?experiment=e", w, nil)
	require.Equal(t, 200, status, string(got))
	want.Reset()
	require.NoError(t, report.HistoryEntries(&want, "json", hist))
	require.JSONEq(t, want.String(), string(got))
}
