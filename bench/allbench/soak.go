package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// serveSoak runs `verdict serve` under 8 clients for 150 seconds (30 with
// -quick), each looping: log an evaluation of 2,000 users × 3 metrics as
// a new run, compare it with the client's previous one, and every 5th loop
// read the leaderboard of every run, which grows as the runs do. It reports the p99 latency of each, the
// errors, and the server's peak RSS and its RSS after 30 seconds idle.
func serveSoak(b *bench) ([]Figure, []Growth, error) {
	const clients, users = 8, 2000
	duration, idle := 150*time.Second, 30*time.Second
	if b.quick {
		duration, idle = 30*time.Second, 5*time.Second
	}
	token, id, err := b.token()
	if err != nil {
		return nil, nil, err
	}
	defer b.output(b.verdict, "token", "revoke", id)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(b.verdict, "serve", "--listen", addr)
	srv.Env, srv.Stderr = b.env, io.Discard
	if err := srv.Start(); err != nil {
		return nil, nil, err
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	base := "http://" + addr
	for i := 0; ; i++ {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		if i == 100 {
			return nil, nil, fmt.Errorf("verdict serve did not answer on %s", addr)
		}
		time.Sleep(100 * time.Millisecond)
	}

	exp := fmt.Sprintf("bench-soak-%d", time.Now().UnixNano())
	type timing struct {
		op   string
		secs float64
		err  error
	}
	var mu sync.Mutex
	var timings []timing
	call := func(op, method, path string, body []byte) ([]byte, error) {
		req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		if body != nil {
			req.Header.Set("Content-Type", "text/csv")
		}
		start := time.Now()
		resp, err := http.DefaultClient.Do(req)
		var data []byte
		if err == nil {
			data, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode/100 != 2 {
				err = fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, strings.TrimSpace(string(data)))
			}
		}
		mu.Lock()
		timings = append(timings, timing{op, time.Since(start).Seconds(), err})
		mu.Unlock()
		return data, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var wg sync.WaitGroup
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), 5))
			prev := ""
			for loop := 1; ctx.Err() == nil; loop++ {
				var csv bytes.Buffer
				csv.WriteString("sample_id,ndcg@10,recall@20,mrr@10\n")
				for u := range users {
					fmt.Fprintf(&csv, "u%05d,%.6f,%.6f,%.6f\n", u, rng.Float64(), rng.Float64(), rng.Float64())
				}
				run := fmt.Sprintf("client%d-%d", c, loop) // a new run each loop: the leaderboard grows
				q := url.Values{"experiment": {exp}, "run": {run}, "eval_set": {"test"}}
				data, err := call("log", "POST", "/api/v1/evaluations?"+q.Encode(), csv.Bytes())
				if err != nil {
					continue
				}
				var logged struct {
					ID int64 `json:"evaluation_id"`
				}
				if json.Unmarshal(data, &logged) != nil || logged.ID == 0 {
					continue
				}
				cur := strconv.FormatInt(logged.ID, 10)
				if prev != "" {
					q := url.Values{"baseline": {prev}, "candidate": {cur}, "metric": {"ndcg@10"}}
					call("compare", "GET", "/api/v1/compare?"+q.Encode(), nil)
				}
				prev = cur
				if loop%5 == 0 {
					q := url.Values{"experiment": {exp}, "metric": {"ndcg@10"}, "limit": {"0"}}
					call("leaderboard", "GET", "/api/v1/leaderboard?"+q.Encode(), nil)
				}
			}
		}()
	}
	wg.Wait()
	peakMB := procMB(srv.Process.Pid, "VmHWM")
	time.Sleep(idle)
	idleMB := procMB(srv.Process.Pid, "VmRSS")

	var figs []Figure
	errs := 0
	var firstErr error
	for _, t := range timings {
		if t.err != nil {
			errs++
			firstErr = cmp.Or(firstErr, t.err)
		}
	}
	if firstErr != nil {
		log.Printf("  first error: %v", firstErr)
	}
	work := fmt.Sprintf("serve, %d clients for %s: ", clients, duration)
	for _, op := range []struct {
		name   string
		target float64
	}{{"log", 1.5}, {"compare", 1.5}, {"leaderboard", 3}} {
		var xs []float64
		for _, t := range timings {
			if t.op == op.name && t.err == nil {
				xs = append(xs, t.secs)
			}
		}
		if len(xs) == 0 {
			return nil, nil, fmt.Errorf("no %s succeeded: %v", op.name, firstErr)
		}
		slices.Sort(xs)
		p50, p99 := xs[len(xs)/2], xs[min(len(xs)-1, len(xs)*99/100)]
		f := Figure{ID: "soak_" + op.name + "_p99", Work: work + op.name + " p99", Unit: "s", Value: p99, Low: p50, High: xs[len(xs)-1],
			Rounds: []float64{p99}, PeakMB: peakMB, Target: op.target, TargetMB: 300, Bench: "bench/all --only soak", Seconds: p99}
		f.setMet()
		figs = append(figs, f)
		log.Printf("  %s: %d requests, p50 %.2f s, p99 %.2f s, max %.2f s", op.name, len(xs), p50, p99, xs[len(xs)-1])
	}
	f := Figure{ID: "soak_errors", Work: work + "errors", Unit: "errors", Value: float64(errs), Low: float64(errs), High: float64(errs),
		Rounds: []float64{float64(errs)}, PeakMB: idleMB, Bench: "bench/all --only soak"}
	f.setMet()
	figs = append(figs, f)
	log.Printf("  server RSS: peak %.0f MB, %.0f MB after %s idle; %d errors of %d requests", peakMB, idleMB, idle, errs, len(timings))
	return figs, nil, nil
}

// token creates a writer token and returns its secret and its ID.
func (b *bench) token() (secret, id string, err error) {
	cmd := exec.Command(b.verdict, "token", "create", "--name", fmt.Sprintf("bench-soak-%d", time.Now().UnixNano()), "--role", "writer")
	cmd.Env = b.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("token create: %v: %s", err, stderr.String())
	}
	if _, err := fmt.Sscanf(stderr.String(), "token %s", &id); err != nil {
		return "", "", fmt.Errorf("token create said %q", stderr.String())
	}
	return strings.TrimSpace(string(out)), id, nil
}

// procMB is a field of a process's /proc status, in MB.
func procMB(pid int, field string) float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return kb / 1024
		}
	}
	return 0
}
