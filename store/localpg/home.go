package localpg

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ErrUnsafeHome means another user could replace what verdict keeps in its
// home: the home, or a folder above it, is writable by group or others (a
// folder above it with the sticky bit, as /tmp has, excepted), or belongs to
// another user than the one running verdict or root. Cluster.Ensure,
// Cluster.Stop and Cluster.CheckHome return it, wrapped with the folder, its
// mode and owner and the command that fixes it.
var ErrUnsafeHome = errors.New("localpg: unsafe home")

// ErrClusterGone means a cluster was created in the home (its marker,
// cluster.json, says so) and its data folder is now missing or empty.
// Cluster.Ensure returns it, wrapped with what happened, rather than create
// an empty cluster in its place.
var ErrClusterGone = errors.New("localpg: cluster gone")

func (c *Cluster) markerPath() string { return filepath.Join(c.home, "cluster.json") }

// CheckHome refuses a home another user could tamper with, as ssh refuses
// such a ~/.ssh. The home and every folder above it up to /, both as written
// and with symbolic links resolved, must belong to the user running verdict
// or to root (or, when verdict runs as root, to the OS user postgres, which
// runs the server), and none may be writable by group or others, except a
// folder above the home that has the sticky bit, as /tmp has: there only
// owners rename or delete entries. Folders that do not exist yet pass;
// Ensure creates them, private. The error wraps ErrUnsafeHome.
func (c *Cluster) CheckHome() error {
	paths := ancestors(c.home)
	resolved, err := filepath.EvalSymlinks(c.home)
	if err == nil && resolved != c.home {
		paths = append(paths, ancestors(resolved)...)
	}
	trusted := c.trustedOwners()
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("localpg: checking who can change %s: %w", p, err)
		}
		uid, _, ok := ownerOf(fi)
		if !ok {
			return nil // no owners on this system
		}
		where := p
		if p != c.home && p != resolved {
			where = fmt.Sprintf("%s, above %s,", p, c.home)
		}
		if !trusted[uid] {
			me := userName(os.Geteuid())
			notTo := "not to you (" + me + ") or root"
			if os.Geteuid() == 0 {
				notTo = "not to root"
			}
			return fmt.Errorf("%w: %s belongs to user %s (mode %04o), %s, so that user could replace "+
				"the cluster verdict keeps there; set VERDICT_HOME to a folder of yours, or run chown %s %s as root",
				ErrUnsafeHome, where, userName(uid), unixMode(fi.Mode()), notTo, me, shellQuote(p))
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			continue // a link's own mode means nothing
		}
		w := fi.Mode().Perm() & 0o022
		if w == 0 || fi.Mode()&fs.ModeSticky != 0 && p != c.home && p != resolved {
			continue
		}
		who := map[fs.FileMode]string{0o020: "its group", 0o002: "others", 0o022: "its group and others"}[w]
		return fmt.Errorf("%w: %s is writable by %s (mode %04o, owner %s), so another user could replace "+
			"the cluster verdict keeps there; run chmod go-w %s, or set VERDICT_HOME to a folder only you can write to",
			ErrUnsafeHome, where, who, unixMode(fi.Mode()), userName(uid), shellQuote(p))
	}
	return nil
}

// trustedOwners are the users who may own the home and the folders above it.
func (c *Cluster) trustedOwners() map[int]bool {
	me := os.Geteuid()
	trusted := map[int]bool{0: true, me: true}
	if me == 0 {
		if u, err := c.lookupUser(postgresUser); err == nil {
			if uid, err := strconv.Atoi(u.Uid); err == nil {
				trusted[uid] = true
			}
		}
	}
	return trusted
}

// userName names a user for messages: the login name, else the uid.
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	return "uid " + strconv.Itoa(uid)
}

// unixMode returns the permission bits of a mode as chmod takes them:
// 01777 for /tmp.
func unixMode(m fs.FileMode) uint32 {
	bits := uint32(m.Perm())
	for flag, bit := range map[fs.FileMode]uint32{fs.ModeSticky: 0o1000, fs.ModeSetgid: 0o2000, fs.ModeSetuid: 0o4000} {
		if m&flag != 0 {
			bits |= bit
		}
	}
	return bits
}

// shellQuote quotes a path for a command the user copies into a shell.
func shellQuote(p string) string {
	if p != "" && strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:@%") == "" {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// marker is what the home's cluster.json records about the cluster created
// there. It lives outside the data folder so that it outlasts it: a home with
// a marker and no cluster lost its cluster, and Ensure says so instead of
// creating an empty one.
type marker struct {
	Created time.Time `json:"created"`
	// PostgreSQL is the cluster's major version, as in PG_VERSION.
	PostgreSQL string `json:"postgresql"`
}

// readMarker returns the home's marker; ok is false when there is none.
func (c *Cluster) readMarker() (m marker, ok bool, err error) {
	b, err := os.ReadFile(c.markerPath())
	if errors.Is(err, fs.ErrNotExist) {
		return m, false, nil
	}
	if err != nil {
		return m, false, fmt.Errorf("localpg: reading %s: %w", c.markerPath(), err)
	}
	// A marker that does not parse still says a cluster was created.
	_ = json.Unmarshal(b, &m)
	return m, true, nil
}

// writeMarker records the cluster of the given version created at created,
// atomically.
func (c *Cluster) writeMarker(created time.Time, version string) error {
	b, err := json.MarshalIndent(marker{Created: created.UTC().Truncate(time.Second), PostgreSQL: version}, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(c.home, ".cluster.json.")
	if err != nil {
		return fmt.Errorf("localpg: recording the cluster in %s: %w", c.markerPath(), err)
	}
	_, err = f.Write(append(b, '\n'))
	err = errors.Join(err, f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), c.markerPath())
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("localpg: recording the cluster in %s: %w", c.markerPath(), err)
	}
	return nil
}

// ensureMarker writes the marker of a cluster made before verdict wrote
// markers, dated by its PG_VERSION file.
func (c *Cluster) ensureMarker(version string) error {
	if _, err := os.Stat(c.markerPath()); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	created := time.Now()
	if fi, err := os.Stat(filepath.Join(c.dataDir(), "PG_VERSION")); err == nil {
		created = fi.ModTime()
	}
	return c.writeMarker(created, version)
}

// checkNotGone returns an error wrapping ErrClusterGone when the home's
// marker records a cluster whose data folder, which holds no cluster, has
// gone.
func (c *Cluster) checkNotGone() error {
	m, ok, err := c.readMarker()
	if err != nil || !ok {
		return err
	}
	state := "missing"
	if fi, err := os.Stat(c.dataDir()); err == nil {
		switch des, err := os.ReadDir(c.dataDir()); {
		case !fi.IsDir():
			state = "not a folder"
		case err == nil && len(des) == 0:
			state = "empty"
		default:
			state = "without its PG_VERSION file, so no longer a PostgreSQL cluster"
		}
	}
	when := "on an unknown date"
	if !m.Created.IsZero() {
		when = "on " + m.Created.Local().Format("2006-01-02 15:04:05 MST")
	}
	version := ""
	if m.PostgreSQL != "" {
		version = " with PostgreSQL " + m.PostgreSQL
	}
	return fmt.Errorf("%w: the cluster created in %s %s%s is gone: its data directory %s is %s; "+
		"verdict will not create an empty one in its place. Restore it, or remove %s to start afresh",
		ErrClusterGone, c.home, when, version, c.dataDir(), state, c.home)
}
