package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

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
