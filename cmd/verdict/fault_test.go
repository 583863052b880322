package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/testenv"
	"github.com/verdict-ml/verdict/store/localpg"
	"github.com/verdict-ml/verdict/store/storetest"
)

// TestLogKilledAtAnyMomentLeavesNothing kills `verdict log` processes with
// SIGKILL at moments spread over a log's whole life (before the COPY, in
// it, during the index build, the attach, after the commit), plain and over
// three connections. After each kill the database holds the whole
// evaluation or none of it, and no table of values outside the evaluations;
// a retry of the same file then succeeds and stores it once.
func TestLogKilledAtAnyMomentLeavesNothing(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	const users = 100_000
	var b strings.Builder
	b.WriteString("sample_id,ndcg@10,recall@20\n")
	for u := range users {
		fmt.Fprintf(&b, "user-%06d,%g,%g\n", u, float64(u%97)/97, float64(u%89)/89)
	}
	path := filepath.Join(t.TempDir(), "scores.csv")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))

	// How long a whole log takes, to spread the kills over it.
	start := time.Now()
	res := runVerdict(t, url, "log", "-e", "timing", "-r", "r", "-s", "test", path)
	require.Equal(t, 0, res.code, res.stderr)
	whole := time.Since(start)

	for _, connections := range []string{"1", "3"} {
		for i, frac := range []float64{0.02, 0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1.05} {
			run := fmt.Sprintf("killed-%s-%d", connections, i)
			cmd := verdictCmd(t, "--database-url", url, "log", "-e", "faults", "-r", run, "-s", "test",
				"--connections", connections, path)
			require.NoError(t, cmd.Start())
			time.Sleep(time.Duration(frac * float64(whole)))
			_ = cmd.Process.Signal(syscall.SIGKILL)
			_ = cmd.Wait()

			// Whole or nothing: an evaluation of this run has every user.
			n := queryInt(t, url, `SELECT count(*) FROM evaluation_overview WHERE run = $1`, run)
			if n == 1 {
				require.Equal(t, users, queryInt(t, url, `SELECT n_units FROM evaluation_overview WHERE run = $1`, run), run)
			} else {
				require.Equal(t, 0, n, run)
			}
			// The retry stores it once, and leaves no table behind.
			res := runVerdict(t, url, "log", "-e", "faults", "-r", run, "-s", "test", "--connections", connections, path)
			require.Equal(t, 0, res.code, "%s: %s", run, res.stderr)
			require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM evaluation_overview WHERE run = $1`, run), run)
			require.Zero(t, queryInt(t, url, `
				SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
				WHERE n.nspname = 'verdict_units' AND c.relkind = 'r'
				  AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid)`), "%s: a table of values outside the evaluations", run)
		}
	}
	// Every evaluation that exists is whole.
	require.Zero(t, queryInt(t, url, `
		SELECT count(*) FROM evaluation_overview o
		WHERE o.n_rows <> (SELECT count(*) FROM unit_values v WHERE v.evaluation_id = o.evaluation_id)`))
}

// TestServerKilledMidLogAndMidCompare runs its own cluster and shuts its
// server down at once (SIGQUIT to the postmaster, what pg_ctl stop -m
// immediate sends) in the middle of a log and of a compare, once each is
// seen at work: each fails with an error, the restarted server holds
// nothing partial and no comparison, and the retries succeed.
func TestServerKilledMidLogAndMidCompare(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	home, err := os.MkdirTemp("", "verdict-fault-")
	require.NoError(t, err)
	cl := localpg.New(home)
	t.Cleanup(func() {
		_ = cl.Stop(context.Background())
		_ = os.RemoveAll(home)
	})
	url, err := cl.Ensure(ctx)
	require.NoError(t, err)
	res := runVerdict(t, url, "migrate")
	require.Equal(t, 0, res.code, res.stderr)
	kill := func() {
		s, err := cl.Status(ctx)
		require.NoError(t, err)
		require.True(t, s.Running)
		require.NoError(t, syscall.Kill(s.PID, syscall.SIGQUIT))
	}
	var b strings.Builder
	b.WriteString("sample_id,m\n")
	for u := range 300_000 {
		fmt.Fprintf(&b, "u%06d,%g\n", u, float64(u%13)/13)
	}
	path := filepath.Join(t.TempDir(), "scores.csv")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))

	// Mid-log: the log reads the file through a named pipe, so it cannot
	// end before the test has written the second half, and the server dies
	// once rows of the first have reached the COPY.
	fifo := filepath.Join(t.TempDir(), "fifo.csv")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	cmd := verdictCmd(t, "--database-url", url, "log", "-e", "faults", "-r", "a", "-s", "test", fifo)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	exited := startVerdict(t, cmd)
	w := openPipe(t, fifo, exited)
	half := strings.Index(b.String()[b.Len()/2:], "\n") + b.Len()/2 + 1
	_, err = w.WriteString(b.String()[:half])
	require.NoError(t, err)
	awaitSeen(t, url, exited, "rows of the log have reached its COPY", `
		SELECT EXISTS (
			SELECT FROM pg_stat_progress_copy p JOIN pg_stat_activity a USING (pid)
			WHERE p.datname = current_database() AND a.application_name = 'verdict'
			  AND p.tuples_processed > 0)`)
	kill()
	// The rest of the input, which the log stops reading once it finds
	// its connection gone.
	_, _ = w.WriteString(b.String()[half:])
	require.NoError(t, w.Close())
	err = awaitExit(t, exited, "a log whose server died")
	require.Equal(t, exitError, exitCode(t, err), "a log whose server died does not succeed: %s", stderr.String())
	// It says what happened: the connection went while it loaded the values.
	require.True(t, strings.HasPrefix(stderr.String(), "verdict: load per-unit values: "), stderr.String())
	url, err = cl.Ensure(ctx) // restarts the server, which recovers
	require.NoError(t, err)
	require.Zero(t, queryInt(t, url, `SELECT count(*) FROM evaluations`), "nothing of the killed log")
	require.Zero(t, queryInt(t, url, `SELECT count(*) FROM pg_tables WHERE schemaname = 'verdict_units'`), "no table of its values")
	res = runVerdict(t, url, "log", "-e", "faults", "-r", "a", "-s", "test", path)
	require.Equal(t, 0, res.code, res.stderr)
	other := filepath.Join(t.TempDir(), "other.csv")
	require.NoError(t, os.WriteFile(other, []byte(strings.ReplaceAll(b.String(), ",0.", ",0.1")), 0o644))
	res = runVerdict(t, url, "log", "-e", "faults", "-r", "b", "-s", "test", other)
	require.Equal(t, 0, res.code, res.stderr)

	// Mid-compare: pairing 300,000 users and resampling them 20,000 times
	// takes seconds; the server dies once the compare's transaction is
	// seen at its join (running, or run and resampling), seconds before
	// the compare could record anything.
	cmd = verdictCmd(t, "--database-url", url, "compare", "-e", "faults", "--resamples", "20000", "a", "b")
	stderr.Reset()
	cmd.Stderr = &stderr
	exited = startVerdict(t, cmd)
	awaitSeen(t, url, exited, "the compare is pairing the runs", `
		SELECT EXISTS (
			SELECT FROM pg_stat_activity
			WHERE datname = current_database() AND application_name = 'verdict'
			  AND xact_start IS NOT NULL AND query LIKE '%ON r.sample_id = l.sample_id%')`)
	kill()
	err = awaitExit(t, exited, "a compare whose server died")
	require.Equal(t, exitError, exitCode(t, err), "a compare whose server died does not succeed: %s", stderr.String())
	// The connection went in the join, or at the record after the
	// resampling: in the compare's work, not before it.
	require.Regexp(t, `^verdict: (pair evaluations \d+ and \d+|record comparison): `, stderr.String())
	url, err = cl.Ensure(ctx)
	require.NoError(t, err)
	require.Zero(t, queryInt(t, url, `SELECT count(*) FROM comparisons`), "nothing recorded")
	res = runVerdict(t, url, "compare", "-e", "faults", "a", "b")
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM comparisons`))
}

// openPipe opens the named pipe at path for writing once the process whose
// Wait result exited receives has opened it for reading, failing t if the
// process ends first. The pipe is closed when t ends.
func openPipe(t *testing.T, path string, exited <-chan error) *os.File {
	t.Helper()
	opened := make(chan *os.File, 1)
	go func() {
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			opened <- f
		}
	}()
	select {
	case f := <-opened:
		t.Cleanup(func() { _ = f.Close() })
		return f
	case err := <-exited:
		require.FailNowf(t, "the process ended before it opened "+path, "%v", err)
	case <-time.After(safetyNet):
		require.FailNow(t, "the process did not open "+path+" within "+safetyNet.String())
	}
	return nil
}

// TestDroppedConnectionMidLog ends the server's session of a log while its
// COPY runs (pg_terminate_backend, as a network drop or a DBA would): the
// log fails with an error that says the connection went, nothing of it is
// stored, and the retry succeeds.
func TestDroppedConnectionMidLog(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	var b strings.Builder
	b.WriteString("sample_id,m\n")
	for u := range 400_000 {
		fmt.Fprintf(&b, "u%06d,%g\n", u, float64(u%13)/13)
	}
	path := filepath.Join(t.TempDir(), "scores.csv")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	res := runVerdict(t, url, "migrate")
	require.Equal(t, 0, res.code, res.stderr)

	cmd := verdictCmd(t, "--database-url", url, "log", "-e", "faults", "-r", "dropped", "-s", "test", path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	terminated := 0
	for deadline := time.Now().Add(20 * time.Second); terminated == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		terminated = queryInt(t, url, `
			SELECT count(*) FROM (
				SELECT pg_terminate_backend(pid) FROM pg_stat_activity
				WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'COPY%') t`)
	}
	require.Equal(t, 1, terminated, "the log's COPY was found and its session ended")
	require.Error(t, cmd.Wait(), "a log whose connection dropped does not succeed")
	t.Logf("the failed log said: %s", stderr.String())
	require.Contains(t, stderr.String(), "terminating connection due to administrator command")
	require.Zero(t, queryInt(t, url, `SELECT count(*) FROM evaluations`), "nothing of it is stored")
	res = runVerdict(t, url, "log", "-e", "faults", "-r", "dropped", "-s", "test", path)
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, 400_000, queryInt(t, url, `SELECT n_units FROM evaluation_overview WHERE run = 'dropped'`))
}

// TestFullDiskMidLog puts the test database's new tables on a tablespace of
// 8 MB (a tmpfs, mounted by the test, so it needs root), and logs a file
// whose values need more: the log fails saying the device is full, nothing
// of it is stored, and once there is room again the retry succeeds.
func TestFullDiskMidLog(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		testenv.Need(t, testenv.Root, fmt.Sprintf("mounting the 8 MB tmpfs that fills up takes root; the tests run as uid %d", os.Geteuid()))
	}
	dir, err := os.MkdirTemp("", "verdict-full-disk-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=8M,mode=0700"); err != nil {
		// Root may still be refused the mount (EPERM in a container
		// without CAP_SYS_ADMIN, or in a user namespace). No run promises
		// a mount, so the test skips there, saying why.
		reason := "the kernel refuses root a tmpfs mount on " + dir
		if errors.Is(err, syscall.EPERM) {
			reason += ", as it does in a container without CAP_SYS_ADMIN (docker run --cap-add SYS_ADMIN, or --privileged, allows it)"
		}
		t.Skipf("%s: mount: %v", reason, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	url := storetest.NewDatabase(t)
	// The server runs as the postgres user when verdict runs as root.
	if pg, err := user.Lookup("postgres"); err == nil {
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		require.NoError(t, os.Chown(dir, uid, gid))
	}
	space := "full_" + strconv.Itoa(os.Getpid()) + "_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	run := func(sql string) {
		t.Helper()
		conn, err := pgx.Connect(context.Background(), url)
		require.NoError(t, err)
		defer conn.Close(context.Background())
		_, err = conn.Exec(context.Background(), sql)
		require.NoError(t, err, sql)
	}
	run(`CREATE TABLESPACE ` + space + ` LOCATION '` + dir + `'`)
	t.Cleanup(func() { run(`DROP TABLESPACE IF EXISTS ` + space) })
	res := runVerdict(t, url, "migrate")
	require.Equal(t, 0, res.code, res.stderr)
	run(`ALTER DATABASE "` + dbName(t, url) + `" SET default_tablespace = ` + space)

	var b strings.Builder
	b.WriteString("sample_id,a,b,c,d\n")
	for u := range 300_000 { // about 30 MB of values and index
		fmt.Fprintf(&b, "user-%06d,%g,%g,%g,%g\n", u, float64(u%13)/13, float64(u%7)/7, float64(u%5)/5, float64(u%3)/3)
	}
	path := filepath.Join(t.TempDir(), "scores.csv")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	res = runVerdict(t, url, "log", "-e", "faults", "-r", "full", "-s", "test", path)
	require.Equal(t, exitError, res.code)
	require.Contains(t, res.stderr, "No space left on device")
	require.Zero(t, queryInt(t, url, `SELECT count(*) FROM evaluations`), "nothing of it is stored")

	run(`ALTER DATABASE "` + dbName(t, url) + `" RESET default_tablespace`)
	res = runVerdict(t, url, "log", "-e", "faults", "-r", "full", "-s", "test", path)
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, 300_000, queryInt(t, url, `SELECT n_units FROM evaluation_overview WHERE run = 'full'`))
	// The tablespace holds nothing of the failed log.
	require.Zero(t, queryInt(t, url, `SELECT count(*) FROM pg_class c JOIN pg_tablespace s ON s.oid = c.reltablespace WHERE s.spcname = $1`, space))
}

// dbName is the database name of a URL.
func dbName(t *testing.T, url string) string {
	t.Helper()
	return storetest.Scalar[string](t, url, `SELECT current_database()`)
}
