package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store/storetest"
)

// TestResamplesBoundedAndCompareStopsOnSIGTERM asks for a billion resamples
// (refused, with the bound explained) and then for the most allowed on
// 100,000 units, about a minute of CPU time, and sends SIGTERM once the
// compare is seen resampling: the process stops there at once, with exit
// code 2, recording nothing.
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

	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skipf("the test tells that the compare is resampling by its CPU time, which it reads from /proc: %v", err)
	}
	cmd := verdictCmd(t, "--database-url", url, "compare", "-e", "big", "--resamples", "1000000", "a", "b")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	exited := startVerdict(t, cmd)
	// The server has done the pairing when the compare's session waits in
	// its transaction after the join. The process may still be reading the
	// last rows from its socket, milliseconds of work: once it has computed
	// half a second more, it is resampling.
	awaitSeen(t, url, exited, "the server has paired the runs", `
		SELECT EXISTS (
			SELECT FROM pg_stat_activity
			WHERE datname = current_database() AND application_name = 'verdict'
			  AND state = 'idle in transaction' AND query LIKE '%ON r.sample_id = l.sample_id%')`)
	paired, err := cpuTime(cmd.Process.Pid)
	require.NoError(t, err)
	await(t, exited, "the compare is resampling", func() bool {
		used, err := cpuTime(cmd.Process.Pid)
		return err == nil && used >= paired+500*time.Millisecond
	})
	signalled, err := cpuTime(cmd.Process.Pid)
	require.NoError(t, err)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	err = awaitExit(t, exited, "a compare sent SIGTERM")
	require.Equal(t, exitError, exitCode(t, err), "a cancelled compare does not succeed: %s", stderr.String())
	require.Equal(t, "verdict: m: context canceled\n", stderr.String(), "it stopped in the metric's resampling")
	// It stops at once: of the CPU time the resampling had left, most of a
	// minute, it spends a few chunks of 32 resamples, milliseconds. This
	// counts CPU time, which a loaded machine does not stretch as it does
	// time waited.
	after := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() - signalled
	require.Less(t, after, time.Second, "the CPU time the compare spent after SIGTERM")
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM comparisons`), "nothing recorded")
}

// cpuTime is the CPU time, user and system, that process pid has used, as
// /proc/PID/stat counts it in clock ticks of 10 ms (USER_HZ).
func cpuTime(pid int) (time.Duration, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which is in parentheses and may
	// hold any character, start with the state; utime and stime are the
	// 14th and 15th of the whole line.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q has no utime and stime", pid, stat)
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}
