//go:build unix

package localpg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/testenv"
)

func TestWorldWritableHomeRefused(t *testing.T) {
	t.Parallel()
	_, err := FindBinaries()
	require.NoError(t, err, "these tests run a real PostgreSQL")
	const nobody = 65534
	me := userName(os.Geteuid())
	tests := []struct {
		name       string
		parentMode os.FileMode // of the folder that holds the home
		homeMode   os.FileMode // 0: the home does not exist yet
		// giveParent gives the parent to the user nobody, which needs root.
		giveParent bool
		// blameParent says the error names the parent, not the home.
		blameParent bool
		want        []string
	}{
		{
			name:       "home writable by others",
			parentMode: 0o755, homeMode: 0o707,
			want: []string{"is writable by others (mode 0707, owner " + me + ")"},
		},
		{
			name:       "home writable by its group",
			parentMode: 0o755, homeMode: 0o770,
			want: []string{"is writable by its group (mode 0770, owner " + me + ")"},
		},
		{
			name:       "home with the sticky bit",
			parentMode: 0o755, homeMode: 0o777 | os.ModeSticky,
			want: []string{"is writable by its group and others (mode 1777, owner " + me + ")"},
		},
		{
			name:       "parent writable by all, home not made yet",
			parentMode: 0o777, blameParent: true,
			want: []string{"is writable by its group and others (mode 0777, owner " + me + ")"},
		},
		{
			name:       "parent of another user",
			parentMode: 0o755, homeMode: 0o700, giveParent: true, blameParent: true,
			want: []string{fmt.Sprintf("belongs to user %s (mode 0755), not to root", userName(nobody)),
				"or run chown root "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.giveParent && os.Geteuid() != 0 {
				testenv.Need(t, testenv.Root, "needs root: gives the parent folder to another user")
			}
			parent := filepath.Join(shortTempDir(t), "parent")
			home := filepath.Join(parent, "verdict")
			require.NoError(t, os.Mkdir(parent, 0o700))
			if tt.homeMode != 0 {
				require.NoError(t, os.Mkdir(home, 0o700))
				require.NoError(t, os.Chmod(home, tt.homeMode))
			}
			require.NoError(t, os.Chmod(parent, tt.parentMode))
			if tt.giveParent {
				require.NoError(t, os.Chown(parent, nobody, nobody))
			}
			blamed := home
			if tt.blameParent {
				blamed = parent + ", above " + home + ","
			}

			c := New(home)
			_, err := c.Ensure(t.Context())
			require.ErrorIs(t, err, ErrUnsafeHome)
			require.ErrorContains(t, err, "localpg: unsafe home: "+blamed+" ")
			for _, want := range tt.want {
				require.ErrorContains(t, err, want)
			}
			if !tt.giveParent {
				path, _, _ := strings.Cut(blamed, ", ")
				require.ErrorContains(t, err, "run chmod go-w "+path+",")
			}
			require.NoDirExists(t, filepath.Join(home, "data"))
			if tt.homeMode == 0 {
				require.NoDirExists(t, home)
			}
		})
	}

	t.Run("parent with the sticky bit", func(t *testing.T) {
		t.Parallel()
		parent := filepath.Join(shortTempDir(t), "tmp")
		require.NoError(t, os.Mkdir(parent, 0o700))
		require.NoError(t, os.Chmod(parent, 0o777|os.ModeSticky))
		c := New(filepath.Join(parent, "verdict"))
		url, err := c.Ensure(t.Context())
		require.NoError(t, err, "/tmp is fine above the home")
		// As root, Ensure let the postgres OS user reach the home.
		home, err := os.Stat(c.Home())
		require.NoError(t, err)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			require.NoError(t, os.Chmod(c.Home(), home.Mode()))
			require.NoError(t, c.Stop(ctx))
		})
		require.Equal(t, 1, queryInt(t, url, `SELECT 1`))
		fi, err := os.Stat(parent)
		require.NoError(t, err)
		require.Equal(t, 0o777|os.ModeSticky, fi.Mode()&(os.ModePerm|os.ModeSticky), "the sticky bit stays")

		// A running cluster whose home turned unsafe is refused too.
		require.NoError(t, os.Chmod(c.Home(), 0o757))
		_, err = c.Ensure(t.Context())
		require.ErrorIs(t, err, ErrUnsafeHome)
		require.ErrorIs(t, c.Stop(t.Context()), ErrUnsafeHome)
	})
}

// shortTempDir is a temporary folder whose name, unlike t.TempDir's, leaves
// room for the socket path.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "verdict-")
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, os.RemoveAll(dir)) })
	return dir
}

func TestMissingDataDirNotReinitialised(t *testing.T) {
	t.Parallel()
	c, _ := setup(t)
	ctx := t.Context()
	before := time.Now().Add(-time.Second)
	url, err := c.Ensure(ctx)
	require.NoError(t, err)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `CREATE TABLE kept (n int); INSERT INTO kept VALUES (42)`)
	require.NoError(t, err)
	require.NoError(t, conn.Close(ctx))
	st, err := c.Status(ctx)
	require.NoError(t, err)

	m, ok, err := c.readMarker()
	require.NoError(t, err)
	require.True(t, ok, "Ensure leaves cluster.json in the home")
	require.Equal(t, st.Version, m.PostgreSQL)
	require.WithinRange(t, m.Created, before.Truncate(time.Second), time.Now())

	// A cluster made before verdict wrote markers gets one, dated by its
	// PG_VERSION.
	require.NoError(t, os.Remove(c.markerPath()))
	_, err = c.Ensure(ctx)
	require.NoError(t, err)
	m, ok, err = c.readMarker()
	require.NoError(t, err)
	require.True(t, ok)
	pgVersion, err := os.Stat(filepath.Join(c.dataDir(), "PG_VERSION"))
	require.NoError(t, err)
	require.Equal(t, pgVersion.ModTime().UTC().Truncate(time.Second), m.Created)
	require.NoError(t, c.Stop(ctx))

	moved := filepath.Join(c.Home(), "data.moved")
	tests := []struct {
		name  string
		lose  func(t *testing.T)
		state string
	}{
		{
			name:  "data directory moved away",
			lose:  func(t *testing.T) { require.NoError(t, os.Rename(c.dataDir(), moved)) },
			state: "missing",
		},
		{
			name: "data directory empty",
			lose: func(t *testing.T) {
				require.NoError(t, os.Rename(c.dataDir(), moved))
				require.NoError(t, os.Mkdir(c.dataDir(), 0o700))
			},
			state: "empty",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.lose(t)
			_, err := c.Ensure(ctx)
			require.ErrorIs(t, err, ErrClusterGone)
			require.ErrorContains(t, err, fmt.Sprintf("the cluster created in %s on %s with PostgreSQL %s is gone: "+
				"its data directory %s is %s; verdict will not create an empty one in its place. "+
				"Restore it, or remove %s to start afresh",
				c.Home(), m.Created.Local().Format("2006-01-02 15:04:05 MST"), st.Version, c.dataDir(), tt.state, c.Home()))
			require.NoFileExists(t, filepath.Join(c.dataDir(), "PG_VERSION"), "no new cluster")

			// Restored, the cluster is back with its data.
			require.NoError(t, os.RemoveAll(c.dataDir()))
			require.NoError(t, os.Rename(moved, c.dataDir()))
			url, err := c.Ensure(ctx)
			require.NoError(t, err)
			require.Equal(t, 42, queryInt(t, url, `SELECT n FROM kept`))
			require.NoError(t, c.Stop(ctx))
		})
	}
}
