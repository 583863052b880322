package server

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// TestLoginRedirectStaysOnServer signs in with each next= a browser could
// be sent off this server by, and gets "/" back as the Location; a path on
// this server is kept, cleaned as http.Redirect cleans it.
func TestLoginRedirectStaysOnServer(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	reader := ts.token(t, store.TokenReader, "")
	for _, tc := range []struct {
		name, next, want string
	}{
		{name: "two slashes", next: "//evil.example", want: "/"},
		{name: "slash backslash", next: `/\evil.example`, want: "/"},
		{name: "tab", next: "/\t/evil.example", want: "/"},
		{name: "newline", next: "/\n/evil.example", want: "/"},
		{name: "carriage return", next: "/\r/evil.example", want: "/"},
		{name: "NUL", next: "/\x00/evil.example", want: "/"},
		{name: "backslash after cleaning", next: `/./\evil.example`, want: "/"},
		{name: "backslash after dot-dot", next: `/a/../\evil.example`, want: "/"},
		{name: "encoded slash", next: "/%2F/evil.example", want: "/"},
		{name: "encoded slashes", next: "/%2f%2fevil.example", want: "/"},
		{name: "encoded backslash", next: "/%5Cevil.example", want: "/"},
		{name: "absolute URL", next: "https://evil.example", want: "/"},
		{name: "scheme-relative backslash", next: `\/evil.example`, want: "/"},
		{name: "leading space", next: " //evil.example", want: "/"},
		{name: "leading spaces before a path", next: "  /experiments/x", want: "/"},
		{name: "javascript", next: "javascript:alert(1)", want: "/"},
		{name: "relative", next: "experiments/x", want: "/"},
		{name: "empty", next: "", want: "/"},
		{name: "a page with a query", next: "/experiments/none?x=1", want: "/experiments/none?x=1"},
		{name: "an escaped name", next: "/experiments/a%2Fb", want: "/experiments/a%2Fb"},
		{name: "dot-dot inside", next: "/experiments/x/../y", want: "/experiments/y"},
		{name: "trailing slash", next: "/experiments/", want: "/experiments/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wc := newWebClient(t, ts)
			status, body := wc.get("/")
			require.Equal(t, http.StatusUnauthorized, status)
			resp, body := wc.post("/login", url.Values{"csrf": {formCSRF(t, body)}, "next": {tc.next}, "token": {reader}})
			require.Equal(t, http.StatusSeeOther, resp.StatusCode, body)
			require.Equal(t, tc.want, resp.Header.Get("Location"))
		})
	}
}
