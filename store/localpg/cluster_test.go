//go:build unix

package localpg

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/testenv"
)

// helperHomeEnv, when set, makes the test binary a helper process that calls
// Ensure on the home it names, prints a helperResult as JSON and exits.
const helperHomeEnv = "LOCALPG_TEST_ENSURE_HOME"

type helperResult struct {
	Notices string
	PID     int
	Err     string
}

func TestMain(m *testing.M) {
	if home := os.Getenv(helperHomeEnv); home != "" {
		os.Exit(runHelper(home))
	}
	os.Exit(m.Run())
}

func runHelper(home string) int {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res := ensureAndReport(ctx, New(home))
	_ = json.NewEncoder(os.Stdout).Encode(res)
	if res.Err != "" {
		return 1
	}
	return 0
}

// ensureAndReport calls Ensure on c and reports the notices it wrote and the
// postmaster's PID.
func ensureAndReport(ctx context.Context, c *Cluster) helperResult {
	var notices bytes.Buffer
	c.Notices = &notices
	var res helperResult
	if _, err := c.Ensure(ctx); err != nil {
		res.Err = err.Error()
		return res
	}
	st, err := c.Status(ctx)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	res.Notices, res.PID = notices.String(), st.PID
	return res
}

// setup returns a cluster in a fresh home, not yet created, that is stopped
// when the test ends, and the buffer its notices go to.
func setup(t *testing.T) (*Cluster, *bytes.Buffer) {
	t.Helper()
	_, err := FindBinaries()
	require.NoError(t, err, "these tests run a real PostgreSQL")
	c := New(t.TempDir())
	notices := new(bytes.Buffer)
	c.Notices = notices
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, c.Stop(ctx))
	})
	return c, notices
}

// queryInt runs a query returning one integer on the database at url.
func queryInt(t *testing.T, url, sql string) int {
	t.Helper()
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var n int
	require.NoError(t, conn.QueryRow(ctx, sql).Scan(&n))
	return n
}

func TestEnsureColdStart(t *testing.T) {
	t.Parallel()
	c, notices := setup(t)
	ctx := t.Context()

	url, err := c.Ensure(ctx)
	require.NoError(t, err)
	require.Equal(t, c.URL(), url)
	require.Equal(t, 1, queryInt(t, url, `SELECT 1`))

	st, err := c.Status(ctx)
	require.NoError(t, err)
	require.True(t, st.Initialized)
	require.True(t, st.Running)
	require.NotZero(t, st.PID)
	require.NotEmpty(t, st.BinDir)
	require.Equal(t, filepath.Join(c.Home(), "data"), st.DataDir)
	require.Equal(t, filepath.Join(c.Home(), "run"), st.SocketDir)
	require.FileExists(t, filepath.Join(st.SocketDir, socketName))
	require.FileExists(t, st.LogFile)
	require.NoDirExists(t, filepath.Join(c.Home(), "data.init"))
	require.Contains(t, notices.String(),
		fmt.Sprintf("verdict: created a local PostgreSQL %s cluster in %s (first use", st.Version, c.Home()))

	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var db, user string
	require.NoError(t, conn.QueryRow(ctx, `SELECT current_database(), current_user`).Scan(&db, &user))
	require.Equal(t, "verdict", db)
	require.Equal(t, "verdict", user)
	for name, want := range map[string]string{
		"listen_addresses":        "",
		"unix_socket_directories": st.SocketDir,
		"unix_socket_permissions": "0700",
		"server_encoding":         "UTF8",
		"lc_collate":              "C",
		"shared_buffers":          sharedBuffers(physicalMemory()),
		"max_wal_size":            "4GB",
		"wal_level":               "minimal",
		"fsync":                   "on",
		"synchronous_commit":      "on",
	} {
		var got string
		require.NoError(t, conn.QueryRow(ctx, `SELECT current_setting($1)`, name).Scan(&got))
		require.Equal(t, want, got, name)
	}
}

func TestEnsureReusesRunningServer(t *testing.T) {
	t.Parallel()
	c, notices := setup(t)
	ctx := t.Context()
	_, err := c.Ensure(ctx)
	require.NoError(t, err)
	before, err := c.Status(ctx)
	require.NoError(t, err)
	notices.Reset()

	// Hold the lock: Ensure must not need it when the server answers.
	release, err := lockFile(ctx, c.lockPath())
	require.NoError(t, err)
	defer release()
	ctx2, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	start := time.Now()
	url, err := New(c.Home()).Ensure(ctx2)
	elapsed := time.Since(start)
	require.NoError(t, err)
	t.Logf("second Ensure took %s", elapsed)
	require.Equal(t, 1, queryInt(t, url, `SELECT 1`))

	after, err := c.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, before.PID, after.PID)
	require.Empty(t, notices.String())
}

func TestEnsureConcurrentFirstUse(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	// Two processes (flock is what must keep them apart) and two goroutines
	// of this one, each with its own Cluster value, start at once.
	var (
		mu      sync.Mutex
		results []helperResult
		wg      sync.WaitGroup
	)
	add := func(r helperResult) {
		mu.Lock()
		defer mu.Unlock()
		results = append(results, r)
	}
	for range 2 {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), helperHomeEnv+"="+c.Home())
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Start())
		wg.Go(func() {
			err := cmd.Wait()
			var r helperResult
			if jerr := json.Unmarshal(stdout.Bytes(), &r); jerr != nil {
				r.Err = fmt.Sprintf("helper: %v (%v): %s%s", err, jerr, stdout.String(), stderr.String())
			}
			add(r)
		})
	}
	for range 2 {
		wg.Go(func() { add(ensureAndReport(ctx, New(c.Home()))) })
	}
	wg.Wait()

	created := 0
	for _, r := range results {
		require.Empty(t, r.Err)
		require.NotZero(t, r.PID)
		require.Equal(t, results[0].PID, r.PID, "all callers see one postmaster")
		created += strings.Count(r.Notices, "(first use")
	}
	require.Len(t, results, 4)
	require.Equal(t, 1, created, "initdb ran once")
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		require.Equal(t, []int{results[0].PID}, postmastersOf(t, c.dataDir()))
	}
}

// postmastersOf lists the live postmasters serving dataDir, from /proc.
func postmastersOf(t *testing.T, dataDir string) []int {
	t.Helper()
	des, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []int
	for _, de := range des {
		pid, err := strconv.Atoi(de.Name())
		if err == nil && isPostmasterProc(pid, dataDir) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// childOf returns a child process of pid, from /proc; the test is skipped
// without /proc.
func childOf(t *testing.T, pid int) int {
	t.Helper()
	des, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("needs /proc")
	}
	for _, de := range des {
		child, err := strconv.Atoi(de.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", de.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid ..."
		i := bytes.LastIndexByte(stat, ')')
		if f := strings.Fields(string(stat[i+1:])); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			return child
		}
	}
	t.Fatalf("no child of PID %d", pid)
	return 0
}

// waitDead waits until pid no longer runs as this cluster's postmaster: it is
// gone or a zombie.
func waitDead(t *testing.T, pid int, dataDir string) {
	t.Helper()
	require.Eventually(t, func() bool { return !isPostmaster(pid, dataDir) }, 10*time.Second, 10*time.Millisecond)
}

func TestEnsureRestartsAfterKill(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	ctx := t.Context()
	url, err := c.Ensure(ctx)
	require.NoError(t, err)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)`)
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))
	before, err := c.Status(ctx)
	require.NoError(t, err)

	// The children of a killed postmaster outlive it for a moment and hold
	// its shared memory; postmaster.pid stays behind. Stopping one child
	// until a start has failed on that makes Ensure retry.
	const inUse = "pre-existing shared memory block"
	child := childOf(t, before.PID)
	require.NoError(t, syscall.Kill(child, syscall.SIGSTOP))
	resumed := make(chan struct{})
	t.Cleanup(func() {
		_ = syscall.Kill(child, syscall.SIGCONT)
		<-resumed
	})
	require.NoError(t, syscall.Kill(before.PID, syscall.SIGKILL))
	waitDead(t, before.PID, c.dataDir())
	require.FileExists(t, filepath.Join(c.dataDir(), "postmaster.pid"))
	go func() {
		defer close(resumed)
		// Resume the child once a start failed, or after most of the
		// time start allows for retries.
		for deadline := time.Now().Add(startRetryFor * 8 / 10); time.Now().Before(deadline); {
			if log, _ := os.ReadFile(c.logFile()); bytes.Contains(log, []byte(inUse)) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		_ = syscall.Kill(child, syscall.SIGCONT)
	}()

	url, err = c.Ensure(ctx)
	require.NoError(t, err)
	log, err := os.ReadFile(c.logFile())
	require.NoError(t, err)
	require.Contains(t, string(log), inUse)
	require.Equal(t, 42, queryInt(t, url, `SELECT n FROM kept`))
	after, err := c.Status(ctx)
	require.NoError(t, err)
	require.NotEqual(t, before.PID, after.PID)
}

func TestEnsureStartFailureQuotesLog(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	ctx := t.Context()
	_, err := c.Ensure(ctx)
	require.NoError(t, err)
	require.NoError(t, c.Stop(ctx))
	conf, err := os.OpenFile(filepath.Join(c.dataDir(), "postgresql.conf"), os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = conf.WriteString("shared_buffers = 'lots'\n")
	require.NoError(t, err)
	require.NoError(t, conf.Close())

	_, err = c.Ensure(ctx)
	require.ErrorContains(t, err, "localpg: starting PostgreSQL in "+c.dataDir())
	require.ErrorContains(t, err, "last lines of "+c.logFile())
	require.ErrorContains(t, err, `invalid value for parameter "shared_buffers": "lots"`)
}

func TestEnsureRemovesStalePIDFile(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	ctx := t.Context()
	_, err := c.Ensure(ctx)
	require.NoError(t, err)
	pidFile := filepath.Join(c.dataDir(), "postmaster.pid")
	recorded, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	require.NoError(t, c.Stop(ctx))
	require.NoFileExists(t, pidFile)

	// A live process of the server's own OS user is what PostgreSQL itself
	// cannot tell from a running postmaster; it refuses to start.
	acct, err := c.serverAccount()
	require.NoError(t, err)
	sleeper := exec.Command("sleep", "60")
	runAs(sleeper, acct)
	require.NoError(t, sleeper.Start())
	t.Cleanup(func() {
		_ = sleeper.Process.Kill()
		_ = sleeper.Wait()
	})

	tests := []struct {
		name string
		pid  int
	}{
		{name: "PID of init", pid: 1},
		{name: "PID of this test", pid: os.Getpid()},
		{name: "PID of a process of the server's user", pid: sleeper.Process.Pid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// What a reboot leaves: the pid file and the socket's lock file
			// naming a PID that now belongs to someone else.
			_, rest, _ := strings.Cut(string(recorded), "\n")
			stale := []byte(strconv.Itoa(tt.pid) + "\n" + rest)
			socketLock := filepath.Join(c.socketDir(), socketName+".lock")
			for _, p := range []string{pidFile, socketLock} {
				require.NoError(t, os.WriteFile(p, stale, 0o600))
				require.NoError(t, acct.give(p))
			}

			st, err := c.Status(ctx)
			require.NoError(t, err)
			require.False(t, st.Running)

			url, err := c.Ensure(ctx)
			require.NoError(t, err)
			require.Equal(t, 1, queryInt(t, url, `SELECT 1`))
			st, err = c.Status(ctx)
			require.NoError(t, err)
			require.True(t, st.Running)
			require.NotEqual(t, tt.pid, st.PID)
			require.NoError(t, c.Stop(ctx))
		})
	}
}

func TestEnsureAsRootRunsServerAsPostgres(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Need(t, testenv.Root, "needs root: runs the server as the OS user postgres")
	}
	t.Parallel()
	c, notices := setup(t)
	ctx := t.Context()
	pg, err := user.Lookup("postgres")
	require.NoError(t, err)

	_, err = c.Ensure(ctx)
	require.NoError(t, err)
	st, err := c.Status(ctx)
	require.NoError(t, err)

	status, err := os.Open(filepath.Join("/proc", strconv.Itoa(st.PID), "status"))
	require.NoError(t, err)
	defer status.Close()
	var uids []string
	for sc := bufio.NewScanner(status); sc.Scan(); {
		if rest, ok := strings.CutPrefix(sc.Text(), "Uid:"); ok {
			uids = strings.Fields(rest)
		}
	}
	require.Equal(t, []string{pg.Uid, pg.Uid, pg.Uid, pg.Uid}, uids, "real, effective, saved and file-system uid")

	for _, p := range []string{st.DataDir, st.SocketDir, st.LogFile} {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		uid, _, ok := ownerOf(fi)
		require.True(t, ok)
		require.Equal(t, pg.Uid, strconv.Itoa(uid), p)
	}
	// t.TempDir's parent is private to root: Ensure opened it and said so.
	require.Contains(t, notices.String(), "chmod o+x")
	require.Contains(t, notices.String(), "runs as OS user postgres")
}

func TestEnsureWithoutPostgresUser(t *testing.T) {
	t.Parallel()
	c := New(t.TempDir())
	c.geteuid = func() int { return 0 }
	c.lookupUser = func(name string) (*user.User, error) { return nil, user.UnknownUserError(name) }

	_, err := c.Ensure(t.Context())
	require.ErrorIs(t, err, ErrNoPostgresUser)
	for _, want := range []string{"useradd", "run verdict as a normal user", "VERDICT_DATABASE_URL"} {
		require.ErrorContains(t, err, want)
	}
	require.NoDirExists(t, c.dataDir())
}

func TestEnsureSocketPathTooLong(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), strings.Repeat("h", 100))
	c := New(home)

	_, err := c.Ensure(t.Context())
	require.ErrorIs(t, err, ErrSocketPathTooLong)
	require.ErrorContains(t, err, "set VERDICT_HOME to a shorter folder")
	require.NoDirExists(t, home)
}

func TestStopWithoutCluster(t *testing.T) {
	t.Parallel()
	c := New(filepath.Join(t.TempDir(), "never-created"))
	require.NoError(t, c.Stop(t.Context()))
	st, err := c.Status(t.Context())
	require.NoError(t, err)
	require.False(t, st.Initialized)
	require.False(t, st.Running)
	require.NoDirExists(t, c.Home())
}

func TestDefaultHome(t *testing.T) {
	tests := []struct {
		name                   string
		verdictHome, xdg, home string
		want                   string
	}{
		{name: "VERDICT_HOME wins", verdictHome: "/v", xdg: "/x", home: "/h", want: "/v"},
		{name: "XDG_DATA_HOME", xdg: "/x", home: "/h", want: "/x/verdict"},
		{name: "HOME", home: "/h", want: "/h/.local/share/verdict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("VERDICT_HOME", tt.verdictHome)
			t.Setenv("XDG_DATA_HOME", tt.xdg)
			t.Setenv("HOME", tt.home)
			require.Equal(t, tt.want, DefaultHome())
		})
	}
}

func TestConfigTextQuotesSocketDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dir, want string
	}{
		{dir: "/home/ann/run", want: `unix_socket_directories = '/home/ann/run'`},
		{dir: "/home/o'brien/run", want: `unix_socket_directories = '/home/o''brien/run'`},
		{dir: `/a\b/run`, want: `unix_socket_directories = '/a\\b/run'`},
		{dir: "/a,b/run", want: `unix_socket_directories = '"/a,b/run"'`},
		{dir: `/a"b/run`, want: `unix_socket_directories = '"/a""b/run"'`},
	}
	for _, tt := range tests {
		require.Contains(t, configText(tt.dir), "\n"+tt.want+"\n", tt.dir)
	}
}

// TestSharedBuffers checks the cluster's shared_buffers against a quarter
// of the machine's memory, worked by hand: rounded down to 128MB, at least
// 256MB, at most 4GB, shown in GB when whole, as PostgreSQL shows it.
func TestSharedBuffers(t *testing.T) {
	t.Parallel()
	const gb = 1 << 30
	for mem, want := range map[uint64]string{
		0:            "256MB", // unknown
		512 << 20:    "256MB",
		2 * gb:       "512MB",
		3 * gb:       "768MB",
		5 * gb:       "1280MB",
		4*gb + 1:     "1GB",
		8 * gb:       "2GB",
		24 * gb:      "4GB",
		1 << 40:      "4GB",
		6*gb + 12345: "1536MB",
	} {
		require.Equal(t, want, sharedBuffers(mem), "%d bytes", mem)
	}
}
