package server

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/verdict-ml/verdict/store"
)

// The server's metrics, for Prometheus, when Config.Metrics asks for them:
// requests by route and status, their latencies, evaluations logged,
// comparisons made and bytes ingested, with the Go runtime's and the
// process's own. Each Server has a registry of its own: nothing is
// registered globally.

// metrics are a server's Prometheus metrics.
type metrics struct {
	registry    *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	evaluations prometheus.Counter
	comparisons *prometheus.CounterVec
	ingested    prometheus.Counter
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_http_requests_total",
			Help: "HTTP requests answered, by route (method and pattern; unmatched for none) and status code.",
		}, []string{"route", "code"}),
		// From 5 ms to about 20 min, by fourfold steps: a leaderboard is
		// milliseconds, a large log or comparison minutes.
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "verdict_http_request_duration_seconds",
			Help:    "Time from a request's headers to the end of its answer, by route.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 10),
		}, []string{"route"}),
		evaluations: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_evaluations_logged_total",
			Help: "Evaluations stored through the API (log and evaluate); a retry with the same Idempotency-Key is not counted again.",
		}),
		comparisons: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verdict_comparisons_total",
			Help: "Comparisons of two evaluations made through the API, by whether they were recorded in the history (POST) or not (GET).",
		}, []string{"recorded"}),
		ingested: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "verdict_ingested_bytes_total",
			Help: "Bytes of request bodies read by the routes that log evaluations, for the requests that succeeded.",
		}),
	}
	m.registry.MustRegister(m.requests, m.latency, m.evaluations, m.comparisons, m.ingested,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// handler serves the metrics in Prometheus's text format.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// observe counts an answered request of route (method and pattern) and its
// latency, from start.
func (m *metrics) observe(route string, status int, start time.Time) {
	if m == nil {
		return
	}
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(time.Since(start).Seconds())
}

// logged counts an evaluation stored.
func (m *metrics) logged() {
	if m != nil {
		m.evaluations.Inc()
	}
}

// compared counts a comparison made.
func (m *metrics) compared(recorded bool) {
	if m != nil {
		m.comparisons.WithLabelValues(strconv.FormatBool(recorded)).Inc()
	}
}

// ingest counts n bytes of a body that was logged.
func (m *metrics) ingest(n int64) {
	if m != nil {
		m.ingested.Add(float64(n))
	}
}

// metricsRoute is GET /metrics on the server's address, behind a token of
// any role, when Config.Metrics asks for it and no MetricsAddr serves it
// apart.
func (s *Server) metricsRoute() []route {
	if s.metrics == nil || s.cfg.MetricsAddr != "" {
		return nil
	}
	h := s.metrics.handler()
	return []route{{method: "GET", pattern: "/metrics", summary: "read the server's metrics, for Prometheus", role: store.TokenReader, scope: scopeNone,
		handle: func(w http.ResponseWriter, r *http.Request, _ *caller) error {
			h.ServeHTTP(w, r)
			return nil
		}}}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	io.ReadCloser
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n += int64(n)
	return n, err
}
