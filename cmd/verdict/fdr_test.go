package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store/storetest"
)

func TestStatsOnlineFDR(t *testing.T) {
	t.Parallel()
	// The first three p-values of onlineFDR's sample.df (its LOND and LORD
	// examples): 2.90e-08, 0.06743, 0.01514. LOND's first level is
	// alpha·γ_1 = 0.05 · 0.07720838 · log 2 / e^0 = 0.0026758; lond-dep
	// divides it by H(1) = 1.
	in := writeFile(t, "p.txt", "2.90e-08\n0.06743\n0.01514\n")
	res := runVerdict(t, "", "stats", "online-fdr", "--method", "lond", "--input", in, "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var tests []struct {
		P        float64 `json:"p"`
		Level    float64 `json:"level"`
		Rejected bool    `json:"rejected"`
		Wealth   float64 `json:"wealth"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &tests))
	require.Len(t, tests, 3)
	require.InDelta(t, 0.05*0.07720838*0.6931471805599453, tests[0].Level, 1e-12)
	require.True(t, tests[0].Rejected)
	require.False(t, tests[1].Rejected)

	res = runVerdict(t, "", "stats", "online-fdr", "--input", in)
	require.Equal(t, 0, res.code, res.stderr)
	require.Regexp(t, `(?m)^ +P +LEVEL +REJECTED +WEALTH BEFORE +WEALTH$`, res.stdout)
	res = runVerdict(t, "", "stats", "online-fdr", "--method", "bh", "--input", in)
	require.Equal(t, 2, res.code)
}

func TestCompareFDRAndHistory(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	var a, b, c strings.Builder
	for _, w := range []*strings.Builder{&a, &b, &c} {
		w.WriteString("sample_id,ndcg\n")
	}
	for u := range 300 {
		x := float64(u%17) / 17
		fmt.Fprintf(&a, "u%d,%v\n", u, x)
		fmt.Fprintf(&b, "u%d,%v\n", u, x+0.05+float64(u%5)/100)
		fmt.Fprintf(&c, "u%d,%v\n", u, x+float64(u%3-1)/50)
	}
	for run, content := range map[string]string{"main": a.String(), "better": b.String(), "same": c.String()} {
		res := runVerdict(t, url, "log", "-e", "nightly", "-r", run, "-s", "test", writeFile(t, run+".csv", content))
		require.Equal(t, 0, res.code, res.stderr)
	}
	res := runVerdict(t, url, "compare", "-e", "nightly", "--fdr", "lond-dep", "--method", "t", "main", "better")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "better beats main on ndcg by")
	require.Contains(t, res.stdout, "p is below its online FDR level 0.002676 (lond-dep, test 1 of the experiment's history at FDR 0.05)")
	res = runVerdict(t, url, "compare", "-e", "nightly", "--fdr", "lond-dep", "--method", "t", "main", "same")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "test 2 of the experiment's history")

	// The experiment keeps its procedure; unrecorded tests spend nothing.
	res = runVerdict(t, url, "compare", "-e", "nightly", "--fdr", "lord++", "main", "same")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "history is tested under lond-dep at FDR 0.05")
	res = runVerdict(t, url, "compare", "-e", "nightly", "--fdr", "lond-dep", "--no-record", "main", "same")
	require.Equal(t, 2, res.code)
	res = runVerdict(t, url, "compare", "-e", "nightly", "--fdr-alpha", "0.1", "main", "same")
	require.Equal(t, 2, res.code)

	res = runVerdict(t, url, "history", "-e", "nightly", "--fdr")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "experiment nightly: lond-dep at FDR 0.05; 2 tests, 1 rejected")
	require.Regexp(t, `(?m)^ +\d+ .* ndcg +main +better .* 1 +0\.002676 +true `, res.stdout)
	require.Contains(t, res.stdout, "at or below 0.05")
	res = runVerdict(t, url, "history", "-e", "nightly", "--fdr", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var out struct {
		Ledger struct {
			Tests      int `json:"tests"`
			Rejections int `json:"rejections"`
		} `json:"ledger"`
		Comparisons []struct {
			FDRTest     int  `json:"fdr_test"`
			FDRRejected bool `json:"fdr_rejected"`
		} `json:"comparisons"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.Equal(t, 2, out.Ledger.Tests)
	require.Equal(t, 1, out.Ledger.Rejections)
	require.Equal(t, 2, out.Comparisons[0].FDRTest, "newest first")
	res = runVerdict(t, url, "history", "--fdr")
	require.Equal(t, 2, res.code)
}
