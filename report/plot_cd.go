package report

import (
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// CriticalDifference draws a critical-difference diagram in the style of
// Demšar (2006), "Statistical comparisons of classifiers over multiple
// data sets", JMLR 7:1–30.
//
// An axis of average ranks runs from 1 (best, on the left) to k, the number
// of runs, labelled "average rank (1 = best)". Each run is a point on the
// axis from which a leader line drops and turns outwards to the run's name
// and average rank: the better half of the runs (the first ⌈k/2⌉ by rank)
// on the left, the worse half on the right, ordered so that no two leader
// lines cross. Above the axis, a bar from rank 1 as long as the critical
// difference cd is labelled "CD = 0.83"; it is left out when cd is NaN,
// zero or +Inf, and is cut at the end of the axis when cd is longer than
// the axis. Below the axis, each clique (a list of run names, typically
// runs whose ranks differ by less than cd) is a thick bar joining its
// runs, one clique per bar, in the order given; a clique of fewer than two
// runs draws nothing.
//
// The figure is at least 8 inches wide, wider when run names are long, and
// as high as its rows need.
//
// It returns an error wrapping ErrPlotInput when there are fewer than two
// runs, names and avgRanks differ in length, a name is empty or repeated,
// an average rank is not a number within [1, k], cd is negative, or a
// clique names a run that is not in names.
func CriticalDifference(title string, names []string, avgRanks []float64, cd float64, cliques [][]string) (*Figure, error) {
	const where = "critical difference diagram"
	if len(names) != len(avgRanks) {
		return nil, fmt.Errorf("%w: %s: %d run names but %d average ranks", ErrPlotInput, where, len(names), len(avgRanks))
	}
	k := len(names)
	if k < 2 {
		return nil, fmt.Errorf("%w: %s: %d runs; it needs at least 2", ErrPlotInput, where, k)
	}
	index := make(map[string]int, k)
	for i, n := range names {
		if n == "" {
			return nil, fmt.Errorf("%w: %s: run %d has an empty name", ErrPlotInput, where, i+1)
		}
		if j, dup := index[n]; dup {
			return nil, fmt.Errorf("%w: %s: runs %d and %d are both named %q", ErrPlotInput, where, j+1, i+1, n)
		}
		index[n] = i
	}
	// Average ranks over blocks are exact multiples of 1/(2N); the slack
	// only absorbs rounding in their sum.
	const slack = 1e-9
	for i, r := range avgRanks {
		if math.IsNaN(r) || r < 1-slack || r > float64(k)+slack {
			return nil, fmt.Errorf("%w: %s: run %q has average rank %v, outside 1 to %d", ErrPlotInput, where, names[i], r, k)
		}
	}
	if cd < 0 {
		return nil, fmt.Errorf("%w: %s: critical difference %v is negative", ErrPlotInput, where, cd)
	}
	var bars [][2]float64
	for ci, cl := range cliques {
		lo, hi := math.Inf(1), math.Inf(-1)
		runs := map[string]bool{}
		for _, n := range cl {
			i, ok := index[n]
			if !ok {
				return nil, fmt.Errorf("%w: %s: clique %d names run %q, which is not among the runs", ErrPlotInput, where, ci+1, n)
			}
			lo, hi = math.Min(lo, avgRanks[i]), math.Max(hi, avgRanks[i])
			runs[n] = true
		}
		if len(runs) >= 2 {
			bars = append(bars, [2]float64{lo, hi})
		}
	}

	d := &cdDiagram{k: k, cd: cd, bars: bars}
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(avgRanks[a], avgRanks[b]) })
	nLeft := (k + 1) / 2
	for j, i := range order {
		l := cdLabel{name: names[i], rank: avgRanks[i], rankText: strconv.FormatFloat(avgRanks[i], 'f', 2, 64)}
		if j < nLeft {
			l.row = j
			d.left = append(d.left, l)
		} else {
			l.row = k - 1 - j
			d.right = append(d.right, l)
		}
	}

	p := NewPlot(title)
	p.HideAxes()
	p.X.Padding, p.Y.Padding = 0, 0
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1 // unused: the diagram lays itself out
	p.Add(d)
	width := max(plotWidth, d.sideWidth(d.left)+d.sideWidth(d.right)+2*d.stub()+3.5*vg.Inch+2*plotMargin)
	height := d.layout().bottom + 2*plotMargin
	if title != "" {
		height += p.Title.TextStyle.Rectangle(title).Size().Y + p.Title.Padding
	}
	return &Figure{plot: p, width: width, height: height}, nil
}

// cdDiagram draws the critical-difference diagram across its whole canvas.
type cdDiagram struct {
	k           int
	cd          float64
	bars        [][2]float64 // the lowest and highest rank in each clique
	left, right []cdLabel
}

// cdLabel is one run's label: row 0 is the one nearest the axis.
type cdLabel struct {
	name, rankText string
	rank           float64
	row            int
}

// cdLayout holds vertical positions measured down from the top of the
// diagram.
type cdLayout struct {
	cdText, cdBar, axisLabel, tickLabel, axis, bar0, row0, rowGap, bottom vg.Length
}

func (d *cdDiagram) showCD() bool { return d.cd > 0 && !math.IsInf(d.cd, 1) }

func (d *cdDiagram) style(size vg.Length) text.Style {
	return text.Style{Color: color.Black, Font: plotFont(size), Handler: plot.DefaultTextHandler}
}

// stub is the shortest horizontal run of a leader line, between the axis
// end and the label text.
func (d *cdDiagram) stub() vg.Length { return vg.Points(16) }

// gap separates a leader line from its text, and a name from its rank.
func (d *cdDiagram) gap() vg.Length { return vg.Points(5) }

func (d *cdDiagram) sideWidth(labels []cdLabel) vg.Length {
	s := d.style(plotTickSize)
	var names, ranks vg.Length
	for _, l := range labels {
		names = max(names, s.Width(l.name))
		ranks = max(ranks, s.Width(l.rankText))
	}
	return names + d.gap() + ranks + d.gap()
}

func (d *cdDiagram) layout() cdLayout {
	tick := d.style(plotTickSize).Height("0")
	label := d.style(plotLabelSize).Height("0")
	var o cdLayout
	y := vg.Points(2)
	if d.showCD() {
		o.cdText = y
		y += tick + vg.Points(4)
		o.cdBar = y
		y += vg.Points(12)
	}
	o.axisLabel = y
	y += label + vg.Points(6)
	o.tickLabel = y
	y += tick + vg.Points(3)
	o.axis = y + cdTickLen
	y = o.axis + vg.Points(10)
	o.bar0 = y
	if len(d.bars) > 0 {
		y += vg.Length(len(d.bars)-1)*cdBarGap + vg.Points(10)
	}
	o.rowGap = vg.Points(18)
	o.row0 = y + o.rowGap/2
	o.bottom = o.row0 + vg.Length((d.k+1)/2-1)*o.rowGap + o.rowGap/2 + vg.Points(4)
	return o
}

const (
	cdTickLen = vg.Length(5)
	cdBarGap  = vg.Length(7)
)

func (d *cdDiagram) Plot(c draw.Canvas, _ *plot.Plot) {
	o := d.layout()
	at := func(off vg.Length) vg.Length { return c.Max.Y - off }
	x0 := c.Min.X + d.sideWidth(d.left) + d.stub()
	x1 := c.Max.X - d.sideWidth(d.right) - d.stub()
	xOf := func(r float64) vg.Length { return x0 + (x1-x0)*vg.Length((r-1)/float64(d.k-1)) }
	black := func(w vg.Length) draw.LineStyle { return draw.LineStyle{Color: color.Black, Width: w} }

	tickStyle := d.style(plotTickSize)
	if d.showCD() {
		end, cut := 1+d.cd, 1+d.cd > float64(d.k)
		if cut {
			end = float64(d.k)
		}
		y := at(o.cdBar)
		s := tickStyle
		s.XAlign, s.YAlign = draw.XCenter, draw.YTop
		c.FillText(s, vg.Point{X: (xOf(1) + xOf(end)) / 2, Y: at(o.cdText)}, "CD = "+cdNumber(d.cd))
		c.StrokeLine2(black(vg.Points(1.2)), xOf(1), y, xOf(end), y)
		c.StrokeLine2(black(vg.Points(1.2)), xOf(1), y-vg.Points(3), xOf(1), y+vg.Points(3))
		if !cut {
			c.StrokeLine2(black(vg.Points(1.2)), xOf(end), y-vg.Points(3), xOf(end), y+vg.Points(3))
		}
	}

	ls := d.style(plotLabelSize)
	ls.XAlign, ls.YAlign = draw.XCenter, draw.YTop
	c.FillText(ls, vg.Point{X: (x0 + x1) / 2, Y: at(o.axisLabel)}, "average rank (1 = best)")

	ya := at(o.axis)
	c.StrokeLine2(black(vg.Points(1)), x0, ya, x1, ya)
	step := 1
	perRank := (x1 - x0) / vg.Length(d.k-1)
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000} {
		step = s
		if perRank*vg.Length(s) >= 0.3*vg.Inch {
			break
		}
	}
	ts := tickStyle
	ts.XAlign, ts.YAlign = draw.XCenter, draw.YTop
	for r := 1; r <= d.k; r++ {
		x := xOf(float64(r))
		if r == 1 || r%step == 0 {
			c.StrokeLine2(black(vg.Points(1)), x, ya, x, ya+cdTickLen)
			c.FillText(ts, vg.Point{X: x, Y: at(o.tickLabel)}, strconv.Itoa(r))
		} else {
			c.StrokeLine2(black(vg.Points(0.8)), x, ya, x, ya+cdTickLen/2)
		}
		if step == 1 && r < d.k {
			xm := xOf(float64(r) + 0.5)
			c.StrokeLine2(black(vg.Points(0.8)), xm, ya, xm, ya+cdTickLen/2)
		}
	}

	leader := black(vg.Points(0.8))
	name, rank := tickStyle, tickStyle
	rank.Color = plotDarkGrey
	for _, side := range []struct {
		labels []cdLabel
		end    vg.Length // where the horizontal leader lines stop
		dir    vg.Length // -1 for the left side, +1 for the right
	}{
		{d.left, x0 - d.stub(), -1},
		{d.right, x1 + d.stub(), 1},
	} {
		rankW := vg.Length(0)
		for _, l := range side.labels {
			rankW = max(rankW, tickStyle.Width(l.rankText))
		}
		name.YAlign, rank.YAlign = draw.YCenter, draw.YCenter
		if side.dir < 0 {
			name.XAlign, rank.XAlign = draw.XRight, draw.XRight
		} else {
			name.XAlign, rank.XAlign = draw.XLeft, draw.XLeft
		}
		xRank := side.end + side.dir*d.gap()
		xName := xRank + side.dir*(rankW+d.gap())
		for _, l := range side.labels {
			x, y := xOf(l.rank), at(o.row0+vg.Length(l.row)*o.rowGap)
			c.StrokeLines(leader, []vg.Point{{X: x, Y: ya}, {X: x, Y: y}, {X: side.end, Y: y}})
			c.FillText(rank, vg.Point{X: xRank, Y: y}, l.rankText)
			c.FillText(name, vg.Point{X: xName, Y: y}, l.name)
		}
	}

	// Clique bars go over the leader lines, reaching a little past their
	// outermost runs so that a bar over two tied runs still shows.
	for i, b := range d.bars {
		y := at(o.bar0 + vg.Length(i)*cdBarGap)
		c.StrokeLine2(black(vg.Points(3)), xOf(b[0])-vg.Points(4), y, xOf(b[1])+vg.Points(4), y)
	}
}

// cdNumber formats a critical difference to two decimals, or two
// significant digits below 0.1.
func cdNumber(v float64) string {
	if v < 0.1 {
		return strconv.FormatFloat(v, 'g', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
