// Command testsummary reads the JSON event stream of `go test -json` on its
// standard input, prints what `go test` would print without -json (a line a
// package, and the output of every failing test), and ends with a summary:
// per package, the tests run, passed, skipped and failed; then every skipped
// test with its reason, and every failed test and package. .ci/run pipes the
// test command through it, so that a skip is as visible as a failure.
//
//	go test -json ./... | go run ./internal/testsummary
//
// It exits 1 when a test, a package or its build failed, or when the stream
// ends without a package's result (a test binary killed mid-run), and 0
// otherwise. It does not decide which skips are acceptable: a test that
// must not skip in a run fails itself (package internal/testenv).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Action     string
	Package    string
	ImportPath string // of build-output and build-fail events
	Test       string
	Elapsed    float64
	Output     string
}

// testKey names one test, or a package's own output when Test is empty.
type testKey struct{ pkg, test string }

// pkgCount is what a package's tests did.
type pkgCount struct {
	run, passed, skipped, failed int
	result                       string // pass, fail, skip (no test files), or "" until the package ends
	elapsed                      float64
}

// outcome is a skipped or failed test and what it said.
type outcome struct {
	key    testKey
	reason []string
}

// summary accumulates a stream's events.
type summary struct {
	out      io.Writer
	order    []string // packages in the order they first appeared
	pkgs     map[string]*pkgCount
	buffered map[testKey][]string
	skips    []outcome
	fails    []outcome
	builds   []string // packages whose build failed
}

func newSummary(out io.Writer) *summary {
	return &summary{out: out, pkgs: map[string]*pkgCount{}, buffered: map[testKey][]string{}}
}

func (s *summary) pkg(name string) *pkgCount {
	p, ok := s.pkgs[name]
	if !ok {
		p = &pkgCount{}
		s.pkgs[name] = p
		s.order = append(s.order, name)
	}
	return p
}

// add takes one event.
func (s *summary) add(e event) {
	if e.Action == "build-output" {
		fmt.Fprint(s.out, e.Output)
		return
	}
	if e.Action == "build-fail" {
		s.builds = append(s.builds, e.ImportPath)
		return
	}
	if e.Package == "" {
		if e.Action == "output" {
			fmt.Fprint(s.out, e.Output)
		}
		return
	}
	p := s.pkg(e.Package)
	k := testKey{e.Package, e.Test}
	if e.Test == "" {
		switch e.Action {
		case "output":
			// The package's own lines: "ok  pkg 1.2s", "FAIL pkg", a
			// panic or a timeout outside any test. The bare PASS and FAIL
			// that end a test binary's output add nothing.
			if t := strings.TrimSpace(e.Output); t != "PASS" && t != "FAIL" {
				fmt.Fprint(s.out, e.Output)
			}
		case "pass", "fail", "skip":
			p.result, p.elapsed = e.Action, e.Elapsed
			s.unfinished(e.Package)
		}
		return
	}
	switch e.Action {
	case "run":
		p.run++
	case "output":
		if !isFrame(e.Output) {
			s.buffered[k] = append(s.buffered[k], e.Output)
		}
	case "pass":
		p.passed++
		delete(s.buffered, k)
	case "skip":
		p.skipped++
		s.skips = append(s.skips, outcome{k, reasons(s.buffered[k])})
		delete(s.buffered, k)
	case "fail":
		p.failed++
		// go test -json sends "--- FAIL" after the test's lines; a
		// reader wants it first, as go test prints it.
		lines := s.buffered[k]
		for _, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") {
				fmt.Fprint(s.out, l)
			}
		}
		for _, l := range lines {
			if !strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") {
				fmt.Fprint(s.out, l)
			}
		}
		s.fails = append(s.fails, outcome{k, reasons(lines)})
		delete(s.buffered, k)
	}
}

// unfinished ends the tests of pkg that were still running when its test
// binary ended: a timeout's panic, a crash or os.Exit. Their lines, the
// panic and its goroutines among them, are printed, and each counts as
// failed, since go test -json reports no result for it.
func (s *summary) unfinished(pkg string) {
	var keys []testKey
	for k := range s.buffered {
		if k.pkg == pkg {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].test < keys[j].test })
	p := s.pkg(pkg)
	for _, k := range keys {
		lines := s.buffered[k]
		fmt.Fprintf(s.out, "--- UNFINISHED: %s\n", k.test)
		for _, l := range lines {
			fmt.Fprint(s.out, l)
		}
		p.failed++
		s.fails = append(s.fails, outcome{k, append([]string{"(did not finish)"}, reasons(lines)...)})
		delete(s.buffered, k)
	}
}

// isFrame reports whether a test's output line is go test's own framing
// (=== RUN, === PAUSE, === CONT, === NAME), which a non-verbose run hides.
func isFrame(line string) bool {
	return strings.HasPrefix(line, "=== ")
}

// reasons are a test's own lines, without its --- PASS/SKIP/FAIL line,
// trimmed.
func reasons(lines []string) []string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "--- ") {
			continue
		}
		out = append(out, t)
	}
	return out
}

// finish prints the summary and reports whether the run failed.
func (s *summary) finish() (failed bool) {
	w := s.out
	fmt.Fprintln(w)
	fmt.Fprintln(w, "== test summary")
	var shown []string // packages with tests
	for _, name := range s.order {
		if p := s.pkgs[name]; p.run > 0 || p.result != "skip" {
			shown = append(shown, name)
		}
	}
	prefix := modulePrefix(shown)
	width := len("package")
	for _, name := range shown {
		width = max(width, len(strings.TrimPrefix(name, prefix)))
	}
	row := func(name, run, passed, skipped, failed, result string) {
		fmt.Fprintf(w, "%-*s %6s %6s %7s %6s  %s\n", width, name, run, passed, skipped, failed, result)
	}
	n := strconv.Itoa
	row("package", "run", "passed", "skipped", "failed", "result")
	var total pkgCount
	var unfinished []string
	for _, name := range shown {
		p := s.pkgs[name]
		result := p.result
		if result == "" {
			result = "no result"
			unfinished = append(unfinished, name)
		}
		row(strings.TrimPrefix(name, prefix), n(p.run), n(p.passed), n(p.skipped), n(p.failed), result)
		total.run += p.run
		total.passed += p.passed
		total.skipped += p.skipped
		total.failed += p.failed
		if p.result == "fail" {
			failed = true
		}
	}
	row("total", n(total.run), n(total.passed), n(total.skipped), n(total.failed), "")
	fmt.Fprintln(w, "(run counts tests and subtests alike)")

	if len(s.skips) > 0 {
		fmt.Fprintf(w, "\n%d skipped:\n", len(s.skips))
		printOutcomes(w, s.skips)
	}
	if len(s.fails) > 0 {
		fmt.Fprintf(w, "\n%d failed:\n", len(s.fails))
		printOutcomes(w, s.fails)
	}
	for _, name := range s.builds {
		fmt.Fprintf(w, "\nbuild failed: %s\n", name)
	}
	for _, name := range unfinished {
		fmt.Fprintf(w, "\nno result: %s (its test binary ended without reporting)\n", name)
	}
	return failed || len(s.fails) > 0 || len(s.builds) > 0 || len(unfinished) > 0
}

// printOutcomes lists tests by package and name, each with the first lines
// of what it said.
func printOutcomes(w io.Writer, list []outcome) {
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].key.pkg != list[j].key.pkg {
			return list[i].key.pkg < list[j].key.pkg
		}
		return list[i].key.test < list[j].key.test
	})
	const maxLines = 3
	for _, o := range list {
		fmt.Fprintf(w, "  %s %s\n", o.key.pkg, o.key.test)
		for i, r := range o.reason {
			if i == maxLines {
				fmt.Fprintf(w, "      (%d more lines)\n", len(o.reason)-maxLines)
				break
			}
			fmt.Fprintf(w, "      %s\n", r)
		}
	}
}

// modulePrefix is the longest prefix ending in "/" that every package path
// shares, cut from the table to keep it narrow.
func modulePrefix(pkgs []string) string {
	if len(pkgs) < 2 {
		return ""
	}
	prefix := pkgs[0]
	for _, p := range pkgs[1:] {
		for !strings.HasPrefix(p, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		return prefix[:i+1]
	}
	return ""
}

// run reads the stream from r and writes to w; lines that are not events
// (go's own messages before the stream starts) are copied through.
func run(r io.Reader, w io.Writer) (failed bool, err error) {
	s := newSummary(w)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		s.add(e)
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	return s.finish(), nil
}

func main() {
	failed, err := run(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	if failed {
		os.Exit(1)
	}
}
