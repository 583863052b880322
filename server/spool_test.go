package server

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// TestSpoolLeftByKilledServersIsRemoved leaves in a spool folder what
// killed servers leave: a server's folder with its lock file, no longer
// held, and an upload; one that died before locking its folder; an upload
// loose in the spool. A server that starts there removes them, keeps what
// is not its to remove, and takes uploads in a folder of its own; a second
// server on the same spool leaves the first's folder alone, and Close
// removes each server's folder.
func TestSpoolLeftByKilledServersIsRemoved(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(path string) {
		t.Helper()
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
		require.NoError(t, os.WriteFile(path, []byte("sample_id,x\nu1,1\n"), 0o600))
	}
	left := []string{
		filepath.Join(root, "server-1234", spoolLock),
		filepath.Join(root, "server-1234", "verdict-upload-99.csv"),
		filepath.Join(root, "server-5678", "verdict-upload-7.parquet"),
		filepath.Join(root, "verdict-upload-3.npz"),
	}
	for _, path := range left {
		write(path)
	}
	other := filepath.Join(root, "notes.txt")
	write(other)

	ts := startServer(t, Config{SpoolDir: root})
	for _, path := range left {
		require.NoFileExists(t, path)
	}
	require.NoDirExists(t, filepath.Join(root, "server-1234"))
	require.NoDirExists(t, filepath.Join(root, "server-5678"))
	require.FileExists(t, other, "what is not an upload's is left alone")
	own := ts.uploads.dir
	require.DirExists(t, own)
	require.Equal(t, root, filepath.Dir(own))

	// Uploads work, and leave nothing behind once answered.
	w := ts.token(t, store.TokenWriter, "")
	ts.logCSV(t, w, "e", "r", "sample_id,x\nu1,0.5\nu2,1\n")
	uploads, err := filepath.Glob(filepath.Join(own, uploadPrefix+"*"))
	require.NoError(t, err)
	require.Empty(t, uploads)

	// A second server on the same spool: the first's folder is in use, and
	// stays; each has its own.
	st, err := store.Open(context.Background(), storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	second, err := New(st, Config{SpoolDir: root})
	require.NoError(t, err)
	require.DirExists(t, own)
	require.NotEqual(t, own, second.uploads.dir)
	ts.logCSV(t, w, "e", "r2", "sample_id,x\nu1,0.5\nu2,1\n")
	require.NoError(t, second.Close())
	require.NoDirExists(t, second.uploads.dir)
	require.DirExists(t, own)
	ts.stop()
	require.NoError(t, ts.Close())
	require.NoDirExists(t, own)
}

// TestSpoolIsUnderVerdictHome: by default, uploads go to
// $VERDICT_HOME/spool.
func TestSpoolIsUnderVerdictHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("VERDICT_HOME", home)
	require.Equal(t, filepath.Join(home, "spool"), Config{}.withDefaults().SpoolDir)
}
