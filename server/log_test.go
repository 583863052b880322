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
	"github.com/verdict-ml/verdict/store/storetest"
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

// unitTables counts the tables of per-unit values, attached or not.
func unitTables(t *testing.T, dbURL string) int64 {
	t.Helper()
	return storetest.Scalar[int64](t, dbURL, `
		SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'verdict_units' AND c.relkind IN ('r', 'p')`)
}

// TestIdempotencyKeyHoldsOneContent: an Idempotency-Key names one request.
// Sent again with the same body and parameters it is a retry, answered with
// the first evaluation; with other content it is refused with 409, and
// nothing is stored, rather than dropping the new data in silence.
func TestIdempotencyKeyHoldsOneContent(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	w := ts.token(t, store.TokenWriter, "")
	const path = "/api/v1/evaluations?experiment=e&run=r&eval_set=test"
	csv := "sample_id,ndcg\nu1,0.5\nu2,0.25\nu3,0\n"
	status, b := ts.do(t, "POST", path, w, strings.NewReader(csv), "Content-Type", "text/csv", "Idempotency-Key", "nightly")
	require.Equal(t, http.StatusCreated, status, string(b))
	var first logAnswer
	require.NoError(t, json.Unmarshal(b, &first))
	tables, values := unitTables(t, ts.dbURL), storetest.Scalar[int64](t, ts.dbURL, `SELECT count(*) FROM unit_values`)
	require.Equal(t, int64(3), values)

	type want struct {
		status   int
		existing bool
	}
	for _, tc := range []struct {
		name, path, csv, contentType string
		want                         want
	}{
		{name: "same content", path: path, csv: csv, contentType: "text/csv", want: want{status: http.StatusOK, existing: true}},
		{name: "other values", path: path, csv: "sample_id,ndcg\nu1,1\nu2,1\nu3,1\n", contentType: "text/csv", want: want{status: http.StatusConflict}},
		{name: "a row more", path: path, csv: csv + "u4,1\n", contentType: "text/csv", want: want{status: http.StatusConflict}},
		{name: "other parameters", path: path + "&tag=rerun", csv: csv, contentType: "text/csv", want: want{status: http.StatusConflict}},
		{name: "other format", path: path, csv: "sample_id\tndcg\nu1\t0.5\nu2\t0.25\nu3\t0\n", contentType: "text/tab-separated-values", want: want{status: http.StatusConflict}},
	} {
		status, b := ts.do(t, "POST", tc.path, w, strings.NewReader(tc.csv), "Content-Type", tc.contentType, "Idempotency-Key", "nightly")
		require.Equal(t, tc.want.status, status, "%s: %s", tc.name, b)
		if tc.want.status == http.StatusConflict {
			code, msg := apiError(t, b)
			require.Equal(t, "conflict", code, tc.name)
			require.Contains(t, msg, `"nightly"`, tc.name)
			require.Contains(t, msg, fmt.Sprintf("evaluation %d", first.ID), tc.name)
		} else {
			var got logAnswer
			require.NoError(t, json.Unmarshal(b, &got))
			require.Equal(t, first.ID, got.ID, tc.name)
			require.Equal(t, tc.want.existing, got.Existing, tc.name)
			require.Equal(t, first.Aggregates, got.Aggregates, tc.name)
		}
		require.Equal(t, 1, ts.evaluations(t), tc.name)
		require.Equal(t, values, storetest.Scalar[int64](t, ts.dbURL, `SELECT count(*) FROM unit_values`), tc.name)
		require.Equal(t, tables, unitTables(t, ts.dbURL), tc.name)
	}
	run, err := ts.st.GetRun(context.Background(), "e", "r")
	require.NoError(t, err)
	require.Empty(t, run.Tags, "a refused log changes nothing of the run")

	// The same content under a new key is the same evaluation, as without
	// a key; the key still holds the first content only.
	status, b = ts.do(t, "POST", path, w, strings.NewReader(csv), "Content-Type", "text/csv", "Idempotency-Key", "nightly-2")
	require.Equal(t, http.StatusOK, status, string(b))
	require.Equal(t, 1, ts.evaluations(t))
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
	status, b = ts.do(t, "POST", path, w, strings.NewReader(csv), "Content-Type", "text/csv", "Idempotency-Key", "job-17")
	require.Equal(t, http.StatusOK, status, string(b))
	var again logAnswer
	require.NoError(t, json.Unmarshal(b, &again))
	require.Equal(t, first.ID, again.ID)
	require.True(t, again.Existing)
	require.Equal(t, first.Aggregates, again.Aggregates)
	require.Equal(t, 1, ts.evaluations(t))
	require.Equal(t, int64(3), storetest.Scalar[int64](t, ts.dbURL, `SELECT count(*) FROM unit_values`))
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
	status, b = ts.do(t, "POST", "/api/v1/evaluations?experiment=e&run=pq&eval_set=test&input_format=parquet", w, bytes.NewReader(pq))
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
	require.Equal(t, 422, status)
	_, msg := apiError(t, b)
	require.Equal(t, "run is required", msg, "the message of verdict log without --run, spelled as the API spells it")
	require.Equal(t, stored, ts.evaluations(t), "no bad request stored anything")
}

// TestStalledBodyTimesOut sends headers and part of a body, then nothing:
// the server gives up after ReadIdle, answers 408 and stores nothing, while
// a body that keeps coming, for longer than ReadIdle in all but never
// pausing for it, is read to its end.
func TestStalledBodyTimesOut(t *testing.T) {
	t.Parallel()
	const idle = time.Second
	reads := make(chan struct{}, 1)
	ts := startServerOn(t, Config{ReadIdle: idle}, func(l net.Listener) net.Listener { return readSignals{l, reads} })
	w := ts.token(t, store.TokenWriter, "")
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	// Only a safety net: a server that never gave up fails the read below
	// rather than hanging the test.
	require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
	fmt.Fprintf(conn, "POST /api/v1/evaluations?experiment=e&run=slow&eval_set=test HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: text/csv\r\nContent-Length: 1000\r\n\r\nsample_id,x\nu1,1\n", w)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusRequestTimeout, resp.StatusCode, string(b))
	code, _ := apiError(t, b)
	require.Equal(t, "timeout", code)
	require.Zero(t, ts.evaluations(t))

	// A slow body whose bytes keep coming is fine: each row is sent as soon
	// as the server has read the one before, so no pause comes near
	// ReadIdle, and rows are sent until the body has taken twice ReadIdle,
	// so that a deadline not renewed by each read would have cut it.
	select {
	case <-reads: // the stalled request's
	default:
	}
	pr, pw := io.Pipe()
	defer pr.Close() // a writer still sending when the request failed stops
	rows := make(chan int, 1)
	start := time.Now()
	go func() {
		defer pw.Close()
		n := 0
		defer func() { rows <- n }()
		if _, err := fmt.Fprint(pw, "sample_id,x\n"); err != nil {
			return
		}
		stuck := time.After(30 * time.Second) // a safety net: the server stopped reading
		for time.Since(start) < 2*idle {
			select {
			case <-reads:
			case <-stuck:
				return
			}
			if _, err := fmt.Fprintf(pw, "u%d,1\n", n); err != nil {
				return
			}
			n++
		}
	}()
	status, b := ts.do(t, "POST", "/api/v1/evaluations?experiment=e&run=slow&eval_set=test", w, pr, "Content-Type", "text/csv")
	require.Equal(t, http.StatusCreated, status, string(b))
	var got logAnswer
	require.NoError(t, json.Unmarshal(b, &got))
	require.Equal(t, int64(<-rows), got.Units, "every row sent was read")
}

// TestDeclaredBodyTooLargeIsRefusedAtOnce declares a Content-Length over
// MaxBody, sends a few bytes of the body and then nothing: the server
// answers 413 without waiting for the rest, or for ReadIdle, which is long
// here, and closes the connection; with a token or without, on the API and
// on the sign-in form.
func TestDeclaredBodyTooLargeIsRefusedAtOnce(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{MaxBody: 1 << 20, ReadIdle: 10 * time.Minute})
	w := ts.token(t, store.TokenWriter, "")
	for _, tc := range []struct {
		name, request string
	}{
		{"log with a token", "POST /api/v1/evaluations?experiment=e&run=big&eval_set=test HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + w +
			"\r\nContent-Type: text/csv\r\nContent-Length: 10000000000\r\n\r\nsample_id,x\nu1,1\n"},
		{"log without a token", "POST /api/v1/evaluations?experiment=e&run=big&eval_set=test HTTP/1.1\r\nHost: x\r\n" +
			"Content-Type: text/csv\r\nContent-Length: 10000000000\r\n\r\nsample_id,x\nu1,1\n"},
		{"sign-in form", "POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
			"Content-Length: 2000000\r\n\r\ncsrf=x&token="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
			require.NoError(t, err)
			defer conn.Close()
			// Only a safety net, far below ReadIdle: a server that waits
			// for the body fails the read below rather than hanging the
			// test.
			require.NoError(t, conn.SetDeadline(time.Now().Add(30*time.Second)))
			_, err = io.WriteString(conn, tc.request)
			require.NoError(t, err)
			br := bufio.NewReader(conn)
			resp, err := http.ReadResponse(br, nil)
			require.NoError(t, err, "the answer comes before the body")
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode, string(b))
			require.True(t, resp.Close, "the connection is closed rather than the rest of the body read")
			code, msg := apiError(t, b)
			require.Equal(t, "payload_too_large", code)
			require.Contains(t, msg, "1048576 bytes")
			_, err = br.ReadByte()
			require.ErrorIs(t, err, io.EOF, "the server closed the connection")
		})
	}
	require.Zero(t, ts.evaluations(t))
	require.Equal(t, []int{413, 413}, loggedStatuses(t, ts.log.String(), "POST", "/api/v1/evaluations"))
}

// readSignals is a listener whose connections signal on reads each time
// the server reads bytes from them; a signal that finds one waiting is
// dropped.
type readSignals struct {
	net.Listener
	reads chan<- struct{}
}

func (l readSignals) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return signalingConn{c, l.reads}, nil
}

type signalingConn struct {
	net.Conn
	reads chan<- struct{}
}

func (c signalingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		select {
		case c.reads <- struct{}{}:
		default:
		}
	}
	return n, err
}

// TestShutdownFinishesLogsInFlight stops the server, as SIGTERM does, while
// a log's body is still arriving: the log completes and is answered, and
// the server stops after it.
func TestShutdownFinishesLogsInFlight(t *testing.T) {
	t.Parallel()
	uploads := t.TempDir()
	ts := startServer(t, Config{SpoolDir: uploads})
	w := ts.token(t, store.TokenWriter, "")

	// A kept-alive connection left idle: the shutdown closes it, which
	// tells the test that the shutdown has begun and found the log in
	// flight (it waits only while a connection is busy).
	idleConn, err := net.Dial("tcp", strings.TrimPrefix(ts.url, "http://"))
	require.NoError(t, err)
	defer idleConn.Close()
	fmt.Fprint(idleConn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	idleReader := bufio.NewReader(idleConn)
	resp, err := http.ReadResponse(idleReader, nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	idleClosed := make(chan struct{})
	go func() {
		_, _ = idleReader.ReadByte() // returns when the server closes the connection
		close(idleClosed)
	}()

	pr, pw := io.Pipe()
	defer pw.Close() // on a failure, the handler is not left waiting
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
		matches, _ := filepath.Glob(filepath.Join(uploads, "server-*", "verdict-upload-*"))
		return len(matches) > 0
	})
	// stopped gets the request log as it was when the server stopped.
	stopped := make(chan string, 1)
	go func() { ts.stop(); stopped <- ts.log.String() }()
	select {
	case <-idleClosed:
	case <-time.After(30 * time.Second): // a safety net only
		t.Fatal("the shutdown did not close the idle connection")
	}
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
	var logAtStop string
	select {
	case logAtStop = <-stopped:
	case <-time.After(30 * time.Second): // a safety net only
		t.Fatal("the server did not stop once the log was answered")
	}
	// The log's request was answered, and logged, before the server
	// stopped: not merely by the time the test looked.
	require.Equal(t, []int{http.StatusCreated}, loggedStatuses(t, logAtStop, "POST", "/api/v1/evaluations"))
	require.Contains(t, logAtStop, "shutting down: finishing requests in flight")
	require.Equal(t, 1, ts.evaluations(t))
}

// loggedStatuses are the statuses of the request log's lines for method
// and path, in order.
func loggedStatuses(t *testing.T, log, method, path string) []int {
	t.Helper()
	var out []int
	for line := range strings.Lines(log) {
		var l struct {
			Msg, Method, Path string
			Status            int
		}
		require.NoError(t, json.Unmarshal([]byte(line), &l), line)
		if l.Msg == "request" && l.Method == method && l.Path == path {
			out = append(out, l.Status)
		}
	}
	return out
}

func manyRows(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "u%d,0.5\n", i)
	}
	return b.String()
}
