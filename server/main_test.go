package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// testServer is a real server on a loopback port over a fresh database.
type testServer struct {
	*Server
	url   string // http://127.0.0.1:PORT
	dbURL string
	st    *store.Store
	log   *syncBuffer // the request log
	stop  func()      // stops the server as SIGTERM does, and waits
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startServer(t *testing.T, cfg Config) *testServer {
	t.Helper()
	return startServerOn(t, cfg, nil)
}

// startServerOn is startServer with the server's listener wrapped by wrap,
// when it is not nil, so that a test can watch the server's connections.
func startServerOn(t *testing.T, cfg Config, wrap func(net.Listener) net.Listener) *testServer {
	t.Helper()
	dbURL := storetest.NewDatabase(t)
	st, err := store.Open(context.Background(), dbURL, store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	return serveStore(t, st, dbURL, cfg, wrap)
}

// restart stops the server and serves its store with a new Server, on
// another port, as a restart of verdict serve does.
func (ts *testServer) restart(t *testing.T, cfg Config) *testServer {
	t.Helper()
	ts.stop()
	return serveStore(t, ts.st, ts.dbURL, cfg, nil)
}

// serveStore serves st with a new Server on a loopback port.
func serveStore(t *testing.T, st *store.Store, dbURL string, cfg Config, wrap func(net.Listener) net.Listener) *testServer {
	t.Helper()
	logs := &syncBuffer{}
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	if cfg.SpoolDir == "" {
		cfg.SpoolDir = t.TempDir()
	}
	srv, err := New(st, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, srv.Close()) }) // after stop
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	if wrap != nil {
		l = wrap(l)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l, "", "") }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			require.NoError(t, <-done)
		})
	}
	t.Cleanup(stop)
	return &testServer{Server: srv, url: "http://" + l.Addr().String(), dbURL: dbURL, st: st, log: logs, stop: stop}
}

// token makes a token and returns its secret.
func (ts *testServer) token(t *testing.T, role store.TokenRole, experiment string) string {
	t.Helper()
	_, secret, err := ts.st.CreateToken(context.Background(), "test-"+string(role)+"-"+experiment, role, experiment)
	require.NoError(t, err)
	return secret
}

// do sends a request and returns the status and body.
func (ts *testServer) do(t *testing.T, method, path, token string, body io.Reader, headers ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, ts.url+path, body)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, b
}

// apiError decodes an error body.
func apiError(t *testing.T, b []byte) (code, message string) {
	t.Helper()
	var e struct {
		Error struct{ Code, Message string }
	}
	require.NoError(t, json.Unmarshal(b, &e), string(b))
	require.NotEmpty(t, e.Error.Code, string(b))
	return e.Error.Code, e.Error.Message
}

// logCSV logs a CSV evaluation over HTTP and returns its ID.
func (ts *testServer) logCSV(t *testing.T, token, experiment, run, csv string) int64 {
	t.Helper()
	status, b := ts.do(t, "POST", "/api/v1/evaluations?experiment="+experiment+"&run="+run+"&eval_set=test", token,
		strings.NewReader(csv), "Content-Type", "text/csv")
	require.Equal(t, http.StatusCreated, status, string(b))
	var got struct {
		ID int64 `json:"evaluation_id"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	require.Positive(t, got.ID, string(b))
	return got.ID
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var jsonUnmarshal = json.Unmarshal
