package report_test

import (
	"bytes"
	"html/template"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"

	"github.com/verdict-ml/verdict/report"
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
