package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store/storetest"
)

// TestServeAndTokens makes tokens with the command line, serves the
// database with `verdict serve` as its own process, logs and reads through
// the API, revokes a token, and stops the server with SIGTERM.
func TestServeAndTokens(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)

	res := runVerdict(t, url, "token", "create", "--name", "ci", "--role", "writer")
	require.Equal(t, 0, res.code, res.stderr)
	writer := strings.TrimSpace(res.stdout)
	require.Regexp(t, `^vdt_1_[A-Za-z0-9_-]{43}$`, writer, "stdout is the secret alone")
	require.Contains(t, res.stderr, `token 1 "ci", a writer for every experiment`)
	res = runVerdict(t, url, "token", "create", "--name", "analyst", "--role", "reader", "-e", "other")
	require.Equal(t, 0, res.code, res.stderr)
	reader := strings.TrimSpace(res.stdout)
	res = runVerdict(t, url, "token", "create", "--name", "x", "--role", "root")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "--role")
	res = runVerdict(t, url, "serve", "--metrics-addr", "not an address", "--spool-dir", t.TempDir())
	require.Equal(t, 2, res.code, res.stderr)
	require.Contains(t, res.stderr, "--metrics-addr")

	spool := t.TempDir()
	cmd := verdictCmd(t, "--database-url", url, "serve", "--listen", "127.0.0.1:0", "--spool-dir", spool, "--cookie-secure",
		"--metrics-addr", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	require.True(t, lines.Scan(), "the server says where it listens")
	addrs := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`).FindAllString(lines.Text(), -1)
	require.Len(t, addrs, 2, "the API's address, then the metrics': %s", lines.Text())
	addr, metrics := addrs[0], addrs[1]
	logs := make(chan string, 1)
	go func() {
		var all strings.Builder
		for lines.Scan() {
			all.WriteString(lines.Text() + "\n")
		}
		logs <- all.String()
	}()

	call := func(method, path, token, body string) (int, string) {
		req, err := http.NewRequest(method, addr+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "text/csv")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	// --cookie-secure: the sign-in form's cookie is Secure over plain HTTP,
	// as behind a proxy that terminates TLS.
	resp, err := http.Get(addr + "/")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.NotEmpty(t, resp.Cookies())
	for _, c := range resp.Cookies() {
		require.True(t, c.Secure, "cookie %s", c.Name)
	}

	status, body := call("POST", "/api/v1/evaluations?experiment=e&run=a&eval_set=test", writer, "sample_id,x\nu1,1\nu2,0\n")
	require.Equal(t, 201, status, body)
	status, body = call("GET", "/api/v1/runs?experiment=e", writer, "")
	require.Equal(t, 200, status, body)
	require.Contains(t, body, `"run": "a"`)
	status, body = call("GET", "/api/v1/runs?experiment=e", reader, "")
	require.Equal(t, 403, status, body)

	// The metrics, on their own address, need no token.
	resp, err = http.Get(metrics + "/metrics")
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	require.Contains(t, string(b), `verdict_evaluations_logged_total 1`)

	res = runVerdict(t, url, "token", "revoke", "1")
	require.Equal(t, 0, res.code, res.stderr)
	status, _ = call("GET", "/api/v1/runs?experiment=e", writer, "")
	require.Equal(t, 401, status)
	res = runVerdict(t, url, "token", "list", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, `"revoked_at"`)
	require.NotContains(t, res.stdout, writer[len(writer)-20:], "the list never shows a secret")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		require.NoError(t, err, "a clean exit after SIGTERM")
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop after SIGTERM")
	}
	left, err := os.ReadDir(spool)
	require.NoError(t, err)
	for _, e := range left {
		require.False(t, e.IsDir(), "the server removed its folder of uploads when it stopped: %s is left", e.Name())
	}
	all := <-logs
	require.Contains(t, all, `"path":"/api/v1/evaluations"`)
	require.NotContains(t, all, writer)
	require.NotContains(t, all, reader)
}
