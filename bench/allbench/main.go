// Command allbench runs verdict's benchmarks against their peers, as
// bench/all does: each figure is measured in interleaved rounds (peer,
// verdict, peer, verdict, ...) so that the machine's load falls on both
// alike, and reported as the median with the spread of the rounds. It
// prints a table, writes results.json and compares it with a baseline: a
// figure worse than the baseline's by more than 15 %, beyond the spread
// of both, is flagged with the benchmark that measures it alone.
//
//	go run ./bench/allbench -verdict BIN [-quick] [-only ID,...] [-out bench/results.json] [-baseline bench/baseline.json] [-update-baseline]
//
// Data is generated once under -dir (default /tmp/verdict-bench) and kept:
// per-user scores by ../shared/bench/gen_scores.py, rankings by
// gen_ranking.py, predictions by this command. The database is verdict's
// embedded one under -dir/home unless VERDICT_DATABASE_URL is set.
package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Figure is one measured figure: a time, or a ratio to a peer, with the
// peak memory of verdict's process.
type Figure struct {
	ID   string `json:"id"`
	Work string `json:"work"`
	Peer string `json:"peer"`
	// Unit is "s" for seconds of verdict (lower is better), "x peer" for
	// verdict's time over the peer's (lower is better) and "x faster" for
	// the peer's time over verdict's (higher is better).
	Unit string `json:"unit"`
	// Value is the median of the rounds, Low and High the least and the
	// most of them.
	Value  float64   `json:"value"`
	Low    float64   `json:"low"`
	High   float64   `json:"high"`
	Rounds []float64 `json:"rounds"`
	// PeakMB is verdict's largest peak RSS over the rounds.
	PeakMB float64 `json:"peak_mb"`
	// Target is the figure's goal, as Value and as PeakMB (0: none).
	Target   float64 `json:"target,omitempty"`
	TargetMB float64 `json:"target_mb,omitempty"`
	Met      *bool   `json:"met,omitempty"`
	// Bench is the command that measures the figure alone, in more detail.
	Bench string `json:"bench"`
	// Seconds are verdict's and the peer's median seconds.
	Seconds     float64 `json:"seconds"`
	PeerSeconds float64 `json:"peer_seconds,omitempty"`
	// Costs are the three functions with the most CPU time in a profile
	// of one more run of verdict's command (-profile), with their share.
	Costs []string `json:"costs,omitempty"`
}

// Growth is one command's time and memory at one size.
type Growth struct {
	Work    string  `json:"work"`
	Units   int     `json:"units"`
	Seconds float64 `json:"seconds"`
	PeakMB  float64 `json:"peak_mb"`
}

// Results is what a run writes.
type Results struct {
	Commit  string    `json:"commit"`
	Date    string    `json:"date"`
	Mode    string    `json:"mode"`
	Cores   int       `json:"cores"`
	Figures []Figure  `json:"figures"`
	Growth  []Growth  `json:"growth,omitempty"`
	Flagged []Flagged `json:"flagged,omitempty"`
}

// Flagged is a figure worse than its baseline.
type Flagged struct {
	ID       string  `json:"id"`
	Value    float64 `json:"value"`
	Baseline float64 `json:"baseline"`
	Bench    string  `json:"bench"`
}

// Baseline holds the last accepted figures of each mode.
type Baseline map[string]Results

type bench struct {
	verdict, dir, shared, url string
	quick, profile            bool
	rounds                    int
	env                       []string
}

func main() {
	var b bench
	var only, out, basePath string
	var update bool
	var plotDir, replot string
	flag.StringVar(&b.verdict, "verdict", "", "verdict binary")
	flag.StringVar(&b.dir, "dir", cmp.Or(os.Getenv("BENCH_DIR"), "/tmp/verdict-bench"), "data and database directory")
	flag.StringVar(&b.shared, "shared", cmp.Or(os.Getenv("SHARED_BENCH"), "../shared/bench"), "the peers' scripts")
	flag.BoolVar(&b.quick, "quick", false, "smaller data and fewer rounds: under 5 minutes")
	flag.BoolVar(&b.profile, "profile", false, "profile one more run of each verdict command and name its three largest costs")
	flag.StringVar(&only, "only", "", "comma-separated figure IDs to run (default: all)")
	flag.StringVar(&out, "out", "bench/results.json", "results file")
	flag.StringVar(&basePath, "baseline", "bench/baseline.json", "baseline file")
	flag.BoolVar(&update, "update-baseline", false, "write this run's figures into the baseline")
	flag.StringVar(&plotDir, "plot", "", "draw the growth figures into this folder (growth-time.svg, growth-memory.svg)")
	flag.StringVar(&replot, "replot", "", "only draw the growth figures of this results file into -plot's folder")
	flag.Parse()
	log.SetFlags(0)
	log.SetPrefix("allbench: ")
	if replot != "" {
		var r Results
		data, err := os.ReadFile(replot)
		if err == nil {
			err = json.Unmarshal(data, &r)
		}
		if err == nil {
			err = plotGrowth(r.Growth, cmp.Or(plotDir, "."))
		}
		if err != nil {
			log.Fatal(err)
		}
		return
	}
	if b.verdict == "" {
		log.Fatal("-verdict BIN is required")
	}
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		log.Fatal(err)
	}
	if abs, err := filepath.Abs(b.shared); err == nil {
		b.shared = abs
	}
	b.env = append(os.Environ(), "SHARED_BENCH="+b.shared)
	if os.Getenv("VERDICT_DATABASE_URL") == "" {
		b.env = append(b.env, "VERDICT_HOME="+filepath.Join(b.dir, "home"))
	}
	b.rounds = 5
	if b.quick {
		b.rounds = 3
	}
	if _, err := b.output(b.verdict, "db", "start"); err != nil {
		log.Fatal(err)
	}
	url, err := b.output(b.verdict, "db", "url", "--show-password")
	if err != nil {
		log.Fatal(err)
	}
	b.url = strings.TrimSpace(url)

	res := Results{Mode: "full", Cores: runtime.NumCPU(), Date: time.Now().UTC().Format(time.RFC3339)}
	if b.quick {
		res.Mode = "quick"
	}
	if c, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		res.Commit = strings.TrimSpace(string(c))
	}
	want := func(id string) bool { return only == "" || slices.Contains(strings.Split(only, ","), id) }
	for _, c := range b.cases() {
		if !want(c.id) || (b.quick && !c.quick) {
			continue
		}
		log.Printf("%s: %s", c.id, c.work)
		start := time.Now()
		figs, growth, err := c.run(&b)
		if err != nil {
			log.Fatalf("%s: %v", c.id, err)
		}
		log.Printf("%s: done in %s", c.id, time.Since(start).Round(time.Second))
		res.Figures = append(res.Figures, figs...)
		res.Growth = append(res.Growth, growth...)
	}
	base := Baseline{}
	if data, err := os.ReadFile(basePath); err == nil {
		if err := json.Unmarshal(data, &base); err != nil {
			log.Fatalf("%s: %v", basePath, err)
		}
	}
	res.Flagged = compareWith(res, base[res.Mode])
	printTable(os.Stdout, res)
	if err := writeJSON(out, res); err != nil {
		log.Fatal(err)
	}
	if plotDir != "" && len(res.Growth) > 0 {
		if err := plotGrowth(res.Growth, plotDir); err != nil {
			log.Fatal(err)
		}
	}
	if update {
		base[res.Mode] = merged(base[res.Mode], withoutFlags(res))
		if err := writeJSON(basePath, base); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("baseline %s: %s figures updated\n", basePath, res.Mode)
	}
	if len(res.Flagged) > 0 {
		os.Exit(1)
	}
}

func withoutFlags(r Results) Results { r.Flagged = nil; return r }

// merged is the baseline old with the figures of r in place of theirs
// (by ID), and r's growth in place of old's when r measured it: a run of
// some benchmarks (-only) updates theirs alone.
func merged(old, r Results) Results {
	out := r
	out.Figures = nil
	for _, f := range old.Figures {
		if !slices.ContainsFunc(r.Figures, func(g Figure) bool { return g.ID == f.ID }) {
			out.Figures = append(out.Figures, f)
		}
	}
	out.Figures = append(out.Figures, r.Figures...)
	if len(r.Growth) == 0 {
		out.Growth = old.Growth
	}
	return out
}

// compareWith flags the figures of r worse than base's by more than 15 %
// beyond the spread of both.
func compareWith(r, base Results) []Flagged {
	var out []Flagged
	for _, f := range r.Figures {
		i := slices.IndexFunc(base.Figures, func(g Figure) bool { return g.ID == f.ID })
		if i < 0 {
			continue
		}
		g := base.Figures[i]
		var worse bool
		if f.Unit == "x faster" {
			worse = f.High < g.Low/1.15
		} else {
			worse = f.Low > g.High*1.15
		}
		if worse {
			out = append(out, Flagged{ID: f.ID, Value: f.Value, Baseline: g.Value, Bench: f.Bench})
		}
	}
	return out
}

func printTable(w io.Writer, r Results) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "WORK\tPEER\tFIGURE\tSPREAD\tPEAK\tTARGET\t\n")
	for _, f := range r.Figures {
		target := "-"
		if f.Target > 0 {
			rel := "≤"
			if f.Unit == "x faster" {
				rel = "≥"
			}
			target = fmt.Sprintf("%s %s %s", rel, num(f.Target), f.Unit)
			if f.TargetMB > 0 {
				target += fmt.Sprintf(", ≤ %.0f MB", f.TargetMB)
			}
			if f.Met != nil && !*f.Met {
				target += " (missed)"
			}
		}
		peak := "-" // a figure whose verdict process is not timed (the floor)
		if f.PeakMB > 0 {
			peak = fmt.Sprintf("%.0f MB", f.PeakMB)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s–%s\t%s\t%s\t\n", f.Work, cmp.Or(f.Peer, "-"), num(f.Value), f.Unit, num(f.Low), num(f.High), peak, target)
	}
	tw.Flush()
	if len(r.Growth) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "GROWTH\tUNITS\tSECONDS\tPEAK\t\n")
		for _, g := range r.Growth {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%.0f MB\t\n", g.Work, g.Units, num(g.Seconds), g.PeakMB)
		}
		tw.Flush()
	}
	for _, f := range r.Figures {
		if len(f.Costs) > 0 {
			fmt.Fprintf(w, "costs of %s: %s\n", f.ID, strings.Join(f.Costs, "; "))
		}
	}
	for _, f := range r.Flagged {
		fmt.Fprintf(w, "WORSE: %s is %s, baseline %s: run %s\n", f.ID, num(f.Value), num(f.Baseline), f.Bench)
	}
}

func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// sample is one timed process: wall seconds and peak RSS.
type sample struct{ secs, mb float64 }

// time runs a command with stdout discarded and returns its wall time and
// peak RSS; a failure returns its stderr. The peak comes from
// /usr/bin/time, a small process: the kernel counts in a child's peak the
// memory of the process it was forked from, before its exec.
func (b *bench) time(name string, args ...string) (sample, error) {
	rss := filepath.Join(b.dir, "rss")
	cmd := exec.Command("/usr/bin/time", append([]string{"-f", "%M", "-o", rss, name}, args...)...)
	cmd.Env = b.env
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err := cmd.Run()
	secs := time.Since(start).Seconds()
	if err != nil {
		var ee *exec.ExitError
		if !(errors.As(err, &ee) && ee.ExitCode() == 1 && strings.Contains(filepath.Base(name), "verdict")) {
			return sample{}, fmt.Errorf("%s %s: %v: %s", filepath.Base(name), strings.Join(args, " "), err, lastLines(stderr.String()))
		}
	}
	var kb float64
	if data, err := os.ReadFile(rss); err == nil {
		lines := strings.Fields(string(data))
		if len(lines) > 0 {
			kb, _ = strconv.ParseFloat(lines[len(lines)-1], 64)
		}
	}
	return sample{secs, kb / 1024}, nil
}

// output runs a command and returns its stdout.
func (b *bench) output(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = b.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %v: %s", filepath.Base(name), strings.Join(args, " "), err, lastLines(stderr.String()))
	}
	return string(out), nil
}

func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-3):], "\n")
}

// contestant is one command of a round: a name and its arguments, made
// anew for each round (a fresh run name, say).
type contestant func(round int) []string

// rounds runs the contestants in turn, rounds times, and returns each
// one's samples.
func (b *bench) interleave(rounds int, cs ...contestant) ([][]sample, error) {
	out := make([][]sample, len(cs))
	for r := range rounds {
		for i, c := range cs {
			args := c(r)
			s, err := b.time(args[0], args[1:]...)
			if err != nil {
				return nil, err
			}
			out[i] = append(out[i], s)
		}
		log.Printf("  round %d/%d: %s", r+1, rounds, roundText(out, r))
	}
	return out, nil
}

func roundText(out [][]sample, r int) string {
	parts := make([]string, len(out))
	for i, ss := range out {
		parts[i] = fmt.Sprintf("%.2f s %.0f MB", ss[r].secs, ss[r].mb)
	}
	return strings.Join(parts, ", ")
}

func median(x []float64) float64 {
	s := slices.Sorted(slices.Values(x))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func secs(ss []sample) []float64 {
	out := make([]float64, len(ss))
	for i, s := range ss {
		out[i] = s.secs
	}
	return out
}

func peak(ss []sample) float64 {
	var m float64
	for _, s := range ss {
		m = max(m, s.mb)
	}
	return m
}

// timeFigure is a figure of verdict's seconds.
func timeFigure(id, work string, v []sample, target, targetMB float64, benchCmd string) Figure {
	xs := secs(v)
	f := Figure{ID: id, Work: work, Unit: "s", Value: median(xs), Low: slices.Min(xs), High: slices.Max(xs),
		Rounds: xs, PeakMB: peak(v), Target: target, TargetMB: targetMB, Bench: benchCmd, Seconds: median(xs)}
	f.setMet()
	return f
}

// ratioFigure is a figure of verdict's time against a peer's, round by
// round: verdict over peer ("x peer"), or peer over verdict ("x faster").
func ratioFigure(id, work, peer, unit string, v, p []sample, target, targetMB float64, benchCmd string) Figure {
	xs := make([]float64, len(v))
	for i := range v {
		if unit == "x faster" {
			xs[i] = p[i].secs / v[i].secs
		} else {
			xs[i] = v[i].secs / p[i].secs
		}
	}
	f := Figure{ID: id, Work: work, Peer: peer, Unit: unit, Value: median(xs), Low: slices.Min(xs), High: slices.Max(xs),
		Rounds: xs, PeakMB: peak(v), Target: target, TargetMB: targetMB, Bench: benchCmd,
		Seconds: median(secs(v)), PeerSeconds: median(secs(p))}
	f.setMet()
	return f
}

func (f *Figure) setMet() {
	if f.Target == 0 && f.Unit != "errors" {
		return
	}
	met := f.Value <= f.Target
	if f.Unit == "errors" {
		met = f.Value == 0
	}
	if f.Unit == "x faster" {
		met = f.Value >= f.Target
	}
	if f.TargetMB > 0 && f.PeakMB > f.TargetMB {
		met = false
	}
	f.Met = &met
}

// costs runs a verdict command once more under a CPU profile, when
// -profile asks for it, and returns the three functions with the most
// time in it (flat), with their share of the samples.
func (b *bench) costs(args []string) []string {
	if !b.profile {
		return nil
	}
	prof := filepath.Join(b.dir, "cpu.prof")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(slices.Clone(b.env), "VERDICT_CPUPROFILE="+prof)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 {
			log.Printf("  profile: %v", err)
			return nil
		}
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=3", args[0], prof).Output()
	if err != nil {
		log.Printf("  profile: %v", err)
		return nil
	}
	var costs []string
	for _, line := range strings.Split(string(out), "\n") {
		// flat flat% sum% cum cum% name
		if f := strings.Fields(line); len(f) >= 6 && strings.HasSuffix(f[1], "%") && strings.HasSuffix(f[4], "%") {
			costs = append(costs, fmt.Sprintf("%s %s", strings.Join(f[5:], " "), f[1]))
		}
	}
	log.Printf("  costs: %s", strings.Join(costs, "; "))
	return costs
}

// ensure runs make to create path unless it exists.
func ensure(path string, make func() error) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	log.Printf("  generating %s", path)
	return make()
}

// scores returns a CSV of n units and m metrics from gen_scores.py with
// seed, generated once.
func (b *bench) scores(n, m, seed int) (string, error) {
	path := filepath.Join(b.dir, fmt.Sprintf("all_scores_%d_%d_%d.csv", n, m, seed))
	return path, ensure(path, func() error {
		_, err := b.output("/usr/bin/python3", filepath.Join(b.shared, "gen_scores.py"), path, fmt.Sprint(n), fmt.Sprint(m), fmt.Sprint(seed))
		return err
	})
}

// logged logs a file (file: the arguments that name it) as run of
// experiment, unless the run has an evaluation already.
func (b *bench) logged(exp, run string, file ...string) error {
	out, err := b.output(b.verdict, "runs", "-e", exp, "--format", "json", "--limit", "0")
	if err == nil && strings.Contains(out, `"run": "`+run+`"`) {
		return nil
	}
	log.Printf("  logging %s/%s", exp, run)
	_, err = b.output(b.verdict, append([]string{"log", "-e", exp, "-r", run, "-s", "test"}, file...)...)
	return err
}

// sides are the two runs a comparison benchmark logs, with their seeds.
var sides = []struct {
	run  string
	seed int
}{{"a", 0}, {"b", 1}}

// predictions writes n binary predictions, 1 % positives, of a model
// whose scores see a latent signal through noise of its own (seed).
func (b *bench) predictions(n int, seed uint64) (string, error) {
	path := filepath.Join(b.dir, fmt.Sprintf("all_predictions_%d_%d.csv", n, seed))
	return path, ensure(path, func() error {
		labels := rand.New(rand.NewPCG(7, 7))
		noise := rand.New(rand.NewPCG(seed, 99))
		var buf bytes.Buffer
		buf.WriteString("sample_id,label,score\n")
		for i := range n {
			y := 0
			if labels.Float64() < 0.01 {
				y = 1
			}
			z := float64(y)*1.5 + labels.NormFloat64() + noise.NormFloat64()*0.8
			fmt.Fprintf(&buf, "s%08d,%d,%.6g\n", i, y, 1/(1+math.Exp(-(z-3))))
		}
		return os.WriteFile(path, buf.Bytes(), 0o644)
	})
}

type benchCase struct {
	id, work string
	quick    bool // runs in -quick too
	run      func(*bench) ([]Figure, []Growth, error)
}

func (b *bench) size(full, quick int) int {
	if b.quick {
		return quick
	}
	return full
}

func (b *bench) cases() []benchCase {
	return []benchCase{
		{"ingest", "log 1M units × 10 metrics, CSV", true, ingest},
		{"evaluate", "evaluate 1M users × top-100, 28 metrics", true, evaluateCase},
		{"compare", "compare 1M units, one metric and ten", true, compareCase},
		{"stats", "stats paired-bootstrap, 1M-line CSV, B = 2000", true, statsCase},
		{"predictions", "compare of predictions, 1M × 4 metrics", true, predictionsCase},
		{"leaderboard400", "leaderboard of every run of 400 × 2,000 users", true, leaderboard400},
		{"soak", "verdict serve under 8 clients looping log, compare and leaderboard", true, serveSoak},
		{"growth", "log, compare and leaderboard from 100k to 10M units", false, growth},
		{"floors", "what compare and leaderboard cannot do without: the server's query and the resampling, each alone", false, floors},
	}
}

func ingest(b *bench) ([]Figure, []Growth, error) {
	n := b.size(1_000_000, 200_000)
	csv, err := b.scores(n, 10, 0)
	if err != nil {
		return nil, nil, err
	}
	stamp := time.Now().UnixNano()
	out, err := b.interleave(b.rounds,
		func(int) []string {
			return []string{"bash", filepath.Join(b.shared, "psql_copy_baseline.sh"), b.url, csv, "indexed"}
		},
		func(r int) []string {
			return []string{b.verdict, "log", "-e", "bench-all-ingest", "-r", fmt.Sprintf("r%d-%d", stamp, r), "-s", "test", csv}
		})
	if err != nil {
		return nil, nil, err
	}
	work := fmt.Sprintf("log %s units × 10 metrics, CSV", units(n))
	figs := []Figure{ratioFigure("ingest_csv", work, "psql \\copy into the indexed table", "x peer", out[1], out[0], 0.8, 200, "bench/ingest")}
	figs[0].Costs = b.costs([]string{b.verdict, "log", "-e", "bench-all-ingest", "-r", fmt.Sprintf("profile-%d", stamp), "-s", "test", csv})
	// The floor: the server's share alone (bench/serverfloor), the rows
	// loaded from a binary file the server reads, indexed and committed,
	// in rounds with the same peer.
	id, err := b.output("psql", "-qtA", b.url, "-c", "SELECT max(e.id) FROM evaluations e JOIN runs r ON r.id = e.run_id JOIN experiments x ON x.id = r.experiment_id WHERE x.name = 'bench-all-ingest'")
	if err != nil {
		return nil, nil, err
	}
	floor, err := b.output("bench/serverfloor", b.url, strings.TrimSpace(id), fmt.Sprint(b.rounds), csv)
	if err != nil {
		log.Printf("  no floor: %v", err)
		return figs, nil, nil
	}
	var peer, server []sample
	for _, line := range strings.Split(strings.TrimSpace(floor), "\n") {
		var base, load, indexed float64
		if _, err := fmt.Sscan(line, &base, &load, &indexed); err == nil {
			peer, server = append(peer, sample{secs: base}), append(server, sample{secs: indexed})
		}
	}
	if len(server) > 0 {
		figs = append(figs, ratioFigure("ingest_floor", work+": the server's share alone (floor)", "psql \\copy into the indexed table", "x peer", server, peer, 0, 0, "bench/ingest"))
	}
	return figs, nil, nil
}

func evaluateCase(b *bench) ([]Figure, []Growth, error) {
	n := b.size(1_000_000, 100_000)
	data := filepath.Join(b.dir, fmt.Sprintf("ranking_%d", n))
	if err := ensure(filepath.Join(data, "targets.npz"), func() error {
		_, err := b.output("/usr/bin/python3", filepath.Join(b.shared, "gen_ranking.py"), data, fmt.Sprint(n))
		return err
	}); err != nil {
		return nil, nil, err
	}
	args := []string{b.verdict, "evaluate", "--items", filepath.Join(data, "items.npy"), "--scores", filepath.Join(data, "scores.npy"),
		"--targets", filepath.Join(data, "targets.npz"), "--sample-ids", filepath.Join(data, "user_ids.npy"), "--no-log", "--quiet"}
	for _, m := range []string{"ndcg", "recall", "calibrated_recall", "precision", "hit_rate", "mrr", "map"} {
		args = append(args, "--metrics", m+"@10,20,50,100")
	}
	out, err := b.interleave(b.rounds,
		func(int) []string {
			return []string{"/usr/bin/python3", filepath.Join(b.shared, "numpy_rank_metrics.py"), data}
		},
		func(int) []string { return args })
	if err != nil {
		return nil, nil, err
	}
	work := fmt.Sprintf("evaluate %s users × top-100, 28 metrics", units(n))
	f := ratioFigure("evaluate", work, "NumPy vectorised (numpy_rank_metrics.py)", "x faster", out[1], out[0], 12, 500, "bench/evaluate")
	f.Costs = b.costs(args)
	return []Figure{f}, nil, nil
}

func compareCase(b *bench) ([]Figure, []Growth, error) {
	const n = 1_000_000
	exp := "bench-all-compare"
	for _, side := range sides {
		csv, err := b.scores(n, 10, side.seed)
		if err != nil {
			return nil, nil, err
		}
		if err := b.logged(exp, side.run, csv); err != nil {
			return nil, nil, err
		}
	}
	cmd := func(metric ...string) contestant {
		return func(r int) []string {
			// The bootstrap, which a default compare of a million units of
			// one row each no longer runs (compare.AutoTMinUnits): the same
			// work as the baseline's.
			args := []string{b.verdict, "compare", "-e", exp, "--method", "bootstrap", "--seed", fmt.Sprint(r), "--format", "json", "--no-record"}
			for _, m := range metric {
				args = append(args, "--metric", m)
			}
			return append(args, "a", "b")
		}
	}
	// The Poisson bootstrap, the one a distributed database draws from
	// the differences its workers stream, against the multinomial one:
	// the same compare otherwise.
	poisson := func(r int) []string {
		args := cmd("ndcg@10")(r)
		return append(args[:len(args)-2], "--resampling", "poisson", "a", "b")
	}
	out, err := b.interleave(b.rounds, cmd("ndcg@10"), cmd(), poisson)
	if err != nil {
		return nil, nil, err
	}
	figs := []Figure{
		timeFigure("compare_1m", "compare 1M units, one metric", out[0], 2.0, 0, "bench/compare"),
		ratioFigure("compare_1m_ten", "compare 1M units, ten metrics", "one metric", "x peer", out[1], out[0], 2.5, 0, "bench/compare"),
		ratioFigure("compare_1m_poisson", "compare 1M units, --resampling poisson", "the multinomial bootstrap", "x peer", out[2], out[0], 1.5, 0, "bench/compare"),
	}
	figs[0].Costs, figs[1].Costs = b.costs(cmd("ndcg@10")(0)), b.costs(cmd()(0))
	return figs, nil, nil
}

func statsCase(b *bench) ([]Figure, []Growth, error) {
	n := b.size(1_000_000, 100_000)
	path := filepath.Join(b.dir, fmt.Sprintf("all_pairs_%d.csv", n))
	if err := ensure(path, func() error {
		rng := rand.New(rand.NewPCG(0, 1))
		var buf bytes.Buffer
		buf.WriteString("left,right\n")
		for range n {
			a := rng.Float64()
			d := min(1, max(0, a+0.001+0.1*rng.NormFloat64()))
			fmt.Fprintf(&buf, "%.6f,%.6f\n", a, d)
		}
		return os.WriteFile(path, buf.Bytes(), 0o644)
	}); err != nil {
		return nil, nil, err
	}
	rounds := b.rounds
	if !b.quick {
		rounds = 3 // the peer takes minutes a round
	}
	out, err := b.interleave(rounds,
		func(int) []string { return []string{"/usr/bin/python3", "bench/scipy_bootstrap.py", path, "2000"} },
		func(int) []string {
			return []string{b.verdict, "stats", "paired-bootstrap", "--input", path, "--resamples", "2000", "--format", "json"}
		})
	if err != nil {
		return nil, nil, err
	}
	work := fmt.Sprintf("stats paired-bootstrap, %s-line CSV, B = 2000", units(n))
	f := ratioFigure("stats_bootstrap", work, "scipy.stats.bootstrap, reading the CSV", "x faster", out[1], out[0], 40, 0, "bench/stats")
	f.Costs = b.costs([]string{b.verdict, "stats", "paired-bootstrap", "--input", path, "--resamples", "2000", "--format", "json"})
	return []Figure{f}, nil, nil
}

func predictionsCase(b *bench) ([]Figure, []Growth, error) {
	const n = 1_000_000
	exp := "bench-all-predictions"
	for _, side := range sides {
		csv, err := b.predictions(n, uint64(side.seed+1))
		if err != nil {
			return nil, nil, err
		}
		if err := b.logged(exp, side.run, "--predictions", csv); err != nil {
			return nil, nil, err
		}
	}
	cmd := func(r int) []string {
		return []string{b.verdict, "compare", "-e", exp, "--seed", fmt.Sprint(r), "--format", "json", "--no-record",
			"--metric", "roc_auc", "--metric", "average_precision", "--metric", "log_loss", "--metric", "brier", "a", "b"}
	}
	out, err := b.interleave(b.rounds, cmd)
	if err != nil {
		return nil, nil, err
	}
	f := timeFigure("compare_predictions", "compare of predictions, 1M × 4 metrics (1 % positives)", out[0], 6, 0, "bench/classify")
	f.Costs = b.costs(cmd(0))
	return []Figure{f}, nil, nil
}

func leaderboard400(b *bench) ([]Figure, []Growth, error) {
	const runs, n = 400, 2000
	exp := "bench-all-leaderboard400"
	out, _ := b.output(b.verdict, "runs", "-e", exp, "--format", "json", "--limit", "0")
	if c := strings.Count(out, `"run": "`); c < runs {
		log.Printf("  logging %d runs of %d users", runs-c, n)
		for r := c; r < runs; r++ {
			rng := rand.New(rand.NewPCG(uint64(r), 3))
			var buf bytes.Buffer
			buf.WriteString("sample_id,ndcg@10\n")
			skill := rng.Float64() * 0.1
			for u := range n {
				fmt.Fprintf(&buf, "u%05d,%.6f\n", u, min(1, max(0, 0.3+skill+0.2*rng.NormFloat64())))
			}
			path := filepath.Join(b.dir, "all_lb400.csv")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				return nil, nil, err
			}
			if _, err := b.output(b.verdict, "log", "-e", exp, "-r", fmt.Sprintf("run%03d", r), "-s", "test", path); err != nil {
				return nil, nil, err
			}
		}
	}
	cmd := func(r int) []string {
		return []string{b.verdict, "leaderboard", "-e", exp, "-m", "ndcg@10", "--limit", "0", "--seed", fmt.Sprint(r), "--format", "json"}
	}
	res, err := b.interleave(b.rounds, cmd)
	if err != nil {
		return nil, nil, err
	}
	f := timeFigure("leaderboard_400", "leaderboard of every run of 400 × 2,000 users", res[0], 1, 0, "bench/reports")
	f.Costs = b.costs(cmd(0))
	return []Figure{f}, nil, nil
}

// growth measures log, compare and leaderboard of two runs at 100k, 1M
// and 10M units (one metric besides the unit IDs, two for compare's
// sake), and reports 10M's as figures.
func growth(b *bench) ([]Figure, []Growth, error) {
	var figs []Figure
	var out []Growth
	for _, n := range []int{100_000, 1_000_000, 10_000_000} {
		exp := fmt.Sprintf("bench-all-growth-%d", n)
		rounds := b.rounds
		if n == 10_000_000 {
			rounds = 3
		}
		var logs []sample
		for _, side := range sides {
			csv, err := b.scores(n, 2, side.seed)
			if err != nil {
				return nil, nil, err
			}
			if err := b.logged(exp, side.run, csv); err != nil {
				return nil, nil, err
			}
			if side.run == "a" {
				stamp := time.Now().UnixNano()
				s, err := b.interleave(rounds, func(r int) []string {
					return []string{b.verdict, "log", "-e", exp + "-log", "-r", fmt.Sprintf("r%d-%d", stamp, r), "-s", "test", csv}
				})
				if err != nil {
					return nil, nil, err
				}
				logs = s[0]
			}
		}
		res, err := b.interleave(rounds,
			func(r int) []string {
				return []string{b.verdict, "compare", "-e", exp, "--method", "bootstrap", "--metric", "ndcg@10", "--seed", fmt.Sprint(r), "--format", "json", "--no-record", "a", "b"}
			},
			func(r int) []string {
				return []string{b.verdict, "leaderboard", "-e", exp, "-m", "ndcg@10", "--seed", fmt.Sprint(r), "--format", "json"}
			})
		if err != nil {
			return nil, nil, err
		}
		for i, work := range []string{"log", "compare", "leaderboard"} {
			s := logs
			if i > 0 {
				s = res[i-1]
			}
			out = append(out, Growth{Work: work, Units: n, Seconds: median(secs(s)), PeakMB: peak(s)})
		}
		if n == 10_000_000 {
			figs = append(figs,
				timeFigure("log_10m", "log 10M units", logs, 0, 0, "bench/ingest"),
				timeFigure("compare_10m", "compare 10M units, one metric", res[0], 20, 250, "bench/compare"),
				timeFigure("leaderboard_10m", "leaderboard, 10M units × 2 runs", res[1], 15, 400, "bench/reports"))
			last := len(figs) - 1
			figs[last-1].Costs = b.costs([]string{b.verdict, "compare", "-e", exp, "--method", "bootstrap", "--metric", "ndcg@10", "--format", "json", "--no-record", "a", "b"})
			figs[last].Costs = b.costs([]string{b.verdict, "leaderboard", "-e", exp, "-m", "ndcg@10", "--format", "json"})
		}
	}
	return figs, out, nil
}

func units(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}
