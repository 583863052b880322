// Command columnsbench times the parse of a `verdict stats` input: it reads
// FILE with package columns and takes the columns `verdict stats
// paired-bootstrap --metric` reads (label, left, right), then prints one
// line: rows, the seconds from open to the last column, wall and CPU (user
// and system, of all threads), and the Go heap's largest size
// (runtime.MemStats.HeapSys, sampled after each step). Its whole process's
// peak RSS is for /usr/bin/time to say. bench/columns
// runs it against the build of an older commit.
//
//	columnsbench FILE
//	columnsbench -floor FILE
//
// With -floor it times the least any parse of FILE does: read the file's
// bytes, split each line at its commas and strconv.ParseFloat each field,
// keeping none.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/verdict-ml/verdict/internal/columns"
)

func main() {
	floor := flag.Bool("floor", false, "time the floor: read the bytes and ParseFloat each field")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: columnsbench [-floor] FILE")
	}
	path := flag.Arg(0)
	var heap uint64
	sample := func() {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		heap = max(heap, m.HeapSys)
	}
	start, cpu0 := time.Now(), cpuSeconds()
	var n int
	if *floor {
		n = parseFloor(path)
	} else {
		in, err := columns.Open(path, "")
		if err != nil {
			log.Fatal(err)
		}
		sample()
		label, err := in.Floats("label", true)
		if err != nil {
			log.Fatal(err)
		}
		sample()
		left, right, err := in.Pair()
		if err != nil {
			log.Fatal(err)
		}
		if len(left) != len(label) || len(right) != len(label) {
			log.Fatalf("columns of %d, %d and %d rows", len(label), len(left), len(right))
		}
		n = len(label)
	}
	elapsed, cpu := time.Since(start).Seconds(), cpuSeconds()-cpu0
	sample()
	fmt.Printf("rows=%d parse=%.3fs cpu=%.3fs heap=%.1fMB\n", n, elapsed, cpu, float64(heap)/(1<<20))
}

// cpuSeconds is the CPU time the process has used, user and system.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// parseFloor reads the file at path as a stream and parses every field
// after the header line as a number, summing them: no parse of the file
// can do less. It returns the number of rows.
func parseFloor(path string) int {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	if _, err := br.ReadSlice('\n'); err != nil {
		log.Fatal(err)
	}
	var rows int
	var sum float64
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
		}
		if len(line) > 0 {
			for len(line) > 0 {
				field := line
				if i := bytes.IndexByte(line, ','); i >= 0 {
					field, line = line[:i], line[i+1:]
				} else {
					line = nil
				}
				v, err := strconv.ParseFloat(string(field), 64)
				if err != nil {
					log.Fatal(err)
				}
				sum += v
			}
			rows++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
	}
	if math.IsNaN(sum) {
		log.Fatal("NaN")
	}
	return rows
}
