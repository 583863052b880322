//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package progress

// peakRSS reports that the peak resident memory is not known here.
func peakRSS() (int64, bool) { return 0, false }
