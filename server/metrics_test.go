package server

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// scrape reads the metrics at url, as Prometheus does, with token unless
// it is "".
func scrape(t *testing.T, url, token string) map[string]*dto.MetricFamily {
	t.Helper()
	req, err := http.NewRequest("GET", url, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain"), resp.Header.Get("Content-Type"))
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(string(b)))
	require.NoError(t, err, string(b))
	return families
}

// sample is the metric of family name whose labels are labels: its
// counter's value, or its histogram's count of observations.
func sample(t *testing.T, families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	f := families[name]
	require.NotNil(t, f, "no metric %s", name)
next:
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if got[k] != v {
				continue next
			}
		}
		if h := m.GetHistogram(); h != nil {
			return float64(h.GetSampleCount())
		}
		return m.GetCounter().GetValue()
	}
	t.Fatalf("no %s with labels %v", name, labels)
	return 0
}

// TestMetrics scrapes /metrics after logs and comparisons: requests by
// route and status, latencies, evaluations logged (a retry not counted
// again), comparisons made and bytes ingested. The endpoint is off by
// default, needs a token on the server's address, and needs none on an
// address of its own.
func TestMetrics(t *testing.T) {
	t.Parallel()

	off := startServer(t, Config{})
	status, b := off.do(t, "GET", "/metrics", off.token(t, store.TokenAdmin, ""), nil)
	require.Equal(t, http.StatusNotFound, status, "off by default: %s", b)

	ts := startServer(t, Config{Metrics: true})
	status, b = ts.do(t, "GET", "/metrics", "", nil)
	require.Equal(t, http.StatusUnauthorized, status, string(b))
	code, _ := apiError(t, b)
	require.Equal(t, "unauthorized", code)
	status, _ = ts.do(t, "GET", "/metrics", "vdt_1_nope", nil)
	require.Equal(t, http.StatusUnauthorized, status)

	w := ts.token(t, store.TokenWriter, "")
	var base, cand strings.Builder
	base.WriteString("sample_id,ndcg\n")
	cand.WriteString("sample_id,ndcg\n")
	for i := range 50 {
		fmt.Fprintf(&base, "u%02d,%g\n", i, float64(i%5)/5)
		fmt.Fprintf(&cand, "u%02d,%g\n", i, float64((i+1)%5)/5)
	}
	for _, tc := range []struct{ run, body string }{{"base", base.String()}, {"cand", cand.String()}, {"cand", cand.String()}} {
		// The third is a retry of the second: the same key, nothing stored.
		status, b := ts.do(t, "POST", "/api/v1/evaluations?experiment=e&eval_set=test&run="+tc.run, w, strings.NewReader(tc.body),
			"Content-Type", "text/csv", "Idempotency-Key", tc.run)
		require.Contains(t, []int{http.StatusCreated, http.StatusOK}, status, string(b))
	}
	status, b = ts.do(t, "GET", "/api/v1/compare?experiment=e&baseline=base&candidate=cand&seed=1", w, nil)
	require.Equal(t, http.StatusOK, status, string(b))
	status, b = ts.do(t, "POST", "/api/v1/compare?experiment=e&baseline=base&candidate=cand&seed=1", w, nil)
	require.Equal(t, http.StatusOK, status, string(b))
	status, _ = ts.do(t, "GET", "/api/v1/nothing", w, nil)
	require.Equal(t, http.StatusNotFound, status)

	m := scrape(t, ts.url+"/metrics", ts.token(t, store.TokenReader, ""))
	require.Equal(t, 2.0, sample(t, m, "verdict_evaluations_logged_total", nil), "two evaluations stored; the retry is not counted")
	require.Equal(t, 1.0, sample(t, m, "verdict_comparisons_total", map[string]string{"recorded": "false"}))
	require.Equal(t, 1.0, sample(t, m, "verdict_comparisons_total", map[string]string{"recorded": "true"}))
	require.Equal(t, float64(len(base.String())+2*len(cand.String())), sample(t, m, "verdict_ingested_bytes_total", nil),
		"every body read, the retry's included")
	require.Equal(t, 2.0, sample(t, m, "verdict_http_requests_total", map[string]string{"route": "POST /api/v1/evaluations", "code": "201"}))
	require.Equal(t, 1.0, sample(t, m, "verdict_http_requests_total", map[string]string{"route": "POST /api/v1/evaluations", "code": "200"}))
	require.Equal(t, 1.0, sample(t, m, "verdict_http_requests_total", map[string]string{"route": "GET /api/v1/compare", "code": "200"}))
	require.Equal(t, 2.0, sample(t, m, "verdict_http_requests_total", map[string]string{"route": "GET /metrics", "code": "401"}))
	require.Equal(t, 1.0, sample(t, m, "verdict_http_requests_total", map[string]string{"route": "unmatched", "code": "404"}))
	require.Equal(t, 1.0, sample(t, m, "verdict_http_request_duration_seconds", map[string]string{"route": "GET /api/v1/compare"}))
	require.Equal(t, 3.0, sample(t, m, "verdict_http_request_duration_seconds", map[string]string{"route": "POST /api/v1/evaluations"}))
	require.Contains(t, m, "go_goroutines", "the Go runtime's metrics")

	// On an address of its own: no token there, and none of it on the
	// server's address.
	apart := startServer(t, Config{MetricsAddr: "127.0.0.1:0"})
	reader := apart.token(t, store.TokenReader, "")
	status, _ = apart.do(t, "GET", "/metrics", reader, nil)
	require.Equal(t, http.StatusNotFound, status, "not on the API's address")
	status, _ = apart.do(t, "GET", "/api/v1/experiments", reader, nil)
	require.Equal(t, http.StatusOK, status)
	m = scrape(t, "http://"+apart.MetricsAddr().String()+"/metrics", "")
	require.Equal(t, 1.0, sample(t, m, "verdict_http_requests_total", map[string]string{"route": "GET /api/v1/experiments", "code": "200"}))
}
