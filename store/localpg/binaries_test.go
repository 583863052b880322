package localpg

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeBinDir creates dir with executable initdb, pg_ctl and postgres scripts;
// postgres --version reports version.
func fakeBinDir(t *testing.T, dir, version string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, name := range serverBinaries {
		script := "#!/bin/sh\necho 'postgres (PostgreSQL) " + version + " (fake)'\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755))
	}
	return dir
}

// fakePgConfig creates dir/pg_config printing bindir for --bindir.
func fakePgConfig(t *testing.T, dir, bindir string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	script := "#!/bin/sh\necho '" + bindir + "'\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pg_config"), []byte(script), 0o755))
}

// The finder tests write scripts and run them. They stay sequential: a
// parallel test forking at the wrong moment would hold the script open for
// writing in its child and make running it fail with ETXTBSY.

func TestFinderOrder(t *testing.T) {

	tests := []struct {
		name string
		// build lays out a fake file tree under root and returns the finder
		// and the folder it must pick, relative to root.
		build func(t *testing.T, root string) (f finder, want string)
	}{
		{
			name: "PATH comes first",
			build: func(t *testing.T, root string) (finder, string) {
				fakeBinDir(t, filepath.Join(root, "path", "bin"), "14.1")
				fakeBinDir(t, filepath.Join(root, "config", "bin"), "17.0")
				fakePgConfig(t, filepath.Join(root, "path", "bin"), filepath.Join(root, "config", "bin"))
				fakeBinDir(t, filepath.Join(root, "debian", "17", "bin"), "17.0")
				return finder{path: filepath.Join(root, "path", "bin"), debianRoot: filepath.Join(root, "debian")}, "path/bin"
			},
		},
		{
			name: "PATH folder lacking a binary is skipped",
			build: func(t *testing.T, root string) (finder, string) {
				partial := filepath.Join(root, "partial")
				fakeBinDir(t, partial, "16.0")
				require.NoError(t, os.Remove(filepath.Join(partial, "postgres")))
				fakeBinDir(t, filepath.Join(root, "full"), "16.0")
				return finder{path: partial + string(filepath.ListSeparator) + filepath.Join(root, "full")}, "full"
			},
		},
		{
			name: "pg_config --bindir before the Debian layout",
			build: func(t *testing.T, root string) (finder, string) {
				fakePgConfig(t, filepath.Join(root, "path"), filepath.Join(root, "config", "bin"))
				fakeBinDir(t, filepath.Join(root, "config", "bin"), "13.2")
				fakeBinDir(t, filepath.Join(root, "debian", "17", "bin"), "17.0")
				return finder{path: filepath.Join(root, "path"), debianRoot: filepath.Join(root, "debian")}, "config/bin"
			},
		},
		{
			name: "pg_config pointing at an empty folder is skipped",
			build: func(t *testing.T, root string) (finder, string) {
				fakePgConfig(t, filepath.Join(root, "path"), filepath.Join(root, "nothing"))
				fakeBinDir(t, filepath.Join(root, "debian", "15", "bin"), "15.8")
				return finder{path: filepath.Join(root, "path"), debianRoot: filepath.Join(root, "debian")}, "debian/15/bin"
			},
		},
		{
			name: "Debian layout highest numeric version",
			build: func(t *testing.T, root string) (finder, string) {
				for _, v := range []string{"9.6", "16", "10", "15"} {
					fakeBinDir(t, filepath.Join(root, "debian", v, "bin"), v+".0")
				}
				require.NoError(t, os.MkdirAll(filepath.Join(root, "debian", "common"), 0o755))
				fakeBinDir(t, filepath.Join(root, "brew", "postgresql@17", "bin"), "17.0")
				return finder{debianRoot: filepath.Join(root, "debian"), brewRoots: []string{filepath.Join(root, "brew")}}, "debian/16/bin"
			},
		},
		{
			name: "Debian version without binaries is skipped",
			build: func(t *testing.T, root string) (finder, string) {
				require.NoError(t, os.MkdirAll(filepath.Join(root, "debian", "17", "bin"), 0o755))
				fakeBinDir(t, filepath.Join(root, "debian", "15", "bin"), "15.0")
				return finder{debianRoot: filepath.Join(root, "debian")}, "debian/15/bin"
			},
		},
		{
			name: "Homebrew highest version across both prefixes",
			build: func(t *testing.T, root string) (finder, string) {
				fakeBinDir(t, filepath.Join(root, "opt-homebrew", "postgresql@14", "bin"), "14.0")
				fakeBinDir(t, filepath.Join(root, "usr-local", "postgresql@16", "bin"), "16.0")
				fakeBinDir(t, filepath.Join(root, "usr-local", "postgresql@9.6", "bin"), "9.6.24")
				fakeBinDir(t, filepath.Join(root, "usr-local", "postgresql", "bin"), "17.0")
				return finder{
					debianRoot: filepath.Join(root, "no-debian"),
					brewRoots:  []string{filepath.Join(root, "opt-homebrew"), filepath.Join(root, "usr-local")},
				}, "usr-local/postgresql@16/bin"
			},
		},
		{
			name: "Homebrew equal versions keep prefix order",
			build: func(t *testing.T, root string) (finder, string) {
				fakeBinDir(t, filepath.Join(root, "opt-homebrew", "postgresql@16", "bin"), "16.0")
				fakeBinDir(t, filepath.Join(root, "usr-local", "postgresql@16", "bin"), "16.0")
				return finder{brewRoots: []string{filepath.Join(root, "opt-homebrew"), filepath.Join(root, "usr-local")}},
					"opt-homebrew/postgresql@16/bin"
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			f, want := tt.build(t, root)
			got, err := f.find(context.Background(), "")
			require.NoError(t, err)
			require.Equal(t, filepath.Join(root, want), got)
		})
	}
}

func TestFinderPrefersClusterVersion(t *testing.T) {
	root := t.TempDir()
	fakeBinDir(t, filepath.Join(root, "path"), "17.2")
	fakeBinDir(t, filepath.Join(root, "debian", "16", "bin"), "16.4")
	fakeBinDir(t, filepath.Join(root, "debian", "15", "bin"), "15.8 (Debian 15.8-1.pgdg120+1)")
	f := finder{path: filepath.Join(root, "path"), debianRoot: filepath.Join(root, "debian")}

	got, err := f.find(context.Background(), "15")
	require.NoError(t, err)
	require.Equal(t, filepath.Join(root, "debian", "15", "bin"), got)

	_, err = f.find(context.Background(), "12")
	require.ErrorIs(t, err, ErrNoBinaries)
	require.ErrorContains(t, err, "created by PostgreSQL 12")
	require.ErrorContains(t, err, "PostgreSQL 17 in "+filepath.Join(root, "path"))
	require.ErrorContains(t, err, "sudo apt-get install postgresql-12")
}

func TestNoBinariesError(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	f := finder{path: filepath.Join(root, "empty"), debianRoot: filepath.Join(root, "debian"), brewRoots: []string{filepath.Join(root, "brew")}}

	_, err := f.find(context.Background(), "")
	require.ErrorIs(t, err, ErrNoBinaries)
	for _, want := range []string{
		"initdb, pg_ctl and postgres",
		filepath.Join(root, "debian", "*", "bin"),
		filepath.Join(root, "brew", "postgresql@*", "bin"),
		"sudo apt-get install postgresql;",
		"brew install postgresql@16",
		`"docker compose up -d" (docker-compose.yml)`,
		"export VERDICT_DATABASE_URL=postgres://verdict:verdict@localhost:5432/verdict?sslmode=disable",
		"set VERDICT_DATABASE_URL to an existing PostgreSQL server",
	} {
		require.Contains(t, err.Error(), want)
	}
}

func TestMajorOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		version, want string
	}{
		{version: "15.8", want: "15"},
		{version: "16", want: "16"},
		{version: "17beta2", want: "17"},
		{version: "9.6.24", want: "9.6"},
		{version: "10.23", want: "10"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, majorOf(tt.version), tt.version)
	}
}
