package localpg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// ErrNoBinaries means PostgreSQL's server binaries (initdb, pg_ctl and
// postgres) were not found, or only binaries of another major version than the
// cluster's were. FindBinaries, Cluster.Ensure, Cluster.Start and Cluster.Stop
// return it wrapped in an error that tells the user the ways out: install the
// server, start the repository's docker-compose.yml, or point
// VERDICT_DATABASE_URL at an existing server.
var ErrNoBinaries = errors.New("localpg: PostgreSQL server binaries not found")

// serverBinaries are the programs a bin folder must hold to be used.
var serverBinaries = []string{"initdb", "pg_ctl", "postgres"}

// finder looks for a folder holding the server binaries. Its fields are the
// places it searches, so tests can point it at a fake file tree.
type finder struct {
	// path is a PATH-style list of folders, searched first.
	path string
	// debianRoot holds one folder per major version, each with a bin folder
	// (Debian's and Ubuntu's /usr/lib/postgresql/<version>/bin).
	debianRoot string
	// brewRoots hold Homebrew's postgresql@<version> folders, each with a bin
	// folder.
	brewRoots []string
}

func defaultFinder() finder {
	return finder{
		path:       os.Getenv("PATH"),
		debianRoot: "/usr/lib/postgresql",
		brewRoots:  []string{"/opt/homebrew/opt", "/usr/local/opt"},
	}
}

// FindBinaries returns the folder that holds PostgreSQL's server binaries
// initdb, pg_ctl and postgres. It searches, in order:
//
//  1. the folders on PATH;
//  2. the folder printed by pg_config --bindir (pg_config found on PATH);
//  3. /usr/lib/postgresql/<version>/bin, highest version first, comparing
//     versions numerically (16 before 9.6);
//  4. Homebrew's /opt/homebrew/opt/postgresql@<version>/bin and
//     /usr/local/opt/postgresql@<version>/bin, highest version first.
//
// A folder counts only if it holds all three programs. When none does,
// FindBinaries returns an error wrapping ErrNoBinaries.
func FindBinaries() (binDir string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return defaultFinder().find(ctx, "")
}

// find returns the first candidate folder. When major is not empty (the
// version in an existing cluster's PG_VERSION), it returns the first candidate
// whose postgres reports that major version instead, because a server refuses
// to start on a cluster made by another major version.
func (f finder) find(ctx context.Context, major string) (string, error) {
	cands := f.candidates(ctx)
	if len(cands) == 0 {
		return "", noBinariesError(f)
	}
	if major == "" {
		return cands[0], nil
	}
	var found []string
	for _, dir := range cands {
		v, err := serverVersion(ctx, dir)
		if err != nil {
			continue
		}
		if majorOf(v) == major {
			return dir, nil
		}
		found = append(found, fmt.Sprintf("PostgreSQL %s in %s", majorOf(v), dir))
	}
	return "", fmt.Errorf("%w: the cluster was created by PostgreSQL %s, and the binaries found are %s; "+
		"install PostgreSQL %s's server (Debian/Ubuntu: sudo apt-get install postgresql-%s; Homebrew: brew install postgresql@%s), "+
		"or set VERDICT_DATABASE_URL to use another server",
		ErrNoBinaries, major, orNone(strings.Join(found, ", ")), major, major, major)
}

func orNone(s string) string {
	if s == "" {
		return "none that run"
	}
	return s
}

// candidates lists every folder holding the server binaries, in search order,
// without duplicates.
func (f finder) candidates(ctx context.Context) []string {
	var dirs []string
	for _, dir := range filepath.SplitList(f.path) {
		// Like exec.LookPath, ignore relative entries such as ".".
		if filepath.IsAbs(dir) {
			dirs = append(dirs, dir)
		}
	}
	if pgConfig := f.lookPath("pg_config"); pgConfig != "" {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		out, err := exec.CommandContext(ctx, pgConfig, "--bindir").Output()
		cancel()
		if dir := strings.TrimSpace(string(out)); err == nil && dir != "" {
			dirs = append(dirs, dir)
		}
	}
	if f.debianRoot != "" {
		dirs = append(dirs, versionedDirs([]string{f.debianRoot}, "")...)
	}
	dirs = append(dirs, versionedDirs(f.brewRoots, "postgresql@")...)

	var out []string
	for _, dir := range dirs {
		dir = filepath.Clean(dir)
		if !slices.Contains(out, dir) && hasServerBinaries(dir) {
			out = append(out, dir)
		}
	}
	return out
}

// lookPath finds an executable on f.path, like exec.LookPath on $PATH.
func (f finder) lookPath(name string) string {
	for _, dir := range filepath.SplitList(f.path) {
		if filepath.IsAbs(dir) && isExecutable(filepath.Join(dir, name)) {
			return filepath.Join(dir, name)
		}
	}
	return ""
}

// versionedDirs returns root/<prefix><version>/bin for every entry of every
// root whose name is prefix followed by a version, highest version first; equal
// versions keep the order of roots.
func versionedDirs(roots []string, prefix string) []string {
	type entry struct {
		dir     string
		version []int
	}
	var entries []entry
	for _, root := range roots {
		des, err := os.ReadDir(root)
		if err != nil {
			continue
		}
		for _, de := range des {
			rest, ok := strings.CutPrefix(de.Name(), prefix)
			if !ok {
				continue
			}
			v, ok := parseVersion(rest)
			if !ok {
				continue
			}
			entries = append(entries, entry{filepath.Join(root, de.Name(), "bin"), v})
		}
	}
	slices.SortStableFunc(entries, func(a, b entry) int { return slices.Compare(b.version, a.version) })
	dirs := make([]string, len(entries))
	for i, e := range entries {
		dirs[i] = e.dir
	}
	return dirs
}

// parseVersion parses a dotted version such as "16" or "9.6" into its numbers.
func parseVersion(s string) ([]int, bool) {
	if s == "" {
		return nil, false
	}
	var v []int
	for part := range strings.SplitSeq(s, ".") {
		n, err := strconv.Atoi(part)
		if err != nil || n < 0 {
			return nil, false
		}
		v = append(v, n)
	}
	return v, true
}

func hasServerBinaries(dir string) bool {
	for _, name := range serverBinaries {
		if !isExecutable(filepath.Join(dir, name)) {
			return false
		}
	}
	return true
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// serverVersion runs "postgres --version" in dir and returns the version it
// reports, for example "15.8" from "postgres (PostgreSQL) 15.8 (Debian 15.8-1)".
func serverVersion(ctx context.Context, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(dir, "postgres"), "--version").Output()
	if err != nil {
		return "", fmt.Errorf("localpg: %s --version: %w", filepath.Join(dir, "postgres"), err)
	}
	_, rest, ok := bytes.Cut(out, []byte("(PostgreSQL) "))
	fields := strings.Fields(string(rest))
	if !ok || len(fields) == 0 {
		return "", fmt.Errorf("localpg: %s --version: unexpected output %q", filepath.Join(dir, "postgres"), out)
	}
	return fields[0], nil
}

// majorOf returns the major version of a full version, the form initdb writes
// into PG_VERSION: "15" for "15.8" or "16beta1", "9.6" for "9.6.24".
func majorOf(version string) string {
	end := strings.IndexFunc(version, func(r rune) bool { return r != '.' && (r < '0' || r > '9') })
	if end >= 0 {
		version = version[:end]
	}
	parts := strings.Split(version, ".")
	if n, err := strconv.Atoi(parts[0]); err == nil && n < 10 && len(parts) > 1 {
		return parts[0] + "." + parts[1]
	}
	return parts[0]
}

// noBinariesError explains where FindBinaries looked and the three ways to
// give verdict a database.
func noBinariesError(f finder) error {
	places := []string{"PATH", "pg_config --bindir"}
	if f.debianRoot != "" {
		places = append(places, filepath.Join(f.debianRoot, "*", "bin"))
	}
	for _, root := range f.brewRoots {
		places = append(places, filepath.Join(root, "postgresql@*", "bin"))
	}
	return fmt.Errorf(`%w (initdb, pg_ctl and postgres; searched %s).
verdict keeps its default database in a local PostgreSQL cluster and needs them for it. Either:
  1. install PostgreSQL's server: Debian/Ubuntu: sudo apt-get install postgresql; Homebrew: brew install postgresql@16;
  2. or start the server in verdict's repository with "docker compose up -d" (docker-compose.yml), then
     export VERDICT_DATABASE_URL=postgres://verdict:verdict@localhost:5432/verdict?sslmode=disable
  3. or set VERDICT_DATABASE_URL to an existing PostgreSQL server`,
		ErrNoBinaries, strings.Join(places, ", "))
}

// FindPsql looks for PostgreSQL's client, psql, on PATH, then next to the
// server binaries.
func FindPsql() (string, error) {
	if p, err := exec.LookPath("psql"); err == nil {
		return p, nil
	}
	if dir, err := FindBinaries(); err == nil {
		p := filepath.Join(dir, "psql")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", errors.New("psql not found: install PostgreSQL's client (Debian/Ubuntu: apt-get install postgresql-client; Homebrew: brew install libpq)")
}
