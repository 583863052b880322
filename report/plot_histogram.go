package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The number of bins Histogram keeps the Freedman–Diaconis count within.
const (
	plotMaxBins = 60
	plotMinBins = 10
)

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

	p := NewPlot(title)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "users"
	p.X.Tick.Marker = PlotTicks{}
	p.Y.Tick.Marker = PlotTicks{whole: true}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = PlotGridGrey
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
	p.Legend.Add("mean "+PlotNumber(mean), meanLine)
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
	return NewFigure(p), nil
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
