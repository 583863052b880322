package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/localpg"
)

// Config is how a Server serves.
type Config struct {
	// MaxBody bounds a request's body; a larger one is refused with 413.
	// Default 2 GiB.
	MaxBody int64
	// ReadIdle is how long a request's body may go without a byte before
	// the request is dropped, so that a stalled client cannot hold a
	// connection; a body that keeps coming may take as long as it needs.
	// Default 30 s. Headers must arrive within it too.
	ReadIdle time.Duration
	// WriteTimeout bounds the time from the end of a request's headers to
	// the end of its response. Default 30 min: a log of a large file or a
	// comparison of many metrics can take minutes.
	WriteTimeout time.Duration
	// IdleTimeout bounds how long a kept-alive connection waits for the
	// next request. Default 2 min.
	IdleTimeout time.Duration
	// ShutdownGrace is how long Serve waits for requests in flight when
	// its context ends. Default 5 min: long enough for a log to commit.
	ShutdownGrace time.Duration
	// SpoolDir holds uploads while they are read. The server keeps them in
	// a folder of its own inside, which Close removes; New first removes
	// what servers that were killed left there. Default:
	// $VERDICT_HOME/spool.
	SpoolDir string
	// Logger gets one line per request; it never holds a token. Default:
	// discard.
	Logger *slog.Logger
	// FailedAuthBurst is how many times a client address may fail to
	// authenticate (a wrong, revoked or malformed token, in a header or
	// the sign-in form) before its failures are answered 429; one more is
	// allowed every FailedAuthEvery. Valid tokens are never limited.
	// Defaults: 10, and 6 s.
	FailedAuthBurst int
	FailedAuthEvery time.Duration
	// CookieSecure marks the cookies Secure, so that browsers send them
	// over HTTPS only: set it behind a proxy that terminates TLS. A request
	// that reaches the server over TLS (Serve with a certificate) gets
	// Secure cookies without it.
	CookieSecure bool
	// Metrics serves Prometheus metrics at GET /metrics, to a token of any
	// role. Default: off.
	Metrics bool
	// MetricsAddr, "host:port", serves the metrics there instead, apart
	// from the API and without a token, for a Prometheus that scrapes a
	// private address; it turns Metrics on. New opens it.
	MetricsAddr string
}

// Options are the settings a server is started with, as a request declares
// them: where it listens, its TLS files, and the Config they make.
type Options struct {
	Listen       string `req:"listen" default:"127.0.0.1:8080" arg:"ADDRESS" help:"address to listen on, host:port"`
	TLSCert      string `req:"tls_cert" arg:"FILE" help:"serve HTTPS with the certificate in this PEM file"`
	TLSKey       string `req:"tls_key" arg:"FILE" help:"the private key of the certificate, in this PEM file"`
	CookieSecure bool   `req:"cookie_secure" help:"mark cookies Secure (HTTPS only) when a proxy in front terminates TLS; a certificate does without it"`
	Metrics      bool   `req:"metrics" help:"serve Prometheus metrics at /metrics, to a token of any role"`
	MetricsAddr  string `req:"metrics_addr" arg:"ADDRESS" help:"serve the metrics at /metrics on this address (host:port) instead, without a token; implies metrics"`
	MaxBody      int64  `req:"max_body" default:"2147483648" arg:"BYTES" help:"refuse request bodies over BYTES with 413"`
	ReadTimeout  string `req:"read_timeout" default:"30s" arg:"DURATION" help:"drop a request whose headers or body send nothing for DURATION"`
	SpoolDir     string `req:"spool_dir" arg:"FOLDER" help:"keep uploads in FOLDER while they are read (default: $VERDICT_HOME/spool)"`
}

// Config checks the options and gives the Config they make, with logger.
func (o Options) Config(logger *slog.Logger) (Config, error) {
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return Config{}, request.Errorf("{tls_cert} and {tls_key} go together")
	}
	idle, err := time.ParseDuration(o.ReadTimeout)
	if err != nil {
		return Config{}, request.Errorf("{read_timeout} %q: want a duration such as 30s or 1m", o.ReadTimeout)
	}
	return Config{MaxBody: o.MaxBody, ReadIdle: idle, SpoolDir: o.SpoolDir, Logger: logger, CookieSecure: o.CookieSecure,
		Metrics: o.Metrics, MetricsAddr: o.MetricsAddr}, nil
}

func (c Config) withDefaults() Config {
	if c.MaxBody <= 0 {
		c.MaxBody = 2 << 30
	}
	if c.ReadIdle <= 0 {
		c.ReadIdle = 30 * time.Second
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = 30 * time.Minute
	}
	if c.IdleTimeout <= 0 {
		c.IdleTimeout = 2 * time.Minute
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = 5 * time.Minute
	}
	if c.FailedAuthBurst <= 0 {
		c.FailedAuthBurst = 10
	}
	if c.FailedAuthEvery <= 0 {
		c.FailedAuthEvery = 6 * time.Second
	}
	if c.MetricsAddr != "" {
		c.Metrics = true
	}
	if c.SpoolDir == "" {
		c.SpoolDir = filepath.Join(localpg.DefaultHome(), "spool")
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return c
}

// ErrMetricsAddr is returned by New when it cannot listen on
// Config.MetricsAddr; the error says why.
var ErrMetricsAddr = errors.New("cannot serve the metrics on their address")

// throttledAddresses bounds the client addresses whose failed
// authentications are counted: about 200 bytes each.
const throttledAddresses = 10000

// Server serves verdict's HTTP API and web view over a store.
type Server struct {
	store    *store.Store
	cfg      Config
	routes   []route
	mux      *http.ServeMux
	handler  http.Handler      // mux, behind the checks every request goes through
	answers  *answers          // leaderboards, as JSON
	rows     *compare.RowCache // leaderboards' rows
	boards   boardLocks
	reports  *answers // experiments' summaries, for their pages
	replays  *replays
	uploads  *spool
	throttle *throttle // of failed authentications, by client address
	metrics  *metrics  // nil unless Config.Metrics
	// metricsListener is Config.MetricsAddr's, opened by New.
	metricsListener net.Listener
}

// New returns a Server of st. It fails if a route is not protected, if it
// cannot make its folder in Config.SpoolDir, or if it cannot listen on
// Config.MetricsAddr. Close removes that folder and closes that address.
func New(st *store.Store, cfg Config) (*Server, error) {
	s := &Server{store: st, cfg: cfg.withDefaults(), mux: http.NewServeMux(), answers: newAnswers(256), reports: newAnswers(16), replays: newReplays(),
		rows: compare.NewRowCache(leaderboardRows)}
	s.throttle = newThrottle(s.cfg.FailedAuthEvery, s.cfg.FailedAuthBurst, throttledAddresses)
	if s.cfg.Metrics {
		s.metrics = newMetrics()
	}
	s.routes = s.table()
	err := checkRoutes(s.routes)
	if err != nil {
		return nil, err
	}
	if s.cfg.MetricsAddr != "" {
		if s.metricsListener, err = Listen(s.cfg.MetricsAddr); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMetricsAddr, err)
		}
	}
	if s.uploads, err = openSpool(s.cfg.SpoolDir); err != nil {
		if s.metricsListener != nil {
			s.metricsListener.Close()
		}
		return nil, err
	}
	for _, rt := range s.routes {
		s.mux.Handle(rt.method+" "+rt.pattern, s.serve(rt))
	}
	// Anything else: 404 (or 405) as JSON, without saying more.
	s.mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := newRecorder(w)
		s.fail(rec, r, route{}, &httpError{status: http.StatusNotFound, code: "not_found", msg: "no such route: see /api/v1/openapi.json"})
		s.logRequest(r, rec, nil, "")
	}))
	s.handler = s.refuseDeclaredTooLarge(s.withReadIdle(s.mux))
	return s, nil
}

// Close removes the server's folder of uploads and closes its metrics
// address, if Serve has not. Call it once Serve has returned.
func (s *Server) Close() error {
	err := s.uploads.close()
	if s.metricsListener != nil {
		if e := s.metricsListener.Close(); !errors.Is(e, net.ErrClosed) {
			err = errors.Join(err, e)
		}
	}
	return err
}

// MetricsAddr is the address Config.MetricsAddr opened (its port chosen
// when it asked for port 0), or nil.
func (s *Server) MetricsAddr() net.Addr {
	if s.metricsListener == nil {
		return nil
	}
	return s.metricsListener.Addr()
}

// Handler is the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Listen opens addr, "host:port".
func Listen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

// Serve serves on l, and the metrics on Config.MetricsAddr, until ctx
// ends, then stops taking requests and waits for those in flight, up to
// Config.ShutdownGrace. With a certificate and key it serves HTTPS on l.
func (s *Server) Serve(ctx context.Context, l net.Listener, certFile, keyFile string) error {
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: s.cfg.ReadIdle,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.cfg.Logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if certFile != "" || keyFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return fmt.Errorf("TLS certificate: %w", err)
		}
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		l = tls.NewListener(l, hs.TLSConfig)
	}
	servers, listeners := []*http.Server{hs}, []net.Listener{l}
	if s.metricsListener != nil {
		servers = append(servers, &http.Server{
			Handler:           s.metrics.handler(),
			ReadHeaderTimeout: s.cfg.ReadIdle,
			WriteTimeout:      time.Minute,
			IdleTimeout:       s.cfg.IdleTimeout,
			ErrorLog:          hs.ErrorLog,
		})
		listeners = append(listeners, s.metricsListener)
	}
	errc := make(chan error, len(servers))
	for i, srv := range servers {
		go func() { errc <- srv.Serve(listeners[i]) }()
	}
	// Until ctx ends, or a server stops on its own, which stops the other.
	var err error
	stopped := 0
	select {
	case err = <-errc:
		stopped++
	case <-ctx.Done():
		s.cfg.Logger.Info("shutting down: finishing requests in flight", "grace", s.cfg.ShutdownGrace.String())
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
	defer cancel()
	for _, srv := range servers {
		if e := srv.Shutdown(sctx); err == nil {
			err = e
		}
	}
	for ; stopped < len(servers); stopped++ {
		if e := <-errc; !errors.Is(e, http.ErrServerClosed) && err == nil {
			err = e
		}
	}
	return err
}

// refuseDeclaredTooLarge answers 413 at once to a request whose declared
// Content-Length is over MaxBody, whatever its route and before its token
// is checked, without reading a byte of the body: the connection is closed
// rather than the rest of the body read (or waited for). A body of no
// declared length is held to MaxBody as it is read (serve).
func (s *Server) refuseDeclaredTooLarge(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength <= s.cfg.MaxBody {
			h.ServeHTTP(w, r)
			return
		}
		rec := newRecorder(w)
		rec.Header().Set("Connection", "close")
		s.fail(rec, r, route{}, &http.MaxBytesError{Limit: s.cfg.MaxBody})
		s.logRequest(r, rec, nil, "")
	})
}

// withReadIdle gives each read of a request's body ReadIdle to make
// progress, through the connection's read deadline.
func (s *Server) withReadIdle(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.SetReadDeadline(time.Now().Add(s.cfg.ReadIdle))
		r.Body = &idleBody{ReadCloser: r.Body, rc: rc, idle: s.cfg.ReadIdle}
		h.ServeHTTP(w, r)
	})
}

type idleBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	idle time.Duration
}

func (b *idleBody) Read(p []byte) (int, error) {
	_ = b.rc.SetReadDeadline(time.Now().Add(b.idle))
	n, err := b.ReadCloser.Read(p)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		err = fmt.Errorf("%w: no byte of the body for %s", errReadIdle, b.idle)
	}
	return n, err
}

// errReadIdle is a body that stalled.
var errReadIdle = errors.New("request body timed out")

// logRequest logs the request and counts it in the metrics, under route
// (its method and pattern; "" for none).
func (s *Server) logRequest(r *http.Request, rec *recorder, c *caller, route string) {
	s.metrics.observe(route, rec.status, rec.start)
	attrs := []any{"method", r.Method, "path", r.URL.Path, "status", rec.status, "bytes", rec.bytes,
		"remote", r.RemoteAddr}
	if c != nil && c.token != nil {
		attrs = append(attrs, "token_id", c.token.ID, "token_name", c.token.Name)
	}
	s.cfg.Logger.Info("request", attrs...)
}
