//go:build unix

package localpg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// lockFile takes an exclusive flock on path, creating the file if needed, and
// returns the function that releases it. The lock belongs to the open file, so
// two goroutines of one process exclude each other as two processes do, and it
// goes away with the process if verdict dies. Waiting honours ctx.
func lockFile(ctx context.Context, path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("localpg: opening lock file: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("localpg: locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("localpg: waiting for the lock on %s: %w", path, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// runAs makes cmd run as the account (nil: the current user), in a process
// group of its own so that a Ctrl-C meant for verdict does not reach pg_ctl
// and the server it starts.
func runAs(cmd *exec.Cmd, a *account) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if a != nil {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(a.uid), Gid: uint32(a.gid)}
	}
}

// ownerOf returns the numeric owner and group of a file.
func ownerOf(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// isPostmaster reports whether pid is a live postmaster serving dataDir. It
// answers false for a dead process, a zombie, and a PID the system has since
// given to an unrelated process, which is what a postmaster.pid left behind by
// a crash or a reboot records; PostgreSQL itself would refuse to start on the
// latter. When it cannot tell, it answers true, the safe side.
func isPostmaster(pid int, dataDir string) bool {
	if pid <= 0 {
		return false
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		return isPostmasterProc(pid, dataDir)
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	// No /proc (macOS, the BSDs): ask ps for the command line.
	out, err := exec.Command("ps", "-p", strconv.Itoa(pid), "-o", "command=").Output()
	if err != nil {
		// ps exits 1 when the process is gone.
		var ee *exec.ExitError
		return !errors.As(err, &ee)
	}
	args := bytes.Fields(out)
	return len(args) > 0 && isPostgresProgram(string(args[0]))
}

// isPostmasterProc answers isPostmaster from Linux's /proc.
func isPostmasterProc(pid int, dataDir string) bool {
	proc := filepath.Join("/proc", strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(proc, "stat"))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	// The state follows the command name in parentheses, which may itself
	// hold spaces and parentheses: "123 (postgres) S 1 ...".
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		if state := stat[i+2]; state == 'Z' || state == 'X' {
			return false
		}
	}
	cmdline, err := os.ReadFile(filepath.Join(proc, "cmdline"))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	if !isPostgresProgram(string(argv0)) {
		return false
	}
	// The postmaster works in its data folder. Another cluster's postmaster
	// can have taken the PID after a reboot.
	cwd, err := os.Readlink(filepath.Join(proc, "cwd"))
	if err != nil {
		return !errors.Is(err, fs.ErrNotExist)
	}
	want, err := filepath.EvalSymlinks(dataDir)
	if err != nil {
		want = dataDir
	}
	return cwd == want
}

// isPostgresProgram reports whether argv[0] is PostgreSQL's server. The
// postmaster keeps its command line; its children rewrite theirs to
// "postgres: ...", which this rejects.
func isPostgresProgram(argv0 string) bool {
	base := filepath.Base(argv0)
	return base == "postgres" || base == "postmaster"
}

// psqlSignals are the signals RunPsql catches while psql runs. The terminal
// sends SIGINT (Ctrl-C) and SIGQUIT (Ctrl-\) to psql as well; RunPsql passes
// those forwardToPsql names on to it.
var psqlSignals = []os.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP}

func forwardToPsql(s os.Signal) bool { return s == syscall.SIGTERM || s == syscall.SIGHUP }
