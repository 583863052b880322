package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
// bar, the values of each run joined by a line of its own in time order
// (no line joins one run to another: a run with one value is a marker
// alone), and each marker labelled with its run name. Points at equal
// times keep their order.
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
		if err := CheckPlotInterval(pt.Low, pt.High); err != nil {
			return nil, fmt.Errorf("%w: history: point %d (run %q): %v", ErrPlotInput, i+1, pt.Run, err)
		}
	}
	pts := slices.Clone(points)
	slices.SortStableFunc(pts, func(a, b HistoryPoint) int { return a.Time.Compare(b.Time) })
	loc := pts[0].Time.Location()

	p := NewPlot(title)
	p.Y.Label.Text = ylabel
	p.Y.Tick.Marker = PlotTicks{}
	p.X.Tick.Marker = timeTicks{loc: loc}
	p.X.Label.Text = "logged (" + pts[0].Time.Format("MST") + ")"
	if first, last := pts[0].Time, pts[len(pts)-1].Time; last.Sub(first) < 6*time.Hour {
		// Clock-time ticks: the date goes in the label.
		p.X.Label.Text = "logged on " + first.Format("2006-01-02 (MST)")
	}
	grid := plotter.NewGrid()
	grid.Vertical.Color = nil
	grid.Horizontal.Color = PlotGridGrey
	marks := historyMarks{points: pts, label: p.X.Tick.Label}
	marks.label.Font = plotFont(PlotSmallSize)
	marks.label.Color = plotDarkGrey
	p.Add(grid, marks)

	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		ylo, yhi = math.Min(ylo, pt.Estimate), math.Max(yhi, pt.Estimate)
		if !math.IsNaN(pt.Low) {
			ylo, yhi = math.Min(ylo, pt.Low), math.Max(yhi, pt.High)
		}
	}
	p.Y.Min, p.Y.Max = PlotRange(ylo, yhi, 0.08)
	first, last := plotUnixSeconds(pts[0].Time), plotUnixSeconds(pts[len(pts)-1].Time)
	if first == last {
		p.X.Min, p.X.Max = first-43200, last+43200
	} else {
		p.X.Min, p.X.Max = PlotRange(first, last, 0.04)
	}
	return NewFigure(p), nil
}

// plotUnixSeconds is t as seconds since 1970 UTC.
func plotUnixSeconds(t time.Time) float64 {
	return float64(t.Unix()) + float64(t.Nanosecond())/1e9
}

// historyMarks draws each run's line through its points, their intervals
// and markers, and the run names.
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
	// Each run's values in time order make its line; different runs are
	// not joined, since a line between them would read as one series.
	byRun := map[string][]vg.Point{}
	var order []string
	for i, pt := range m.points {
		if _, ok := byRun[pt.Run]; !ok {
			order = append(order, pt.Run)
		}
		byRun[pt.Run] = append(byRun[pt.Run], line[i])
	}
	capW := vg.Points(3.5)
	// Everything a run name should not cover: the lines, the interval
	// bars and the markers.
	var segments [][2]vg.Point
	for _, run := range order {
		pts := byRun[run]
		if len(pts) > 1 {
			c.StrokeLines(style, pts)
		}
		for i := 1; i < len(pts); i++ {
			segments = append(segments, [2]vg.Point{pts[i-1], pts[i]})
		}
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
