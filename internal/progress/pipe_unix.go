//go:build unix

package progress

import (
	"os"
	"syscall"
)

// NoSIGPIPE returns a file that writes to the descriptor of f, on which a
// write after the reader has gone fails with EPIPE. Go ends a program with
// SIGPIPE when it writes to a broken pipe on descriptor 1 or 2, so a
// service whose log pipe closes would die in the middle of its work; a
// duplicate of the descriptor is not 1 or 2, and turns that into an error
// the service log drops (see Begin). Standard output keeps Go's default,
// so `verdict ... | head` still ends quietly. NoSIGPIPE returns f itself
// when the descriptor cannot be duplicated.
func NoSIGPIPE(f *os.File) *os.File {
	syscall.ForkLock.RLock()
	fd, err := syscall.Dup(int(f.Fd()))
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return f
	}
	return os.NewFile(uintptr(fd), f.Name())
}
