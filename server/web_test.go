package server

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/verdict-ml/verdict/store"
)

// webClient is a browser without a browser: a cookie jar, and redirects
// left to the test, so that it sees each answer the server gives.
type webClient struct {
	t  *testing.T
	ts *testServer
	c  *http.Client
}

func newWebClient(t *testing.T, ts *testServer) *webClient {
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &webClient{t: t, ts: ts, c: &http.Client{Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// get asks for a page and returns its status and body.
func (wc *webClient) get(path string) (int, string) {
	wc.t.Helper()
	resp, err := wc.c.Get(wc.ts.url + path)
	require.NoError(wc.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(wc.t, err)
	return resp.StatusCode, string(b)
}

// post submits a form and returns the response, its body read.
func (wc *webClient) post(path string, form url.Values) (*http.Response, string) {
	wc.t.Helper()
	resp, err := wc.c.PostForm(wc.ts.url+path, form)
	require.NoError(wc.t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(wc.t, err)
	return resp, string(b)
}

// signIn asks for path, gets the sign-in form, and submits it with token.
func (wc *webClient) signIn(path, token string) *http.Response {
	wc.t.Helper()
	status, body := wc.get(path)
	require.Equal(wc.t, http.StatusUnauthorized, status, body)
	resp, body := wc.post("/login", url.Values{"csrf": {formCSRF(wc.t, body)}, "next": {path}, "token": {token}})
	require.Equal(wc.t, http.StatusSeeOther, resp.StatusCode, body)
	return resp
}

var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// formCSRF is the CSRF value of the first form of a page.
func formCSRF(t *testing.T, body string) string {
	t.Helper()
	m := csrfInput.FindStringSubmatch(body)
	require.NotNil(t, m, "no CSRF field in the page:\n%s", body)
	return m[1]
}

// parsePage parses a page and returns its elements by tag, and its text.
func parsePage(t *testing.T, body string) (map[string][]*html.Node, string) {
	t.Helper()
	root, err := html.Parse(strings.NewReader(body))
	require.NoError(t, err)
	tags := map[string][]*html.Node{}
	var text strings.Builder
	for n := range root.Descendants() {
		switch n.Type {
		case html.ElementNode:
			tags[n.Data] = append(tags[n.Data], n)
		case html.TextNode:
			text.WriteString(n.Data)
			text.WriteString(" ")
		}
	}
	return tags, text.String()
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// hrefs are the links of a page's anchors.
func hrefsOf(tags map[string][]*html.Node) []string {
	var out []string
	for _, a := range tags["a"] {
		out = append(out, attr(a, "href"))
	}
	return out
}

// logRuns logs one CSV evaluation of ndcg@10 for each run, over users
// units, through the API, with each run a little better than the one
// before.
func (ts *testServer) logRuns(t *testing.T, token, experiment string, runs []string, users int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, uint64(len(experiment))))
	base := make([]float64, users)
	for u := range base {
		base[u] = rng.Float64()
	}
	for i, run := range runs {
		var b strings.Builder
		b.WriteString("sample_id,ndcg@10\n")
		for u, d := range base {
			fmt.Fprintf(&b, "user-%03d,%.4f\n", u, min(max(0.4*d+0.1+0.02*float64(i)+0.05*rng.NormFloat64(), 0), 1))
		}
		q := url.Values{"experiment": {experiment}, "run": {run}, "eval_set": {"test"}}
		status, body := ts.do(t, "POST", "/api/v1/evaluations?"+q.Encode(), token, strings.NewReader(b.String()), "Content-Type", "text/csv")
		require.Equal(t, http.StatusCreated, status, body)
	}
}

// recordComparison compares two runs through the API, recording it, and
// returns the comparison's ID.
func (ts *testServer) recordComparison(t *testing.T, token, experiment, baseline, candidate string) int64 {
	t.Helper()
	q := url.Values{"experiment": {experiment}, "baseline": {baseline}, "candidate": {candidate}, "seed": {"1"}}
	status, body := ts.do(t, "POST", "/api/v1/compare?"+q.Encode(), token, nil)
	require.Equal(t, http.StatusOK, status, string(body))
	hist, err := ts.st.History(context.Background(), store.HistoryFilter{Experiment: experiment, Limit: 1})
	require.NoError(t, err)
	require.Len(t, hist, 1)
	return hist[0].ID
}

// TestWebSignIn signs a browser in through the form and out again: the
// form's CSRF value must come back with it, a wrong token gets the form
// again with the problem, and the session cookie is HTTP-only and
// SameSite=Strict, ends with signing out and with its token's revocation.
func TestWebSignIn(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	ctx := context.Background()
	reader := ts.token(t, store.TokenReader, "")
	wc := newWebClient(t, ts)

	// Any page asked for without a session is the sign-in form, whose
	// CSRF value is also a cookie.
	status, body := wc.get("/")
	require.Equal(t, http.StatusUnauthorized, status)
	tags, _ := parsePage(t, body)
	require.Len(t, tags["form"], 1)
	require.Equal(t, "/login", attr(tags["form"][0], "action"))
	require.Equal(t, "post", attr(tags["form"][0], "method"))
	csrf := formCSRF(t, body)
	loginURL, err := url.Parse(ts.url + "/login")
	require.NoError(t, err)
	require.Len(t, wc.c.Jar.Cookies(loginURL), 1)
	require.Equal(t, csrf, wc.c.Jar.Cookies(loginURL)[0].Value)

	// A wrong token: the form again, saying why.
	resp, body := wc.post("/login", url.Values{"csrf": {csrf}, "next": {"/"}, "token": {reader + "x"}})
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Contains(t, body, `action="/login"`)
	require.Contains(t, body, `class="problem">the token is invalid or revoked<`)
	require.NotContains(t, body, reader, "the page never shows the token typed")

	// The form's CSRF value missing, or not the cookie's: refused.
	csrf = formCSRF(t, body)
	for _, form := range []url.Values{
		{"next": {"/"}, "token": {reader}},
		{"csrf": {"stale" + csrf}, "next": {"/"}, "token": {reader}},
	} {
		resp, body = wc.post("/login", form)
		require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
		require.Contains(t, body, "the sign-in form is stale")
	}
	// Nor does a form posted without the cookie get in, whatever it says.
	resp, err = http.PostForm(ts.url+"/login", url.Values{"csrf": {csrf}, "token": {reader}})
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)

	// The right token: a session cookie, HTTP-only and SameSite=Strict, and
	// back to the page asked for.
	status, body = wc.get("/experiments/none?x=1")
	require.Equal(t, http.StatusUnauthorized, status)
	resp, body = wc.post("/login", url.Values{"csrf": {formCSRF(t, body)}, "next": {"/experiments/none?x=1"}, "token": {reader}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, body)
	require.Equal(t, "/experiments/none?x=1", resp.Header.Get("Location"))
	var session *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == sessionCookie {
			session = c
		}
	}
	require.NotNil(t, session, "signing in sets the session cookie")
	require.True(t, session.HttpOnly, "no script may read the session cookie")
	require.Equal(t, http.SameSiteStrictMode, session.SameSite, "no other site may send it")
	require.Equal(t, "/", session.Path)
	require.NotContains(t, session.Value, reader, "the cookie holds a session ID, not the token")

	// Every page then says who is signed in, with a sign-out button.
	status, body = wc.get("/")
	require.Equal(t, http.StatusOK, status, body)
	tags, text := parsePage(t, body)
	require.Contains(t, text, "Signed in as")
	require.Contains(t, text, "test-reader-")
	require.Len(t, tags["form"], 1)
	require.Equal(t, "/logout", attr(tags["form"][0], "action"))
	require.Contains(t, text, "Sign out")
	sessionCSRF := formCSRF(t, body)

	// Signing out needs the session's CSRF token.
	resp, body = wc.post("/logout", url.Values{})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	resp, body = wc.post("/logout", url.Values{"csrf": {"x" + sessionCSRF}})
	require.Equal(t, http.StatusForbidden, resp.StatusCode, body)
	status, _ = wc.get("/")
	require.Equal(t, http.StatusOK, status, "a refused sign-out leaves the session")
	resp, body = wc.post("/logout", url.Values{"csrf": {sessionCSRF}})
	require.Equal(t, http.StatusSeeOther, resp.StatusCode, body)
	status, body = wc.get("/")
	require.Equal(t, http.StatusUnauthorized, status, "signed out")
	require.Contains(t, body, `action="/login"`)
	// The old cookie, kept by someone, opens nothing either.
	req, err := http.NewRequest("GET", ts.url+"/", nil)
	require.NoError(t, err)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: session.Value})
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	// Revoking the token ends its sessions.
	victim, secret, err := ts.st.CreateToken(ctx, "to revoke", store.TokenReader, "")
	require.NoError(t, err)
	wc.signIn("/", secret)
	status, _ = wc.get("/")
	require.Equal(t, http.StatusOK, status)
	_, err = ts.st.RevokeToken(ctx, victim.ID)
	require.NoError(t, err)
	status, body = wc.get("/")
	require.Equal(t, http.StatusUnauthorized, status)
	require.Contains(t, body, `action="/login"`)
}

// TestWebPages reads each page signed in: the list of experiments, an
// experiment's report, whose history links to each comparison's page, and
// a comparison's page, with its verdict, sides, difference and a link back.
func TestWebPages(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	writer := ts.token(t, store.TokenWriter, "")
	ts.logRuns(t, writer, "demo", []string{"pop", "knn"}, 60)
	id := ts.recordComparison(t, writer, "demo", "pop", "knn")
	wc := newWebClient(t, ts)
	wc.signIn("/", ts.token(t, store.TokenReader, ""))

	status, body := wc.get("/")
	require.Equal(t, http.StatusOK, status, body)
	tags, text := parsePage(t, body)
	require.Contains(t, text, "Experiments")
	require.Contains(t, hrefsOf(tags), "/experiments/demo")
	require.Len(t, tags["style"], 2, "the report's style sheet, and that of links and forms")

	status, body = wc.get("/experiments/demo")
	require.Equal(t, http.StatusOK, status, body)
	tags, text = parsePage(t, body)
	require.Contains(t, text, "verdict report: demo")
	require.Contains(t, text, "Signed in as")
	links := hrefsOf(tags)
	require.Contains(t, links, fmt.Sprintf("/comparisons/%d", id), "the history links to the comparison")
	require.Contains(t, links, "/", "and back to the list")
	require.Contains(t, links, "#history", "the sections' anchors are still there")
	for _, l := range links {
		require.True(t, strings.HasPrefix(l, "/") || strings.HasPrefix(l, "#"), "a page links within the server only: %s", l)
	}
	// An evaluation's link opens its record for a signed-in browser.
	var eval string
	for _, l := range links {
		if strings.HasPrefix(l, "/api/v1/evaluations/") {
			eval = l
		}
	}
	require.NotEmpty(t, eval, "the runs link to their evaluations")
	status, body = wc.get(eval)
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, `"experiment": "demo"`)

	h, err := ts.st.GetComparison(context.Background(), id)
	require.NoError(t, err)
	status, body = wc.get(fmt.Sprintf("/comparisons/%d", id))
	require.Equal(t, http.StatusOK, status, body)
	tags, text = parsePage(t, body)
	require.Contains(t, text, h.Verdict)
	require.Contains(t, text, "baseline")
	require.Contains(t, text, "candidate")
	require.Contains(t, text, "pop")
	require.Contains(t, text, "knn")
	require.Contains(t, text, "DIFFERENCE [CI]")
	require.Contains(t, text, h.Method)
	require.Contains(t, text, fmt.Sprint(h.N))
	require.Contains(t, hrefsOf(tags), "/experiments/demo", "a link back to the experiment")
	require.Contains(t, text, "Sign out")

	// Each page forbids scripts and loading anything, should markup ever
	// slip through.
	resp, err := wc.c.Get(ts.url + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")

	// A comparison or experiment that does not exist: 404, not a crash.
	status, _ = wc.get("/comparisons/999999")
	require.Equal(t, http.StatusNotFound, status)
	status, _ = wc.get("/experiments/nothing")
	require.NotEqual(t, http.StatusOK, status)
}

// TestWebEscapesNames gives an experiment and runs names that are markup:
// every page shows them as text.
func TestWebEscapesNames(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	writer := ts.token(t, store.TokenWriter, "")
	exp := `<script>alert("x")</script>`
	runs := []string{`<img src=x onerror=alert(1)>`, `"><b>bold</b>`}
	ts.logRuns(t, writer, exp, runs, 40)
	id := ts.recordComparison(t, writer, exp, runs[0], runs[1])
	wc := newWebClient(t, ts)
	wc.signIn("/", ts.token(t, store.TokenReader, ""))

	for _, path := range []string{"/", "/experiments/" + url.PathEscape(exp), fmt.Sprintf("/comparisons/%d", id)} {
		status, body := wc.get(path)
		require.Equal(t, http.StatusOK, status, "%s: %s", path, body)
		tags, text := parsePage(t, body)
		require.Empty(t, tags["script"], path)
		require.Empty(t, tags["img"], path)
		require.Empty(t, tags["b"], path)
		require.Contains(t, text, exp, "%s shows the name as text", path)
		if path == "/" || strings.HasPrefix(path, "/comparisons/") {
			require.Contains(t, hrefsOf(tags), "/experiments/"+url.PathEscape(exp), "%s links to the experiment by its escaped name", path)
		}
		if path != "/" {
			require.Contains(t, text, runs[0], path)
			require.Contains(t, text, runs[1], path)
		}
	}
}

// TestWebLimitedToken: a token limited to experiment b lists b alone and
// cannot open a's report or comparisons.
func TestWebLimitedToken(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	writer := ts.token(t, store.TokenWriter, "")
	ts.logRuns(t, writer, "a", []string{"x", "y"}, 30)
	ts.logRuns(t, writer, "b", []string{"x", "y"}, 30)
	idA := ts.recordComparison(t, writer, "a", "x", "y")
	wc := newWebClient(t, ts)
	wc.signIn("/", ts.token(t, store.TokenReader, "b"))

	status, body := wc.get("/")
	require.Equal(t, http.StatusOK, status, body)
	tags, text := parsePage(t, body)
	require.Contains(t, hrefsOf(tags), "/experiments/b")
	require.NotContains(t, hrefsOf(tags), "/experiments/a")
	require.Contains(t, text, "experiment b only", "the banner says what the token may see")

	status, body = wc.get("/experiments/b")
	require.Equal(t, http.StatusOK, status, body)
	for _, path := range []string{"/experiments/a", fmt.Sprintf("/comparisons/%d", idA)} {
		status, body = wc.get(path)
		require.Equal(t, http.StatusForbidden, status, path)
		require.Contains(t, body, `limited to experiment &#34;b&#34;`, path)
		require.NotContains(t, body, "verdict report: a", path)
	}
}
