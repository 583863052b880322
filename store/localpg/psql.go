package localpg

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

// Psql runs the psql FindPsql finds on the database conn, a connection
// string without its password, with args after it, as RunPsql does: the
// password goes to psql through a file of its own, never on its command line.
func Psql(conn, password string, args []string, stdin io.Reader, stdout, stderr io.Writer) (exitCode int, err error) {
	psql, err := FindPsql()
	if err != nil {
		return 0, err
	}
	return RunPsql(psql, append([]string{conn}, args...), password, stdin, stdout, stderr)
}

// RunPsql runs psql (the path FindPsql returns) with args, connected to
// stdin, stdout and stderr, waits for it and returns its exit status. args
// must not hold the password: ps shows a command line to every user of the
// machine. RunPsql hands psql a non-empty password through a password file
// of its own instead, readable only by the current user, named by PGPASSFILE
// and removed when psql exits; the caller's PGPASSWORD, which psql would
// prefer, is left out of psql's environment. A password holding a line
// break, which a password file cannot hold, goes in PGPASSWORD, which only
// the current user and root can read.
//
// psql runs as a child in verdict's process group, so it owns the terminal
// with verdict, and the terminal sends Ctrl-C and Ctrl-\ to both: meanwhile
// RunPsql ignores SIGINT and SIGQUIT, as system(3) does, and passes SIGTERM
// and SIGHUP on to psql. A psql killed by a signal returns 128 plus its
// number, as in a shell.
func RunPsql(psql string, args []string, password string, stdin io.Reader, stdout, stderr io.Writer) (exitCode int, err error) {
	cmd := exec.Command(psql, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if password != "" {
		env, remove, err := passwordEnv(password)
		if err != nil {
			return 0, err
		}
		defer remove()
		cmd.Env = env
	}

	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, psqlSignals...)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("localpg: starting %s: %w", psql, err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-sigs:
				if forwardToPsql(s) {
					_ = cmd.Process.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("localpg: running %s: %w", psql, err)
	}
	return 0, nil
}

// passwordEnv returns psql's environment with the password, in a password
// file it writes, and the function that removes the file.
func passwordEnv(password string) (env []string, remove func(), err error) {
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != "PGPASSWORD" && name != "PGPASSFILE" {
			env = append(env, kv)
		}
	}
	if strings.ContainsAny(password, "\r\n") {
		return append(env, "PGPASSWORD="+password), func() {}, nil
	}
	// CreateTemp makes the file readable and writable by its owner only, as
	// libpq requires of a password file.
	f, err := os.CreateTemp("", "verdict-pgpass-")
	if err != nil {
		return nil, nil, fmt.Errorf("localpg: creating a password file for psql: %w", err)
	}
	remove = func() { _ = os.Remove(f.Name()) }
	_, err = io.WriteString(f, passfileLine(password))
	if err := errors.Join(err, f.Close()); err != nil {
		remove()
		return nil, nil, fmt.Errorf("localpg: writing a password file for psql: %w", err)
	}
	return append(env, "PGPASSFILE="+f.Name()), remove, nil
}

// passfileLine is a password file's line giving password for any host, port,
// database and user. A backslash escapes ':' and '\' in its fields.
func passfileLine(password string) string {
	escaped := strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(password)
	return "*:*:*:*:" + escaped + "\n"
}
