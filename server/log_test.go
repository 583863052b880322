package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/store"
)

func (ts *testServer) evaluations(t *testing.T) int {
	t.Helper()
	list, err := ts.st.ListEvaluations(context.Background(), store.EvaluationFilter{})
	require.NoError(t, err)
	return len(list)
}

type logAnswer struct {
	ID         int64              `json:"evaluation_id"`
	Existing   bool               `json:"existing"`
	Units      int64              `json:"n_units"`
	Aggregates map[string]float64 `json:"aggregates"`
}

func TestLogOverHTTP(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{MaxBody: 64 << 10})
	w := ts.token(t, store.TokenWriter, "")
	const path = "/api/v1/evaluations?experiment=e&run=r&eval_set=test&tag=nightly&param=lr=0.01&lower_is_better=loss"
	csv := "sample_id,ndcg,loss\nu1,0.5,1\nu2,0.25,2\nu3,0,3\n"

	// A retry with the same key returns the first evaluation.
	status, b := ts.do(t, "POST", path, w, strings.NewReader(csv), "Content-Type", "text/csv", "Idempotency-Key", "job-17")
	require.Equal(t, http.StatusCreated, status, string(b))
	var first logAnswer
	require.NoError(t, json.Unmarshal(b, &first))
	require.Equal(t, 0.25, first.Aggregates["ndcg"])
	require.Equal(t, int64(3), first.Units)
	status, b = ts.do(t, "POST", path, w, strings.NewReader(csv+"u4,1,1\n"), "Content-Type", "text/csv", "Idempotency-Key", "job-17")
	require.Equal(t, http.StatusOK, status, string(b))
	var again logAnswer
	require.NoError(t, json.Unmarshal(b, &again))
	require.Equal(t, first.ID, again.ID)
	require.True(t, again.Existing)
	e, err := ts.st.GetEvaluation(context.Background(), first.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"loss"}, e.LowerIsBetter)
	run, err := ts.st.GetRun(context.Background(), "e", "r")
	require.NoError(t, err)
	require.Equal(t, 0.01, run.Params["lr"])
	require.Equal(t, []string{"nightly"}, run.Tags)
	require.Empty(t, run.GitCommit, "the server's own directory is not the run's commit")
	status, b = ts.do(t, "GET", fmt.Sprintf("/api/v1/evaluations/%d", first.ID), w, nil)
	require.Equal(t, 200, status, string(b))
	var one map[string]any
	require.NoError(t, json.Unmarshal(b, &one))
	require.Equal(t, []any{"loss"}, one["lower_is_better"])
	require.Equal(t, 3.0, one["n_units"])
	require.Equal(t, "job-17", one["idempotency_key"])
	require.Equal(t, map[string]any{"ndcg": 0.25, "loss": 2.0}, one["aggregates"])
	status, b = ts.do(t, "GET", "/api/v1/evaluations?experiment=e&run=r", w, nil)
	require.Equal(t, 200, status, string(b))
	var list []map[string]any
	require.NoError(t, json.Unmarshal(b, &list))
	require.Len(t, list, 1)
	require.Equal(t, one, list[0])

	// gzip, NDJSON and Parquet bodies, as verdict log reads them.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, _ = zw.Write([]byte(csv))
	require.NoError(t, zw.Close())
	status, b = ts.do(t, "POST", "/api/v1/evaluations?experiment=e&run=gz&eval_set=test", w, &gz, "Content-Type", "text/csv")
	require.Equal(t, http.StatusCreated, status, string(b))
	ndjson := `{"sample_id": "u1", "ndcg": 0.5}` + "\n" + `{"sample_id": "u2", "ndcg": 1}` + "\n"
	status, b = ts.do(t, "POST", "/api/v1/evaluations?experiment=e&run=nd&eval_set=test", w, strings.NewReader(ndjson), "Content-Type", "application/x-ndjson")
	require.Equal(t, http.StatusCreated, status, string(b))
	require.Contains(t, string(b), `"ndcg": 0.75`)
	type pqRow struct {
		SampleID string  `parquet:"sample_id"`
		NDCG     float64 `parquet:"ndcg"`
	}
	pq, err := os.ReadFile(inputtest.WriteParquet(t, "s.parquet", []pqRow{{"u1", 1}, {"u2", 0.5}}))
	require.NoError(t, err)
	status, b = ts.do(t, "POST", "/api/v1/evaluations?experiment=e&run=pq&eval_set=test&format=parquet", w, bytes.NewReader(pq))
	require.Equal(t, http.StatusCreated, status, string(b))
	require.Contains(t, string(b), `"ndcg": 0.75`)
	stored := ts.evaluations(t)

	// Bad bodies: the command line's message, naming the body's line and
	// sample, and nothing stored.
	for _, tc := range []struct {
		body, ctype string
		status      int
		code, want  string
	}{
		{"sample_id,ndcg\nu1,0.5\nu2,NaN\n", "text/csv", 422, "invalid_input", `body: line 3 (sample "u2"), column "ndcg"`},
		{"sample_id,ndcg\nu1,0.5\nu2,0.1\nu1,0.3\n", "text/csv", 422, "invalid_input", `body: line 4 (first at body: line 2)`},
		{"sample_id,ndcg\nu1,1_0\n", "text/csv", 422, "invalid_input", "body: line 2"},
		{"ndcg\n0.5\n", "text/csv", 422, "invalid_input", "sample_id"},
		{"sample_id,ndcg\nu1,0.5\n", "text/plain", 415, "unsupported_media_type", "Content-Type"},
		{"sample_id,x\n" + manyRows(20000), "text/csv", 413, "payload_too_large", "larger than this server takes (65536 bytes)"},
	} {
		status, b := ts.do(t, "POST", "/api/v1/evaluations?experiment=e&run=bad&eval_set=test", w, strings.NewReader(tc.body), "Content-Type", tc.ctype)
		require.Equal(t, tc.status, status, string(b))
		code, msg := apiError(t, b)
		require.Equal(t, tc.code, code)
		require.Contains(t, msg, tc.want)
		require.NotContains(t, msg, "verdict-upload", "the temporary file's name is not shown")
	}
	status, b = ts.do(t, "POST", "/api/v1/evaluations?experiment=e&eval_set=test", w, strings.NewReader(csv), "Content-Type", "text/csv")
	require.Equal(t, 400, status)
	_, msg := apiError(t, b)
	require.Equal(t, "parameter run is required", msg)
	require.Equal(t, stored, ts.evaluations(t), "no bad request stored anything")
}

// TestStalledBodyTimesOut sends headers and part of a body, then nothing:
// the server gives up after ReadIdle, answers 408 and stores nothing, while
// a body that keeps coming, slowly, is read to its end.
func TestStalledBodyTimesOut(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{ReadIdle: 400 * time.Millisecond})
	w := ts.token(t, store.TokenWriter, "")
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /api/v1/evaluations?experiment=e&run=slow&eval_set=test HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: text/csv\r\nContent-Length: 1000\r\n\r\nsample_id,x\nu1,1\n", w)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusRequestTimeout, resp.StatusCode, string(b))
	require.Less(t, time.Since(start), 5*time.Second)
	code, _ := apiError(t, b)
	require.Equal(t, "timeout", code)
	require.Zero(t, ts.evaluations(t))

	// A slow body whose bytes keep coming, each within ReadIdle, is fine.
	pr, pw := io.Pipe()
	go func() {
		fmt.Fprint(pw, "sample_id,x\n")
		for i := range 6 {
			time.Sleep(150 * time.Millisecond)
			fmt.Fprintf(pw, "u%d,1\n", i)
		}
		pw.Close()
	}()
	status, b := ts.do(t, "POST", "/api/v1/evaluations?experiment=e&run=slow&eval_set=test", w, pr, "Content-Type", "text/csv")
	require.Equal(t, http.StatusCreated, status, string(b))
}

// TestShutdownFinishesLogsInFlight stops the server, as SIGTERM does, while
// a log's body is still arriving: the log completes and is answered, and
// the server stops after it.
func TestShutdownFinishesLogsInFlight(t *testing.T) {
	t.Parallel()
	uploads := t.TempDir()
	ts := startServer(t, Config{TempDir: uploads})
	w := ts.token(t, store.TokenWriter, "")
	pr, pw := io.Pipe()
	type answer struct {
		status int
		body   []byte
	}
	got := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequest("POST", ts.url+"/api/v1/evaluations?experiment=e&run=inflight&eval_set=test", pr)
		req.Header.Set("Authorization", "Bearer "+w)
		req.Header.Set("Content-Type", "text/csv")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			got <- answer{status: -1, body: []byte(err.Error())}
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- answer{resp.StatusCode, b}
	}()
	fmt.Fprint(pw, "sample_id,x\nu1,0.5\n")
	waitFor(t, "the request to be in flight", func() bool {
		matches, _ := filepath.Glob(filepath.Join(uploads, "verdict-upload-*"))
		return len(matches) > 0
	})
	stopped := make(chan struct{})
	go func() { ts.stop(); close(stopped) }()
	time.Sleep(300 * time.Millisecond)
	select {
	case <-stopped:
		t.Fatal("the server stopped with a log in flight")
	default:
	}
	for i := range 100 {
		fmt.Fprintf(pw, "v%d,0.25\n", i)
	}
	pw.Close()
	a := <-got
	require.Equal(t, http.StatusCreated, a.status, string(a.body))
	<-stopped
	require.Equal(t, 1, ts.evaluations(t))
}

func manyRows(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "u%d,0.5\n", i)
	}
	return b.String()
}
