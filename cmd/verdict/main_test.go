package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store/storetest"
)

// TestMain doubles as the verdict binary: with VERDICT_TEST_AS_MAIN=1 the test
// executable runs main() instead of the tests, so tests can start real
// verdict processes (to kill them, or to run several at once) without a
// separate build.
func TestMain(m *testing.M) {
	if os.Getenv("VERDICT_TEST_AS_MAIN") == "1" {
		main()
		return
	}
	storetest.Main(m)
}

// verdictCmd returns a command running this test binary as verdict.
func verdictCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), "VERDICT_TEST_AS_MAIN=1")
	return cmd
}

// safetyNet bounds the waits of tests that act on what they see a verdict
// process do. It only keeps a broken test from hanging; no test measures
// anything by it.
const safetyNet = time.Minute

// startVerdict starts cmd, made by verdictCmd, and returns a channel that
// receives what its Wait returns. The process is killed if t ends first.
func startVerdict(t *testing.T, cmd *exec.Cmd) <-chan error {
	t.Helper()
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return exited
}

// awaitExit returns what the Wait of a process started by startVerdict
// returned, failing t if it has not exited within safetyNet.
func awaitExit(t *testing.T, exited <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-exited:
		return err
	case <-time.After(safetyNet):
		require.FailNow(t, what+": still running after "+safetyNet.String())
		return nil
	}
}

// await polls seen until it returns true, so that a test acts once it sees
// the work it waits for under way rather than after a time it hopes is
// long enough. It fails t if the process whose Wait result exited receives
// ends first, or if nothing is seen within safetyNet.
func await(t *testing.T, exited <-chan error, what string, seen func() bool) {
	t.Helper()
	deadline := time.After(safetyNet)
	for !seen() {
		select {
		case err := <-exited:
			require.FailNowf(t, "the process ended before "+what, "%v", err)
		case <-deadline:
			require.FailNow(t, "not seen within "+safetyNet.String()+": "+what)
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// awaitSeen is await for query, which returns one boolean, on the database
// at url.
func awaitSeen(t *testing.T, url string, exited <-chan error, what, query string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	await(t, exited, what, func() bool {
		var seen bool
		require.NoError(t, conn.QueryRow(ctx, query).Scan(&seen), "waiting until %s", what)
		return seen
	})
}

// exitCode is the exit code of a process whose Wait returned err; it fails
// t unless the process exited by itself with a code other than 0.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the process failed")
	require.True(t, exit.Exited(), "the process exited by itself, not by a signal: %v", exit)
	return exit.ExitCode()
}

// result is what a command line did.
type result struct {
	code           int
	stdout, stderr string
}

// runVerdict runs a command line in-process against the database at url.
func runVerdict(t *testing.T, url string, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	full := append([]string{"verdict", "--database-url", url}, args...)
	code := run(context.Background(), full, &out, &errOut)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

// writeFile writes content to name in a temporary folder and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// queryInt runs a query returning one integer.
func queryInt(t *testing.T, url, query string, args ...any) int {
	t.Helper()
	return storetest.Scalar[int](t, url, query, args...)
}

func writeFileErr(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }
