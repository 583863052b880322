//go:build !unix

package progress

import "os"

// NoSIGPIPE returns f: there is no SIGPIPE here.
func NoSIGPIPE(f *os.File) *os.File { return f }
