package report

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// svgTol is how far apart, in points, two positions read from an SVG may
// be and still count as the same: vgsvg writes coordinates to five
// significant digits, hundredths of a point on a page 576 points wide, and
// a twentieth of a point is far below what a reader can see.
const svgTol = 0.05

// svgDoc is what a figure written as SVG shows a reader: its texts and the
// paths it strokes or fills, in points from the bottom left corner of the
// page. vgsvg draws inside a group that flips the y axis, so y grows
// upwards as in the plot.
type svgDoc struct {
	texts []svgLabel
	paths []svgPath
}

// svgLabel is one text element.
type svgLabel struct {
	text    string
	x, y    float64 // the start of the baseline
	size    float64 // font size in points
	rotated bool    // drawn in a rotated group, such as a y axis label
}

// svgPath is one path element: the points of its moves and lines, or the
// centre and radius of a circle drawn as two arcs (a glyph).
type svgPath struct {
	pts    []svgPoint
	circle bool
	r      float64
	style  string
}

type svgPoint struct{ x, y float64 }

// svgStyleOf returns the value of property in an SVG style attribute, or
// "" when it is not set.
func svgStyleOf(style, property string) string {
	for decl := range strings.SplitSeq(style, ";") {
		if k, v, ok := strings.Cut(decl, ":"); ok && k == property {
			return v
		}
	}
	return ""
}

// stroke is the path's stroke colour, "" for none.
func (p svgPath) stroke() string {
	if s := svgStyleOf(p.style, "stroke"); s != "none" {
		return s
	}
	return ""
}

// width is the path's stroke width; SVG's default is 1.
func (p svgPath) width() float64 {
	w, err := strconv.ParseFloat(svgStyleOf(p.style, "stroke-width"), 64)
	if err != nil {
		return 1
	}
	return w
}

// fill is the path's fill colour, "" for none.
func (p svgPath) fill() string {
	if f := svgStyleOf(p.style, "fill"); f != "none" {
		return f
	}
	return ""
}

func (p svgPath) dashed() bool { return svgStyleOf(p.style, "stroke-dasharray") != "" }

// segment reports whether the path is one straight line, vertical or
// horizontal as asked, and returns its ends in increasing order along it.
func (p svgPath) segment(vertical bool) (lo, hi svgPoint, ok bool) {
	if p.circle || len(p.pts) != 2 {
		return lo, hi, false
	}
	a, b := p.pts[0], p.pts[1]
	if vertical && a.x == b.x {
		if a.y > b.y {
			a, b = b, a
		}
		return a, b, true
	}
	if !vertical && a.y == b.y {
		if a.x > b.x {
			a, b = b, a
		}
		return a, b, true
	}
	return lo, hi, false
}

var (
	svgPathOp   = regexp.MustCompile(`[MLAZ][^MLAZ]*`)
	svgFontSize = regexp.MustCompile(`font-size:([0-9.]+)px`)
)

// readSVG parses an SVG document that Figure.Write wrote.
func readSVG(t *testing.T, doc []byte) svgDoc {
	t.Helper()
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		require.NoError(t, err, "number %q", s)
		return v
	}
	point := func(s string) svgPoint {
		x, y, ok := strings.Cut(strings.TrimSpace(s), ",")
		require.True(t, ok, "point %q", s)
		return svgPoint{num(x), num(y)}
	}
	var d svgDoc
	var groups []bool // for each open g, whether it rotates
	var text *svgLabel
	dec := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return d
		}
		require.NoError(t, err)
		switch tok := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range tok.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch tok.Name.Local {
			case "g":
				groups = append(groups, strings.HasPrefix(attr["transform"], "rotate("))
			case "text":
				require.Equal(t, "scale(1, -1)", attr["transform"], "text is drawn upright")
				m := svgFontSize.FindStringSubmatch(attr["style"])
				require.NotNil(t, m, "text style %q names a size", attr["style"])
				// Text unflips y to stay upright: its y is the negated page y.
				text = &svgLabel{x: num(attr["x"]), y: -num(attr["y"]), size: num(m[1]), rotated: slices.Contains(groups, true)}
			case "path":
				p := svgPath{style: attr["style"]}
				for _, op := range svgPathOp.FindAllString(attr["d"], -1) {
					switch op[0] {
					case 'M', 'L':
						p.pts = append(p.pts, point(op[1:]))
					case 'A':
						// A circle glyph: from (cx + r, cy), an arc to
						// (cx − r, cy) and one back.
						f := strings.Fields(op[1:])
						require.Len(t, f, 5, "arc %q", op)
						if !p.circle {
							rx, _, _ := strings.Cut(f[0], ",")
							p.circle, p.r = true, num(rx)
							p.pts = []svgPoint{{p.pts[0].x - p.r, p.pts[0].y}}
						}
					}
				}
				d.paths = append(d.paths, p)
			}
		case xml.CharData:
			if text != nil {
				text.text += string(tok)
			}
		case xml.EndElement:
			switch tok.Name.Local {
			case "g":
				groups = groups[:len(groups)-1]
			case "text":
				d.texts = append(d.texts, *text)
				text = nil
			}
		}
	}
}

// label returns the one text that reads s.
func (d svgDoc) label(t *testing.T, s string) svgLabel {
	t.Helper()
	var found []svgLabel
	for _, l := range d.texts {
		if l.text == s {
			found = append(found, l)
		}
	}
	require.Len(t, found, 1, "texts reading %q", s)
	return found[0]
}

// find returns the paths for which keep is true.
func (d svgDoc) find(keep func(svgPath) bool) []svgPath {
	var out []svgPath
	for _, p := range d.paths {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// svgAxis is an axis as a reader reads it: the values of its labelled
// ticks and their positions along the page.
type svgAxis struct {
	values, pos []float64
}

// at returns the position of v on the axis, from its first and last
// labelled ticks.
func (a svgAxis) at(v float64) float64 {
	n := len(a.values) - 1
	return a.pos[0] + (v-a.values[0])*(a.pos[n]-a.pos[0])/(a.values[n]-a.values[0])
}

// newSVGAxis pairs tick labels with tick marks, both in page order, and
// requires that the labels read wants, in that order, and that every tick
// lies where the first and last put its value: a linear axis.
func newSVGAxis(t *testing.T, labels []svgLabel, ticks []float64, pos func(svgLabel) float64, wants []string, parse func(string) float64) svgAxis {
	t.Helper()
	slices.SortFunc(labels, func(a, b svgLabel) int { return cmp.Compare(pos(a), pos(b)) })
	slices.Sort(ticks)
	var got []string
	for _, l := range labels {
		got = append(got, l.text)
	}
	require.Equal(t, wants, got, "tick labels")
	require.Len(t, ticks, len(labels), "a tick mark for each tick label")
	a := svgAxis{pos: ticks}
	for _, w := range wants {
		a.values = append(a.values, parse(w))
	}
	for i, v := range a.values {
		require.InDelta(t, a.at(v), a.pos[i], svgTol, "tick %q", wants[i])
	}
	return a
}

// svgAxisStroke is the style gonum gives axis lines and tick marks.
const svgAxisStroke = "fill:none;stroke:#000000;stroke-width:0.5"

// labelledTick is the length of a labelled tick mark, set by NewPlot;
// unlabelled ticks are half as long.
const labelledTick = 4

// xAxis reads the x axis of a gonum plot: the labels wants, read by parse,
// under the tick marks on the axis line.
func (d svgDoc) xAxis(t *testing.T, wants []string, parse func(string) float64) svgAxis {
	t.Helper()
	var line []svgPath
	for _, p := range d.find(func(p svgPath) bool { return p.style == svgAxisStroke }) {
		if lo, hi, ok := p.segment(false); ok && hi.x-lo.x > labelledTick {
			line = append(line, p)
		}
	}
	require.Len(t, line, 1, "one x axis line")
	y := line[0].pts[0].y
	var ticks []float64
	for _, p := range d.find(func(p svgPath) bool { return p.style == svgAxisStroke }) {
		if lo, hi, ok := p.segment(true); ok && math.Abs(hi.y-y) < svgTol && math.Abs(hi.y-lo.y-labelledTick) < svgTol {
			ticks = append(ticks, lo.x)
		}
	}
	var labels []svgLabel
	for _, l := range d.texts {
		if l.size == plotTickSize && !l.rotated && l.y < y && slices.Contains(wants, l.text) {
			labels = append(labels, l)
		}
	}
	return newSVGAxis(t, labels, ticks, func(l svgLabel) float64 { return l.x }, wants, parse)
}

// yAxis reads the y axis of a gonum plot: the labels wants, read by parse,
// left of the tick marks on the axis line.
func (d svgDoc) yAxis(t *testing.T, wants []string, parse func(string) float64) svgAxis {
	t.Helper()
	var line []svgPath
	for _, p := range d.find(func(p svgPath) bool { return p.style == svgAxisStroke }) {
		if lo, hi, ok := p.segment(true); ok && hi.y-lo.y > labelledTick {
			line = append(line, p)
		}
	}
	require.Len(t, line, 1, "one y axis line")
	x := line[0].pts[0].x
	var ticks []float64
	for _, p := range d.find(func(p svgPath) bool { return p.style == svgAxisStroke }) {
		if lo, hi, ok := p.segment(false); ok && math.Abs(hi.x-x) < svgTol && math.Abs(hi.x-lo.x-labelledTick) < svgTol {
			ticks = append(ticks, lo.y)
		}
	}
	var labels []svgLabel
	for _, l := range d.texts {
		if l.size == plotTickSize && !l.rotated && l.x < x && slices.Contains(wants, l.text) {
			labels = append(labels, l)
		}
	}
	return newSVGAxis(t, labels, ticks, func(l svgLabel) float64 { return l.y }, wants, parse)
}

// cdAxis reads the rank axis of a critical-difference diagram: the labels
// wants above the ticks of cdTickLen on the axis line, which is drawn 1
// point wide.
func (d svgDoc) cdAxis(t *testing.T, wants []string) (axis svgAxis, line svgPath) {
	t.Helper()
	const stroke = "fill:none;stroke:#000000"
	var lines []svgPath
	for _, p := range d.find(func(p svgPath) bool { return p.style == stroke }) {
		if lo, hi, ok := p.segment(false); ok && hi.x > lo.x {
			lines = append(lines, p)
		}
	}
	require.Len(t, lines, 1, "one rank axis")
	y := lines[0].pts[0].y
	var ticks []float64
	for _, p := range d.find(func(p svgPath) bool { return p.style == stroke }) {
		if lo, hi, ok := p.segment(true); ok && math.Abs(lo.y-y) < svgTol && math.Abs(hi.y-lo.y-float64(cdTickLen)) < svgTol {
			ticks = append(ticks, lo.x)
		}
	}
	var labels []svgLabel
	for _, l := range d.texts {
		if l.size == plotTickSize && l.y > y && slices.Contains(wants, l.text) {
			labels = append(labels, l)
		}
	}
	return newSVGAxis(t, labels, ticks, func(l svgLabel) float64 { return l.x }, wants, parseNumber(t)), lines[0]
}

// parseNumber reads a numeric tick label.
func parseNumber(t *testing.T) func(string) float64 {
	return func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		require.NoError(t, err)
		return v
	}
}

// segmentsCross reports whether segments ab and cd cross at a point inside
// both; touching or overlapping does not count.
func segmentsCross(a, b, c, d svgPoint) bool {
	orient := func(p, q, r svgPoint) float64 {
		return (q.x-p.x)*(r.y-p.y) - (q.y-p.y)*(r.x-p.x)
	}
	return orient(a, b, c)*orient(a, b, d) < 0 && orient(c, d, a)*orient(c, d, b) < 0
}
