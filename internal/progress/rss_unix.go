//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package progress

import (
	"runtime"
	"syscall"
)

// peakRSS returns the process's peak resident memory in bytes, from
// getrusage(2): ru_maxrss, which is in KiB on Linux and the BSDs and in
// bytes on macOS.
func peakRSS() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	n := int64(ru.Maxrss)
	if runtime.GOOS != "darwin" {
		n *= 1024
	}
	return n, n > 0
}
