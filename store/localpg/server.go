package localpg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const (
	// startRetryFor is how long start retries a server that fails because
	// the children of a killed postmaster still hold its shared memory or
	// lock files. They exit within moments of noticing their parent's death.
	startRetryFor = 10 * time.Second
	// logTailLines is how much of server.log a start error quotes.
	logTailLines = 20
)

// settings are appended to postgresql.conf by initdb. The socket folder is
// filled in by configText.
const settings = `
# Written by verdict (store/localpg) when it created this cluster.
#
# Reachable only through a Unix socket in a folder only the cluster's owner can
# enter; that is why initdb set up trust authentication.
listen_addresses = ''
port = 5432
unix_socket_directories = %s
unix_socket_permissions = 0700

# Tuned for bulk ingest (COPY of millions of per-unit values) without giving up
# durability: fewer checkpoints, and no WAL for tables loaded in the transaction
# that created them (wal_level = minimal, which needs max_wal_senders = 0).
# A quarter of the machine's memory, up to 4GB, for shared_buffers: a pairing
# of two evaluations reads both tables and their keys, and a million units of
# ten metrics take 270MB, ten million of two 2GB.
shared_buffers = %s
maintenance_work_mem = 256MB
max_wal_size = 4GB
min_wal_size = 256MB
checkpoint_timeout = 30min
wal_level = minimal
max_wal_senders = 0
archive_mode = off

# Every evaluation's values are a partition of unit_values, so a query over all
# of them (the unit_values_long view, say) locks thousands of tables and their
# indexes.
max_locks_per_transaction = 256

# Durability stays on.
fsync = on
synchronous_commit = on
full_page_writes = on
`

// configText returns settings for a socket folder, quoted for
// postgresql.conf: backslashes and single quotes are escaped for the file's
// string syntax, and a folder holding a comma or a double quote is wrapped in
// double quotes, since unix_socket_directories is a comma-separated list.
func configText(socketDir string) string {
	v := socketDir
	if strings.ContainsAny(v, `,"`) {
		v = `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
	}
	v = strings.ReplaceAll(v, `\`, `\\`)
	v = "'" + strings.ReplaceAll(v, `'`, `''`) + "'"
	return fmt.Sprintf(settings, v, sharedBuffers(physicalMemory()))
}

// sharedBuffers returns the shared_buffers of a cluster on a machine of
// mem bytes (0: unknown), as PostgreSQL shows it: a quarter of the
// memory, in steps of 128MB, between 256MB and 4GB.
func sharedBuffers(mem uint64) string {
	mb := min(max(mem/4>>20/128*128, 256), 4096)
	if mb%1024 == 0 {
		return fmt.Sprintf("%dGB", mb/1024)
	}
	return fmt.Sprintf("%dMB", mb)
}

// command prepares one of PostgreSQL's programs to run as the account.
func (c *Cluster) command(ctx context.Context, acct *account, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	// The account may not be able to enter the caller's working folder.
	cmd.Dir = "/"
	cmd.Env = childEnv(acct)
	// The server gets its output redirected by pg_ctl; this only guards
	// against a child that keeps the output pipe open.
	cmd.WaitDelay = 5 * time.Second
	runAs(cmd, acct)
	return cmd
}

// prepareHome creates the socket folder and the log file and, when the server
// runs as another account, hands them over and lets the account reach the home.
func (c *Cluster) prepareHome(acct *account) error {
	if err := os.Mkdir(c.socketDir(), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("localpg: creating the socket folder: %w", err)
	}
	f, err := os.OpenFile(c.logFile(), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("localpg: creating the server log: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("localpg: creating the server log: %w", err)
	}
	if err := errors.Join(acct.give(c.socketDir()), acct.give(c.logFile())); err != nil {
		return err
	}
	changed, err := acct.makeReachable(c.home)
	if len(changed) > 0 {
		c.notice("added the search permission for others (chmod o+x) to %s so that OS user %s can reach %s",
			strings.Join(changed, ", "), acct.name, c.home)
	}
	return err
}

// initdb creates the cluster. It works in data.init and renames that to data
// once the configuration is written, so an interrupted initdb never leaves a
// data folder that looks complete; the next Ensure starts over.
func (c *Cluster) initdb(ctx context.Context, bin string, acct *account) error {
	if des, err := os.ReadDir(c.dataDir()); err == nil && len(des) > 0 {
		return fmt.Errorf("localpg: %s holds files but no PostgreSQL cluster (no PG_VERSION); move it aside and try again", c.dataDir())
	}
	tmp := filepath.Join(c.home, "data.init")
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("localpg: removing an interrupted initdb: %w", err)
	}
	if err := os.Mkdir(tmp, 0o700); err != nil {
		return fmt.Errorf("localpg: creating the data folder: %w", err)
	}
	if err := acct.give(tmp); err != nil {
		return err
	}
	out, err := c.command(ctx, acct, filepath.Join(bin, "initdb"),
		"-D", tmp, "-U", superuser, "--auth=trust", "-E", "UTF8", "--locale=C").CombinedOutput()
	if err != nil {
		return fmt.Errorf("localpg: initdb in %s: %w\n%s", tmp, err, lastLines(out, logTailLines))
	}
	conf, err := os.OpenFile(filepath.Join(tmp, "postgresql.conf"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return fmt.Errorf("localpg: configuring the cluster: %w", err)
	}
	_, err = io.WriteString(conf, configText(c.socketDir()))
	if err := errors.Join(err, conf.Sync(), conf.Close()); err != nil {
		return fmt.Errorf("localpg: configuring the cluster: %w", err)
	}
	if err := os.Rename(tmp, c.dataDir()); err != nil {
		return fmt.Errorf("localpg: moving the new cluster in place: %w", err)
	}
	return nil
}

// start starts the server with pg_ctl and waits until it accepts connections.
// A failure the last children of a killed server cause is retried for
// startRetryFor.
func (c *Cluster) start(ctx context.Context, bin string, acct *account) error {
	deadline := time.Now().Add(startRetryFor)
	for {
		if err := c.removeStaleFiles(); err != nil {
			return err
		}
		var offset int64
		if fi, err := os.Stat(c.logFile()); err == nil {
			offset = fi.Size()
		}
		out, err := c.command(ctx, acct, filepath.Join(bin, "pg_ctl"),
			"start", "-w", "-D", c.dataDir(), "-l", c.logFile()).CombinedOutput()
		if err == nil {
			return nil
		}
		if pid := c.postmasterPID(); pid != 0 {
			// pg_ctl stops waiting after a minute, but crash recovery
			// may take longer; the server goes on starting.
			ready, err := c.waitReady(ctx, pid)
			if ready || err != nil {
				return err
			}
		}
		logged := readFrom(c.logFile(), offset)
		if ctx.Err() == nil && time.Now().Before(deadline) && leftoversOfKilledServer(logged) {
			select {
			case <-ctx.Done():
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		if len(bytes.TrimSpace(logged)) == 0 {
			logged = readFrom(c.logFile(), 0)
		}
		return fmt.Errorf("localpg: starting PostgreSQL in %s: %w\n%s\nlast lines of %s:\n%s",
			c.dataDir(), err, strings.TrimSpace(string(out)), c.logFile(), lastLines(logged, logTailLines))
	}
}

// leftoversOfKilledServer reports whether a failed start's log blames what a
// killed postmaster's children still hold.
func leftoversOfKilledServer(log []byte) bool {
	for _, s := range []string{"pre-existing shared memory block", "lock file", "Address already in use"} {
		if bytes.Contains(log, []byte(s)) {
			return true
		}
	}
	return false
}

// removeStaleFiles deletes postmaster.pid when it does not name this cluster's
// live postmaster, with the socket and its lock file. PostgreSQL removes a pid
// file whose process is gone, but refuses to start while the PID is alive, and
// after a reboot, in a container especially, the PID often belongs to another
// process.
func (c *Cluster) removeStaleFiles() error {
	pidFile := filepath.Join(c.dataDir(), "postmaster.pid")
	switch pid, err := readPIDFile(pidFile); {
	case err == nil && pid == 0:
		// No server, so nothing holds the socket either.
	case err == nil && isPostmaster(pid, c.dataDir()):
		return nil
	default:
		if err := os.Remove(pidFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("localpg: removing stale %s: %w", pidFile, err)
		}
	}
	for _, name := range []string{socketName + ".lock", socketName} {
		p := filepath.Join(c.socketDir(), name)
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("localpg: removing stale %s: %w", p, err)
		}
	}
	return nil
}

// waitReady waits for the running postmaster pid to accept connections. It
// returns false when the postmaster exits instead, so the caller starts it.
func (c *Cluster) waitReady(ctx context.Context, pid int) (bool, error) {
	start := time.Now()
	noticed := false
	for {
		if c.answers(ctx, "postgres") {
			return true, nil
		}
		if !isPostmaster(pid, c.dataDir()) {
			return false, nil
		}
		if !noticed && time.Since(start) > slowStart {
			c.notice("waiting for PostgreSQL (PID %d) in %s to accept connections; after a crash, recovery can take minutes (see %s)",
				pid, c.dataDir(), c.logFile())
			noticed = true
		}
		if time.Since(start) > readyTimeout {
			return false, fmt.Errorf("localpg: PostgreSQL (PID %d) runs in %s but has not accepted connections on %s for %s\nlast lines of %s:\n%s",
				pid, c.dataDir(), c.socketDir(), readyTimeout, c.logFile(), lastLines(readFrom(c.logFile(), 0), logTailLines))
		}
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("localpg: waiting for PostgreSQL in %s: %w", c.dataDir(), ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// createDatabase creates the database "verdict" unless it exists.
func (c *Cluster) createDatabase(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, c.url("postgres"))
	if err != nil {
		return fmt.Errorf("localpg: connecting to the new server: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)`, database).Scan(&exists); err != nil {
		return fmt.Errorf("localpg: looking for database %q: %w", database, err)
	}
	if exists {
		return nil
	}
	_, err = conn.Exec(ctx, `CREATE DATABASE verdict`)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
		return nil
	}
	if err != nil {
		return fmt.Errorf("localpg: creating database %q: %w", database, err)
	}
	return nil
}

// readFrom returns the file's content from offset on, at most its last 64 KiB;
// nothing if the file is unreadable.
func readFrom(path string, offset int64) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil
	}
	offset = min(max(offset, fi.Size()-64<<10), fi.Size())
	b, _ := io.ReadAll(io.NewSectionReader(f, offset, fi.Size()-offset))
	return b
}

// lastLines returns the last n lines of b, trimmed.
func lastLines(b []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
