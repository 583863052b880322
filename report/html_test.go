package report_test

import (
	"bytes"
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

// htmlIndex is what a test needs from a parsed page: elements by id, the
// tags seen, and the text.
type htmlIndex struct {
	ids  map[string]*html.Node
	tags map[string]int
	text strings.Builder
}

func indexHTML(t *testing.T, doc []byte) *htmlIndex {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(doc))
	require.NoError(t, err)
	ix := &htmlIndex{ids: map[string]*html.Node{}, tags: map[string]int{}}
	for n := range root.Descendants() {
		switch n.Type {
		case html.ElementNode:
			ix.tags[n.Data]++
			for _, a := range n.Attr {
				if a.Key == "id" {
					ix.ids[a.Val] = n
				}
			}
		case html.TextNode:
			ix.text.WriteString(n.Data)
			ix.text.WriteString(" ")
		}
	}
	return ix
}

func TestPageIsSelfContained(t *testing.T) {
	t.Parallel()
	tbl := &report.Table{Header: []string{"RUN", "MEAN"}, Right: map[int]bool{1: true}}
	tbl.Add("<script>alert(1)</script>", "0.412")
	tbl.Mark(1, report.Good)
	fig, err := report.Forest("knn minus pop", "difference", []report.ForestRow{
		{Label: "ndcg@10", Estimate: 0.01, Low: 0.002, High: 0.018, Distinguishable: true},
		{Label: "<script>alert(2)</script>", Estimate: 0.01, Low: 0.002, High: 0.018},
	})
	require.NoError(t, err)
	p := report.Page{Title: "verdict report: demo", Subtitle: "3 runs", Sections: []report.Section{
		{ID: "boards", Heading: "Leaderboards", Parts: []report.Part{{Text: "intro & more"}},
			Subsections: []report.Section{{ID: "b-1", Heading: "ndcg@10 on test", Parts: []report.Part{{Table: tbl, Caption: "note"}, {Figure: fig}}}}},
		{ID: "history", Heading: "Comparison history", Parts: []report.Part{{Text: "none yet"}}},
	}}
	var b bytes.Buffer
	require.NoError(t, p.WriteHTML(&b))
	doc := b.Bytes()
	ix := indexHTML(t, doc)
	for _, id := range []string{"boards", "b-1", "history"} {
		require.Contains(t, ix.ids, id)
	}
	require.Equal(t, 1, ix.tags["svg"])
	require.Equal(t, 1, ix.tags["table"])
	require.Zero(t, ix.tags["script"], "cell and figure text is escaped, never markup")
	require.Contains(t, ix.text.String(), "<script>alert(2)</script>", "a run named like markup is drawn as text")
	require.Contains(t, ix.text.String(), "<script>alert(1)</script>")
	require.Contains(t, ix.text.String(), "knn minus pop", "the figure's text is inline SVG text")
	require.Contains(t, string(doc), `<td class="num good">0.412</td>`)
	require.NotContains(t, string(doc), "<?xml", "the SVG prolog is dropped when inlined")
	// No external resource: nothing is fetched from anywhere.
	for _, ref := range []string{"http://", "https://", "src=", "<link"} {
		for _, line := range strings.Split(string(doc), "\n") {
			if strings.Contains(line, ref) {
				require.Contains(t, line, "xmlns", "only SVG namespace names may be URLs: %s", line)
			}
		}
	}
}

// TestTableLinksInHTMLOnly: a linked cell is an anchor in HTML, escaped
// there, and plain text in every other format.
func TestTableLinksInHTMLOnly(t *testing.T) {
	t.Parallel()
	tbl := &report.Table{Header: []string{"ID", "RUN"}}
	tbl.Add("7", "<b>knn</b>")
	tbl.Link(0, "/comparisons/7")
	tbl.Link(1, `javascript:alert("x")`)
	tbl.Add("8", "pop")
	require.Equal(t, "/comparisons/7", tbl.Href(0, 0))
	require.Empty(t, tbl.Href(1, 0))

	for _, format := range []string{"table", "markdown", "csv"} {
		var b bytes.Buffer
		require.NoError(t, tbl.Write(&b, format))
		require.NotContains(t, b.String(), "comparisons", format)
		require.NotContains(t, b.String(), "javascript", format)
	}

	p := report.Page{Title: "t", Sections: []report.Section{{ID: "s", Heading: "S", Parts: []report.Part{{Table: tbl}}}}}
	var b bytes.Buffer
	require.NoError(t, p.WriteHTML(&b))
	doc := b.String()
	require.Contains(t, doc, `<a href="/comparisons/7">7</a>`)
	require.Contains(t, doc, `<td class="">8</td>`, "a cell without a link is as it was")
	require.NotContains(t, doc, "javascript:", "an unsafe URL never reaches the page")
	require.Contains(t, doc, "&lt;b&gt;knn&lt;/b&gt;")
	ix := indexHTML(t, b.Bytes())
	require.Zero(t, ix.tags["b"])
	require.Equal(t, 2, ix.tags["style"], "a page with links carries their style")
}

// TestPageWithoutLinksIsUnchanged: a page with no links, banner or markup
// of its own is written as it was before pages could have them: one style
// sheet, and the navigation bar of its sections.
func TestPageWithoutLinksIsUnchanged(t *testing.T) {
	t.Parallel()
	tbl := &report.Table{Header: []string{"RUN"}}
	tbl.Add("knn")
	p := report.Page{Title: "t", Sections: []report.Section{
		{ID: "a", Heading: "A", Parts: []report.Part{{Table: tbl}}},
		{ID: "b", Heading: "B", Parts: []report.Part{{Text: "x"}}},
	}}
	var b bytes.Buffer
	require.NoError(t, p.WriteHTML(&b))
	ix := indexHTML(t, b.Bytes())
	require.Equal(t, 1, ix.tags["style"])
	require.Equal(t, 2, ix.tags["a"], "the anchors of the sections, nothing else")
	require.Contains(t, b.String(), `<nav><a href="#a">A</a><a href="#b">B</a></nav>`)
	require.Contains(t, b.String(), `<td class="">knn</td>`)
	require.NotContains(t, b.String(), "banner")
}

// TestPageBannerAndLinks: a served page's banner is its markup as given,
// its links lead ahead of the sections' anchors, and a page of one section
// has no anchor to itself.
func TestPageBannerAndLinks(t *testing.T) {
	t.Parallel()
	p := report.Page{Title: "<i>t</i>", Banner: template.HTML(`<form class="x"></form>`),
		Links:    []report.Link{{Text: "All <experiments>", Href: "/"}},
		Sections: []report.Section{{ID: "only", Heading: "Only", Parts: []report.Part{{HTML: template.HTML(`<p class="mine">hi</p>`)}}}}}
	var b bytes.Buffer
	require.NoError(t, p.WriteHTML(&b))
	doc := b.String()
	require.Contains(t, doc, `<div class="banner"><form class="x"></form></div>`)
	require.Contains(t, doc, `<nav><a class="page" href="/">All &lt;experiments&gt;</a></nav>`)
	require.Contains(t, doc, `<p class="mine">hi</p>`)
	require.NotContains(t, doc, `href="#only"`)
	require.Contains(t, doc, "<h1>&lt;i&gt;t&lt;/i&gt;</h1>")
}

func historyEntry(id int64, exp, base, cand string) store.HistoryEntry {
	mean, diff, low, high, p := 0.4, -0.02, -0.03, -0.01, 0.001
	return store.HistoryEntry{ID: id, CreatedAt: time.Date(2026, 11, 30, 9, 2, 0, 0, time.UTC), Experiment: exp, EvalSet: "test", Metric: "ndcg@10",
		BaselineID: 10 * id, BaselineRun: base, CandidateID: 10*id + 1, CandidateRun: cand, Method: "bootstrap+randomization", N: 300,
		BaselineMean: &mean, CandidateMean: &mean, Difference: &diff, Low: &low, High: &high, PValue: &p, Winner: "candidate",
		Verdict: cand + " beats " + base + " on ndcg@10", Seed: 1, Resamples: 2000, SoftwareVersion: "test"}
}

// TestExperimentPageLinks: with Hrefs, the history links each comparison
// to its page and each run to its evaluation; without, the page links
// only to its own sections.
func TestExperimentPageLinks(t *testing.T) {
	t.Parallel()
	x := &compare.Experiment{Name: "demo", History: []store.HistoryEntry{historyEntry(3, "demo", "pop", "knn"), historyEntry(4, "demo", "pop", "<script>x</script>")},
		TotalRuns: 2, Evaluations: 2, EvalSets: []string{"test"}, Options: compare.Options{Confidence: 0.95, Resamples: 2000, Alpha: 0.05}}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	hrefs := report.Hrefs{
		Comparison: func(id int64) string { return fmt.Sprintf("/comparisons/%d", id) },
		Evaluation: func(id int64) string { return fmt.Sprintf("/evaluations/%d", id) },
	}
	links := func(p *report.Page) []string {
		var b bytes.Buffer
		require.NoError(t, p.WriteHTML(&b))
		root, err := html.Parse(&b)
		require.NoError(t, err)
		var out []string
		for n := range root.Descendants() {
			if n.Type == html.ElementNode && n.Data == "a" {
				for _, a := range n.Attr {
					if a.Key == "href" {
						out = append(out, a.Val)
					}
				}
			}
			require.False(t, n.Type == html.ElementNode && n.Data == "script", "a run's name is text")
		}
		return out
	}

	plain, err := report.ExperimentPage(x, now, "test")
	require.NoError(t, err)
	require.Equal(t, []string{"#leaderboards", "#history", "#runs"}, links(plain))

	linked, err := report.ExperimentPage(x, now, "test", hrefs)
	require.NoError(t, err)
	require.Equal(t, []string{"#leaderboards", "#history", "#runs",
		"/comparisons/3", "/evaluations/30", "/evaluations/31",
		"/comparisons/4", "/evaluations/40", "/evaluations/41"}, links(linked))
}

// TestExperimentsAndComparisonPages: the list of experiments links each to
// its report by Hrefs; a comparison's page has its verdict, both sides,
// the difference, and a link to its experiment.
func TestExperimentsAndComparisonPages(t *testing.T) {
	t.Parallel()
	hrefs := report.Hrefs{Experiment: func(name string) string { return "/experiments/" + url.PathEscape(name) }}
	last := time.Date(2026, 11, 30, 9, 2, 0, 0, time.UTC)
	p := report.ExperimentsPage([]store.Experiment{{Name: "a b", Runs: 3, Evaluations: 1200, LastLogged: &last}, {Name: "<x>"}}, hrefs)
	var b bytes.Buffer
	require.NoError(t, p.WriteHTML(&b))
	require.Contains(t, b.String(), `<a href="/experiments/a%20b">a b</a>`)
	require.Contains(t, b.String(), `<a href="/experiments/%3Cx%3E">&lt;x&gt;</a>`)
	require.Contains(t, b.String(), "1,200")
	b.Reset()
	require.NoError(t, report.ExperimentsPage(nil, hrefs).WriteHTML(&b))
	require.Contains(t, b.String(), "No experiments yet")

	h := historyEntry(5, "<e>", "pop", "knn")
	cp, err := report.ComparisonPage(&h, hrefs)
	require.NoError(t, err)
	b.Reset()
	require.NoError(t, cp.WriteHTML(&b))
	ix := indexHTML(t, b.Bytes())
	text := ix.text.String()
	require.Contains(t, b.String(), `<p class="verdict">knn beats pop on ndcg@10</p>`)
	for _, want := range []string{"comparison 5", "baseline", "candidate", "pop", "knn", "0.4000", "-0.0200 [-0.0300, -0.0100]",
		"0.001", "bootstrap+randomization", "300", "candidate (knn)", "<e>"} {
		require.Contains(t, text, want)
	}
	require.Contains(t, b.String(), `<a href="/experiments/%3Ce%3E">&lt;e&gt;</a>`)
}
