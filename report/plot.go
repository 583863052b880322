package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

var (
	// ErrPlotFormat is returned by PlotFormat, Figure.Save and Figure.Write
	// for a format other than SVG or PNG; the message names the path or
	// format and the formats accepted.
	ErrPlotFormat = errors.New("unknown plot format")

	// ErrPlotInput is returned by CriticalDifference, Forest, Histogram and
	// History for input they cannot draw: no data, slices of different
	// lengths, NaN or infinite values, unknown run names. The message says
	// which value is wrong.
	ErrPlotInput = errors.New("cannot plot")
)

// Sizes shared by the plots. Text sizes are in points: the title is 14pt,
// axis labels 11pt, tick labels and legends 10pt, so that a figure is
// legible at 100% zoom and when scaled to a column in a paper.
const (
	plotWidth       = 8 * vg.Inch
	plotHeight      = 4.5 * vg.Inch
	plotMargin      = 0.12 * vg.Inch
	plotTitleSize   = 14
	plotLabelSize   = 11
	plotTickSize    = 10
	plotSmallSize   = 9
	plotPNGDPI      = 150
	plotMaxBins     = 60
	plotMinBins     = 10
	plotSVGFamily   = "font-family:Liberation Sans;"
	plotSVGFallback = "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"
)

// Colours: black for what a reader must see, a blue for data, grey for what
// is de-emphasised and for the grid.
var (
	plotBlue      = color.RGBA{R: 0x2c, G: 0x5d, B: 0x9e, A: 0xff}
	plotLightBlue = color.RGBA{R: 0xa6, G: 0xc0, B: 0xe0, A: 0xff}
	plotRed       = color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff}
	plotGrey      = color.Gray{Y: 0x8c}
	plotDarkGrey  = color.Gray{Y: 0x50}
	plotGridGrey  = color.Gray{Y: 0xdc}
)

// Figure is a plot ready to write as SVG or PNG. Its size is fixed when it
// is made: 8 × 4.5 inches for most plots, taller for forest plots and
// critical-difference diagrams with many rows.
type Figure struct {
	plot          *plot.Plot
	width, height vg.Length
}

// Write renders the figure in format "svg" or "png" to w. SVG text stays
// text (Liberation Sans, falling back to Arial, which has the same
// metrics); PNG is rendered at 150 dots per inch, so an 8-inch figure is
// 1200 pixels wide. Another format returns an error wrapping
// ErrPlotFormat. The same figure always renders to the same bytes.
func (f *Figure) Write(w io.Writer, format string) error {
	var c vg.CanvasWriterTo
	switch format {
	case "svg":
		c = vgsvg.New(f.width, f.height)
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(f.width, f.height), vgimg.UseDPI(plotPNGDPI))}
	default:
		return fmt.Errorf("%w %q: write svg or png", ErrPlotFormat, format)
	}
	dc := draw.New(c)
	dc.SetColor(color.White) // the margin too, for viewers with a dark background
	dc.Fill(dc.Rectangle.Path())
	f.plot.Draw(draw.Crop(dc, plotMargin, -plotMargin, plotMargin, -plotMargin))
	if format == "png" {
		_, err := c.WriteTo(w)
		return err
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return err
	}
	// vgsvg names only the font it measured text with; a viewer without
	// Liberation Sans would fall back to its default serif font, whose
	// wider glyphs overrun the layout. Arial and Helvetica have the same
	// metrics as Liberation Sans.
	_, err := w.Write(bytes.ReplaceAll(b.Bytes(), []byte(plotSVGFamily), []byte(plotSVGFallback)))
	return err
}

// Save writes the figure to path in the format its extension names: .svg
// or .png, in any case. Another extension returns an error wrapping
// ErrPlotFormat and nothing is written. The figure is rendered before the
// file is created, so a failed render leaves no partial file.
func (f *Figure) Save(path string) error {
	format, err := PlotFormat(path)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := f.Write(&b, format); err != nil {
		return fmt.Errorf("render %s: %w", path, err)
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// PlotFormat returns "svg" or "png" for a path ending in .svg or .png (in
// any case), or an error wrapping ErrPlotFormat that names the path and the
// extensions accepted.
func PlotFormat(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".svg", ".png":
		return ext[1:], nil
	}
	return "", fmt.Errorf("%w: %s: the file name must end in .svg or .png", ErrPlotFormat, path)
}

// plotFont returns the sans-serif face used for all text, at size points.
func plotFont(size vg.Length) font.Font {
	return font.From(font.Font{Typeface: "Liberation", Variant: "Sans"}, size)
}

// newPlot returns a plot with the house text sizes and the title set.
func newPlot(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = plotFont(plotTitleSize)
	p.Title.Padding = vg.Points(10)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = plotFont(plotLabelSize)
		a.Label.Padding = vg.Points(4)
		a.Tick.Label.Font = plotFont(plotTickSize)
		a.Tick.Length = vg.Points(4)
	}
	p.Legend.TextStyle.Font = plotFont(plotTickSize)
	return p
}

// plotNumber formats v to three significant digits without an exponent
// for magnitudes from 1e-4 to 1e6: 0.0123, 1.23, 123, 12346.
func plotNumber(v float64) string {
	a := math.Abs(v)
	if v == 0 || a < 1e-4 || a >= 1e6 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', max(0, 2-int(math.Floor(math.Log10(a)))), 64)
}

// plotRange returns lo and hi widened by frac of their span on each side;
// an empty span becomes the value ± the larger of 1 and 10% of it.
func plotRange(lo, hi, frac float64) (float64, float64) {
	if hi <= lo {
		d := math.Max(math.Abs(lo)*0.1, 1)
		return lo - d, hi + d
	}
	d := (hi - lo) * frac
	return lo - d, hi + d
}

// plotTicks labels a numeric axis about six times, at multiples of 1, 2,
// 2.5 or 5 times a power of ten, every label with the same number of
// decimals (0.10, 0.12, 0.14, not 0.1, 0.12, 0.14), with an unlabelled
// tick half way between labels. With whole set the step is at least 1: a
// count has no halves.
type plotTicks struct{ whole bool }

func (t plotTicks) Ticks(lo, hi float64) []plot.Tick {
	step := plotNiceStep((hi - lo) / 6)
	if t.whole {
		step = math.Max(step, 1)
	}
	decimals := 0
	for decimals < 10 && math.Abs(step*math.Pow10(decimals)-math.Round(step*math.Pow10(decimals))) > 1e-9 {
		decimals++
	}
	label := func(v float64) string { return strconv.FormatFloat(v, 'f', decimals, 64) }
	if a := math.Max(math.Abs(lo), math.Abs(hi)); a >= 1e6 || step < 1e-4 {
		label = func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	}
	var ticks []plot.Tick
	for i := math.Ceil(lo / step * 2); i <= math.Floor(hi/step*2); i++ {
		v := i * step / 2
		if v == 0 {
			v = 0 // not −0
		}
		tk := plot.Tick{Value: v}
		if math.Mod(i, 2) == 0 {
			tk.Label = label(v)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// plotFinite reports whether v is neither NaN nor infinite.
func plotFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// vLine is a vertical line across the whole data area at X; in a legend it
// shows as a short horizontal stroke of the same style.
type vLine struct {
	X     float64
	Style draw.LineStyle
}

func (l vLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x := trX(l.X)
	c.StrokeLine2(l.Style, x, c.Min.Y, x, c.Max.Y)
}

func (l vLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(l.Style, c.Min.X, y, c.Max.X, y)
}

// ForestRow is one difference with its interval. Low and High may both be
// NaN to draw the estimate alone.
type ForestRow struct {
	Label               string
	Estimate, Low, High float64
	// Distinguishable rows are drawn in black with a filled marker; the
	// others in grey with a hollow one.
	Distinguishable bool
}

// Forest draws a forest plot: one row per ForestRow, the first on top, with
// the estimate as a marker on a horizontal interval line, the labels on
// the left, the estimate and interval written on the right ("0.0412
// [0.0351, 0.0476]", all to the decimals that give the largest three
// significant digits), a dashed vertical line at zero, and the x axis
// labelled xlabel. The x range always includes zero. The figure is 8
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
		if err := plotCheckInterval(r.Low, r.High); err != nil {
			return nil, fmt.Errorf("%w: forest plot: row %d (%q): %v", ErrPlotInput, i+1, r.Label, err)
		}
		lo, hi = math.Min(lo, r.Estimate), math.Max(hi, r.Estimate)
		if !math.IsNaN(r.Low) {
			lo, hi = math.Min(lo, r.Low), math.Max(hi, r.High)
		}
	}
	rows = slices.Clone(rows)
	p := newPlot(title)
	p.X.Label.Text = xlabel
	p.X.Tick.Marker = plotTicks{}
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
	grid.Vertical.Color = plotGridGrey
	p.Add(grid,
		vLine{X: 0, Style: draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}},
		forestMarks(rows),
		newForestValues(rows))
	p.X.Min, p.X.Max = plotRange(lo, hi, 0.05)
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	return &Figure{plot: p, width: plotWidth, height: 1.2*vg.Inch + vg.Length(n)*0.3*vg.Inch}, nil
}

// plotCheckInterval reports a bound pair that is neither two NaNs (no
// interval) nor two plotFinite numbers in order.
func plotCheckInterval(low, high float64) error {
	switch {
	case math.IsNaN(low) && math.IsNaN(high):
		return nil
	case math.IsNaN(low) || math.IsNaN(high):
		return fmt.Errorf("interval [%v, %v] has one bound NaN; give both or neither", low, high)
	case !plotFinite(low) || !plotFinite(high):
		return fmt.Errorf("interval [%v, %v] is not plotFinite", low, high)
	case low > high:
		return fmt.Errorf("interval [%v, %v] has its low bound above its high bound", low, high)
	}
	return nil
}

// forestMarks draws each row's interval with end caps and its estimate.
type forestMarks []ForestRow

func (rows forestMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	capH := vg.Points(3.5)
	for i, r := range rows {
		y := trY(float64(len(rows) - 1 - i))
		line := draw.LineStyle{Color: color.Black, Width: vg.Points(1.6)}
		glyph := draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
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
	big := 0.0
	for _, r := range rows {
		big = math.Max(big, math.Abs(r.Estimate))
		if !math.IsNaN(r.Low) {
			big = math.Max(big, math.Max(math.Abs(r.Low), math.Abs(r.High)))
		}
	}
	decimals := 2
	if big > 0 {
		decimals = min(max(0, 2-int(math.Floor(math.Log10(big)))), 10)
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', decimals, 64) }
	v := forestValues{
		rows:  rows,
		style: text.Style{Font: plotFont(plotTickSize), XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler},
	}
	for _, r := range rows {
		t := f(r.Estimate)
		if !math.IsNaN(r.Low) {
			t += " [" + f(r.Low) + ", " + f(r.High) + "]"
		}
		v.texts = append(v.texts, t)
	}
	return v
}

// forestValueGap separates the value column from the data area.
func forestValueGap() vg.Length { return vg.Points(14) }

func (v forestValues) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	for i, t := range v.texts {
		s := v.style
		s.Color = color.Black
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

// Histogram draws the distribution of values, such as per-user
// differences between two runs, with a dashed black line at zero and a
// dashed red line at the mean, named "mean 0.0123" in the legend. The x
// axis is labelled xlabel and always includes zero; the y axis counts
// "users".
//
// The bin count starts from the Freedman–Diaconis rule, (max − min) /
// (2·IQR·n^(−1/3)), kept within 10 to 60 bins (Sturges' log₂n + 1 when the
// IQR is zero); the width w is then rounded to 1, 2, 2.5 or 5 times a
// power of ten, and bins are centred on multiples of w. Zero is thus the
// centre of a bin: users whose difference is exactly zero (ties, often
// the largest group) make one bar centred on the zero line. Values that
// are all equal make one narrow bar.
//
// It returns an error wrapping ErrPlotInput when values is empty, holds
// NaN or an infinity, or spans more or less than float64 can bin (such as
// −1e308 to 1e308).
func Histogram(title, xlabel string, values []float64) (*Figure, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("%w: histogram: no values", ErrPlotInput)
	}
	for i, v := range values {
		if !plotFinite(v) {
			return nil, fmt.Errorf("%w: histogram: value %d of %d is %v", ErrPlotInput, i+1, len(values), v)
		}
	}
	bins, width, err := histogramBins(values)
	if err != nil {
		return nil, fmt.Errorf("%w: histogram: %v", ErrPlotInput, err)
	}
	mean := stat.Mean(values, nil)

	p := newPlot(title)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "users"
	p.X.Tick.Marker = plotTicks{}
	p.Y.Tick.Marker = plotTicks{whole: true}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = plotGridGrey
	// Empty bins would draw as a flat line along the axis.
	h := &plotter.Histogram{
		Bins:      slices.DeleteFunc(slices.Clone(bins), func(b plotter.HistogramBin) bool { return b.Weight == 0 }),
		Width:     width,
		FillColor: plotLightBlue,
		LineStyle: draw.LineStyle{Color: plotBlue, Width: vg.Points(0.6)},
	}
	zero := vLine{X: 0, Style: draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(3)}}}
	meanLine := vLine{X: mean, Style: draw.LineStyle{Color: plotRed, Width: vg.Points(1.6), Dashes: []vg.Length{vg.Points(7), vg.Points(3)}}}
	p.Add(grid, h, zero, meanLine)
	p.Legend.Add("mean "+plotNumber(mean), meanLine)
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = vg.Points(24)

	top := 0.0
	for _, b := range bins {
		top = math.Max(top, b.Weight)
	}
	lo, hi := bins[0].Min, bins[len(bins)-1].Max
	if len(bins) == 1 {
		v := (lo + hi) / 2
		lo, hi = v-histogramEqualSpan(v)/2, v+histogramEqualSpan(v)/2
	}
	p.X.Min, p.X.Max = math.Min(lo, 0), math.Max(hi, 0)
	pad := (p.X.Max - p.X.Min) * 0.02
	p.X.Min, p.X.Max = p.X.Min-pad, p.X.Max+pad
	// Headroom above the tallest bar keeps the legend off the bars.
	p.Y.Min, p.Y.Max = 0, top*1.15
	p.X.Padding = 0 // bars stand on the x axis
	return &Figure{plot: p, width: plotWidth, height: plotHeight}, nil
}

// histogramBins bins values as Histogram documents and returns the bins
// and their width.
func histogramBins(values []float64) ([]plotter.HistogramBin, float64, error) {
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	lo, hi := sorted[0], sorted[len(sorted)-1]
	if lo == hi {
		w := histogramEqualSpan(lo) / 20
		return []plotter.HistogramBin{{Min: lo - w/2, Max: lo + w/2, Weight: float64(len(values))}}, w, nil
	}
	n := float64(len(sorted))
	iqr := stat.Quantile(0.75, stat.LinInterp, sorted, nil) - stat.Quantile(0.25, stat.LinInterp, sorted, nil)
	k := math.Ceil(math.Log2(n)) + 1
	if iqr > 0 {
		k = math.Ceil((hi - lo) / (2 * iqr / math.Cbrt(n)))
	}
	k = math.Min(math.Max(k, plotMinBins), plotMaxBins)
	w := plotNiceStep((hi - lo) / k)
	if !plotFinite(w) || w == 0 || !plotFinite(hi/w-lo/w) {
		return nil, 0, fmt.Errorf("values from %v to %v cannot be binned", lo, hi)
	}
	// Bin j holds [(j − ½)·w, (j + ½)·w).
	bin := func(v float64) float64 { return math.Floor(v/w + 0.5) }
	first := bin(lo)
	bins := make([]plotter.HistogramBin, int(bin(hi)-first)+1)
	for i := range bins {
		bins[i].Min = (first + float64(i) - 0.5) * w
		bins[i].Max = (first + float64(i) + 0.5) * w
	}
	for _, v := range sorted {
		i := min(max(int(bin(v)-first), 0), len(bins)-1)
		bins[i].Weight++
	}
	return bins, w, nil
}

// histogramEqualSpan is the width of the x axis around values that are
// all v: their one bar is a twentieth of it.
func histogramEqualSpan(v float64) float64 { return math.Max(math.Abs(v)*0.2, 1) }

// plotNiceStep rounds w > 0 to the nearest, in ratio, of 1, 2, 2.5 and 5 times
// a power of ten.
func plotNiceStep(w float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(w)))
	best := e
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if math.Abs(math.Log(m*e/w)) < math.Abs(math.Log(best/w)) {
			best = m * e
		}
	}
	return best
}

// HistoryPoint is one run's value at a time. Low and High may both be NaN
// to draw the value without an interval.
type HistoryPoint struct {
	Run                 string
	Time                time.Time
	Estimate, Low, High float64
}

// History draws a metric's value across runs over time: time on the x axis
// with date tick labels in the first point's time zone, the metric on the
// y axis labelled ylabel, each value as a marker with a vertical interval
// bar, the values joined by a line in time order, and each marker labelled
// with its run name. Points at equal times keep their order.
//
// It returns an error wrapping ErrPlotInput when points is empty, an
// estimate is NaN or infinite, a bound is infinite, only one bound is NaN,
// or Low > High.
func History(title, ylabel string, points []HistoryPoint) (*Figure, error) {
	if len(points) == 0 {
		return nil, fmt.Errorf("%w: history: no points", ErrPlotInput)
	}
	for i, pt := range points {
		if !plotFinite(pt.Estimate) {
			return nil, fmt.Errorf("%w: history: point %d (run %q) has estimate %v", ErrPlotInput, i+1, pt.Run, pt.Estimate)
		}
		if err := plotCheckInterval(pt.Low, pt.High); err != nil {
			return nil, fmt.Errorf("%w: history: point %d (run %q): %v", ErrPlotInput, i+1, pt.Run, err)
		}
	}
	pts := slices.Clone(points)
	slices.SortStableFunc(pts, func(a, b HistoryPoint) int { return a.Time.Compare(b.Time) })
	loc := pts[0].Time.Location()

	p := newPlot(title)
	p.Y.Label.Text = ylabel
	p.Y.Tick.Marker = plotTicks{}
	p.X.Tick.Marker = timeTicks{loc: loc}
	p.X.Label.Text = "logged (" + pts[0].Time.Format("MST") + ")"
	if first, last := pts[0].Time, pts[len(pts)-1].Time; last.Sub(first) < 6*time.Hour {
		// Clock-time ticks: the date goes in the label.
		p.X.Label.Text = "logged on " + first.Format("2006-01-02 (MST)")
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = plotGridGrey
	marks := historyMarks{points: pts, label: p.X.Tick.Label}
	marks.label.Font = plotFont(plotSmallSize)
	marks.label.Color = plotDarkGrey
	p.Add(grid, marks)

	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		ylo, yhi = math.Min(ylo, pt.Estimate), math.Max(yhi, pt.Estimate)
		if !math.IsNaN(pt.Low) {
			ylo, yhi = math.Min(ylo, pt.Low), math.Max(yhi, pt.High)
		}
	}
	p.Y.Min, p.Y.Max = plotRange(ylo, yhi, 0.08)
	first, last := plotUnixSeconds(pts[0].Time), plotUnixSeconds(pts[len(pts)-1].Time)
	if first == last {
		p.X.Min, p.X.Max = first-43200, last+43200
	} else {
		p.X.Min, p.X.Max = plotRange(first, last, 0.04)
	}
	return &Figure{plot: p, width: plotWidth, height: plotHeight}, nil
}

// plotUnixSeconds is t as seconds since 1970 UTC.
func plotUnixSeconds(t time.Time) float64 {
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9
}

// historyMarks draws the line through the points, their intervals and
// markers, and the run names.
type historyMarks struct {
	points []HistoryPoint
	label  text.Style
}

// labelSpots are the styles that place a run name, with
// historyLabelOffset, relative to its marker, in order of preference:
// above right, below right, above left, below left.
func (m historyMarks) labelSpots() []text.Style {
	var spots []text.Style
	for _, s := range []struct {
		x draw.XAlignment
		y draw.YAlignment
	}{{draw.XLeft, draw.YBottom}, {draw.XLeft, draw.YTop}, {draw.XRight, draw.YBottom}, {draw.XRight, draw.YTop}} {
		st := m.label
		st.XAlign, st.YAlign = s.x, s.y
		spots = append(spots, st)
	}
	return spots
}

// historyLabelOffset moves a run name drawn with style s clear of its
// marker.
func historyLabelOffset(s text.Style) vg.Point {
	off := vg.Point{X: vg.Points(6), Y: vg.Points(3)}
	if s.XAlign == draw.XRight {
		off.X = -off.X
	}
	if s.YAlign == draw.YTop {
		off.Y = -off.Y
	}
	return off
}

func (m historyMarks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	line := make([]vg.Point, len(m.points))
	for i, pt := range m.points {
		line[i] = vg.Point{X: trX(plotUnixSeconds(pt.Time)), Y: trY(pt.Estimate)}
	}
	style := draw.LineStyle{Color: plotBlue, Width: vg.Points(1.2)}
	c.StrokeLines(style, line)
	capW := vg.Points(3.5)
	// Everything a run name should not cover: the line, the interval
	// bars and the markers.
	var segments [][2]vg.Point
	for i := 1; i < len(line); i++ {
		segments = append(segments, [2]vg.Point{line[i-1], line[i]})
	}
	for i, pt := range m.points {
		if math.IsNaN(pt.Low) {
			continue
		}
		x, y0, y1 := line[i].X, trY(pt.Low), trY(pt.High)
		c.StrokeLine2(style, x, y0, x, y1)
		c.StrokeLine2(style, x-capW, y0, x+capW, y0)
		c.StrokeLine2(style, x-capW, y1, x+capW, y1)
		segments = append(segments, [2]vg.Point{{X: x, Y: y0}, {X: x, Y: y1}},
			[2]vg.Point{{X: x - capW, Y: y0}, {X: x + capW, Y: y0}}, [2]vg.Point{{X: x - capW, Y: y1}, {X: x + capW, Y: y1}})
	}
	r := vg.Points(4)
	taken := make([]vg.Rectangle, len(line))
	for i, pt := range line {
		c.DrawGlyph(draw.GlyphStyle{Color: color.White, Radius: r, Shape: draw.CircleGlyph{}}, pt)
		c.DrawGlyph(draw.GlyphStyle{Color: plotBlue, Radius: vg.Points(3.2), Shape: draw.CircleGlyph{}}, pt)
		taken[i] = vg.Rectangle{Min: vg.Point{X: pt.X - r, Y: pt.Y - r}, Max: vg.Point{X: pt.X + r, Y: pt.Y + r}}
	}
	// Each name goes to the first spot that covers the fewest things;
	// spots on the left must stay inside the data area, which the plot
	// has only widened for names on the right.
	for i, pt := range m.points {
		var best text.Style
		var bestAt vg.Point
		var bestRect vg.Rectangle
		bestScore := math.Inf(1)
		for j, s := range m.labelSpots() {
			at := line[i].Add(historyLabelOffset(s))
			rect := s.Rectangle(pt.Run).Add(at)
			score := 0.1 * float64(j/2)
			if j >= 2 && rect.Min.X < c.Min.X {
				score += 100
			}
			for _, seg := range segments {
				if plotSegmentHitsRect(seg[0], seg[1], rect) {
					score++
				}
			}
			for _, t := range taken {
				if plotRectsOverlap(t, rect) {
					score += 2
				}
			}
			if score < bestScore {
				best, bestAt, bestRect, bestScore = s, at, rect, score
			}
		}
		if bestScore >= 1 {
			// Whatever the name still crosses goes behind a white halo.
			pad := vg.Point{X: vg.Points(1), Y: vg.Points(1)}
			c.SetColor(color.White)
			c.Fill(vg.Rectangle{Min: bestRect.Min.Sub(pad), Max: bestRect.Max.Add(pad)}.Path())
		}
		c.FillText(best, bestAt, pt.Run)
		taken = append(taken, bestRect)
	}
}

// GlyphBoxes reserves room for run names above or below and to the right
// of their markers, so that none is cut off at the edge of the plot.
func (m historyMarks) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	var boxes []plot.GlyphBox
	for _, pt := range m.points {
		for _, s := range m.labelSpots()[:2] {
			boxes = append(boxes, plot.GlyphBox{
				X:         p.X.Norm(plotUnixSeconds(pt.Time)),
				Y:         p.Y.Norm(pt.Estimate),
				Rectangle: s.Rectangle(pt.Run).Add(historyLabelOffset(s)),
			})
		}
	}
	return boxes
}

// plotSegmentHitsRect reports whether the segment from a to b crosses or lies
// in r (Liang–Barsky clipping).
func plotSegmentHitsRect(a, b vg.Point, r vg.Rectangle) bool {
	t0, t1 := 0.0, 1.0
	dx, dy := float64(b.X-a.X), float64(b.Y-a.Y)
	for _, e := range [4][2]float64{
		{-dx, float64(a.X - r.Min.X)},
		{dx, float64(r.Max.X - a.X)},
		{-dy, float64(a.Y - r.Min.Y)},
		{dy, float64(r.Max.Y - a.Y)},
	} {
		p, q := e[0], e[1]
		switch {
		case p == 0:
			if q < 0 {
				return false
			}
		case p < 0:
			t0 = math.Max(t0, q/p)
		default:
			t1 = math.Min(t1, q/p)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// plotRectsOverlap reports whether a and b share any area.
func plotRectsOverlap(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}

// timeTicks labels a time axis (Unix seconds) at round calendar times in
// loc: hours, days, weeks, months or years, whichever gives at most eight
// ticks, formatted to match.
type timeTicks struct{ loc *time.Location }

// timeStep is one spacing timeTicks may use.
type timeStep struct {
	approx  time.Duration
	years   int
	months  int
	days    int
	clock   time.Duration // seconds, minutes or hours
	layout  string
	startOf func(time.Time) time.Time
}

var timeSteps = func() []timeStep {
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location()) }
	month := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, t.Location()) }
	year := func(t time.Time) time.Time { return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, t.Location()) }
	var steps []timeStep
	for _, ms := range []int{10, 20, 50, 100, 200, 500} {
		d := time.Duration(ms) * time.Millisecond
		steps = append(steps, timeStep{approx: d, clock: d, layout: "15:04:05.00", startOf: func(t time.Time) time.Time { return t.Truncate(time.Second) }})
	}
	for _, sec := range []int{1, 2, 5, 10, 15, 30} {
		d := time.Duration(sec) * time.Second
		steps = append(steps, timeStep{approx: d, clock: d, layout: "15:04:05", startOf: func(t time.Time) time.Time { return t.Truncate(time.Minute) }})
	}
	for _, m := range []int{1, 2, 5, 10, 15, 30} {
		d := time.Duration(m) * time.Minute
		steps = append(steps, timeStep{approx: d, clock: d, layout: "15:04", startOf: func(t time.Time) time.Time { return t.Truncate(time.Hour) }})
	}
	for _, h := range []int{1, 2, 3, 6, 12} {
		d := time.Duration(h) * time.Hour
		steps = append(steps, timeStep{approx: d, clock: d, layout: "Jan 2 15:04", startOf: day})
	}
	for _, d := range []int{1, 2, 3, 7, 14} {
		steps = append(steps, timeStep{approx: time.Duration(d) * 24 * time.Hour, days: d, layout: "2006-01-02", startOf: day})
	}
	for _, m := range []int{1, 2, 3, 6} {
		steps = append(steps, timeStep{approx: time.Duration(m) * 30 * 24 * time.Hour, months: m, layout: "Jan 2006", startOf: month})
	}
	for _, y := range []int{1, 2, 5, 10, 20, 50, 100} {
		steps = append(steps, timeStep{approx: time.Duration(y) * 365 * 24 * time.Hour, years: y, layout: "2006", startOf: year})
	}
	return steps
}()

func (t timeTicks) Ticks(lo, hi float64) []plot.Tick {
	const most = 8
	step := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if (hi-lo)/s.approx.Seconds() < most {
			step = s
			break
		}
	}
	toTime := func(v float64) time.Time { return time.Unix(int64(math.Floor(v)), 0).In(t.loc) }
	start := step.startOf(toTime(lo))
	if step.years > 1 {
		start = time.Date(start.Year()-start.Year()%step.years, 1, 1, 0, 0, 0, 0, t.loc)
	}
	var ticks []plot.Tick
	for tm := start; plotUnixSeconds(tm) <= hi; tm = tm.AddDate(step.years, step.months, step.days).Add(step.clock) {
		if v := plotUnixSeconds(tm); v >= lo {
			ticks = append(ticks, plot.Tick{Value: v, Label: tm.Format(step.layout)})
		}
	}
	return ticks
}
