package report_test

import (
	"bytes"
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
