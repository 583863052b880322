package localpg

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrNoPostgresUser means verdict runs as root and the OS has no user
// "postgres" to own and run the cluster (PostgreSQL refuses to run as root).
// Cluster.Ensure, Cluster.Start and Cluster.Stop return it, wrapped in an error
// that says how to fix it.
var ErrNoPostgresUser = errors.New(`localpg: running as root, and there is no OS user "postgres" to run PostgreSQL`)

// postgresUser is the OS account that runs the cluster when verdict runs as
// root; distribution packages create it.
const postgresUser = "postgres"

// account is the OS user that owns and runs the cluster when verdict runs as
// root. A nil *account stands for the current user, who needs no switch.
type account struct {
	name     string
	uid, gid int
	home     string
}

// serverAccount returns the account that runs initdb, pg_ctl and the server:
// nil (the current user) unless the effective user is root.
func (c *Cluster) serverAccount() (*account, error) {
	if c.geteuid() != 0 {
		return nil, nil
	}
	u, err := c.lookupUser(postgresUser)
	if err != nil {
		return nil, fmt.Errorf("%w (%v). Either create it (Debian/Ubuntu: installing the postgresql package does; "+
			"elsewhere: useradd --system --home-dir /var/lib/postgresql postgres), run verdict as a normal user, "+
			"or set VERDICT_DATABASE_URL to an existing PostgreSQL server", ErrNoPostgresUser, err)
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("localpg: OS user %q: unexpected uid %q or gid %q: %w", u.Username, u.Uid, u.Gid, err)
	}
	if uid == 0 {
		return nil, fmt.Errorf("%w: OS user %q has uid 0", ErrNoPostgresUser, u.Username)
	}
	return &account{name: u.Username, uid: uid, gid: gid, home: u.HomeDir}, nil
}

func lookupUser(name string) (*user.User, error) { return user.Lookup(name) }

// describe names the account for notices; empty for the current user.
func (a *account) describe() string {
	if a == nil {
		return ""
	}
	return fmt.Sprintf("; the server runs as OS user %s because verdict runs as root", a.name)
}

// give makes path belong to the account; nothing for the current user.
func (a *account) give(path string) error {
	if a == nil {
		return nil
	}
	if err := os.Lchown(path, a.uid, a.gid); err != nil {
		return fmt.Errorf("localpg: giving %s to OS user %s: %w", path, a.name, err)
	}
	return nil
}

// makeReachable lets the account traverse every folder from the root down to
// dir, dir included, adding the search bit for others (o+x) where it lacks
// access. Both the path as written and the one its symbolic links resolve to
// are checked, since traversal needs both. It returns the folders it changed.
func (a *account) makeReachable(dir string) ([]string, error) {
	if a == nil {
		return nil, nil
	}
	paths := ancestors(dir)
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		paths = append(paths, ancestors(real)...)
	}
	var changed []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return changed, fmt.Errorf("localpg: checking that OS user %s can reach %s: %w", a.name, dir, err)
		}
		uid, gid, ok := ownerOf(fi)
		if !ok || uid == a.uid || gid == a.gid || fi.Mode().Perm()&0o001 != 0 {
			// The owner and group classes are left alone: if they deny the
			// account, the folder was set up that way on purpose.
			continue
		}
		// Keep the sticky, setgid and setuid bits, which Perm drops.
		keep := fi.Mode() & (fs.ModePerm | fs.ModeSticky | fs.ModeSetgid | fs.ModeSetuid)
		if err := os.Chmod(p, keep|0o001); err != nil {
			return changed, fmt.Errorf("localpg: letting OS user %s reach %s (chmod o+x %s): %w", a.name, dir, p, err)
		}
		changed = append(changed, p)
	}
	return changed, nil
}

// ancestors returns "/", "/a", "/a/b" for "/a/b": dir and every folder above
// it, from the root down.
func ancestors(dir string) []string {
	dir = filepath.Clean(dir)
	var out []string
	for {
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	slices.Reverse(out)
	return out
}

// ServerEnv returns the environment PostgreSQL's programs run with when
// verdict starts them (see childEnv): the caller's, without PG* and locale
// variables, in the C locale, and, when verdict runs as root, with the
// HOME, USER and LOGNAME of the OS user postgres who runs them. A server is
// a libpq client too (Citus's coordinator connects to its workers), and
// libpq looks in $HOME/.postgresql: root's home would refuse it. Harnesses
// that start servers of their own use it. As root without a user postgres
// it returns an error wrapping ErrNoPostgresUser.
func ServerEnv() ([]string, error) {
	a, err := (&Cluster{geteuid: os.Geteuid, lookupUser: lookupUser}).serverAccount()
	if err != nil {
		return nil, err
	}
	return childEnv(a), nil
}

// childEnv is the environment of initdb and pg_ctl, and so of the server:
// the caller's, without PG* variables (PGDATA, PGPORT and the like would
// override what localpg passes) and with the C locale, which the cluster uses.
func childEnv(a *account) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "PG"), name == "LANG", name == "LANGUAGE", strings.HasPrefix(name, "LC_"):
			continue
		case a != nil && (name == "HOME" || name == "USER" || name == "LOGNAME"):
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "LC_ALL=C")
	if a != nil {
		env = append(env, "HOME="+a.home, "USER="+a.name, "LOGNAME="+a.name)
	}
	return env
}
