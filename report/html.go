package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"strings"
)

// Page is a self-contained HTML document: its style sheet is inline and its
// figures are inline SVG, so the file opens in a browser with no server and
// no network.
type Page struct {
	Title    string
	Subtitle string
	// Links lead to other pages, ahead of the sections' anchors in the
	// navigation bar: a server's pages link to one another. A report
	// written to a file has none, so that it links nowhere but within
	// itself.
	Links []Link
	// Banner is markup shown at the top right of the page, such as a
	// server's account and sign-out form. It is not escaped: build it with
	// html/template, which escapes what it shows.
	Banner   template.HTML
	Sections []Section
}

// Link is a link to another page.
type Link struct {
	Text, Href string
}

// Section is a part of a page with its own heading and anchor. Sections
// nest one level: a section's Parts come first, then its Subsections.
type Section struct {
	ID          string // the anchor; unique within the page
	Heading     string
	Parts       []Part
	Subsections []Section
}

// Part is one block of a section: a paragraph, a table, a figure or a
// block of markup (a form), each with an optional caption. Exactly one of
// Text, Table, Figure and HTML is set.
type Part struct {
	Text   string
	Table  *Table
	Figure *Figure
	// HTML is not escaped: build it with html/template, which escapes
	// what it shows.
	HTML    template.HTML
	Caption string
}

//go:embed html.tmpl
var pageTemplate string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"cell": cellClass,
}).Parse(pageTemplate))

// WriteHTML renders the page to w.
func (p *Page) WriteHTML(w io.Writer) error {
	type part struct {
		Part
		SVG template.HTML
	}
	type section struct {
		ID, Heading string
		Parts       []part
		Subsections []section
	}
	var convert func(s Section) (section, error)
	convert = func(s Section) (section, error) {
		out := section{ID: s.ID, Heading: s.Heading}
		for _, pt := range s.Parts {
			q := part{Part: pt}
			if pt.Figure != nil {
				svg, err := inlineSVG(pt.Figure)
				if err != nil {
					return out, fmt.Errorf("%s: %w", s.Heading, err)
				}
				q.SVG = svg
			}
			out.Parts = append(out.Parts, q)
		}
		for _, sub := range s.Subsections {
			c, err := convert(sub)
			if err != nil {
				return out, err
			}
			out.Subsections = append(out.Subsections, c)
		}
		return out, nil
	}
	data := struct {
		Title, Subtitle string
		Links           []Link
		Banner          template.HTML
		Sections        []section
		Linked          bool // the page has links or forms, which need their own style
	}{Title: p.Title, Subtitle: p.Subtitle, Links: p.Links, Banner: p.Banner, Linked: p.linked()}
	for _, s := range p.Sections {
		c, err := convert(s)
		if err != nil {
			return err
		}
		data.Sections = append(data.Sections, c)
	}
	var b bytes.Buffer
	if err := page.Execute(&b, data); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// linked tells whether the page links to other pages or holds markup of
// its own. Only then does it carry the style of links and forms, so that a
// report without them is written as it always was.
func (p *Page) linked() bool {
	if len(p.Links) > 0 || p.Banner != "" {
		return true
	}
	var walk func(ss []Section) bool
	walk = func(ss []Section) bool {
		for _, s := range ss {
			for _, pt := range s.Parts {
				if pt.HTML != "" || (pt.Table != nil && len(pt.Table.hrefs) > 0) {
					return true
				}
			}
			if walk(s.Subsections) {
				return true
			}
		}
		return false
	}
	return walk(p.Sections)
}

// svgProlog matches what precedes the <svg> element in a standalone SVG
// file: the XML declaration and comments.
var svgProlog = regexp.MustCompile(`(?s)^.*?(<svg\b)`)

// inlineSVG renders a figure as an <svg> element for an HTML page. The
// element comes from the plotting library, whose text it has escaped.
func inlineSVG(f *Figure) (template.HTML, error) {
	var b bytes.Buffer
	if err := f.Write(&b, "svg"); err != nil {
		return "", err
	}
	svg := svgProlog.ReplaceAllString(b.String(), "$1")
	return template.HTML(strings.TrimSpace(svg)), nil
}

// cellClass is the CSS classes of a table cell.
func cellClass(t *Table, row, col int) string {
	var cls []string
	if t.Right[col] {
		cls = append(cls, "num")
	}
	if t.Wrap[col] {
		cls = append(cls, "verdict")
	}
	switch t.styles[[2]int{row, col}] {
	case Strong:
		cls = append(cls, "strong")
	case Good:
		cls = append(cls, "good")
	case Bad:
		cls = append(cls, "bad")
	case Dim:
		cls = append(cls, "dim")
	}
	return strings.Join(cls, " ")
}
