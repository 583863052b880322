// Command serveload drives a running `verdict serve` for bench/serve.
//
//	serveload -url http://127.0.0.1:8080 -token T ingest -clients 64 -evals 200 -units 1000
//	serveload -url ... -token T leaderboard -readers 16 -requests 800 -experiment E -metric M
//
// ingest: each client logs its evaluations one after another (CSV bodies
// with an idempotency key, retried on a connection error), then every
// evaluation is read back through the API and checked: its run, its unit
// count, its means against the values sent, and no evaluation twice. It
// prints the count, p50 and p99 latency and the errors.
//
// leaderboard: readers send GET /api/v1/leaderboard as fast as they get
// answers, until requests are done, and it prints p50 and p99.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

var (
	base  = flag.String("url", "http://127.0.0.1:8080", "server URL")
	token = flag.String("token", os.Getenv("VERDICT_TOKEN"), "a writer token")
)

func main() {
	flag.Parse()
	if flag.NArg() < 1 {
		log.Fatal("usage: serveload [-url U -token T] ingest|leaderboard [flags]")
	}
	switch flag.Arg(0) {
	case "ingest":
		ingest(flag.Args()[1:])
	case "leaderboard":
		leaderboard(flag.Args()[1:])
	default:
		log.Fatalf("unknown mode %q", flag.Arg(0))
	}
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}, Timeout: 10 * time.Minute}

func request(method, path string, body []byte, headers ...string) (int, []byte, error) {
	req, err := http.NewRequest(method, *base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+*token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func quantile(d []time.Duration, q float64) time.Duration {
	slices.Sort(d)
	if len(d) == 0 {
		return 0
	}
	return d[int(math.Ceil(q*float64(len(d))))-1]
}

func ingest(args []string) {
	fs := flag.NewFlagSet("ingest", flag.ExitOnError)
	clients := fs.Int("clients", 64, "concurrent clients")
	evals := fs.Int("evals", 200, "evaluations per client")
	units := fs.Int("units", 1000, "units per evaluation")
	experiment := fs.String("experiment", fmt.Sprintf("serve-load-%d", time.Now().Unix()), "experiment")
	_ = fs.Parse(args)

	type sent struct {
		id   int64
		run  string
		mean float64
	}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		results   []sent
		retries   atomic.Int64
		failures  []string
		wg        sync.WaitGroup
	)
	start := time.Now()
	for c := range *clients {
		wg.Go(func() {
			run := fmt.Sprintf("client-%02d", c)
			for e := range *evals {
				var body strings.Builder
				body.WriteString("sample_id,ndcg@10,recall@20\n")
				sum := 0.0
				for u := range *units {
					v := float64((u*7+e*13+c)%1000) / 1000
					sum += v
					fmt.Fprintf(&body, "u%05d,%g,%g\n", u, v, 1-v)
				}
				path := fmt.Sprintf("/api/v1/evaluations?experiment=%s&run=%s&eval_set=test&param=epoch=%d", url.QueryEscape(*experiment), run, e)
				key := fmt.Sprintf("%s-%d", run, e)
				t0 := time.Now()
				var status int
				var b []byte
				var err error
				for try := 0; try < 5; try++ {
					status, b, err = request("POST", path, []byte(body.String()), "Content-Type", "text/csv", "Idempotency-Key", key)
					if err == nil {
						break
					}
					retries.Add(1)
					time.Sleep(time.Duration(try+1) * 200 * time.Millisecond)
				}
				d := time.Since(t0)
				var got struct {
					ID int64 `json:"evaluation_id"`
				}
				if err == nil && status == http.StatusCreated {
					err = json.Unmarshal(b, &got)
				} else if err == nil {
					err = fmt.Errorf("status %d: %s", status, b)
				}
				mu.Lock()
				latencies = append(latencies, d)
				if err != nil {
					failures = append(failures, fmt.Sprintf("%s evaluation %d: %v", run, e, err))
				} else {
					results = append(results, sent{id: got.ID, run: run, mean: sum / float64(*units)})
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)

	// Read every evaluation back.
	seen := map[int64]bool{}
	bad := 0
	for _, r := range results {
		if seen[r.id] {
			bad++
			fmt.Printf("evaluation %d returned twice\n", r.id)
		}
		seen[r.id] = true
		status, b, err := request("GET", fmt.Sprintf("/api/v1/evaluations/%d", r.id), nil)
		var e struct {
			Run        string             `json:"run"`
			Units      int64              `json:"n_units"`
			Aggregates map[string]float64 `json:"aggregates"`
		}
		if err == nil && status == 200 {
			err = json.Unmarshal(b, &e)
		}
		switch {
		case err != nil || status != 200:
			bad++
			fmt.Printf("evaluation %d: %d %v\n", r.id, status, err)
		case e.Run != r.run || e.Units != int64(*units) || math.Abs(e.Aggregates["ndcg@10"]-r.mean) > 1e-6:
			bad++
			fmt.Printf("evaluation %d: run %s units %d mean %v, sent %s %d %v\n", r.id, e.Run, e.Units, e.Aggregates["ndcg@10"], r.run, *units, r.mean)
		}
	}
	status, b, err := request("GET", "/api/v1/runs?experiment="+url.QueryEscape(*experiment), nil)
	var runs []json.RawMessage
	if err == nil && status == 200 {
		err = json.Unmarshal(b, &runs)
	}
	fmt.Printf("ingest: %d clients x %d evaluations x %d units in %.1f s: %d logged, %d failed, %d retried, %d runs, %d bad on reading back\n",
		*clients, *evals, *units, elapsed.Seconds(), len(results), len(failures), retries.Load(), len(runs), bad)
	fmt.Printf("ingest latency: p50 %.0f ms, p99 %.0f ms, max %.0f ms\n",
		ms(quantile(latencies, 0.5)), ms(quantile(latencies, 0.99)), ms(quantile(latencies, 1)))
	for i, f := range failures {
		if i == 10 {
			fmt.Printf("... and %d more\n", len(failures)-10)
			break
		}
		fmt.Println(f)
	}
	if len(failures) > 0 || bad > 0 || len(results) != *clients**evals || len(runs) != *clients {
		os.Exit(1)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func leaderboard(args []string) {
	fs := flag.NewFlagSet("leaderboard", flag.ExitOnError)
	readers := fs.Int("readers", 16, "concurrent readers")
	requests := fs.Int("requests", 800, "requests in all")
	experiment := fs.String("experiment", "bench-reports", "experiment")
	metric := fs.String("metric", "ndcg@10", "metric")
	_ = fs.Parse(args)
	path := fmt.Sprintf("/api/v1/leaderboard?experiment=%s&metric=%s", url.QueryEscape(*experiment), url.QueryEscape(*metric))
	if status, b, err := request("GET", path, nil); err != nil || status != 200 {
		log.Fatalf("leaderboard: %d %v %s", status, err, b)
	}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      atomic.Int64
		next      atomic.Int64
		wg        sync.WaitGroup
	)
	start := time.Now()
	for range *readers {
		wg.Go(func() {
			for next.Add(1) <= int64(*requests) {
				t0 := time.Now()
				status, _, err := request("GET", path, nil)
				d := time.Since(t0)
				if err != nil || status != 200 {
					errs.Add(1)
				}
				mu.Lock()
				latencies = append(latencies, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	fmt.Printf("leaderboard: %d requests by %d readers in %.1f s: p50 %.0f ms, p99 %.0f ms, max %.0f ms, %d errors\n",
		*requests, *readers, time.Since(start).Seconds(), ms(quantile(latencies, 0.5)), ms(quantile(latencies, 0.99)), ms(quantile(latencies, 1)), errs.Load())
}
