package storetest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/verdict-ml/verdict/internal/testenv"
	"github.com/verdict-ml/verdict/store/localpg"
)

// citusBinDir is where Debian's PostgreSQL 15 keeps its server binaries,
// which the Citus kit (../shared/citus) is built for.
const citusBinDir = "/usr/lib/postgresql/15/bin"

// Citus starts a real Citus cluster for t, a coordinator and two workers on
// loopback ports, and returns the URL of the coordinator's database, where
// the citus extension is created and both workers are registered. The
// cluster is stopped and deleted when t ends. When Citus is not installed
// into PostgreSQL 15 (the kit's install.sh does that, and .ci/run runs it),
// it skips t, or fails it where the run promised Citus (package
// internal/testenv). The servers run as the OS user postgres when the tests
// run as root, as PostgreSQL requires, in the environment localpg gives its
// own servers (localpg.ServerEnv).
func Citus(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/lib/postgresql/15/lib/citus.so"); err != nil {
		testenv.Need(t, testenv.Citus, "storetest: Citus is not installed into PostgreSQL 15 (see ../shared/citus/pg15/install.sh)")
	}
	dir, err := os.MkdirTemp("", "verdict-citus-")
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	cred, err := serverCredential(dir)
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	env, err := localpg.ServerEnv()
	if err != nil {
		t.Fatalf("storetest: %v", err)
	}
	ports := make([]int, 3)
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			t.Fatalf("storetest: %v", err)
		}
	}
	run := func(name string, args ...string) error {
		cmd := exec.Command(filepath.Join(citusBinDir, name), args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		cmd.Dir = dir
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, out)
		}
		return nil
	}
	var started []string
	t.Cleanup(func() {
		for _, d := range started {
			if err := run("pg_ctl", "-D", d, "-m", "immediate", "-w", "-t", "60", "stop"); err != nil {
				t.Logf("storetest: %v", err)
			}
		}
		os.RemoveAll(dir)
	})
	for i, port := range ports {
		data := filepath.Join(dir, fmt.Sprintf("node%d", i))
		if err := run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-instructions"); err != nil {
			t.Fatalf("storetest: %v", err)
		}
		conf := fmt.Sprintf("\nlisten_addresses = '127.0.0.1'\nport = %d\nunix_socket_directories = '%s'\nshared_preload_libraries = 'citus'\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 200\n", port, dir)
		f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString(conf)
			f.Close()
		}
		if err != nil {
			t.Fatalf("storetest: %v", err)
		}
		if err := run("pg_ctl", "-D", data, "-l", data+".log", "-w", "-t", "60", "start"); err != nil {
			t.Fatalf("storetest: %v", err)
		}
		started = append(started, data)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := func(port int) string {
		return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)
	}
	// The extension on every node first (it switches SSL on, which a
	// reload applies), then the coordinator registers itself and the
	// workers.
	onNode := func(port int, stmts ...string) {
		conn, err := pgx.Connect(ctx, url(port))
		if err != nil {
			t.Fatalf("storetest: node on port %d: %v", port, err)
		}
		defer conn.Close(ctx)
		for _, s := range stmts {
			if _, err := conn.Exec(ctx, s); err != nil {
				t.Fatalf("storetest: node on port %d: %s: %v", port, s, err)
			}
		}
	}
	for _, port := range ports {
		onNode(port, `CREATE EXTENSION citus`, `SELECT pg_reload_conf()`)
	}
	coordinator := []string{fmt.Sprintf(`SELECT citus_set_coordinator_host('127.0.0.1', %d)`, ports[0])}
	for _, w := range ports[1:] {
		coordinator = append(coordinator, fmt.Sprintf(`SELECT citus_add_node('127.0.0.1', %d)`, w))
	}
	onNode(ports[0], coordinator...)
	return url(ports[0])
}

// serverCredential is the OS user the servers run as: postgres when the
// tests run as root (PostgreSQL refuses root), else the tests' own user.
// dir is handed to it.
func serverCredential(dir string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("the servers cannot run as root, and there is no OS user postgres: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// freePort is a loopback TCP port no one listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
