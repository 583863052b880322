package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ForestRow is one difference with its interval. Low and High may both be
// NaN to draw the estimate alone.
type ForestRow struct {
	Label               string
	Estimate, Low, High float64
	// Distinguishable rows are drawn with a filled marker, the others in
	// grey with a hollow one.
	Distinguishable bool
	// Better and Worse colour a distinguishable row green or red: whether
	// the row's side is better or worse than the one it is compared with,
	// for the metric's direction. A row with neither is black.
	Better, Worse bool
}

// forestColor is the colour of a distinguishable row.
func forestColor(r ForestRow) color.Color {
	switch {
	case r.Better:
		return plotGood
	case r.Worse:
		return plotRed
	}
	return color.Black
}

// Forest draws a forest plot: one row per ForestRow, the first on top, with
// the estimate as a marker on a horizontal interval line, the labels on
// the left, the estimate and interval written on the right ("0.0412
// [0.0351, 0.0476]", each row to the decimals its own values need: three
// significant digits of its largest number, two of its interval's width,
// and never a non-zero number as 0, so that rows of metrics on different
// scales each read in full), a dashed vertical line at zero, and the x axis
// labelled xlabel, wrapped onto as many lines as the data area's width
// needs (the label is centred under the data area, between the row labels
// and the value column, and would otherwise run off the figure). The x
// range always includes zero. The figure is 8
// inches wide and 1.2 + 0.3 inches per row high.
//
// It returns an error wrapping ErrPlotInput when rows is empty, an estimate
// is NaN or infinite, a bound is infinite, only one bound is NaN, or Low >
// High.
func Forest(title, xlabel string, rows []ForestRow) (*Figure, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: forest plot: no rows", ErrPlotInput)
	}
	lo, hi := 0.0, 0.0
	for i, r := range rows {
		if !plotFinite(r.Estimate) {
			return nil, fmt.Errorf("%w: forest plot: row %d (%q) has estimate %v", ErrPlotInput, i+1, r.Label, r.Estimate)
		}
		if err := CheckPlotInterval(r.Low, r.High); err != nil {
			return nil, fmt.Errorf("%w: forest plot: row %d (%q): %v", ErrPlotInput, i+1, r.Label, err)
		}
		lo, hi = math.Min(lo, r.Estimate), math.Max(hi, r.Estimate)
		if !math.IsNaN(r.Low) {
			lo, hi = math.Min(lo, r.Low), math.Max(hi, r.High)
		}
	}
	rows = slices.Clone(rows)
	p := NewPlot(title)
	p.X.Label.Text = xlabel
	p.X.Tick.Marker = PlotTicks{}
	n := len(rows)
	ticks := make([]plot.Tick, n)
	for i, r := range rows {
		ticks[i] = plot.Tick{Value: float64(n - 1 - i), Label: r.Label}
	}
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Length = 0
	p.Y.Width = 0
	p.Y.Tick.Label.Font = plotFont(plotLabelSize)
	grid := plotter.NewGrid()
	grid.Horizontal.Color = nil
	grid.Vertical.Color = PlotGridGrey
	p.Add(grid,
		vLine{X: 0, Style: draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}},
		forestMarks(rows),
		newForestValues(rows))
	p.X.Label.Text = forestWrap(p, rows, xlabel)
	p.X.Min, p.X.Max = PlotRange(lo, hi, 0.05)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	return &Figure{plot: p, width: plotWidth, height: 1.2*vg.Inch + vg.Length(n)*0.3*vg.Inch}, nil
}

// forestMarks draws each row's interval with end caps and its estimate.
type forestMarks []ForestRow

func (rows forestMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	capH := vg.Points(3.5)
	for i, r := range rows {
		y := trY(float64(len(rows) - 1 - i))
		line := draw.LineStyle{Color: forestColor(r), Width: vg.Points(1.6)}
		glyph := draw.GlyphStyle{Color: forestColor(r), Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		if !r.Distinguishable {
			line = draw.LineStyle{Color: plotGrey, Width: vg.Points(1.2)}
			glyph = draw.GlyphStyle{Color: plotGrey, Radius: vg.Points(4), Shape: draw.RingGlyph{}}
		}
		if !math.IsNaN(r.Low) {
			x0, x1 := trX(r.Low), trX(r.High)
			c.StrokeLine2(line, x0, y, x1, y)
			c.StrokeLine2(line, x0, y-capH, x0, y+capH)
			c.StrokeLine2(line, x1, y-capH, x1, y+capH)
		}
		pt := vg.Point{X: trX(r.Estimate), Y: y}
		if !r.Distinguishable {
			// A hollow marker hides the interval line behind it.
			c.DrawGlyph(draw.GlyphStyle{Color: color.White, Radius: glyph.Radius, Shape: draw.CircleGlyph{}}, pt)
		}
		c.DrawGlyph(glyph, pt)
	}
}

// forestValues writes each row's estimate and interval to the right of
// the data area.
type forestValues struct {
	rows  []ForestRow
	texts []string
	style text.Style
}

func newForestValues(rows []ForestRow) forestValues {
	v := forestValues{
		rows:  rows,
		style: text.Style{Font: plotFont(plotTickSize), XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler},
	}
	for _, r := range rows {
		v.texts = append(v.texts, forestLabel(r))
	}
	return v
}

// Decimals of a forest label: up to forestMaxDecimals in fixed notation,
// then scientific notation with at most forestMaxMantissa decimals.
const (
	forestMaxDecimals = 6
	forestMaxMantissa = 8
)

// forestLabel writes a row's estimate and interval, "0.0412 [0.0351,
// 0.0476]", with the decimals the row's own values need: three significant
// digits of its largest magnitude, two of its interval's width, and at
// least one of every non-zero number. Rows of metrics on different scales
// thus each read in their own precision: a row of 0.0004 [-0.0001,
// 0.0009] under one of 0.3 [0.25, 0.35] is "0.000400 [-0.000100,
// 0.000900]", not "0.000 [-0.000, 0.001]". Past forestMaxDecimals the
// numbers go to scientific notation, with mantissas that still show two
// digits of the width. Zero is "0.00" when the whole row is zero.
func forestLabel(r ForestRow) string {
	vals := []float64{r.Estimate}
	if !math.IsNaN(r.Low) {
		vals = append(vals, r.Low, r.High)
	}
	width := 0.0
	if len(vals) == 3 {
		width = r.High - r.Low
	}
	big := 0.0
	for _, v := range vals {
		big = math.Max(big, math.Abs(v))
	}
	decimals := 2
	if big > 0 {
		decimals = decimalsFor(big, 3)
		if width > 0 {
			decimals = max(decimals, decimalsFor(width, 2))
		}
		for _, v := range vals {
			if v != 0 {
				decimals = max(decimals, decimalsFor(math.Abs(v), 1))
			}
		}
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', decimals, 64) }
	if decimals > forestMaxDecimals {
		mantissa := 2
		if width > 0 {
			mantissa = max(mantissa, int(math.Floor(math.Log10(big))-math.Floor(math.Log10(width)))+1)
		}
		mantissa = min(mantissa, forestMaxMantissa)
		f = func(v float64) string { return strconv.FormatFloat(v, 'e', mantissa, 64) }
	}
	out := f(vals[0] + 0) // + 0 turns −0 into 0
	if len(vals) == 3 {
		out += " [" + f(vals[1]+0) + ", " + f(vals[2]+0) + "]"
	}
	return out
}

// forestValueGap separates the value column from the data area.
func forestValueGap() vg.Length { return vg.Points(14) }

func (v forestValues) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	for i, t := range v.texts {
		s := v.style
		s.Color = forestColor(v.rows[i])
		if !v.rows[i].Distinguishable {
			s.Color = plotDarkGrey
		}
		c.FillText(s, vg.Point{X: c.Max.X + forestValueGap(), Y: trY(float64(len(v.rows) - 1 - i))}, t)
	}
}

// GlyphBoxes reserves the value column to the right of the data area.
func (v forestValues) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	boxes := make([]plot.GlyphBox, len(v.texts))
	for i, t := range v.texts {
		boxes[i] = plot.GlyphBox{
			X:         1,
			Y:         p.Y.Norm(float64(len(v.rows) - 1 - i)),
			Rectangle: v.style.Rectangle(t).Add(vg.Point{X: forestValueGap()}),
		}
	}
	return boxes
}

// forestWrap breaks the x axis label of p at spaces into lines no wider
// than the data area: the figure's width less the row labels on the left
// and the value column on the right.
func forestWrap(p *plot.Plot, rows []ForestRow, label string) string {
	left := vg.Length(0)
	for _, r := range rows {
		left = max(left, p.Y.Tick.Label.Width(r.Label))
	}
	values := newForestValues(rows)
	right := vg.Length(0)
	for _, t := range values.texts {
		right = max(right, values.style.Width(t))
	}
	// The axes' padding and the tick labels' gaps, with room to spare.
	width := plotWidth - 2*plotMargin - left - right - forestValueGap() - vg.Points(24)
	style := p.X.Label.TextStyle
	if width <= 0 || style.Width(label) <= width {
		return label
	}
	var lines []string
	line := ""
	for _, word := range strings.Fields(label) {
		switch {
		case line == "":
			line = word
		case style.Width(line+" "+word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return strings.Join(append(lines, line), "\n")
}
