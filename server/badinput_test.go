package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// TestNoBadInputIsAServerError sends every parameter of every route, as the
// route table declares them (the same table the OpenAPI description is made
// from), a malformed value: of the wrong type, negative, out of range, an
// unknown name, a path out of the spool folder, huge; and its
// Idempotency-Key, when it takes one. Each must be answered
// 4xx with a message saying what is wrong, never 500: a 500 hides the
// message in the server's log. A value that is well-formed for a free-form
// string (a tag, a name) may be taken, but never with a 500.
func TestNoBadInputIsAServerError(t *testing.T) {
	t.Parallel()
	ts, valid := setupBadInput(t)
	admin := ts.token(t, store.TokenAdmin, "")
	huge := strings.Repeat("9", 64<<10)

	// malformed lists the values each kind of parameter must refuse.
	malformed := map[string][]string{
		"integer": {"abc", "1.5", "-5", "99999999999999999999999", "0x10", huge},
		"number":  {"abc", "NaN", "Inf", "-Inf", "1e999", "-1", huge},
		"boolean": {"maybe", "2", huge},
	}
	// Strings with a grammar, a set of values, or naming something that
	// must exist: each refuses these.
	structured := map[string]bool{
		"format": true, "method": true, "adjust": true, "winner": true, "since": true, "filter": true, "order_by": true,
		"role": true, "target_fingerprint": true, "lower_is_better": true, "baseline": true,
		"candidate": true, "control": true, "param": true, "meta": true, "protocol": true,
	}
	// evaluate's metrics are specs (ndcg@10,20): structured there; the
	// runs' metrics name table columns, any name.
	structuredAt := map[string]bool{"POST /api/v1/evaluate metrics": true}
	strs := []string{"../../tmp/x", "bogus", "params.lr <", "'", "\x00", "%", huge}
	pathValues := []string{"abc", "-1", "0", "99999999999999999999", "..%2F..%2Ftmp", "999999999"}

	for _, rt := range ts.Server.routes {
		if rt.public || rt.formToken || rt.pattern == "/{$}" {
			continue
		}
		key := rt.method + " " + rt.pattern
		base, ok := valid[key]
		require.True(t, ok, "the test knows a valid request of %s", key)
		send := func(path string, q url.Values, headers ...string) (int, string) {
			var body io.Reader
			if base.body != nil {
				b, ctype := base.body(t)
				body, headers = b, append(headers, "Content-Type", ctype)
			}
			if q != nil {
				path += "?" + q.Encode()
			}
			status, b := ts.do(t, rt.method, path, admin, body, headers...)
			return status, string(b)
		}
		check := func(what string, status int, b string, must4xx bool) {
			t.Helper()
			require.Less(t, status, 500, "%s %s: %s", key, what, b)
			if must4xx {
				require.GreaterOrEqual(t, status, 400, "%s %s: %s", key, what, b)
			}
			if status >= 400 {
				require.NotEmpty(t, strings.TrimSpace(errorMessage(b)), "%s %s: %s", key, what, b)
			}
		}
		// The valid request itself is answered.
		status, b := send(base.path, base.query)
		require.Less(t, status, 300, "%s valid: %s", key, b)

		for _, p := range rt.params {
			values := malformed[p.kind]
			if p.kind == "string" {
				values = strs
			}
			for _, v := range values {
				q := url.Values{}
				for k, vs := range base.query {
					q[k] = append([]string{}, vs...)
				}
				q.Set(p.name, v)
				status, b := send(base.path, q)
				check(fmt.Sprintf("%s=%.40q", p.name, v), status, b, p.kind != "string" || structured[p.name] || structuredAt[key+" "+p.name])
			}
		}
		if rt.idempotent {
			for _, k := range []struct {
				v       string
				must4xx bool
			}{{"k\xff", true}, {strings.Repeat("k", 4<<10), rt.body != ""}} {
				status, b := send(base.path, base.query, "Idempotency-Key", k.v)
				check(fmt.Sprintf("Idempotency-Key %.40q", k.v), status, b, k.must4xx)
			}
		}
		if strings.Contains(rt.pattern, "{") {
			for _, v := range pathValues {
				path := rt.pattern[:strings.Index(rt.pattern, "{")] + v
				status, b := send(path, base.query)
				check("path "+v, status, b, true)
			}
		}
	}
}

// TestBadInputAnswers: the parser's and the store's messages reach the
// client, with the status that fits, as the command line prints them.
func TestBadInputAnswers(t *testing.T) {
	t.Parallel()
	ts, _ := setupBadInput(t)
	r := ts.token(t, store.TokenWriter, "")
	for _, tc := range []struct {
		name, method, path string
		key                string // Idempotency-Key
		status             int
		code, message      string
	}{
		{name: "filter", method: "GET", path: "/api/v1/runs?experiment=e&filter=" + url.QueryEscape("params.lr <"), status: 422, code: "invalid_input",
			message: "bad filter: column 12: expected a value (a 'string' or a number) but found end of expression"},
		{name: "filter's first token", method: "GET", path: "/api/v1/runs?filter=%27", status: 422, code: "invalid_input", message: "bad filter: column 1: unterminated string"},
		{name: "order", method: "GET", path: "/api/v1/runs?order_by=bogus", status: 422, code: "invalid_input",
			message: `bad order-by: column 1: unknown name "bogus": want run, created, git_commit, params.NAME, tags.NAME or metrics.NAME`},
		{name: "negative limit", method: "GET", path: "/api/v1/runs?limit=-5", status: 422, code: "invalid_input", message: "limit -5: want a number that is not negative"},
		{name: "format out of the spool folder", method: "POST", path: "/api/v1/evaluations?experiment=e&run=x&eval_set=test&input_format=../../tmp/x", status: 422, code: "invalid_input",
			message: `input_format "../../tmp/x": want csv, tsv, jsonl, ndjson, parquet or npz`},
		{name: "unknown experiment's leaderboard", method: "GET", path: "/api/v1/leaderboard?experiment=nope&metric=ndcg", status: 404, code: "not_found", message: `experiment "nope": not found`},
		{name: "unknown run", method: "GET", path: "/api/v1/compare?experiment=e&baseline=r1&candidate=nope", status: 404, code: "not_found"},
		{name: "unknown evaluation", method: "GET", path: "/api/v1/evaluations/999999", status: 404, code: "not_found"},
		{name: "NUL byte", method: "GET", path: "/api/v1/runs?experiment=%00", status: 400, code: "bad_request", message: "parameter experiment holds a NUL byte or is not UTF-8"},
		{name: "NaN", method: "GET", path: "/api/v1/compare?experiment=e&baseline=r1&candidate=r2&alpha=NaN", status: 422, code: "invalid_input", message: `alpha "NaN": want a finite number`},
		{name: "huge key", method: "POST", path: "/api/v1/evaluations?experiment=e&run=k&eval_set=test", key: strings.Repeat("k", 300), status: 422, code: "invalid_input"},
		{name: "key not UTF-8", method: "POST", path: "/api/v1/evaluations?experiment=e&run=k&eval_set=test", key: "k\xff", status: 400, code: "bad_request",
			message: "header Idempotency-Key holds a NUL byte or is not UTF-8"},
		{name: "evaluate's key not UTF-8", method: "POST", path: "/api/v1/evaluate?experiment=e&run=k&eval_set=test", key: "k\xff", status: 400, code: "bad_request",
			message: "header Idempotency-Key holds a NUL byte or is not UTF-8"},
	} {
		headers := []string{"Content-Type", "text/csv"}
		if tc.key != "" {
			headers = append(headers, "Idempotency-Key", tc.key)
		}
		status, b := ts.do(t, tc.method, tc.path, r, strings.NewReader("sample_id,m\nu1,1\n"), headers...)
		require.Equal(t, tc.status, status, "%s: %s", tc.name, b)
		code, msg := apiError(t, b)
		require.Equal(t, tc.code, code, tc.name)
		if tc.message != "" {
			require.Equal(t, tc.message, msg, tc.name)
		}
	}
}

// errorMessage is the message of an API error body, or a page's text.
func errorMessage(b string) string {
	var e struct {
		Error struct{ Code, Message string }
	}
	if json.Unmarshal([]byte(b), &e) == nil {
		return e.Error.Message
	}
	return b
}

// validRequest is a request a route answers with 2xx.
type validRequest struct {
	path  string
	query url.Values
	body  func(t *testing.T) (io.Reader, string) // nil for none
}

// setupBadInput logs two runs and records a comparison, and returns a
// valid request of every route the test sends bad input to.
func setupBadInput(t *testing.T) (*testServer, map[string]validRequest) {
	t.Helper()
	ts := startServer(t, Config{})
	w := ts.token(t, store.TokenWriter, "")
	csv := "sample_id,ndcg\nu1,0.5\nu2,0.25\nu3,0\nu4,1\n"
	ev := ts.logCSV(t, w, "e", "r1", csv)
	ts.logCSV(t, w, "e", "r2", "sample_id,ndcg\nu1,0.75\nu2,0.5\nu3,0.25\nu4,1\n")
	status, b := ts.do(t, "POST", "/api/v1/evaluations?experiment=e&run=stepped&eval_set=test&step=1", w, strings.NewReader(csv), "Content-Type", "text/csv")
	require.Equal(t, http.StatusCreated, status, string(b))
	status, b = ts.do(t, "POST", "/api/v1/compare?experiment=e&baseline=r1&candidate=r2&seed=1", w, nil)
	require.Equal(t, http.StatusOK, status, b)
	var cmp []struct {
		ID int64 `json:"comparison_id"`
	}
	require.NoError(t, json.Unmarshal(b, &cmp), string(b))
	require.NotEmpty(t, cmp)
	tok, _, err := ts.st.CreateToken(t.Context(), "to-revoke", store.TokenReader, "")
	require.NoError(t, err)

	v := func(s string) url.Values {
		q, err := url.ParseQuery(s)
		require.NoError(t, err)
		return q
	}
	csvBody := func(*testing.T) (io.Reader, string) { return strings.NewReader(csv), "text/csv" }
	evaluateBody := func(t *testing.T) (io.Reader, string) {
		return multipartBody(t, map[string]string{"items": "items.npy", "scores": "scores.npy", "targets": "targets.npz", "sample_ids": "ids_str.npy"})
	}
	return ts, map[string]validRequest{
		"GET /api/v1/openapi.json":           {path: "/api/v1/openapi.json"},
		"GET /api/v1/experiments":            {path: "/api/v1/experiments"},
		"POST /api/v1/evaluations":           {path: "/api/v1/evaluations", query: v("experiment=logged&run=new&eval_set=test"), body: csvBody},
		"POST /api/v1/evaluate":              {path: "/api/v1/evaluate", query: v("experiment=logged&run=evaluated&eval_set=ranking"), body: evaluateBody},
		"GET /api/v1/runs":                   {path: "/api/v1/runs", query: v("experiment=e")},
		"GET /api/v1/evaluations":            {path: "/api/v1/evaluations", query: v("experiment=e")},
		"GET /api/v1/evaluations/{id}":       {path: "/api/v1/evaluations/" + strconv.FormatInt(ev, 10)},
		"GET /api/v1/leaderboard":            {path: "/api/v1/leaderboard", query: v("experiment=e&metric=ndcg&resamples=200")},
		"GET /api/v1/curve":                  {path: "/api/v1/curve", query: v("experiment=e&run=stepped&metric=ndcg&resamples=200")},
		"GET /api/v1/compare":                {path: "/api/v1/compare", query: v("experiment=e&baseline=r1&candidate=r2&resamples=200")},
		"POST /api/v1/compare":               {path: "/api/v1/compare", query: v("experiment=e&baseline=r1&candidate=r2&resamples=200")},
		"GET /api/v1/rank":                   {path: "/api/v1/rank", query: v("experiment=e&metric=ndcg&run=r1&run=r2")},
		"POST /api/v1/rank":                  {path: "/api/v1/rank", query: v("experiment=e&metric=ndcg&run=r1&run=r2")},
		"GET /api/v1/diff":                   {path: "/api/v1/diff", query: v("experiment=e&metric=ndcg&baseline=r1&candidate=r2")},
		"GET /api/v1/history":                {path: "/api/v1/history", query: v("experiment=e")},
		"GET /api/v1/comparisons/{id}":       {path: "/api/v1/comparisons/" + strconv.FormatInt(cmp[0].ID, 10)},
		"GET /api/v1/tokens":                 {path: "/api/v1/tokens"},
		"POST /api/v1/tokens":                {path: "/api/v1/tokens", query: v("name=ci&role=reader")},
		"DELETE /api/v1/tokens/{id}":         {path: "/api/v1/tokens/" + strconv.FormatInt(tok.ID, 10)},
		"GET /experiments/{name}":            {path: "/experiments/e"},
		"GET /experiments/{name}/runs":       {path: "/experiments/e/runs", query: v("filter=params.lr < 1&order_by=run")},
		"GET /experiments/{name}/runs/{run}": {path: "/experiments/e/runs/r1"},
		"GET /experiments/{name}/compare":    {path: "/experiments/e/compare", query: v("baseline=r1&candidate=r2")},
		"POST /experiments/{name}/compare": {path: "/experiments/e/compare", body: func(*testing.T) (io.Reader, string) {
			return strings.NewReader("baseline=r1&candidate=r2"), "application/x-www-form-urlencoded"
		}},
		"GET /comparisons/{id}": {path: "/comparisons/" + strconv.FormatInt(cmp[0].ID, 10)},
		"POST /logout":          {path: "/logout"},
		"GET /metrics":          {path: "/metrics"},
	}
}
