//go:build !unix

package localpg

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
)

// errUnsupported is returned on systems without Unix sockets and flock.
var errUnsupported = errors.New("localpg: the local PostgreSQL cluster needs a Unix system; set VERDICT_DATABASE_URL to a PostgreSQL server")

func lockFile(context.Context, string) (func(), error) { return nil, errUnsupported }

func runAs(*exec.Cmd, *account) {}

func ownerOf(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

func isPostmaster(pid int, _ string) bool { return pid > 0 }

var psqlSignals = []os.Signal{os.Interrupt}

func forwardToPsql(os.Signal) bool { return false }
