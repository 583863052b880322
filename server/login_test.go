package server

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

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

// TestSessionsOutliveARestart signs a browser in, restarts the server (a
// new Server on the same database): the cookie still opens the pages, and
// the sign-out form made before the restart still works. Revoking the
// token ends its sessions, and an expired session opens nothing.
func TestSessionsOutliveARestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ts := startServer(t, Config{})
	tok, secret, err := ts.st.CreateToken(ctx, "browser", store.TokenReader, "")
	require.NoError(t, err)
	wc := newWebClient(t, ts)
	wc.signIn("/", secret)
	status, body := wc.get("/")
	require.Equal(t, http.StatusOK, status, body)
	signOut := formCSRF(t, body)

	wc.ts = ts.restart(t, Config{})
	status, body = wc.get("/")
	require.Equal(t, http.StatusOK, status, "the session outlives the restart: %s", body)
	require.Contains(t, body, "Signed in as")
	require.Equal(t, signOut, formCSRF(t, body), "the session's CSRF token is the same")
	status, body = wc.get("/api/v1/experiments")
	require.Equal(t, http.StatusOK, status, body)

	// Revoking the token ends the session, for pages and for the API.
	_, err = ts.st.RevokeToken(ctx, tok.ID)
	require.NoError(t, err)
	status, body = wc.get("/")
	require.Equal(t, http.StatusUnauthorized, status)
	require.Contains(t, body, `action="/login"`)
	status, body = wc.get("/api/v1/experiments")
	require.Equal(t, http.StatusUnauthorized, status)
	code, _ := apiError(t, []byte(body))
	require.Equal(t, "unauthorized", code)

	// An expired session opens nothing; one that has not expired, of the
	// same token, does.
	other, _, err := ts.st.CreateToken(ctx, "other browser", store.TokenReader, "")
	require.NoError(t, err)
	for _, tc := range []struct {
		name    string
		expires time.Time
		want    int
	}{
		{"expired a minute ago", time.Now().Add(-time.Minute), http.StatusUnauthorized},
		{"expires in an hour", time.Now().Add(time.Hour), http.StatusOK},
	} {
		id, err := ts.st.CreateSession(ctx, other.ID, tc.expires)
		require.NoError(t, err)
		req, err := http.NewRequest("GET", wc.ts.url+"/", nil)
		require.NoError(t, err)
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: id})
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, tc.want, resp.StatusCode, tc.name)
	}
}

// TestCookieSecureBehindAProxy serves plain HTTP, as behind a proxy that
// terminates TLS: with CookieSecure every cookie the sign-in sets and
// clears is Secure, and without it none is.
func TestCookieSecureBehindAProxy(t *testing.T) {
	t.Parallel()
	for _, secure := range []bool{false, true} {
		ts := startServer(t, Config{CookieSecure: secure})
		reader := ts.token(t, store.TokenReader, "")
		// No cookie jar: a jar would not send Secure cookies over HTTP.
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		cookie := func(resp *http.Response, name string) *http.Cookie {
			t.Helper()
			for _, c := range resp.Cookies() {
				if c.Name == name {
					return c
				}
			}
			t.Fatalf("no cookie %s in the answer", name)
			return nil
		}
		send := func(method, path string, form url.Values, cookies ...*http.Cookie) *http.Response {
			t.Helper()
			req, err := http.NewRequest(method, ts.url+path, strings.NewReader(form.Encode()))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for _, c := range cookies {
				req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
			}
			resp, err := client.Do(req)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return resp
		}

		resp := send("GET", "/", nil)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		csrf := cookie(resp, loginCSRFCookie)
		require.Equal(t, secure, csrf.Secure, "the sign-in form's cookie, CookieSecure %v", secure)
		resp = send("POST", "/login", url.Values{"csrf": {csrf.Value}, "next": {"/"}, "token": {reader}}, csrf)
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		session := cookie(resp, sessionCookie)
		require.Equal(t, secure, session.Secure, "the session cookie, CookieSecure %v", secure)
		require.True(t, session.HttpOnly)
		require.Equal(t, secure, cookie(resp, loginCSRFCookie).Secure, "the sign-in form's cookie, cleared")
		resp = send("POST", "/logout", url.Values{"csrf": {csrfOf(session.Value)}}, session)
		require.Equal(t, http.StatusSeeOther, resp.StatusCode)
		require.Equal(t, secure, cookie(resp, sessionCookie).Secure, "the session cookie, cleared")
	}
}
