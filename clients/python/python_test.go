// Package python_test runs the Python client's tests against a real server:
// `verdict serve`'s handler over a fresh database, with a writer and a
// reader token, through Debian's /usr/bin/python3.
package python_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/testenv"
	"github.com/verdict-ml/verdict/server"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// python is the interpreter the tests run with: Debian's, which CI
// provides with NumPy and pandas, rather than whatever python3 is first on
// PATH.
const python = "/usr/bin/python3"

const install = "apt-get install python3 python3-numpy python3-pandas python3-scipy"

// startServer serves a fresh database on a loopback port until the test
// ends, and returns its URL and store.
func startServer(t *testing.T) (string, *store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	srv, err := server.New(st, server.Config{SpoolDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Close()) })
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
		testenv.Need(t, testenv.Python, fmt.Sprintf("the Python client's tests need %s with NumPy, pandas and SciPy: %s", python, install))
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

	// Every skip of the client's tests is reported as a skipped subtest, so
	// that it shows in `go test -v` and in .ci/run's summary; where the run
	// promised Python with NumPy, pandas and SciPy (package internal/testenv),
	// a skip fails instead, since it would hide a broken client.
	skips := skippedTests(text)
	if len(skips) > 0 && testenv.Required(testenv.Python) {
		t.Fatalf("%d of the Python client's tests skipped, yet the run promised %s (%s):\n%s",
			len(skips), python+" with NumPy, pandas and SciPy", install, strings.Join(skips, "\n"))
	}
	for _, s := range skips {
		t.Run(strings.Fields(s)[0], func(t *testing.T) { t.Skip(s) })
	}
}

// skippedTests returns the `name ... skipped 'reason'` lines of
// `python3 -m unittest -v` output as "name (module.Class.name): reason", one
// per skipped test. A skipped class prints one such line naming the class.
func skippedTests(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if name, reason, ok := strings.Cut(line, " ... skipped "); ok {
			out = append(out, strings.TrimSpace(name)+": "+strings.Trim(strings.TrimSpace(reason), "'"))
		}
	}
	return out
}
