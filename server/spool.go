package server

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"
)

// The spool holds uploads while they are read (verdict-upload-* files).
// Each server keeps its files in a folder of its own under
// Config.SpoolDir, server-*, with a lock file inside that it holds while it
// runs: several servers may share a spool, and a server that was killed,
// whose lock the system released with its process, leaves a folder that
// the next server to start finds unlocked and removes, with whatever
// uploads were in it. The spool's own lock, .lock, is held while a server
// looks for such folders and makes its own, so that none is taken for a
// killed server's between its making and its locking.

const (
	spoolLock      = ".lock"
	spoolDirPrefix = "server-"
	uploadPrefix   = "verdict-upload-"
)

// spool is a server's own folder in the spool.
type spool struct {
	dir  string
	lock *flock.Flock
}

// openSpool removes from root what killed servers left there and makes a
// folder of this server's own in it, creating root (mode 0700) if needed.
func openSpool(root string) (*spool, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("spool folder: %w", err)
	}
	rootLock := flock.New(filepath.Join(root, spoolLock))
	if err := rootLock.Lock(); err != nil {
		return nil, fmt.Errorf("spool folder %s: %w", root, err)
	}
	defer rootLock.Unlock()
	if err := cleanSpool(root); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(root, spoolDirPrefix+"*")
	if err != nil {
		return nil, fmt.Errorf("spool folder: %w", err)
	}
	lock := flock.New(filepath.Join(dir, spoolLock))
	if ok, err := lock.TryLock(); !ok || err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("spool folder %s: cannot lock it: %v", dir, err)
	}
	return &spool{dir: dir, lock: lock}, nil
}

// cleanSpool removes the folders of root whose servers are gone, and any
// upload left loose in it. The caller holds root's lock.
func cleanSpool(root string) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("spool folder: %w", err)
	}
	var errs []error
	for _, e := range entries {
		path := filepath.Join(root, e.Name())
		switch {
		case e.IsDir() && strings.HasPrefix(e.Name(), spoolDirPrefix):
			gone, err := abandoned(path)
			if err != nil {
				errs = append(errs, err)
			} else if gone {
				errs = append(errs, os.RemoveAll(path))
			}
		case !e.IsDir() && strings.HasPrefix(e.Name(), uploadPrefix):
			errs = append(errs, os.Remove(path))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("cleaning the spool folder: %w", err)
	}
	return nil
}

// abandoned reports whether the server that made dir is gone: its lock is
// free, or was never taken (it died between making dir and locking it).
func abandoned(dir string) (bool, error) {
	path := filepath.Join(dir, spoolLock)
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	lock := flock.New(path)
	ok, err := lock.TryLock()
	if err != nil {
		return false, fmt.Errorf("spool folder %s: %w", dir, err)
	}
	if ok {
		_ = lock.Unlock()
	}
	return ok, nil
}

// create makes a new upload file in the server's folder, named like
// verdict-upload-*ext; remove closes and removes it.
func (sp *spool) create(ext string) (f *os.File, remove func(), err error) {
	f, err = os.CreateTemp(sp.dir, uploadPrefix+"*"+ext)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close(); os.Remove(f.Name()) }, nil
}

// close removes the server's folder, with any upload still in it, and
// releases its lock.
func (sp *spool) close() error {
	err := os.RemoveAll(sp.dir)
	return errors.Join(err, sp.lock.Close())
}
