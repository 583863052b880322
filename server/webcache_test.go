package server

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// TestExperimentPageFollowsNewData: the experiment's page is kept between
// requests, but a new comparison or a new evaluation shows at once.
func TestExperimentPageFollowsNewData(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	w := ts.token(t, store.TokenWriter, "")
	ts.logCSV(t, w, "e", "alpha", "sample_id,x\nu1,1\nu2,0\nu3,1\nu4,1\n")
	ts.logCSV(t, w, "e", "beta", "sample_id,x\nu1,0\nu2,0\nu3,1\nu4,0\n")
	page := func() string {
		status, b := ts.do(t, "GET", "/experiments/e", w, nil)
		require.Equal(t, 200, status, string(b))
		return string(b)
	}
	first := page()
	require.NotContains(t, first, `href="/comparisons/`)
	require.Equal(t, first, page(), "kept: the same page, generated at the same time")

	status, b := ts.do(t, "POST", "/api/v1/compare?experiment=e&baseline=alpha&candidate=beta", w, nil)
	require.Equal(t, 200, status, string(b))
	require.Contains(t, page(), `href="/comparisons/1"`)

	ts.logCSV(t, w, "e", "gamma", "sample_id,x\nu1,1\nu2,1\nu3,1\nu4,1\n")
	require.True(t, strings.Contains(page(), ">gamma<"), "the new run is on the page")
}
