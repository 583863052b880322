// Package profiling writes a process's CPU and allocation profiles where
// the environment asks: VERDICT_CPUPROFILE and VERDICT_MEMPROFILE name
// the files, for bench/all and for whoever asks where one command's time
// goes (go tool pprof reads both).
package profiling

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// Start starts the profiles the environment names, reporting a file it
// cannot write to w, and returns the function that ends them: the CPU
// profile stops, and the allocation profile is written.
func Start(w io.Writer) (stop func()) {
	cpu, mem := os.Getenv("VERDICT_CPUPROFILE"), os.Getenv("VERDICT_MEMPROFILE")
	var f *os.File
	if cpu != "" {
		var err error
		if f, err = os.Create(cpu); err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(w, "verdict: VERDICT_CPUPROFILE:", err)
			f = nil
		}
	}
	return func() {
		if f != nil {
			pprof.StopCPUProfile()
			f.Close()
		}
		if mem == "" {
			return
		}
		m, err := os.Create(mem)
		if err == nil {
			err = pprof.Lookup("allocs").WriteTo(m, 0)
			m.Close()
		}
		if err != nil {
			fmt.Fprintln(w, "verdict: VERDICT_MEMPROFILE:", err)
		}
	}
}
