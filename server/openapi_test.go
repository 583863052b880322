package server

import (
	"context"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// TestOpenAPIValidates loads the served /api/v1/openapi.json with
// kin-openapi and validates it against the OpenAPI 3 schema, then holds its
// operations to the router's table: every route, as method and path with
// the mux syntax translated, and nothing else, each declaring the statuses
// it answers and the Idempotency-Key header where it takes one.
func TestOpenAPIValidates(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	status, b := ts.do(t, "GET", "/api/v1/openapi.json", ts.token(t, store.TokenReader, ""), nil)
	require.Equal(t, 200, status, string(b))

	doc, err := openapi3.NewLoader().LoadFromData(b)
	require.NoError(t, err)
	require.NoError(t, doc.Validate(context.Background()))

	want := map[string]route{}
	for _, rt := range ts.routes {
		want[rt.method+" "+openAPIPath(rt.pattern)] = rt
	}
	got := map[string]*openapi3.Operation{}
	for path, item := range doc.Paths.Map() {
		require.NotContains(t, path, "{$}", "mux syntax in %s", path)
		require.NotContains(t, path, "...}", "mux syntax in %s", path)
		for method, op := range item.Operations() {
			got[method+" "+path] = op
		}
	}
	wantKeys, gotKeys := make([]string, 0, len(want)), make([]string, 0, len(got))
	for k := range want {
		wantKeys = append(wantKeys, k)
	}
	for k := range got {
		gotKeys = append(gotKeys, k)
	}
	require.ElementsMatch(t, wantKeys, gotKeys, "the document's operations are the router's routes")

	for key, rt := range want {
		op := got[key]
		switch {
		case rt.created:
			require.NotNil(t, op.Responses.Value("201"), "%s answers 201", key)
		case rt.web && rt.method == "POST":
			require.NotNil(t, op.Responses.Value("303"), "%s answers 303", key)
		default:
			require.NotNil(t, op.Responses.Value("200"), "%s answers 200", key)
			require.Nil(t, op.Responses.Value("201"), "%s creates nothing", key)
		}
		require.Equal(t, rt.conflict != "", op.Responses.Value("409") != nil, "%s: 409", key)
		require.Equal(t, rt.body != "", op.Responses.Value("413") != nil, "%s: 413", key)
		require.Equal(t, !rt.public, op.Responses.Value("429") != nil, "%s: 429", key)
		header := op.Parameters.GetByInAndName("header", "Idempotency-Key")
		require.Equal(t, rt.idempotent, header != nil, "%s: Idempotency-Key", key)
		for _, seg := range strings.Split(openAPIPath(rt.pattern), "/") {
			if name, ok := strings.CutPrefix(seg, "{"); ok {
				require.NotNil(t, op.Parameters.GetByInAndName("path", strings.TrimSuffix(name, "}")), "%s: path parameter %s", key, seg)
			}
		}
	}
	require.NotNil(t, got["POST /api/v1/evaluations"].Responses.Value("201"), "logging an evaluation answers 201")
	require.NotNil(t, got["POST /api/v1/evaluations"].Responses.Value("200"), "a retry answers 200")
	require.NotNil(t, got["GET /"], "the home page is the plain path /")
}
