package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/verdict-ml/verdict/report"
)

// plotGrowth draws the growth of each command's time and peak memory with
// the units, on log-log axes, to growth-time.svg and growth-memory.svg in
// dir.
func plotGrowth(growth []Growth, dir string) error {
	if len(growth) == 0 {
		return fmt.Errorf("no growth figures to plot: run the growth benchmark (bench/all without --quick)")
	}
	var works []string
	for _, g := range growth {
		if !slices.Contains(works, g.Work) {
			works = append(works, g.Work)
		}
	}
	colors := []color.Color{color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff}, color.RGBA{0x2c, 0xa0, 0x2c, 0xff}}
	for _, panel := range []struct {
		file, title, ylabel string
		value               func(Growth) float64
	}{
		{"growth-time.svg", "Time with the units, median of the rounds", "seconds", func(g Growth) float64 { return g.Seconds }},
		{"growth-memory.svg", "Peak memory with the units", "peak RSS, MB", func(g Growth) float64 { return g.PeakMB }},
	} {
		p := report.NewPlot(panel.title)
		p.X.Label.Text, p.Y.Label.Text = "units (users) per evaluation", panel.ylabel
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 1e5, Label: "100k"}, {Value: 3e5, Label: "300k"},
			{Value: 1e6, Label: "1M"}, {Value: 3e6, Label: "3M"}, {Value: 1e7, Label: "10M"}})
		p.Y.Tick.Marker = plot.TickerFunc(oneTwoFive)
		p.Legend.Top, p.Legend.Left = true, true
		for i, w := range works {
			var xy plotter.XYs
			for _, g := range growth {
				if g.Work == w && panel.value(g) > 0 {
					xy = append(xy, plotter.XY{X: float64(g.Units), Y: panel.value(g)})
				}
			}
			line, points, err := plotter.NewLinePoints(xy)
			if err != nil {
				return err
			}
			line.Color, points.Color = colors[i%len(colors)], colors[i%len(colors)]
			line.Width = vg.Points(1.5)
			points.Shape, points.Radius = draw.CircleGlyph{}, vg.Points(3)
			p.Add(line, points)
			p.Legend.Add(w, line, points)
		}
		if err := report.NewFigure(p).Save(filepath.Join(dir, panel.file)); err != nil {
			return err
		}
	}
	return nil
}

// oneTwoFive labels a log axis at 1, 2 and 5 times each power of ten in
// [lo, hi]: 0.1, 0.2, 0.5, 1, 2, 5, 10, ...
func oneTwoFive(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for p := math.Pow(10, math.Floor(math.Log10(lo))); p <= hi; p *= 10 {
		for _, m := range []float64{1, 2, 5} {
			if v := m * p; v >= lo && v <= hi {
				ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 3, 64)})
			}
		}
	}
	return ticks
}
