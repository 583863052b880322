// Command soakbench runs verdict as a busy team would, for a while: loggers
// that log per-user scores with idempotency keys and retry what fails,
// compare loops and report loops, all as separate `verdict` processes
// against one database. At the end it prints what was logged and compared,
// the p50 and p99 latency of each kind of command, the errors, and checks
// the database row by row against what the loggers sent.
//
//	go run ./bench/soakbench -verdict BIN -url URL [-duration 10m] [-loggers 16] [-compares 4] [-reports 2] [-units 2000]
//
// A logger's n-th log is seeded by (logger, n), so its file can be made
// again for the check. Every log is sent until it succeeds (at most 5
// tries); a retry with the same key must return the same evaluation.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/verdict-ml/verdict/store"
)

// sent is one evaluation a logger logged: what the check compares with.
type sent struct {
	run, key string
	id       int64
	ids      []string
	values   [][2]float64 // ndcg@10, recall@20 per user
}

type stats struct {
	mu        sync.Mutex
	latency   map[string][]time.Duration
	failures  map[string]int // failed tries, retried
	unexpect  []string       // errors that should not happen
	logged    []sent
	compares  int
	reports   int
	retriesOK int
}

func (s *stats) add(kind string, d time.Duration, err error, unexpected bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		s.latency[kind] = append(s.latency[kind], d)
		return
	}
	s.failures[kind]++
	if unexpected {
		s.unexpect = append(s.unexpect, fmt.Sprintf("%s: %v", kind, err))
	}
}

func main() {
	bin := flag.String("verdict", "verdict", "the verdict binary")
	url := flag.String("url", os.Getenv("VERDICT_DATABASE_URL"), "database URL")
	duration := flag.Duration("duration", 10*time.Minute, "how long to run")
	loggers := flag.Int("loggers", 16, "concurrent loggers")
	compares := flag.Int("compares", 4, "concurrent compare loops")
	reports := flag.Int("reports", 2, "concurrent report loops")
	units := flag.Int("units", 2000, "users per evaluation")
	flag.Parse()
	dir, err := os.MkdirTemp("", "soak")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	exp := fmt.Sprintf("soak-%d", time.Now().Unix())
	st := &stats{latency: map[string][]time.Duration{}, failures: map[string]int{}}
	verdict := func(ctx context.Context, args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, *bin, append([]string{"--database-url", *url}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return out, fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}

	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	var wg sync.WaitGroup
	for l := range *loggers {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil; n++ {
				s := makeScores(l, n, *units)
				path := filepath.Join(dir, fmt.Sprintf("l%d-%d.csv", l, n))
				if err := os.WriteFile(path, s.csv(), 0o644); err != nil {
					log.Fatal(err)
				}
				s.run, s.key = fmt.Sprintf("run-%d", l%8), fmt.Sprintf("logger-%d-log-%d", l, n)
				var first int64
				for try := range 5 {
					start := time.Now()
					// Not ctx: a log under way is finished, not abandoned.
					out, err := verdict(context.Background(), "log", "-e", exp, "-r", s.run, "-s", "test",
						"--idempotency-key", s.key, "--format", "json", path)
					st.add("log", time.Since(start), err, try == 4)
					if err != nil {
						continue
					}
					var res struct {
						ID int64 `json:"evaluation_id"`
					}
					if err := json.Unmarshal(out, &res); err != nil {
						st.add("log", 0, fmt.Errorf("output %q: %w", out, err), true)
						break
					}
					s.id = res.ID
					// Every fifth log is sent again: the key returns the same evaluation.
					if n%5 == 0 && first == 0 {
						first = res.ID
						continue
					}
					if first != 0 && first != res.ID {
						st.add("log", 0, fmt.Errorf("key %s returned %d then %d", s.key, first, res.ID), true)
					} else if first != 0 {
						st.mu.Lock()
						st.retriesOK++
						st.mu.Unlock()
					}
					break
				}
				os.Remove(path)
				if s.id != 0 {
					st.mu.Lock()
					st.logged = append(st.logged, s)
					st.mu.Unlock()
				}
			}
		})
	}
	for c := range *compares {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				a, b := fmt.Sprintf("run-%d", (c+i)%8), fmt.Sprintf("run-%d", (c+i+1)%8)
				start := time.Now()
				_, err := verdict(ctx, "compare", "-e", exp, "-s", "test", a, b)
				if ctx.Err() != nil {
					return
				}
				// A run not logged yet is expected at the start.
				st.add("compare", time.Since(start), err, err != nil && !strings.Contains(err.Error(), "has no evaluation"))
				if err == nil {
					st.mu.Lock()
					st.compares++
					st.mu.Unlock()
				}
			}
		})
	}
	for r := range *reports {
		wg.Go(func() {
			out := filepath.Join(dir, fmt.Sprintf("report-%d.html", r))
			for ctx.Err() == nil {
				start := time.Now()
				_, err := verdict(ctx, "report", "-e", exp, "--out", out)
				if ctx.Err() != nil {
					return
				}
				st.add("report", time.Since(start), err, err != nil && !strings.Contains(err.Error(), "no evaluations"))
				if err == nil {
					st.mu.Lock()
					st.reports++
					st.mu.Unlock()
				}
			}
		})
	}
	wg.Wait()

	fmt.Printf("soak of %s: %d loggers, %d compare loops, %d report loops, %d users per evaluation\n",
		*duration, *loggers, *compares, *reports, *units)
	fmt.Printf("logged %d evaluations (%d idempotent re-sends returned the same one), %d compares, %d reports\n",
		len(st.logged), st.retriesOK, st.compares, st.reports)
	for _, kind := range []string{"log", "compare", "report"} {
		ds := st.latency[kind]
		slices.Sort(ds)
		if len(ds) == 0 {
			continue
		}
		q := func(p float64) time.Duration { return ds[min(len(ds)-1, int(math.Ceil(p*float64(len(ds))))-1)] }
		fmt.Printf("%-8s %5d ok, %d failed tries (retried), p50 %v, p99 %v\n", kind, len(ds), st.failures[kind],
			q(0.5).Round(time.Millisecond), q(0.99).Round(time.Millisecond))
	}
	fmt.Printf("unexpected errors: %d\n", len(st.unexpect))
	for _, e := range st.unexpect {
		fmt.Println("  ", e)
	}
	bad := check(*url, exp, st.logged)
	fmt.Printf("database check: %d evaluations, %d values compared with what was sent, %d mismatches\n",
		len(st.logged), 2*len(st.logged)**units, bad)
	if bad > 0 || len(st.unexpect) > 0 {
		os.Exit(1)
	}
}

// makeScores is logger l's n-th file: ndcg@10 and recall@20 of units users.
func makeScores(l, n, units int) sent {
	rng := rand.New(rand.NewPCG(uint64(l), uint64(n)))
	s := sent{ids: make([]string, units), values: make([][2]float64, units)}
	for u := range units {
		s.ids[u] = fmt.Sprintf("user-%05d", u)
		s.values[u] = [2]float64{math.Round(rng.Float64()*1e4) / 1e4, math.Round(rng.Float64()*1e4) / 1e4}
	}
	return s
}

func (s sent) csv() []byte {
	var b bytes.Buffer
	b.WriteString("sample_id,ndcg@10,recall@20\n")
	for u, id := range s.ids {
		fmt.Fprintf(&b, "%s,%g,%g\n", id, s.values[u][0], s.values[u][1])
	}
	return b.Bytes()
}

// check reads every logged evaluation back and compares it, user by user,
// with what was sent, at the single precision values are stored in; it
// also checks that the experiment holds no evaluation nobody logged.
func check(url, exp string, logged []sent) (mismatches int) {
	ctx := context.Background()
	st, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	stored, err := st.ListEvaluations(ctx, store.EvaluationFilter{Experiment: exp})
	if err != nil {
		log.Fatal(err)
	}
	if len(stored) != len(logged) {
		fmt.Printf("  the experiment holds %d evaluations, the loggers logged %d\n", len(stored), len(logged))
		mismatches++
	}
	for _, s := range logged {
		for m, metric := range []string{"ndcg@10", "recall@20"} {
			p, err := st.Pair(ctx, s.id, s.id, metric, false)
			if err != nil {
				log.Fatal(err)
			}
			if len(p.SampleIDs) != len(s.ids) {
				fmt.Printf("  evaluation %d has %d users on %s, %d were sent\n", s.id, len(p.SampleIDs), metric, len(s.ids))
				mismatches++
				continue
			}
			for u, id := range p.SampleIDs { // both in sample ID order
				if id != s.ids[u] || float32(p.LeftSum[u]) != float32(s.values[u][m]) {
					mismatches++
				}
			}
		}
	}
	return mismatches
}
