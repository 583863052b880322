package main

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/verdict-ml/verdict/report"
)

// errPlotInput is returned by Calibration for a chart it cannot draw.
var errPlotInput = errors.New("cannot plot")

// CalibrationPoint is a simulated rate at one sample size: the share Rate
// of simulated data sets on which a method rejected (or its interval
// covered the truth), with that share's own interval [Low, High]; Low and
// High may both be NaN to draw the rate alone.
type CalibrationPoint struct {
	N               float64
	Rate, Low, High float64
}

// CalibrationSeries is one method's rates across sample sizes.
type CalibrationSeries struct {
	Name   string
	Points []CalibrationPoint
}

// CalibrationBand is the range of rates [Low, High] that a method whose
// true rate is exactly the target shows at sample size N, given the number
// of simulated data sets there: the part of the plot where a calibrated
// method's points fall.
type CalibrationBand struct {
	N, Low, High float64
}

// CalibrationChart is what Calibration draws.
type CalibrationChart struct {
	Title, XLabel, YLabel string
	// Target is the rate of a calibrated method: alpha for rejection
	// rates, the confidence for coverage. It is drawn as a dashed line.
	Target float64
	// Band is shaded around Target, and BandLabel names it in the legend.
	// Between sample sizes its edges are joined by straight lines on the
	// log axis; before the first and after the last they stay level.
	Band      []CalibrationBand
	BandLabel string
	// Series are the methods, drawn in order, each with its own colour,
	// marker and dashes.
	Series []CalibrationSeries
	// YMin and YMax, when YMax > YMin, cut the rate axis so that the
	// band stays readable next to a rate far away from it. A rate outside
	// the cut is drawn at the edge with an arrow and its value.
	YMin, YMax float64
}

// Calibration draws simulated rates against sample size: the sample size
// on a log x axis, ticked at the sample sizes of the points; the rate on
// the y axis in percent; each series as a line through its points, each
// point with a vertical bar for its interval; the target as a dashed
// black line inside its shaded band; and a legend to the right of the
// data. So that intervals of different series at the same sample size do
// not hide each other, the series are spread a little around each sample
// size (a fortieth of a decade between neighbours).
//
// It returns an error wrapping errPlotInput for no series, a series
// without points or name, a sample size that is not a positive finite
// number, a rate or target that is NaN or infinite, an interval with one
// NaN bound, infinite bounds or Low > High, a band with Low > High or
// bounds that are not finite, or a cut with YMax ≤ YMin that is not 0, 0.
func Calibration(ch CalibrationChart) (*report.Figure, error) {
	if len(ch.Series) == 0 {
		return nil, fmt.Errorf("%w: calibration plot: no series", errPlotInput)
	}
	if !finite(ch.Target) {
		return nil, fmt.Errorf("%w: calibration plot: target %v", errPlotInput, ch.Target)
	}
	cut := ch.YMax > ch.YMin
	if !cut && (ch.YMin != 0 || ch.YMax != 0) || cut && (!finite(ch.YMin) || !finite(ch.YMax)) {
		return nil, fmt.Errorf("%w: calibration plot: the cut [%v, %v] is empty", errPlotInput, ch.YMin, ch.YMax)
	}
	var sizes []float64
	lo, hi := ch.Target, ch.Target
	for i, s := range ch.Series {
		if s.Name == "" {
			return nil, fmt.Errorf("%w: calibration plot: series %d has no name", errPlotInput, i+1)
		}
		if len(s.Points) == 0 {
			return nil, fmt.Errorf("%w: calibration plot: series %q has no points", errPlotInput, s.Name)
		}
		for j, pt := range s.Points {
			if !(pt.N > 0) || math.IsInf(pt.N, 0) {
				return nil, fmt.Errorf("%w: calibration plot: series %q, point %d has sample size %v; the log axis needs a positive number", errPlotInput, s.Name, j+1, pt.N)
			}
			if !finite(pt.Rate) {
				return nil, fmt.Errorf("%w: calibration plot: series %q, point %d has rate %v", errPlotInput, s.Name, j+1, pt.Rate)
			}
			if err := report.CheckPlotInterval(pt.Low, pt.High); err != nil {
				return nil, fmt.Errorf("%w: calibration plot: series %q, point %d: %v", errPlotInput, s.Name, j+1, err)
			}
			sizes = append(sizes, pt.N)
			lo, hi = math.Min(lo, pt.Rate), math.Max(hi, pt.Rate)
			if !math.IsNaN(pt.Low) {
				lo, hi = math.Min(lo, pt.Low), math.Max(hi, pt.High)
			}
		}
	}
	for i, b := range ch.Band {
		if !(b.N > 0) || math.IsInf(b.N, 0) {
			return nil, fmt.Errorf("%w: calibration plot: band point %d has sample size %v; the log axis needs a positive number", errPlotInput, i+1, b.N)
		}
		if !finite(b.Low) || !finite(b.High) || b.Low > b.High {
			return nil, fmt.Errorf("%w: calibration plot: band point %d is [%v, %v]", errPlotInput, i+1, b.Low, b.High)
		}
		sizes = append(sizes, b.N)
		lo, hi = math.Min(lo, b.Low), math.Max(hi, b.High)
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	band := slices.Clone(ch.Band)
	slices.SortStableFunc(band, func(a, b CalibrationBand) int { return cmp.Compare(a.N, b.N) })

	p := report.NewPlot(ch.Title)
	p.X.Label.Text = ch.XLabel
	p.Y.Label.Text = ch.YLabel
	p.X.Scale = plot.LogScale{}
	ticks := make([]plot.Tick, len(sizes))
	for i, n := range sizes {
		ticks[i] = plot.Tick{Value: n, Label: calibrationSize(n)}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.Y.Tick.Marker = percentTicks{}
	// The series spread over ±spread decades around each size.
	spread := 0.025 * float64(len(ch.Series)-1) / 2
	p.X.Min = sizes[0] / math.Pow(10, spread+0.12)
	p.X.Max = sizes[len(sizes)-1] * math.Pow(10, spread+0.12)
	if cut {
		p.Y.Min, p.Y.Max = ch.YMin, ch.YMax
	} else {
		p.Y.Min, p.Y.Max = report.PlotRange(lo, hi, 0.06)
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = report.PlotGridGrey
	marks := calibrationMarks{series: ch.Series, spread: spread}
	legend := calibrationLegend{series: ch.Series, bandLabel: ch.BandLabel, hasBand: len(band) > 0,
		style: text.Style{Font: p.Legend.TextStyle.Font, XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}}
	p.Add(grid, calibrationBand{band: band, target: ch.Target}, marks, legend)
	return report.NewFigure(p), nil
}

// finite reports whether v is neither NaN nor infinite.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// calibrationSize writes a sample size with thousands separators: 20,
// 1,000, 10,000; a size that is not whole keeps three significant digits.
func calibrationSize(n float64) string {
	if n == math.Round(n) && n < 1e15 {
		return report.Thousands(int64(n))
	}
	return report.PlotNumber(n)
}

// percentTicks labels a rate axis in percent at report.PlotTicks' steps: 0 %,
// 2 %, 4 %, …, or 90 %, 95 %, 100 %.
type percentTicks struct{}

func (percentTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := report.PlotTicks{}.Ticks(lo*100, hi*100)
	for i := range ticks {
		ticks[i].Value /= 100
		if ticks[i].Label != "" {
			ticks[i].Label += " %"
		}
	}
	return ticks
}

// calibrationColors is the Okabe–Ito palette, which readers with the
// common colour-vision deficiencies can tell apart, without its yellow,
// which is too light on white, then black and Tol's wine.
var calibrationColors = []color.Color{
	color.RGBA{R: 0x00, G: 0x72, B: 0xb2, A: 0xff}, // blue
	color.RGBA{R: 0xd5, G: 0x5e, B: 0x00, A: 0xff}, // vermillion
	color.RGBA{R: 0x00, G: 0x9e, B: 0x73, A: 0xff}, // bluish green
	color.RGBA{R: 0xcc, G: 0x79, B: 0xa7, A: 0xff}, // reddish purple
	color.RGBA{R: 0xe6, G: 0x9f, B: 0x00, A: 0xff}, // orange
	color.RGBA{R: 0x56, G: 0xb4, B: 0xe9, A: 0xff}, // sky blue
	color.Black,
	color.RGBA{R: 0x88, G: 0x22, B: 0x55, A: 0xff}, // wine
}

// calibrationShapes are the markers of the series, in order; after the
// first four come their outlines.
var calibrationShapes = []draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, diamondGlyph{fill: true},
	draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, diamondGlyph{},
}

// calibrationDashes are the line patterns of the series, in order.
var calibrationDashes = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
}

// calibrationStyle returns the colour, marker and line of series i.
func calibrationStyle(i int) (draw.GlyphStyle, draw.LineStyle) {
	c := calibrationColors[i%len(calibrationColors)]
	glyph := draw.GlyphStyle{Color: c, Radius: vg.Points(3.2), Shape: calibrationShapes[i%len(calibrationShapes)]}
	line := draw.LineStyle{Color: c, Width: vg.Points(1.3), Dashes: calibrationDashes[i%len(calibrationDashes)]}
	return glyph, line
}

// diamondGlyph is a square standing on a corner, filled or outlined.
type diamondGlyph struct{ fill bool }

func (g diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	r := sty.Radius * 1.25
	var path vg.Path
	path.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	path.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	path.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	path.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	path.Close()
	if g.fill {
		c.SetColor(sty.Color)
		c.Fill(path)
		return
	}
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(0.8)})
	c.Stroke(path)
}

// calibrationBand shades the band and draws the target line.
type calibrationBand struct {
	band   []CalibrationBand
	target float64
}

func (b calibrationBand) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	if len(b.band) > 0 {
		var upper, lower []vg.Point
		upper = append(upper, vg.Point{X: c.Min.X, Y: trY(b.band[0].High)})
		lower = append(lower, vg.Point{X: c.Min.X, Y: trY(b.band[0].Low)})
		for _, pt := range b.band {
			upper = append(upper, vg.Point{X: trX(pt.N), Y: trY(pt.High)})
			lower = append(lower, vg.Point{X: trX(pt.N), Y: trY(pt.Low)})
		}
		last := b.band[len(b.band)-1]
		upper = append(upper, vg.Point{X: c.Max.X, Y: trY(last.High)})
		lower = append(lower, vg.Point{X: c.Max.X, Y: trY(last.Low)})
		var path vg.Path
		path.Move(upper[0])
		for _, pt := range upper[1:] {
			path.Line(pt)
		}
		for i := len(lower) - 1; i >= 0; i-- {
			path.Line(lower[i])
		}
		path.Close()
		c.SetColor(calibrationBandColor)
		c.Fill(path)
	}
	y := trY(b.target)
	if y >= c.Min.Y && y <= c.Max.Y {
		c.StrokeLine2(calibrationTargetStyle, c.Min.X, y, c.Max.X, y)
	}
}

// The band is a light grey behind everything, the target a dashed black
// line.
var (
	calibrationBandColor   = color.Gray{Y: 0xe4}
	calibrationTargetStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}
)

// calibrationMarks draws each series' line, interval bars and markers, and
// the arrows of rates outside the axis.
type calibrationMarks struct {
	series []CalibrationSeries
	spread float64
}

// x returns where series i draws its point at sample size n, in data
// units: n moved by its share of the spread, in decades.
func (m calibrationMarks) x(i int, n float64) float64 {
	if len(m.series) == 1 {
		return n
	}
	offset := -m.spread + 2*m.spread*float64(i)/float64(len(m.series)-1)
	return n * math.Pow(10, offset)
}

func (m calibrationMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	clampY := func(y vg.Length) vg.Length { return max(c.Min.Y, min(c.Max.Y, y)) }
	label := text.Style{Font: p.X.Tick.Label.Font, XAlign: draw.XCenter, Handler: plot.DefaultTextHandler}
	label.Font.Size = report.PlotSmallSize
	// Values of rates off the axis at one sample size are stacked, one
	// line each, in the order of the series.
	stacked := map[[2]float64]int{}
	lineH := label.Rectangle("0").Size().Y
	for i, s := range m.series {
		glyph, line := calibrationStyle(i)
		pts := slices.Clone(s.Points)
		slices.SortStableFunc(pts, func(a, b CalibrationPoint) int { return cmp.Compare(a.N, b.N) })
		path := make([]vg.Point, len(pts))
		for j, pt := range pts {
			path[j] = vg.Point{X: trX(m.x(i, pt.N)), Y: trY(pt.Rate)}
		}
		// A line to a rate off the axis leaves through its edge.
		c.StrokeLines(line, c.ClipLinesY(path)...)
		bar := draw.LineStyle{Color: line.Color, Width: vg.Points(1)}
		capW := vg.Points(2.5)
		lbl := label
		lbl.Color = line.Color
		for j, pt := range pts {
			x := path[j].X
			if !math.IsNaN(pt.Low) {
				y0, y1 := clampY(trY(pt.Low)), clampY(trY(pt.High))
				c.StrokeLine2(bar, x, y0, x, y1)
				if trY(pt.Low) >= c.Min.Y {
					c.StrokeLine2(bar, x-capW, y0, x+capW, y0)
				}
				if trY(pt.High) <= c.Max.Y {
					c.StrokeLine2(bar, x-capW, y1, x+capW, y1)
				}
			}
			switch y := path[j].Y; {
			case y > c.Max.Y:
				// The arrow points out of the top, its value below it.
				m.arrow(c, glyph.Color, vg.Point{X: x, Y: c.Max.Y}, true)
				k := stacked[[2]float64{pt.N, 1}]
				stacked[[2]float64{pt.N, 1}]++
				lbl.YAlign = draw.YTop
				at := vg.Point{X: trX(pt.N), Y: c.Max.Y - calibrationArrowHeight() - vg.Points(2) - vg.Length(k)*lineH}
				c.FillText(lbl, at, calibrationPercent(pt.Rate))
			case y < c.Min.Y:
				m.arrow(c, glyph.Color, vg.Point{X: x, Y: c.Min.Y}, false)
				k := stacked[[2]float64{pt.N, -1}]
				stacked[[2]float64{pt.N, -1}]++
				lbl.YAlign = draw.YBottom
				at := vg.Point{X: trX(pt.N), Y: c.Min.Y + calibrationArrowHeight() + vg.Points(2) + vg.Length(k)*lineH}
				c.FillText(lbl, at, calibrationPercent(pt.Rate))
			default:
				c.DrawGlyph(glyph, path[j])
			}
		}
	}
}

// calibrationArrowHeight is the length of the arrow of a rate off the
// axis.
func calibrationArrowHeight() vg.Length { return vg.Points(8) }

// arrow draws a filled arrow head at the edge point at, pointing up (out
// of the top of the data area) or down.
func (calibrationMarks) arrow(c draw.Canvas, col color.Color, at vg.Point, up bool) {
	h, w := calibrationArrowHeight(), vg.Points(4.5)
	dir := vg.Length(1)
	if !up {
		dir = -1
	}
	var path vg.Path
	path.Move(at)
	path.Line(vg.Point{X: at.X - w, Y: at.Y - dir*h})
	path.Line(vg.Point{X: at.X + w, Y: at.Y - dir*h})
	path.Close()
	c.SetColor(col)
	c.Fill(path)
}

// calibrationPercent writes a rate in percent, to a tenth below 10 % and
// whole above: "3.4 %", "97 %".
func calibrationPercent(r float64) string {
	pc := r * 100
	if math.Abs(pc) < 10 {
		return fmt.Sprintf("%.1f %%", pc)
	}
	return fmt.Sprintf("%.0f %%", pc)
}

// calibrationLegend lists the band and the series to the right of the
// data area.
type calibrationLegend struct {
	series    []CalibrationSeries
	bandLabel string
	hasBand   bool
	style     text.Style
}

// Layout of the legend: a gap from the data area, a sample of each
// series' line and marker, a gap before its name, and the rows' spacing.
func calibrationLegendGap() vg.Length    { return vg.Points(18) }
func calibrationLegendSample() vg.Length { return vg.Points(26) }
func calibrationLegendText() vg.Length   { return vg.Points(6) }
func calibrationLegendRow() vg.Length    { return vg.Points(15) }

// entries are the legend's rows: the band first, when it has one.
func (l calibrationLegend) entries() []string {
	var rows []string
	if l.hasBand {
		rows = append(rows, l.bandLabel)
	}
	for _, s := range l.series {
		rows = append(rows, s.Name)
	}
	return rows
}

func (l calibrationLegend) Plot(c draw.Canvas, p *plot.Plot) {
	x0 := c.Max.X + calibrationLegendGap()
	y := c.Max.Y - calibrationLegendRow()/2
	sample := calibrationLegendSample()
	if l.hasBand {
		r := vg.Rectangle{Min: vg.Point{X: x0, Y: y - vg.Points(5)}, Max: vg.Point{X: x0 + sample, Y: y + vg.Points(5)}}
		c.SetColor(calibrationBandColor)
		c.Fill(r.Path())
		c.StrokeLine2(calibrationTargetStyle, x0, y, x0+sample, y)
		c.FillText(l.style, vg.Point{X: x0 + sample + calibrationLegendText(), Y: y}, l.bandLabel)
		y -= calibrationLegendRow()
	}
	for i, s := range l.series {
		glyph, line := calibrationStyle(i)
		c.StrokeLine2(line, x0, y, x0+sample, y)
		c.DrawGlyph(glyph, vg.Point{X: x0 + sample/2, Y: y})
		c.FillText(l.style, vg.Point{X: x0 + sample + calibrationLegendText(), Y: y}, s.Name)
		y -= calibrationLegendRow()
	}
}

// GlyphBoxes reserves the legend's column to the right of the data area.
func (l calibrationLegend) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var boxes []plot.GlyphBox
	for _, e := range l.entries() {
		r := l.style.Rectangle(e)
		r = r.Add(vg.Point{X: calibrationLegendGap() + calibrationLegendSample() + calibrationLegendText()})
		boxes = append(boxes, plot.GlyphBox{X: 1, Y: 0.5, Rectangle: r})
	}
	return boxes
}
