// Package python_test runs the Python client's tests against a real server:
// `verdict serve`'s handler over a fresh database, with a writer and a
// reader token, through Debian's /usr/bin/python3.
package python_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/server"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// python is the interpreter the tests run with: Debian's, which CI
// provides with NumPy and pandas, rather than whatever python3 is first on
// PATH.
const python = "/usr/bin/python3"

const install = "apt-get install python3 python3-numpy python3-pandas"

// startServer serves a fresh database on a loopback port until the test
// ends, and returns its URL and store.
func startServer(t *testing.T) (string, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	srv, err := server.New(st, server.Config{})
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l, "", "") }()
	var once sync.Once
	t.Cleanup(func() {
		once.Do(func() {
			cancel()
			require.NoError(t, <-done)
		})
	})
	return "http://" + l.Addr().String(), st
}

// TestPythonClient runs `python3 -m unittest discover` on the client's
// tests, with VERDICT_URL, VERDICT_TOKEN (a writer) and
// VERDICT_READER_TOKEN set, and the package importable from its source.
func TestPythonClient(t *testing.T) {
	if _, err := os.Stat(python); err != nil {
		t.Fatalf("the Python client's tests need %s with NumPy and pandas: %s", python, install)
	}
	dir, err := filepath.Abs(".")
	require.NoError(t, err)
	url, st := startServer(t)
	ctx := context.Background()
	_, writer, err := st.CreateToken(ctx, "python-writer", store.TokenWriter, "")
	require.NoError(t, err)
	_, reader, err := st.CreateToken(ctx, "python-reader", store.TokenReader, "")
	require.NoError(t, err)

	tctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(tctx, python, "-m", "unittest", "discover", "-s", filepath.Join(dir, "tests"), "-t", dir, "-v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"VERDICT_URL="+url,
		"VERDICT_TOKEN="+writer,
		"VERDICT_READER_TOKEN="+reader,
		"PYTHONPATH="+dir,
		"PYTHONDONTWRITEBYTECODE=1", // no __pycache__ in the source tree
		"PYTHONUNBUFFERED=1",
	)
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("the Python client's tests failed (%v):\n%s", err, text)
	}
	t.Logf("%s", text)

	// The NumPy and pandas tests must run where NumPy and pandas are: CI
	// installs them, and a skip there would hide a broken client.
	haveNumPy := exec.CommandContext(tctx, python, "-c", "import numpy, pandas").Run() == nil
	skipped := strings.Contains(text, "numpy is not installed") || strings.Contains(text, "pandas is not installed")
	switch {
	case haveNumPy && skipped:
		t.Fatalf("NumPy and pandas import, yet their tests were skipped:\n%s", text)
	case !haveNumPy && os.Getenv("CI") != "":
		t.Fatalf("the Python client's NumPy and pandas tests were skipped: %s", install)
	case !haveNumPy:
		t.Logf("NumPy or pandas is missing, so their tests were skipped: %s", install)
	}
}
