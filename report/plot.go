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
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
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
	plotPNGDPI      = 150
	plotSVGFamily   = "font-family:Liberation Sans;"
	plotSVGFallback = "font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"
)

// PlotSmallSize is the text size, in points, of values written on the data
// area, such as a point's label; the tick labels of a plot from NewPlot are
// a point larger.
const PlotSmallSize = 9

// Colours: black for what a reader must see, a blue for data, grey for what
// is de-emphasised and for the grid.
var (
	plotBlue      = color.RGBA{R: 0x2c, G: 0x5d, B: 0x9e, A: 0xff}
	plotLightBlue = color.RGBA{R: 0xa6, G: 0xc0, B: 0xe0, A: 0xff}
	plotRed       = color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff}
	plotGrey      = color.Gray{Y: 0x8c}
	plotDarkGrey  = color.Gray{Y: 0x50}
	plotGood      = color.RGBA{R: 0x1a, G: 0x7f, B: 0x37, A: 0xff} // a better side
)

// PlotGridGrey is the colour of the grid lines behind the data.
var PlotGridGrey = color.Gray{Y: 0xdc}

// Figure is a plot ready to write as SVG or PNG. Its size is fixed when it
// is made: 8 × 4.5 inches for most plots, taller for forest plots and
// critical-difference diagrams with many rows.
type Figure struct {
	plot          *plot.Plot
	width, height vg.Length
}

// NewFigure returns p as a figure of the house size, 8 × 4.5 inches. A
// plot from NewPlot, drawn outside report, then writes like report's own.
func NewFigure(p *plot.Plot) *Figure {
	return &Figure{plot: p, width: plotWidth, height: plotHeight}
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

// NewPlot returns a plot with the title set and the house font and text
// sizes: the title 14pt, axis labels 11pt, tick labels and the legend
// 10pt, all in Liberation Sans.
func NewPlot(title string) *plot.Plot {
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

// PlotNumber formats v to three significant digits without an exponent
// for magnitudes from 1e-4 to 1e6: 0.0123, 1.23, 123, 12346.
func PlotNumber(v float64) string {
	a := math.Abs(v)
	if v == 0 || a < 1e-4 || a >= 1e6 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', max(0, 2-int(math.Floor(math.Log10(a)))), 64)
}

// PlotRange returns lo and hi widened by frac of their span on each side;
// an empty span becomes the value ± the larger of 1 and 10% of it.
func PlotRange(lo, hi, frac float64) (float64, float64) {
	if hi <= lo {
		d := math.Max(math.Abs(lo)*0.1, 1)
		return lo - d, hi + d
	}
	d := (hi - lo) * frac
	return lo - d, hi + d
}

// PlotTicks labels a numeric axis about six times, at multiples of 1, 2,
// 2.5 or 5 times a power of ten, every label with the same number of
// decimals (0.10, 0.12, 0.14, not 0.1, 0.12, 0.14), with an unlabelled
// tick half way between labels. It is a plot.Ticker; the zero value ticks
// any range, and report's count axes set whole, which keeps the step at
// least 1: a count has no halves.
type PlotTicks struct{ whole bool }

func (t PlotTicks) Ticks(lo, hi float64) []plot.Tick {
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

// CheckPlotInterval returns an error for a bound pair that is neither two
// NaNs (no interval) nor two finite numbers with low ≤ high, and nil
// otherwise. The error names the bounds; the caller adds which point.
func CheckPlotInterval(low, high float64) error {
	switch {
	case math.IsNaN(low) && math.IsNaN(high):
		return nil
	case math.IsNaN(low) || math.IsNaN(high):
		return fmt.Errorf("interval [%v, %v] has one bound NaN; give both or neither", low, high)
	case !plotFinite(low) || !plotFinite(high):
		return fmt.Errorf("interval [%v, %v] is not finite", low, high)
	case low > high:
		return fmt.Errorf("interval [%v, %v] has its low bound above its high bound", low, high)
	}
	return nil
}

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
