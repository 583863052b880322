package localpg

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// ErrSocketPathTooLong means the server's socket path,
// <home>/run/.s.PGSQL.5432, exceeds what the system allows in a Unix socket
// address (107 bytes on Linux, 103 on macOS). Cluster.Ensure and Cluster.Start
// return it, wrapped with the path and a hint to choose a shorter VERDICT_HOME.
var ErrSocketPathTooLong = errors.New("localpg: Unix socket path too long")

const (
	// database is the database Ensure creates and URL names.
	database = "verdict"
	// superuser is the cluster's one role, created by initdb.
	superuser = "verdict"
	// port only names the socket file: the server opens no TCP port.
	port       = 5432
	socketName = ".s.PGSQL.5432"

	// readyTimeout bounds the wait for a server that runs but does not yet
	// accept connections: another process is starting it, or it is
	// recovering from a crash, which can replay up to max_wal_size (4GB) of
	// WAL.
	readyTimeout = 10 * time.Minute
	// slowStart is when the wait for the server is reported to Notices.
	slowStart = 5 * time.Second
	// pingTimeout bounds the connection that checks whether the server answers.
	pingTimeout = 5 * time.Second
)

// DefaultHome returns the folder verdict keeps its local cluster in:
// $VERDICT_HOME when set, else $XDG_DATA_HOME/verdict, else
// $HOME/.local/share/verdict. Without $HOME it uses the home folder in the user
// database, and failing that ".local/share/verdict" relative to the working
// folder.
func DefaultHome() string {
	if h := os.Getenv("VERDICT_HOME"); h != "" {
		return h
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "verdict")
	}
	home := os.Getenv("HOME")
	if home == "" {
		if u, err := user.Current(); err == nil {
			home = u.HomeDir
		}
	}
	return filepath.Join(home, ".local", "share", "verdict")
}

// Cluster is a private PostgreSQL cluster kept in one folder, its home. New
// makes the value without touching the disk; Ensure creates and starts the
// cluster when needed.
//
// A Cluster is safe for concurrent use, provided Notices is. Separate Cluster
// values, in one process or several, may share a home: they coordinate through
// a lock file in it.
type Cluster struct {
	// Notices receives one-line notices the user should see, each starting
	// with "verdict: ": that a cluster was created on first use, or that
	// folders above the home were opened to the postgres OS user. Nil
	// discards them.
	Notices io.Writer

	home       string
	finder     finder
	geteuid    func() int
	lookupUser func(name string) (*user.User, error)
}

// New returns the cluster kept in home, made absolute. An empty home means
// DefaultHome().
func New(home string) *Cluster {
	if home == "" {
		home = DefaultHome()
	}
	if abs, err := filepath.Abs(home); err == nil {
		home = abs
	}
	return &Cluster{
		home:       home,
		finder:     defaultFinder(),
		geteuid:    os.Geteuid,
		lookupUser: lookupUser,
	}
}

// Home returns the cluster's folder, absolute.
func (c *Cluster) Home() string { return c.home }

func (c *Cluster) dataDir() string   { return filepath.Join(c.home, "data") }
func (c *Cluster) socketDir() string { return filepath.Join(c.home, "run") }
func (c *Cluster) logFile() string   { return filepath.Join(c.home, "server.log") }
func (c *Cluster) lockPath() string  { return filepath.Join(c.home, ".lock") }

// URL returns a pgx- and libpq-compatible URL for the database "verdict" over
// the cluster's Unix socket, for example
//
//	postgres:///verdict?host=/home/ann/.local/share/verdict/run&port=5432&user=verdict
//
// The port only names the socket file; it is spelled out so that a PGPORT in
// the environment does not redirect the connection. URL does not check that
// the cluster exists; Ensure does.
func (c *Cluster) URL() string { return c.url(database) }

func (c *Cluster) url(db string) string {
	// "/" is allowed in a query; leaving it unescaped keeps the URL readable
	// for people who paste it into psql.
	host := strings.ReplaceAll(url.QueryEscape(c.socketDir()), "%2F", "/")
	return fmt.Sprintf("postgres:///%s?host=%s&port=%d&user=%s", db, host, port, superuser)
}

// Ensure makes the cluster ready and returns URL(). On first use it runs
// initdb, starts the server and creates the database "verdict", and writes a
// notice to Notices. Later calls return at once when the server answers, and
// otherwise start it again, removing what a crash or a reboot left behind.
// Ensure is idempotent, and concurrent calls, from goroutines or processes,
// run initdb and start the server once.
//
// Errors wrap ErrSocketPathTooLong when the home is too deep for a Unix socket,
// ErrUnsafeHome when another user could change the home (see CheckHome),
// ErrClusterGone when the data folder of a cluster created in the home is
// missing or empty, ErrNoBinaries when PostgreSQL's server is not installed
// (or not the version that created the cluster), and ErrNoPostgresUser when
// verdict runs as root without a postgres OS user. When the server fails to
// start, the error holds the end of server.log.
func (c *Cluster) Ensure(ctx context.Context) (url string, err error) {
	if err := c.checkSocketPath(); err != nil {
		return "", err
	}
	if err := c.CheckHome(); err != nil {
		return "", err
	}
	// Fast path: the database answers, so there is nothing to do and no need
	// to wait for the lock.
	if c.answers(ctx, database) {
		// A cluster made before verdict wrote markers gets one; the next
		// start would write it too.
		if version, err := c.clusterVersion(); err == nil && version != "" {
			_ = c.ensureMarker(version)
		}
		return c.URL(), nil
	}
	if err := os.MkdirAll(c.home, 0o700); err != nil {
		return "", fmt.Errorf("localpg: creating %s: %w", c.home, err)
	}
	// In a folder with the sticky bit, such as /tmp, another user may have
	// made the home first.
	if err := c.CheckHome(); err != nil {
		return "", err
	}
	release, err := lockFile(ctx, c.lockPath())
	if err != nil {
		return "", err
	}
	defer release()
	if err := c.ensureLocked(ctx); err != nil {
		return "", err
	}
	return c.URL(), nil
}

// Start is Ensure without the URL.
func (c *Cluster) Start(ctx context.Context) error {
	_, err := c.Ensure(ctx)
	return err
}

// ensureLocked does Ensure's work while holding the lock.
func (c *Cluster) ensureLocked(ctx context.Context) error {
	// Another process may have done the work while this one waited.
	if c.answers(ctx, database) {
		return nil
	}
	version, err := c.clusterVersion()
	if err != nil {
		return err
	}
	if version == "" {
		// Never create a cluster where one was lost.
		if err := c.checkNotGone(); err != nil {
			return err
		}
	} else {
		if err := c.ensureMarker(version); err != nil {
			return err
		}
		if pid := c.postmasterPID(); pid != 0 {
			ready, err := c.waitReady(ctx, pid)
			if err != nil {
				return err
			}
			if ready {
				return c.createDatabase(ctx)
			}
		}
	}

	acct, bin, err := c.server(ctx, version)
	if err != nil {
		return err
	}
	if err := c.prepareHome(acct); err != nil {
		return err
	}
	if version == "" {
		if err := c.initdb(ctx, bin, acct); err != nil {
			return err
		}
		if version, err = c.clusterVersion(); err != nil {
			return err
		}
		if err := c.writeMarker(time.Now(), version); err != nil {
			return err
		}
		c.notice("created a local PostgreSQL %s cluster in %s (first use%s)", version, c.home, acct.describe())
	}
	if err := c.start(ctx, bin, acct); err != nil {
		return err
	}
	return c.createDatabase(ctx)
}

// Stop shuts the server down with pg_ctl stop -m fast: open sessions are
// ended and their transactions rolled back; committed data is safe. Stopping a
// cluster that is not running, or does not exist, is not an error.
//
// Errors wrap ErrUnsafeHome, ErrNoBinaries or ErrNoPostgresUser as for Ensure.
func (c *Cluster) Stop(ctx context.Context) error {
	version, err := c.clusterVersion()
	if err != nil || version == "" {
		return err
	}
	// pg_ctl signals the PID in postmaster.pid.
	if err := c.CheckHome(); err != nil {
		return err
	}
	release, err := lockFile(ctx, c.lockPath())
	if err != nil {
		return err
	}
	defer release()
	if c.postmasterPID() == 0 {
		return nil
	}
	acct, bin, err := c.server(ctx, version)
	if err != nil {
		return err
	}
	out, err := c.command(ctx, acct, filepath.Join(bin, "pg_ctl"), "stop", "-w", "-m", "fast", "-D", c.dataDir()).CombinedOutput()
	if err != nil && c.postmasterPID() != 0 {
		return fmt.Errorf("localpg: stopping PostgreSQL in %s: %w\n%s", c.dataDir(), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// StopIfRunning stops the cluster as Stop does when it is running, and
// reports whether it was.
func (c *Cluster) StopIfRunning(ctx context.Context) (stopped bool, err error) {
	s, err := c.Status(ctx)
	if err != nil || !s.Running {
		return false, err
	}
	return true, c.Stop(ctx)
}

// Status describes a cluster. Its fields are what a "verdict db status"
// command shows.
type Status struct {
	Home      string
	DataDir   string
	SocketDir string
	LogFile   string
	// BinDir holds the server binaries that would run the cluster: of its
	// version once initialized. Empty when none are found.
	BinDir string
	// Version is the cluster's PostgreSQL major version, from PG_VERSION;
	// empty before initdb.
	Version     string
	Initialized bool
	// Running reports whether the postmaster recorded in postmaster.pid is
	// alive. It may still be starting up or shutting down.
	Running bool
	// PID is the postmaster's process ID when Running.
	PID int
}

// Status reports the cluster's state without changing it. It returns an error
// only when it cannot read the home.
func (c *Cluster) Status(ctx context.Context) (Status, error) {
	s := Status{Home: c.home, DataDir: c.dataDir(), SocketDir: c.socketDir(), LogFile: c.logFile()}
	version, err := c.clusterVersion()
	if err != nil {
		return s, err
	}
	s.Version, s.Initialized = version, version != ""
	if bin, err := c.finder.find(ctx, version); err == nil {
		s.BinDir = bin
	}
	if s.Initialized {
		s.PID = c.postmasterPID()
		s.Running = s.PID != 0
	}
	return s, nil
}

// clusterVersion returns the major version in PG_VERSION, or "" when the
// cluster has not been created.
func (c *Cluster) clusterVersion() (string, error) {
	b, err := os.ReadFile(filepath.Join(c.dataDir(), "PG_VERSION"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("localpg: reading the cluster's version: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// checkSocketPath fails early when PostgreSQL could not create the socket.
func (c *Cluster) checkSocketPath() error {
	p := filepath.Join(c.socketDir(), socketName)
	if limit := maxSocketPath(); len(p) > limit {
		return fmt.Errorf("%w: %s is %d bytes long and the system allows %d; "+
			"set VERDICT_HOME to a shorter folder (the limit leaves it %d bytes)",
			ErrSocketPathTooLong, p, len(p), limit, limit-(len(p)-len(c.home)))
	}
	return nil
}

// maxSocketPath is the longest socket path PostgreSQL accepts: the size of
// sockaddr_un's sun_path less the terminating NUL.
func maxSocketPath() int {
	if runtime.GOOS == "linux" || runtime.GOOS == "android" {
		return 107
	}
	return 103
}

// answers reports whether the server accepts connections to db. A server
// that refuses for another reason than starting up, shutting down or a missing
// database (too many clients, say) counts as answering: neither waiting nor
// starting it would help, and the caller's own connection reports the reason.
func (c *Cluster) answers(ctx context.Context, db string) bool {
	err := c.ping(ctx, db)
	if err == nil {
		return true
	}
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) &&
		pgErr.Code != "57P03" && // cannot_connect_now
		pgErr.Code != "3D000" // invalid_catalog_name: no such database
}

// ping connects to db over the socket and hangs up.
func (c *Cluster) ping(ctx context.Context, db string) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	conn, err := pgconn.Connect(ctx, c.url(db))
	if err != nil {
		return err
	}
	return conn.Close(ctx)
}

func (c *Cluster) notice(format string, args ...any) {
	if c.Notices != nil {
		fmt.Fprintf(c.Notices, "verdict: "+format+"\n", args...)
	}
}

// readPIDFile returns the PID on the first line of postmaster.pid, 0 when the
// file does not exist.
func readPIDFile(path string) (int, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("localpg: %s: no PID on its first line", path)
	}
	return pid, nil
}

// postmasterPID returns the PID of the cluster's live postmaster, or 0.
func (c *Cluster) postmasterPID() int {
	pid, err := readPIDFile(filepath.Join(c.dataDir(), "postmaster.pid"))
	if err != nil || !isPostmaster(pid, c.dataDir()) {
		return 0
	}
	return pid
}

// server returns the account that runs the server's programs and the folder
// of PostgreSQL version's binaries.
func (c *Cluster) server(ctx context.Context, version string) (*account, string, error) {
	acct, err := c.serverAccount()
	if err != nil {
		return nil, "", err
	}
	bin, err := c.finder.find(ctx, version)
	return acct, bin, err
}
