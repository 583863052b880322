package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"image/png"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/verdict-ml/verdict/store/storetest"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestGolden from the current output")

// goldenRuns are the runs of the golden dataset: name, quality shift, params
// and tags.
var goldenRuns = []struct {
	name  string
	shift float64
	lr    string
	tag   string
}{
	{"baseline", 0, "0.01", "nightly"},
	{"item-knn", 0.03, "0.003", "sweep"},
	{"mf-64", 0.012, "0.001", "sweep"},
	{"popularity", -0.04, "0.1", "nightly"},
}

// logGoldenDataset logs the golden dataset: 300 users, each run's ndcg@10
// and recall@20 drawn from a PCG generator with fixed seeds around a
// per-user difficulty, rounded to four decimals.
func logGoldenDataset(t *testing.T, url string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(2026, 11))
	base := make([]float64, 300)
	for u := range base {
		base[u] = rng.Float64()
	}
	for _, r := range goldenRuns {
		var b strings.Builder
		b.WriteString("sample_id,ndcg@10,recall@20\n")
		for u, d := range base {
			ndcg := min(max(0.4*d+0.1+r.shift+0.08*rng.NormFloat64(), 0), 1)
			recall := min(max(0.5*d+0.15+1.5*r.shift+0.1*rng.NormFloat64(), 0), 1)
			fmt.Fprintf(&b, "user-%03d,%.4f,%.4f\n", u, ndcg, recall)
		}
		path := filepath.Join(t.TempDir(), r.name+".csv")
		require.NoError(t, writeFileErr(path, b.String()))
		res := runVerdict(t, url, "log", "-e", "golden", "-r", r.name, "-s", "test",
			"--param", "lr="+r.lr, "--param", "model="+r.name, "--tag", r.tag, "--git-commit", "0123456789abcdef", path)
		require.Equal(t, 0, res.code, res.stderr)
	}
}

// timestamp matches a time as tables ("2026-11-30 09:02") and JSON print it.
var timestamp = regexp.MustCompile(`\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?`)

// fraction is the fractional seconds of a timestamp, whose length varies.
var fraction = regexp.MustCompile(`\.\d+`)

// normalise replaces what differs between two runs of the same commands:
// timestamps, digit by digit so that tables stay aligned, without
// fractional seconds. (Test binaries
// carry no VCS stamp, so the software version is always "devel".)
func normalise(s string) string {
	s = timestamp.ReplaceAllStringFunc(s, func(t string) string {
		t = fraction.ReplaceAllString(t, "")
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return '0'
			}
			return r
		}, t)
	})
	return s
}

// TestGolden pins the output of every report command in every format on the
// golden dataset. The numbers come from verdict's statistics (checked
// against scipy and R in package stats); these files pin how they are
// rendered. Regenerate with: go test ./cmd/verdict -run TestGolden -update
func TestGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	url := storetest.NewDatabase(t)
	logGoldenDataset(t, url)
	formats := []string{"table", "markdown", "json", "csv"}
	ext := map[string]string{"table": "txt", "markdown": "md", "json": "json", "csv": "csv"}
	// The first compare records comparisons 1 and 2 (one per metric) and
	// the rank records 3 to 5; later calls record nothing, so history is
	// the same in every format.
	res := runVerdict(t, url, "compare", "-e", "golden", "baseline", "item-knn")
	require.Equal(t, 0, res.code, res.stderr)
	res = runVerdict(t, url, "rank", "-e", "golden", "--metric", "ndcg@10", "baseline", "item-knn", "mf-64", "popularity")
	require.Equal(t, 0, res.code, res.stderr)

	commands := []struct {
		name string
		args []string
	}{
		{"runs", []string{"runs", "-e", "golden", "--filter", "params.lr <= 0.01 AND NOT tags.sweep = 'true' OR metrics.ndcg@10 > 0.32", "--order-by", "metrics.ndcg@10 desc"}},
		{"leaderboard", []string{"leaderboard", "-e", "golden", "--metric", "ndcg@10"}},
		{"leaderboard-baseline", []string{"leaderboard", "-e", "golden", "--metric", "recall@20", "--baseline", "popularity", "--limit", "3"}},
		{"compare", []string{"compare", "-e", "golden", "--no-record", "baseline", "item-knn"}},
		{"compare-t", []string{"compare", "-e", "golden", "--no-record", "--method", "t", "--metric", "ndcg@10", "mf-64", "baseline"}},
		{"rank", []string{"rank", "-e", "golden", "--no-record", "--metric", "recall@20", "baseline", "item-knn", "mf-64", "popularity"}},
		{"diff", []string{"diff", "-e", "golden", "--metric", "ndcg@10", "--worst", "5", "baseline", "item-knn"}},
		{"diff-best", []string{"diff", "-e", "golden", "--metric", "recall@20", "--best", "3", "popularity", "mf-64"}},
		{"history", []string{"history", "-e", "golden"}},
		{"show-comparison", []string{"show", "comparison", "1"}},
	}
	for _, c := range commands {
		for _, f := range formats {
			name := c.name + "." + ext[f]
			t.Run(name, func(t *testing.T) {
				args := append(append([]string{}, c.args[:len(c.args)-countArgs(c.args)]...), "--format", f)
				args = append(args, c.args[len(c.args)-countArgs(c.args):]...)
				res := runVerdict(t, url, args...)
				require.Equal(t, 0, res.code, res.stderr)
				got := normalise(res.stdout)
				path := filepath.Join("testdata", "golden", name)
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
					return
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "no golden file: run go test ./cmd/verdict -run TestGolden -update")
				require.Equal(t, string(want), got, "verdict %s", strings.Join(args, " "))
			})
		}
	}
}

// countArgs is how many positional arguments end a golden command: flags go
// before them.
func countArgs(args []string) int {
	switch args[0] {
	case "compare", "diff":
		return 2
	case "rank":
		return 4
	case "show":
		return 1
	case "runs":
		return 0
	}
	return 0
}

// TestReportHTML writes the golden experiment's HTML report and checks that
// the file parses and has every section: a leaderboard per metric with its
// table and three inline SVG plots naming the runs, the comparison history
// with verdicts, and the runs.
func TestReportHTML(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	logGoldenDataset(t, url)
	res := runVerdict(t, url, "compare", "-e", "golden", "baseline", "item-knn")
	require.Equal(t, 0, res.code, res.stderr)
	out := filepath.Join(t.TempDir(), "report.html")
	res = runVerdict(t, url, "report", "-e", "golden", "--out", out)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, "wrote "+out+" (2 leaderboards, 2 comparisons, 4 runs)")
	doc, err := os.ReadFile(out)
	require.NoError(t, err)

	root, err := html.Parse(bytes.NewReader(doc))
	require.NoError(t, err)
	sections := map[string]*html.Node{}
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && n.Data == "section" {
			for _, a := range n.Attr {
				if a.Key == "id" {
					sections[a.Val] = n
				}
			}
		}
	}
	require.ElementsMatch(t, []string{"leaderboards", "leaderboard-1", "leaderboard-2", "history", "runs"}, slices.Collect(maps.Keys(sections)))
	for _, id := range []string{"leaderboard-1", "leaderboard-2"} {
		s := sections[id]
		require.Equal(t, 1, countTags(s, "table"), id)
		require.Equal(t, 3, countTags(s, "svg"), "%s: a forest plot, a critical-difference diagram and the values over time", id)
		var svgText strings.Builder
		for d := range s.Descendants() {
			if d.Type == html.ElementNode && d.Data == "svg" {
				svgText.WriteString(textOf(d))
			}
		}
		for _, r := range goldenRuns {
			require.Contains(t, svgText.String(), r.name, "%s: the plots name every run", id)
		}
	}
	require.Contains(t, textOf(sections["leaderboard-1"]), "ndcg@10 on test")
	require.Contains(t, textOf(sections["leaderboard-2"]), "recall@20 on test")
	require.Contains(t, textOf(sections["history"]), "item-knn beats baseline on ndcg@10 by 0.0329")
	require.Equal(t, 4+1, countTags(sections["runs"], "tr"), "a header and one row per run")
	for _, ref := range []string{"<script", "<link", "src=", "@import", "url("} {
		require.NotContains(t, string(doc), ref, "the report loads nothing")
	}

	res = runVerdict(t, url, "report", "-e", "golden", "--out", filepath.Join(t.TempDir(), "report.pdf"))
	require.Equal(t, exitError, res.code)
	require.Contains(t, res.stderr, "name the file .html")
}

func countTags(n *html.Node, tag string) int {
	c := 0
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && d.Data == tag {
			c++
		}
	}
	return c
}

func textOf(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
			b.WriteString(" ")
		}
	}
	return b.String()
}

// TestPlotFlags draws every command's --plot on the golden dataset, as SVG
// and as PNG: the SVG parses and names the runs (or the metrics, for
// compare), the PNG decodes.
func TestPlotFlags(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	logGoldenDataset(t, url)
	res := runVerdict(t, url, "compare", "-e", "golden", "baseline", "item-knn")
	require.Equal(t, 0, res.code, res.stderr)
	runs := []string{"baseline", "item-knn", "mf-64", "popularity"}
	for _, c := range []struct {
		name  string
		args  []string // flags; --plot goes before the positional arguments
		pos   []string
		names []string
	}{
		{"compare", []string{"compare", "-e", "golden", "--no-record"}, []string{"baseline", "item-knn"}, []string{"ndcg@10", "recall@20"}},
		{"rank", []string{"rank", "-e", "golden", "--no-record", "--metric", "ndcg@10"}, runs, runs},
		{"diff", []string{"diff", "-e", "golden", "--metric", "ndcg@10"}, []string{"baseline", "item-knn"}, []string{"baseline minus item-knn"}},
		{"leaderboard", []string{"leaderboard", "-e", "golden", "--metric", "ndcg@10"}, nil, []string{"baseline", "mf-64", "popularity"}},
		{"history", []string{"history", "-e", "golden", "--metric", "ndcg@10"}, nil, []string{"baseline", "item-knn"}},
	} {
		for _, ext := range []string{"svg", "png"} {
			path := filepath.Join(t.TempDir(), c.name+"."+ext)
			args := append(append(slices.Clone(c.args), "--plot", path), c.pos...)
			res := runVerdict(t, url, args...)
			require.Equal(t, 0, res.code, "%s: %s", c.name, res.stderr)
			require.Contains(t, res.stderr, "plot written to "+path)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			if ext == "png" {
				img, err := png.Decode(bytes.NewReader(b))
				require.NoError(t, err, c.name)
				require.Greater(t, img.Bounds().Dx(), 600, c.name)
				continue
			}
			var text strings.Builder
			dec := xml.NewDecoder(bytes.NewReader(b))
			for {
				tok, err := dec.Token()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err, c.name)
				if cd, ok := tok.(xml.CharData); ok {
					text.Write(cd)
				}
			}
			for _, n := range c.names {
				require.Contains(t, text.String(), n, c.name)
			}
		}
	}
}
