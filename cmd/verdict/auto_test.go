package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/server"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// TestAutoChoosesTAtTheDoors asks the command line and the HTTP API for a
// comparison, then a leaderboard, of two runs of compare.AutoTMinUnits users, as a user does,
// giving no option: both choose the paired t of the exact sums and say
// so, with the same JSON. Naming the default number of resamples (2000)
// asks for the bootstrap, at both doors. The values: run a's are
// (7u mod 11)/10, run b's the same less 0.05 on every fourth user, so the
// mean difference a − b is 2500·0.05/10000 = 0.0125 exactly.
func TestAutoChoosesTAtTheDoors(t *testing.T) {
	t.Parallel()
	dbURL := storetest.NewDatabase(t)
	n := compare.AutoTMinUnits
	for i, run := range []string{"a", "b"} {
		var b strings.Builder
		b.WriteString("sample_id,m\n")
		for u := range n {
			v := float64((u*7)%11) / 10
			if i == 1 && u%4 == 0 {
				v -= 0.05
			}
			fmt.Fprintf(&b, "u%05d,%g\n", u, v)
		}
		res := runVerdict(t, dbURL, "log", "-e", "big", "-r", run, "-s", "test", writeFile(t, run+".csv", b.String()))
		require.Equal(t, 0, res.code, res.stderr)
	}

	get := apiOf(t, dbURL)
	api := func(path string, q url.Values) []byte {
		t.Helper()
		status, b := get("GET", path, q)
		require.Equal(t, 200, status, string(b))
		return b
	}

	compareAt := func(extra ...string) (fromCLI, fromAPI []compare.MetricResult) {
		t.Helper()
		res := runVerdict(t, dbURL, append([]string{"compare", "-e", "big", "--no-record", "--format", "json", "a", "b"}, extra...)...)
		require.Equal(t, 0, res.code, res.stderr)
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &fromCLI))
		q := url.Values{"experiment": {"big"}, "baseline": {"a"}, "candidate": {"b"}}
		for i := 0; i+1 < len(extra); i += 2 {
			q.Set(strings.TrimPrefix(extra[i], "--"), extra[i+1])
		}
		require.NoError(t, json.Unmarshal(api("/api/v1/compare", q), &fromAPI))
		require.Len(t, fromCLI, 1)
		return fromCLI, fromAPI
	}

	cli, viaAPI := compareAt()
	require.Equal(t, cli, viaAPI, "the same comparison at both doors")
	r := cli[0]
	require.Equal(t, "paired-t", r.Method)
	require.Equal(t, &compare.AutoChoice{Method: compare.PairedT, Units: int64(n), MinUnits: compare.AutoTMinUnits}, r.Auto)
	require.Contains(t, r.Verdict, "The paired t was chosen for 10,000 units of one row each")
	require.InDelta(t, 0.0125, r.Difference.Estimate, 1e-9)
	text := runVerdict(t, dbURL, "compare", "-e", "big", "--no-record", "a", "b")
	require.Equal(t, 0, text.code, text.stderr)
	require.Contains(t, text.stdout, "The paired t was chosen for 10,000 units")

	for _, asked := range [][]string{{"--resamples", "2000"}, {"--resampling", "multinomial"}, {"--method", "bootstrap"}} {
		cli, viaAPI = compareAt(asked...)
		require.Equal(t, cli, viaAPI, "%v at both doors", asked)
		require.Equal(t, "bootstrap+randomization", cli[0].Method, "%v", asked)
		require.Nil(t, cli[0].Auto, "%v", asked)
		require.NotContains(t, cli[0].Verdict, "was chosen for", "%v", asked)
		require.Equal(t, r.Difference.Estimate, cli[0].Difference.Estimate, "the same mean difference")
	}

	// A leaderboard of the two runs: the t too, its difference and p-value
	// the comparison's, at both doors; a number of resamples bootstraps.
	board := func(extra ...string) (fromCLI, fromAPI map[string]any) {
		t.Helper()
		res := runVerdict(t, dbURL, append([]string{"leaderboard", "-e", "big", "-m", "m", "--format", "json"}, extra...)...)
		require.Equal(t, 0, res.code, res.stderr)
		require.NoError(t, json.Unmarshal([]byte(res.stdout), &fromCLI))
		q := url.Values{"experiment": {"big"}, "metric": {"m"}}
		for i := 0; i+1 < len(extra); i += 2 {
			q.Set(strings.TrimPrefix(extra[i], "--"), extra[i+1])
		}
		require.NoError(t, json.Unmarshal(api("/api/v1/leaderboard", q), &fromAPI))
		require.Equal(t, fromCLI, fromAPI, "%v at both doors", extra)
		return fromCLI, fromAPI
	}
	lb, _ := board()
	require.Equal(t, "paired-t", lb["method"])
	require.Equal(t, map[string]any{"method": "t", "units": float64(n), "min_units": float64(n)}, lb["auto"])
	rows := lb["rows"].([]any)
	require.Len(t, rows, 2)
	second := rows[1].(map[string]any)
	require.Equal(t, "b", second["run"])
	require.Equal(t, r.PValue, second["p_value"], "the comparison's p-value")
	require.Equal(t, r.Difference.Estimate, second["difference_to_reference"].(map[string]any)["estimate"], "the comparison's difference, a − b")
	text = runVerdict(t, dbURL, "leaderboard", "-e", "big", "-m", "m")
	require.Equal(t, 0, text.code, text.stderr)
	require.Contains(t, text.stdout, "intervals and p-values by the t, from exact sums: chosen because every run shown has at least 10,000 units of one row each")
	lb, _ = board("--resamples", "2000")
	require.Equal(t, "bootstrap+randomization", lb["method"])
	require.Nil(t, lb["auto"])
}

// apiOf serves the API of the database at dbURL on a loopback port for
// the test, and returns a call of it as an admin: the method, the path
// and the query give the status and the body.
func apiOf(t *testing.T, dbURL string) func(method, path string, q url.Values) (int, []byte) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, dbURL, store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	srv, err := server.New(st, server.Config{SpoolDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { _ = srv.Close() })
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	_, token, err := st.CreateToken(ctx, "test", store.TokenAdmin, "")
	require.NoError(t, err)
	return func(method, path string, q url.Values) (int, []byte) {
		req, err := http.NewRequest(method, ts.URL+path+"?"+q.Encode(), nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, b
	}
}
