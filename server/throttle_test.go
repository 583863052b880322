package server

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// clientFrom is an HTTP client whose connections come from ip, an address
// of the loopback range (Linux answers on all of 127.0.0.0/8).
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// TestFailedTokensThrottled fails to authenticate from one address, with
// bearer tokens and with the sign-in form, past its allowance: 429 with
// Retry-After, while a valid token from the same address is served at once
// and another address is not limited.
func TestFailedTokensThrottled(t *testing.T) {
	t.Parallel()
	const burst = 3
	// One more failure an hour: none is allowed again while the test runs.
	ts := startServer(t, Config{FailedAuthBurst: burst, FailedAuthEvery: time.Hour})
	reader := ts.token(t, store.TokenReader, "")
	wrong := reader[:len(reader)-4] + map[bool]string{true: "AAAA", false: "BBBB"}[!strings.HasSuffix(reader, "AAAA")]
	call := func(client *http.Client, header string) *http.Response {
		t.Helper()
		req, err := http.NewRequest("GET", ts.url+"/api/v1/experiments", nil)
		require.NoError(t, err)
		if header != "" {
			req.Header.Set("Authorization", header)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	tooMany := func(resp *http.Response) {
		t.Helper()
		require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		secs, err := strconv.Atoi(resp.Header.Get("Retry-After"))
		require.NoError(t, err, "Retry-After is a number of seconds: %q", resp.Header.Get("Retry-After"))
		require.Positive(t, secs)
		require.LessOrEqual(t, secs, 3600)
	}

	// Bearer tokens from 127.0.0.1: wrong, malformed, another scheme.
	a := clientFrom("127.0.0.1")
	for i, h := range []string{"Bearer " + wrong, "Bearer vdt_x", "Basic " + reader} {
		require.Equal(t, http.StatusUnauthorized, call(a, h).StatusCode, "failure %d is within the allowance", i+1)
	}
	resp := call(a, "Bearer "+wrong)
	tooMany(resp)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	code, msg := apiError(t, body)
	require.Equal(t, "rate_limited", code)
	require.Contains(t, msg, "try again in")
	// No token at all is no failure, and is still 401.
	require.Equal(t, http.StatusUnauthorized, call(a, "").StatusCode)
	// A valid token from the same address is served, every time.
	for range 5 {
		require.Equal(t, http.StatusOK, call(a, "Bearer "+reader).StatusCode)
	}
	tooMany(call(a, "Bearer "+wrong))

	// Another address is not limited by the first's failures.
	b := clientFrom("127.0.0.2")
	require.Equal(t, http.StatusUnauthorized, call(b, "Bearer "+wrong).StatusCode)
	require.Equal(t, http.StatusOK, call(b, "Bearer "+reader).StatusCode)

	// Failed sign-ins from a third address, through the form.
	wc := newWebClient(t, ts)
	wc.c.Transport = clientFrom("127.0.0.3").Transport
	for i := range burst + 1 {
		status, page := wc.get("/")
		require.Equal(t, http.StatusUnauthorized, status)
		resp, page := wc.post("/login", url.Values{"csrf": {formCSRF(t, page)}, "next": {"/"}, "token": {wrong}})
		if i < burst {
			require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "failure %d is within the allowance", i+1)
			require.Contains(t, page, "the token is invalid or revoked")
			continue
		}
		tooMany(resp)
		require.Contains(t, page, "try again in")
	}
	// The right token still signs in from there.
	wc.signIn("/", reader)
	status, page := wc.get("/")
	require.Equal(t, http.StatusOK, status, page)

	// Nothing was logged or stored for the refused requests, and the
	// request log has their statuses.
	require.Contains(t, ts.log.String(), `"status":429`)
	hist, err := ts.st.History(context.Background(), store.HistoryFilter{})
	require.NoError(t, err)
	require.Empty(t, hist)
}

// TestThrottleKeepsFewAddresses: the throttle keeps at most its bound of
// addresses, the one that failed least recently giving way, and counts an
// IPv6 client by its /64.
func TestThrottleKeepsFewAddresses(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	th := newThrottle(time.Hour, 1, 2)
	require.Zero(t, th.fail("a", now))
	require.Equal(t, time.Hour, th.fail("a", now), "a's one failure is spent; the next is an hour away")
	require.Zero(t, th.fail("b", now))
	require.Zero(t, th.fail("c", now), "a third address: a, the least recent, gives way")
	require.Equal(t, 2, th.len())
	require.Zero(t, th.fail("a", now), "a starts afresh")
	require.Equal(t, 30*time.Minute, th.fail("c", now.Add(30*time.Minute)), "half the hour has refilled half a failure")
	require.Equal(t, 2, th.len())

	for _, tc := range []struct{ remote, want string }{
		{"192.0.2.7:4321", "192.0.2.7"},
		{"[::ffff:192.0.2.7]:4321", "192.0.2.7"},
		{"[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2:ffff::1]:443", "2001:db8:1:2::/64"},
		{"[fe80::1%eth0]:443", "fe80::/64"},
		{"@", "@"},
	} {
		require.Equal(t, tc.want, clientKey(&http.Request{RemoteAddr: tc.remote}), tc.remote)
	}
}
