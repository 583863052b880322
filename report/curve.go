package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/verdict-ml/verdict/compare"
)

// Curve writes a training curve in format: a row per run and step with
// the mean and its interval (table, markdown), the same with every number
// (csv), or the whole curve (json).
func Curve(w io.Writer, format string, c *compare.TrainingCurve) error {
	switch format {
	case "json":
		return WriteJSON(w, c)
	case "csv":
		return curveCSV(c).CSV(w)
	}
	dir := "higher is better"
	if c.LowerIsBetter {
		dir = "lower is better"
	}
	fmt.Fprintf(w, "%s on %s (%s) by step; %g%% bootstrap intervals\n\n", Printable(c.Metric), Printable(c.EvalSet), dir, 100*c.Confidence)
	return CurveTable(c).Write(w, format)
}

// CurveTable is the curve's points, each run's by step.
func CurveTable(c *compare.TrainingCurve) *Table {
	t := &Table{Header: []string{"RUN", "STEP", strings.ToUpper(c.Metric) + " [CI]", "UNITS", "LOGGED"}, Right: map[int]bool{1: true, 2: true, 3: true}}
	for _, p := range c.Points {
		mean := Interval(p.Mean, p.Low, p.High, false)
		if math.IsNaN(p.Low) {
			mean = Num(p.Mean) + " (aggregates only)"
		}
		t.Add(p.Run, strconv.FormatInt(p.Step, 10), mean, strconv.FormatInt(p.Units, 10), p.LoggedAt.Local().Format("2006-01-02 15:04"))
	}
	return t
}

func curveCSV(c *compare.TrainingCurve) *Table {
	t := &Table{Header: []string{"run", "step", "evaluation_id", "metric", "mean", "mean_ci_low", "mean_ci_high", "confidence", "n_units", "logged_at"}}
	for _, p := range c.Points {
		row := []string{p.Run, strconv.FormatInt(p.Step, 10), strconv.FormatInt(p.EvaluationID, 10), c.Metric}
		row = append(row, CSVInterval(p.Mean, p.Low, p.High)...)
		t.Add(append(row, CSVNum(c.Confidence), strconv.FormatInt(p.Units, 10), CSVTime(p.LoggedAt))...)
	}
	return t
}

// curveColors tell the runs apart, in the order they were asked for.
var curveColors = []color.Color{plotBlue, plotRed, plotGood,
	color.RGBA{R: 0x8e, G: 0x44, B: 0xad, A: 0xff}, color.RGBA{R: 0xd3, G: 0x7a, B: 0x00, A: 0xff}, plotDarkGrey}

// CurvePlot draws the curve: the step on the x axis, the metric on the y
// axis, one line per run through its means with each mean's interval as an
// error bar, and a legend of the runs.
func CurvePlot(c *compare.TrainingCurve) (*Figure, error) {
	if len(c.Points) == 0 {
		return nil, fmt.Errorf("%w: no step to draw", ErrNothingToPlot)
	}
	p := NewPlot(fmt.Sprintf("%s on %s by step", c.Metric, c.EvalSet))
	p.X.Label.Text = "step"
	p.Y.Label.Text = fmt.Sprintf("%s (%g%% bootstrap CI)", c.Metric, 100*c.Confidence)
	p.X.Tick.Marker = PlotTicks{whole: true}
	p.Y.Tick.Marker = PlotTicks{}
	p.Legend.Top, p.Legend.Left = true, false
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = PlotGridGrey
	p.Add(grid)
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i, run := range c.Runs {
		var line plotter.XYs
		var bars plotter.YErrors
		var barXYs plotter.XYs
		for _, pt := range c.Points {
			if pt.Run != run {
				continue
			}
			if !plotFinite(pt.Mean) {
				return nil, fmt.Errorf("%w: curve: run %q at step %d has mean %v", ErrPlotInput, run, pt.Step, pt.Mean)
			}
			x := float64(pt.Step)
			line = append(line, plotter.XY{X: x, Y: pt.Mean})
			xlo, xhi, ylo, yhi = math.Min(xlo, x), math.Max(xhi, x), math.Min(ylo, pt.Mean), math.Max(yhi, pt.Mean)
			if plotFinite(pt.Low) && plotFinite(pt.High) {
				barXYs = append(barXYs, plotter.XY{X: x, Y: pt.Mean})
				bars = append(bars, struct{ Low, High float64 }{pt.Mean - pt.Low, pt.High - pt.Mean})
				ylo, yhi = math.Min(ylo, pt.Low), math.Max(yhi, pt.High)
			}
		}
		if len(line) == 0 {
			continue
		}
		col := curveColors[i%len(curveColors)]
		l, s, err := plotter.NewLinePoints(line)
		if err != nil {
			return nil, fmt.Errorf("%w: curve: %v", ErrPlotInput, err)
		}
		l.Color, l.Width = col, vg.Points(1.5)
		s.Color, s.Shape, s.Radius = col, draw.CircleGlyph{}, vg.Points(2.5)
		p.Add(l, s)
		if len(bars) > 0 {
			eb, err := plotter.NewYErrorBars(struct {
				plotter.XYer
				plotter.YErrorer
			}{barXYs, bars})
			if err != nil {
				return nil, fmt.Errorf("%w: curve: %v", ErrPlotInput, err)
			}
			eb.Color, eb.Width, eb.CapWidth = col, vg.Points(1), vg.Points(5)
			p.Add(eb)
		}
		p.Legend.Add(run, l, s)
	}
	p.Y.Min, p.Y.Max = PlotRange(ylo, yhi, 0.08)
	if xlo == xhi {
		p.X.Min, p.X.Max = xlo-1, xhi+1
	} else {
		p.X.Min, p.X.Max = PlotRange(xlo, xhi, 0.04)
	}
	return NewFigure(p), nil
}
