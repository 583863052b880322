package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store/storetest"
)

// TestResamplesBoundedAndCompareStopsOnSIGTERM asks for a billion resamples
// (refused, with the bound explained) and then for the most allowed on
// 100,000 units, minutes of work, and sends SIGTERM after the pairing: the
// process stops within a second, recording nothing.
func TestResamplesBoundedAndCompareStopsOnSIGTERM(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	for _, run := range []string{"a", "b"} {
		var b strings.Builder
		b.WriteString("sample_id,m\n")
		for u := range 100_000 {
			fmt.Fprintf(&b, "u%06d,%g\n", u, float64((u*7+int(run[0]))%11)/10)
		}
		path := filepath.Join(t.TempDir(), run+".csv")
		require.NoError(t, writeFileErr(path, b.String()))
		res := runVerdict(t, url, "log", "-e", "big", "-r", run, "-s", "test", path)
		require.Equal(t, 0, res.code, res.stderr)
	}

	res := runVerdict(t, url, "compare", "-e", "big", "--resamples", "1000000000", "a", "b")
	require.Equal(t, exitError, res.code)
	require.Contains(t, res.stderr, "resamples must be from 1 to 1000000, got 1000000000")

	cmd := verdictCmd(t, "--database-url", url, "compare", "-e", "big", "--resamples", "1000000", "a", "b")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	time.Sleep(2 * time.Second)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	sent := time.Now()
	err := cmd.Wait()
	require.Error(t, err, "a cancelled compare does not succeed")
	require.Less(t, time.Since(sent), time.Second, "stopped within a second of SIGTERM")
	require.Contains(t, stderr.String(), "context canceled")
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM comparisons`), "nothing recorded")
}
