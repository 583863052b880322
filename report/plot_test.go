package report

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// plotCases builds one figure of each kind from realistic values, with the
// words each must show as text.
func plotCases(t *testing.T) []struct {
	name  string
	fig   *Figure
	words []string
} {
	t.Helper()
	// Average ranks and CD as verdict rank reports them; the clique is
	// every run, since 2.3 − 1.6 < 0.83.
	cd, err := CriticalDifference("nDCG@10 over 6040 users",
		[]string{"popularity", "item-knn", "recent-popularity"},
		[]float64{2.3, 1.6, 2.1}, 0.83,
		[][]string{{"item-knn", "recent-popularity", "popularity"}})
	require.NoError(t, err)

	// Seven runs, Nemenyi CD for k = 7, N = 30 at alpha 0.05:
	// q = 2.949, CD = 2.949·√(7·8/(6·30)) = 1.645.
	sevenNames := []string{"ease", "item-knn", "user-knn", "bpr-mf", "recent-popularity", "popularity", "random"}
	cd7, err := CriticalDifference("recall@20 over 30 folds", sevenNames,
		[]float64{1.45, 2.2, 2.9, 3.35, 4.6, 5.1, 6.4}, 1.645,
		[][]string{{"ease", "item-knn", "user-knn"}, {"item-knn", "user-knn", "bpr-mf"}, {"user-knn", "bpr-mf", "recent-popularity"}, {"recent-popularity", "popularity"}, {"popularity", "random"}})
	require.NoError(t, err)

	forest, err := Forest("nDCG@10 difference from popularity", "difference in nDCG@10 (95% CI)", []ForestRow{
		{Label: "item-knn", Estimate: 0.0412, Low: 0.0351, High: 0.0476, Distinguishable: true},
		{Label: "recent-popularity", Estimate: 0.0048, Low: -0.0011, High: 0.0103},
		{Label: "user-knn", Estimate: -0.0127, Low: -0.0190, High: -0.0066, Distinguishable: true},
	})
	require.NoError(t, err)

	// Per-user differences: mostly ties, a skewed tail (seeded).
	rng := rand.New(rand.NewPCG(1, 2))
	diffs := make([]float64, 2000)
	for i := range diffs {
		if rng.Float64() < 0.4 {
			continue
		}
		diffs[i] = 0.02 + 0.15*rng.NormFloat64()
	}
	hist, err := Histogram("per-user nDCG@10: item-knn − popularity", "difference in nDCG@10", diffs)
	require.NoError(t, err)

	day := func(d int) time.Time { return time.Date(2024, 3, d, 14, 30, 0, 0, time.UTC) }
	history, err := History("nDCG@10 on ml-1m", "nDCG@10", []HistoryPoint{
		{Run: "popularity", Time: day(1), Estimate: 0.101, Low: 0.097, High: 0.105},
		{Run: "item-knn", Time: day(8), Estimate: 0.142, Low: 0.137, High: 0.147},
		{Run: "recent-popularity", Time: day(4), Estimate: 0.106, Low: math.NaN(), High: math.NaN()},
		{Run: "ease", Time: day(20), Estimate: 0.158, Low: 0.153, High: 0.163},
	})
	require.NoError(t, err)

	return []struct {
		name  string
		fig   *Figure
		words []string
	}{
		{"critical difference", cd, []string{"popularity", "item-knn", "recent-popularity", "CD = 0.83", "average rank (1 = best)", "1.60"}},
		{"critical difference seven runs", cd7, append(sevenNames, "CD = 1.65")},
		{"forest", forest, []string{"item-knn", "recent-popularity", "user-knn", "difference in nDCG@10 (95% CI)", "0.0412 [0.0351, 0.0476]"}},
		{"histogram", hist, []string{"per-user nDCG@10: item-knn − popularity", "users", "mean "}},
		{"history", history, []string{"popularity", "item-knn", "recent-popularity", "ease", "2024-03-"}},
	}
}

// svgText parses an SVG document to its end and returns its text content.
func svgText(t *testing.T, doc []byte) string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var b strings.Builder
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return b.String()
		}
		require.NoError(t, err)
		if cd, ok := tok.(xml.CharData); ok {
			b.Write(cd)
			b.WriteString("\n")
		}
	}
}

func TestPlotsRenderSVGAndPNG(t *testing.T) {
	t.Parallel()
	for _, tc := range plotCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var svg, pngBytes bytes.Buffer
			require.NoError(t, tc.fig.Write(&svg, "svg"))
			require.NoError(t, tc.fig.Write(&pngBytes, "png"))

			txt := svgText(t, svg.Bytes())
			for _, w := range tc.words {
				require.Contains(t, txt, w)
			}

			img, err := png.Decode(&pngBytes)
			require.NoError(t, err)
			// 150 dots per inch: 8 inches wide is 1200 pixels; heights range
			// from about 2 inches (a small diagram) to 4.5 and more.
			size := img.Bounds().Size()
			require.Equal(t, int(math.Round(float64(tc.fig.width/72)*plotPNGDPI)), size.X)
			require.GreaterOrEqual(t, size.X, 1200)
			require.GreaterOrEqual(t, size.Y, 250)
			require.Less(t, size.Y, size.X)
		})
	}
}

func TestPlotsAreDeterministic(t *testing.T) {
	t.Parallel()
	first, second := plotCases(t), plotCases(t)
	for i := range first {
		for _, format := range []string{"svg", "png"} {
			var a, b bytes.Buffer
			require.NoError(t, first[i].fig.Write(&a, format))
			require.NoError(t, second[i].fig.Write(&b, format))
			require.True(t, bytes.Equal(a.Bytes(), b.Bytes()), "%s %s differs between renders", first[i].name, format)
		}
	}
}

func TestPlotSVGFallsBackToArial(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, plotCases(t)[2].fig.Write(&b, "svg"))
	require.Contains(t, b.String(), plotSVGFallback)
	require.NotContains(t, b.String(), plotSVGFamily)
}

func TestSaveChoosesFormatByExtension(t *testing.T) {
	t.Parallel()
	fig := plotCases(t)[0].fig
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		file    string
		wantErr bool
		magic   string
	}{
		{name: "upper-case svg", file: "cd.SVG", magic: "<?xml"},
		{name: "png", file: "cd.png", magic: "\x89PNG"},
		{name: "pdf", file: "cd.pdf", wantErr: true},
		{name: "no extension", file: "cd", wantErr: true},
	} {
		path := filepath.Join(dir, tc.file)
		err := fig.Save(path)
		if tc.wantErr {
			require.ErrorIs(t, err, ErrPlotFormat, tc.name)
			require.ErrorContains(t, err, path, tc.name)
			require.ErrorContains(t, err, ".svg or .png", tc.name)
			require.NoFileExists(t, path, tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		got, err := os.ReadFile(path)
		require.NoError(t, err, tc.name)
		require.True(t, bytes.HasPrefix(got, []byte(tc.magic)), tc.name)
	}
}

func TestPlotFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		path, want string
	}{
		{path: "out/cd.svg", want: "svg"},
		{path: "CD.PNG", want: "png"},
		{path: "a.b/forest.Svg", want: "svg"},
	} {
		got, err := PlotFormat(tc.path)
		require.NoError(t, err, tc.path)
		require.Equal(t, tc.want, got, tc.path)
	}
	for _, path := range []string{"cd.pdf", "cd.svg.gz", "cd", "svg"} {
		_, err := PlotFormat(path)
		require.ErrorIs(t, err, ErrPlotFormat, path)
	}
	var b bytes.Buffer
	require.ErrorIs(t, plotCases(t)[0].fig.Write(&b, "pdf"), ErrPlotFormat)
}

func TestPlotsRejectBadInput(t *testing.T) {
	t.Parallel()
	names := []string{"item-knn", "recent-popularity", "popularity"}
	ranks := []float64{1.6, 2.1, 2.3}
	at := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	nan := math.NaN()
	for _, tc := range []struct {
		name    string
		plot    func() (*Figure, error)
		wantMsg string
	}{
		{name: "cd lengths differ", wantMsg: "3 run names but 2 average ranks",
			plot: func() (*Figure, error) { return CriticalDifference("", names, ranks[:2], 0.83, nil) }},
		{name: "cd one run", wantMsg: "needs at least 2",
			plot: func() (*Figure, error) { return CriticalDifference("", names[:1], ranks[:1], 0.83, nil) }},
		{name: "cd NaN rank", wantMsg: `run "recent-popularity" has average rank NaN`,
			plot: func() (*Figure, error) {
				return CriticalDifference("", names, []float64{1.6, nan, 2.3}, 0.83, nil)
			}},
		{name: "cd rank above k", wantMsg: "outside 1 to 3",
			plot: func() (*Figure, error) { return CriticalDifference("", names, []float64{1.6, 2.1, 3.5}, 0.83, nil) }},
		{name: "cd repeated name", wantMsg: `both named "item-knn"`,
			plot: func() (*Figure, error) {
				return CriticalDifference("", []string{"item-knn", "item-knn", "popularity"}, ranks, 0.83, nil)
			}},
		{name: "cd negative cd", wantMsg: "negative",
			plot: func() (*Figure, error) { return CriticalDifference("", names, ranks, -1, nil) }},
		{name: "cd unknown clique run", wantMsg: `clique 1 names run "ease"`,
			plot: func() (*Figure, error) {
				return CriticalDifference("", names, ranks, 0.83, [][]string{{"item-knn", "ease"}})
			}},
		{name: "forest empty", wantMsg: "no rows",
			plot: func() (*Figure, error) { return Forest("", "", nil) }},
		{name: "forest NaN estimate", wantMsg: `row 1 ("item-knn") has estimate NaN`,
			plot: func() (*Figure, error) {
				return Forest("", "", []ForestRow{{Label: "item-knn", Estimate: nan, Low: 0, High: 1}})
			}},
		{name: "forest one bound NaN", wantMsg: "one bound NaN",
			plot: func() (*Figure, error) {
				return Forest("", "", []ForestRow{{Label: "item-knn", Estimate: 0.5, Low: 0, High: nan}})
			}},
		{name: "forest reversed interval", wantMsg: "low bound above its high bound",
			plot: func() (*Figure, error) {
				return Forest("", "", []ForestRow{{Label: "item-knn", Estimate: 0.5, Low: 1, High: 0}})
			}},
		{name: "histogram empty", wantMsg: "no values",
			plot: func() (*Figure, error) { return Histogram("", "", nil) }},
		{name: "histogram NaN", wantMsg: "value 2 of 3 is NaN",
			plot: func() (*Figure, error) { return Histogram("", "", []float64{0.1, nan, 0.2}) }},
		{name: "histogram infinity", wantMsg: "value 1 of 1 is +Inf",
			plot: func() (*Figure, error) { return Histogram("", "", []float64{math.Inf(1)}) }},
		{name: "histogram span overflows", wantMsg: "cannot be binned",
			plot: func() (*Figure, error) { return Histogram("", "", []float64{-1e308, 1e308}) }},
		{name: "histogram span underflows", wantMsg: "cannot be binned",
			plot: func() (*Figure, error) { return Histogram("", "", []float64{0, 5e-324}) }},
		{name: "history empty", wantMsg: "no points",
			plot: func() (*Figure, error) { return History("", "", nil) }},
		{name: "history NaN estimate", wantMsg: `point 1 (run "ease") has estimate NaN`,
			plot: func() (*Figure, error) {
				return History("", "", []HistoryPoint{{Run: "ease", Time: at, Estimate: nan, Low: nan, High: nan}})
			}},
		{name: "history infinite bound", wantMsg: "is not finite",
			plot: func() (*Figure, error) {
				return History("", "", []HistoryPoint{{Run: "ease", Time: at, Estimate: 0.1, Low: math.Inf(-1), High: 0.2}})
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fig, err := tc.plot()
			require.ErrorIs(t, err, ErrPlotInput)
			require.ErrorContains(t, err, tc.wantMsg)
			require.Nil(t, fig)
		})
	}
}

// TestPlotEdgeCasesDraw draws each plot at its edges (ties, no interval,
// one value, a critical difference longer than the axis, many runs, spans
// of hours and of years) and reads the SVG as a reader would: the texts,
// the axes by their tick labels, and where the marks lie against them.
func TestPlotEdgeCasesDraw(t *testing.T) {
	t.Parallel()
	at := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	num := parseNumber(t)
	// Tick labels of a time axis: "Mar 1 09:00" within 2024, or "Jul 2024".
	clock := func(s string) float64 {
		tm, err := time.Parse("Jan 2 15:04 2006", s+" 2024")
		require.NoError(t, err)
		return plotUnixSeconds(tm)
	}
	month := func(s string) float64 {
		tm, err := time.Parse("Jan 2006", s)
		require.NoError(t, err)
		return plotUnixSeconds(tm)
	}
	onePoint := []HistoryPoint{{Run: "ease", Time: at, Estimate: 0.1, Low: math.NaN(), High: math.NaN()}}
	sameDay := []HistoryPoint{
		{Run: "a", Time: at, Estimate: 0.1, Low: 0.09, High: 0.11},
		{Run: "b", Time: at.Add(5 * time.Hour), Estimate: 0.1, Low: 0.09, High: 0.11},
	}
	years := []HistoryPoint{
		{Run: "a", Time: at, Estimate: 0.1, Low: math.NaN(), High: math.NaN()},
		{Run: "b", Time: at.AddDate(3, 0, 0), Estimate: 0.2, Low: math.NaN(), High: math.NaN()},
	}
	for _, tc := range []struct {
		name  string
		plot  func() (*Figure, error)
		check func(t *testing.T, d svgDoc)
	}{
		{
			name: "cd without cd or cliques",
			plot: func() (*Figure, error) {
				return CriticalDifference("", []string{"a", "b"}, []float64{1.5, 1.5}, math.NaN(), [][]string{{"a"}})
			},
			check: func(t *testing.T, d svgDoc) {
				axis, line := d.cdAxis(t, []string{"1", "2"})
				// Tied runs leave the axis at the same point, half way,
				// one to each side.
				requireCDRun(t, d, axis, line, "a", "1.50", 1.5, true)
				requireCDRun(t, d, axis, line, "b", "1.50", 1.5, false)
				require.False(t, slices.ContainsFunc(d.texts, func(l svgLabel) bool { return strings.HasPrefix(l.text, "CD") }), "no CD label for a NaN cd")
				require.Empty(t, d.find(func(p svgPath) bool { return p.width() == 1.2 }), "no CD bar")
				require.Empty(t, d.find(func(p svgPath) bool { return p.width() == 3 }), "no bar for a clique of one run")
			},
		},
		{
			name: "cd longer than the axis",
			plot: func() (*Figure, error) {
				return CriticalDifference("ranks", []string{"a", "b", "c"}, []float64{1, 2, 3}, 4.2, [][]string{{"a", "b", "c"}})
			},
			check: func(t *testing.T, d svgDoc) {
				require.Equal(t, float64(plotTitleSize), d.label(t, "ranks").size)
				axis, line := d.cdAxis(t, []string{"1", "2", "3"})
				requireCDRun(t, d, axis, line, "a", "1.00", 1, true)
				requireCDRun(t, d, axis, line, "b", "2.00", 2, true)
				requireCDRun(t, d, axis, line, "c", "3.00", 3, false)
				// 1 + 4.2 is past rank 3: the bar stops at the axis end,
				// with a cap at rank 1 only.
				requireCDBar(t, d, axis, "CD = 4.20", 1, 3, []float64{1})
				// The clique bar joins ranks 1 to 3 and reaches 4 points
				// past each (cdDiagram.Plot).
				requireHorizontal(t, d, func(p svgPath) bool { return p.width() == 3 }, [][2]float64{{axis.at(1) - 4, axis.at(3) + 4}})
			},
		},
		{
			name: "cd many runs",
			plot: func() (*Figure, error) {
				names, ranks := manyRuns()
				return CriticalDifference("", names, ranks, 3.1, nil)
			},
			check: func(t *testing.T, d svgDoc) {
				// With 25 ranks a label every rank would crowd: every
				// second, after the first.
				ticks := []string{"1"}
				for r := 2; r <= 24; r += 2 {
					ticks = append(ticks, strconv.Itoa(r))
				}
				axis, line := d.cdAxis(t, ticks)
				require.InDelta(t, axis.at(25), line.pts[1].x, svgTol, "the axis runs to rank 25")
				names, ranks := manyRuns()
				for i, name := range names {
					// The better ⌈25/2⌉ = 13 runs are on the left.
					requireCDRun(t, d, axis, line, name, strconv.FormatFloat(ranks[i], 'f', 2, 64), ranks[i], i < 13)
				}
				requireCDBar(t, d, axis, "CD = 3.10", 1, 4.1, []float64{1, 4.1})
				leaders := d.find(func(p svgPath) bool { return p.width() == 0.8 && len(p.pts) == 3 })
				require.Len(t, leaders, len(names))
				for i, a := range leaders {
					for _, b := range leaders[i+1:] {
						for j := range 2 {
							for k := range 2 {
								require.False(t, segmentsCross(a.pts[j], a.pts[j+1], b.pts[k], b.pts[k+1]),
									"leader lines %v and %v cross", a.pts, b.pts)
							}
						}
					}
				}
			},
		},
		{
			name: "forest without intervals",
			plot: func() (*Figure, error) {
				return Forest("", "", []ForestRow{{Label: "a", Estimate: 0, Low: math.NaN(), High: math.NaN()}})
			},
			check: func(t *testing.T, d svgDoc) {
				// The range around the one value, 0, widens to ±1
				// (PlotRange), labelled every 0.25.
				xa := d.xAxis(t, []string{"-1.00", "-0.75", "-0.50", "-0.25", "0.00", "0.25", "0.50", "0.75", "1.00"}, num)
				// Not distinguishable: a grey ring, at 0, on row a.
				rings := d.find(func(p svgPath) bool { return p.circle && p.stroke() == "#8C8C8C" })
				require.Len(t, rings, 1)
				mark := rings[0].pts[0]
				require.InDelta(t, xa.at(0), mark.x, svgTol)
				row := d.label(t, "a")
				require.Equal(t, float64(plotLabelSize), row.size)
				require.Less(t, row.x, mark.x)
				require.InDelta(t, mark.y, row.y, forestHalfRow, "the marker is on row a")
				require.Empty(t, d.find(func(p svgPath) bool { return !p.circle && p.stroke() == "#8C8C8C" }), "no interval line")
				var values []svgLabel
				for _, l := range d.texts {
					if l.text == "0.00" && l.x > xa.at(1) {
						values = append(values, l)
					}
				}
				require.Len(t, values, 1, "the value, right of the data")
				require.InDelta(t, mark.y, values[0].y, forestHalfRow, "the value is on row a")
			},
		},
		{
			name: "histogram all equal",
			plot: func() (*Figure, error) {
				return Histogram("identical runs", "difference", []float64{0, 0, 0})
			},
			check: func(t *testing.T, d svgDoc) {
				require.Equal(t, float64(plotTitleSize), d.label(t, "identical runs").size)
				require.Equal(t, float64(plotLabelSize), d.label(t, "difference").size)
				require.True(t, d.label(t, "users").rotated)
				// Values all 0: an axis 1 wide around 0 (histogramEqualSpan)
				// and 2 % more each side; counts up to 3 and 15 % headroom.
				xa := d.xAxis(t, []string{"-0.4", "-0.2", "0.0", "0.2", "0.4"}, num)
				ya := d.yAxis(t, []string{"0", "1", "2", "3"}, num)
				// One bar of the 3 values, a twentieth of the axis wide.
				requireHistogram(t, d, xa, ya, [][3]float64{{-0.025, 0.025, 3}}, 0, "mean 0")
			},
		},
		{
			name: "histogram one value",
			plot: func() (*Figure, error) {
				return Histogram("", "", []float64{0.25})
			},
			check: func(t *testing.T, d svgDoc) {
				// 0.25 ± 0.5 (histogramEqualSpan) and 2 % more each side.
				xa := d.xAxis(t, []string{"-0.2", "0.0", "0.2", "0.4", "0.6"}, num)
				ya := d.yAxis(t, []string{"0", "1"}, num)
				requireHistogram(t, d, xa, ya, [][3]float64{{0.225, 0.275, 1}}, 0.25, "mean 0.250")
			},
		},
		{
			name: "history one point",
			plot: func() (*Figure, error) {
				return History("", "", onePoint)
			},
			check: func(t *testing.T, d svgDoc) {
				d.label(t, "logged on 2024-03-01 (UTC)")
				// 12 hours either side of 09:00, every 6 hours; 0.1 ± 1
				// (PlotRange of an empty span), every 0.25.
				xa := d.xAxis(t, []string{"Mar 1 00:00", "Mar 1 06:00", "Mar 1 12:00", "Mar 1 18:00"}, clock)
				ya := d.yAxis(t, []string{"-0.75", "-0.50", "-0.25", "0.00", "0.25", "0.50", "0.75", "1.00"}, num)
				requireHistoryPoints(t, d, xa, ya, onePoint)
			},
		},
		{
			name: "history within a day",
			plot: func() (*Figure, error) {
				return History("", "", sameDay)
			},
			check: func(t *testing.T, d svgDoc) {
				d.label(t, "logged on 2024-03-01 (UTC)")
				// 09:00 to 14:00, hourly; 0.09 to 0.11 with 8 % more each
				// side (PlotRange).
				xa := d.xAxis(t, []string{"Mar 1 09:00", "Mar 1 10:00", "Mar 1 11:00", "Mar 1 12:00", "Mar 1 13:00", "Mar 1 14:00"}, clock)
				ya := d.yAxis(t, []string{"0.090", "0.095", "0.100", "0.105", "0.110"}, num)
				requireHistoryPoints(t, d, xa, ya, sameDay)
			},
		},
		{
			name: "history over years",
			plot: func() (*Figure, error) {
				return History("", "", years)
			},
			check: func(t *testing.T, d svgDoc) {
				d.label(t, "logged (UTC)")
				// March 2024 to March 2027, every 6 months; 0.1 to 0.2
				// with 8 % more each side.
				xa := d.xAxis(t, []string{"Jul 2024", "Jan 2025", "Jul 2025", "Jan 2026", "Jul 2026", "Jan 2027"}, month)
				ya := d.yAxis(t, []string{"0.10", "0.12", "0.14", "0.16", "0.18", "0.20"}, num)
				requireHistoryPoints(t, d, xa, ya, years)
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fig, err := tc.plot()
			require.NoError(t, err)
			var b bytes.Buffer
			require.NoError(t, fig.Write(&b, "svg"))
			tc.check(t, readSVG(t, b.Bytes()))
		})
	}
}

// manyRuns are 25 runs, run-a to run-y, with average ranks 1 to 23.8 in
// steps of 0.95.
func manyRuns() (names []string, ranks []float64) {
	for i := range 25 {
		names = append(names, "run-"+string(rune('a'+i)))
		ranks = append(ranks, 1+float64(i)*0.95)
	}
	return names, ranks
}

// cdHalfRow is half the distance between the rows of run names of a
// critical-difference diagram (cdDiagram.layout): a name and its leader
// line are on one row when they are closer than this.
const cdHalfRow = 9

// forestHalfRow is half the height of a forest plot's row, 0.3 inches.
const forestHalfRow = 0.15 * 72

// requireCDRun requires that a critical-difference diagram writes run name
// and its average rank rankText on one row, on the left of the axis or on
// the right, the rank nearer the axis, at the end of a leader line that
// leaves the axis at rank.
func requireCDRun(t *testing.T, d svgDoc, axis svgAxis, line svgPath, name, rankText string, rank float64, left bool) {
	t.Helper()
	start, end := line.pts[0].x, line.pts[1].x
	onSide := func(x float64) bool {
		if left {
			return x < start
		}
		return x > end
	}
	n := d.label(t, name)
	require.True(t, onSide(n.x), "%s is on its side", name)
	var ranks []svgLabel
	for _, l := range d.texts {
		if l.text == rankText && math.Abs(l.y-n.y) < svgTol && onSide(l.x) {
			ranks = append(ranks, l)
		}
	}
	require.Len(t, ranks, 1, "%s's rank %s on its row", name, rankText)
	if left {
		require.Less(t, n.x, ranks[0].x, "%s's rank is between its name and the axis", name)
	} else {
		require.Greater(t, n.x, ranks[0].x, "%s's rank is between its name and the axis", name)
	}
	leaders := d.find(func(p svgPath) bool {
		return p.width() == 0.8 && len(p.pts) == 3 && math.Abs(p.pts[2].y-n.y) < cdHalfRow && onSide(p.pts[2].x)
	})
	require.Len(t, leaders, 1, "a leader line to %s", name)
	require.InDelta(t, line.pts[0].y, leaders[0].pts[0].y, svgTol, "%s's leader line leaves the axis", name)
	require.InDelta(t, axis.at(rank), leaders[0].pts[0].x, svgTol, "%s's leader line leaves the axis at rank %v", name, rank)
}

// requireCDBar requires the critical difference's label and its bar, 1.2
// points wide, from rank from to rank to, with end caps at the ranks caps.
func requireCDBar(t *testing.T, d svgDoc, axis svgAxis, label string, from, to float64, caps []float64) {
	t.Helper()
	d.label(t, label)
	bar := func(p svgPath) bool { return p.width() == 1.2 }
	requireHorizontal(t, d, bar, [][2]float64{{axis.at(from), axis.at(to)}})
	var got []float64
	for _, p := range d.find(bar) {
		if lo, _, ok := p.segment(true); ok {
			got = append(got, lo.x)
		}
	}
	require.Len(t, got, len(caps), "end caps")
	slices.Sort(got)
	for i, c := range caps {
		require.InDelta(t, axis.at(c), got[i], svgTol, "an end cap at rank %v", c)
	}
}

// requireHorizontal requires that the horizontal lines among the paths
// keep selects span the x ranges want, left to right by their starts.
func requireHorizontal(t *testing.T, d svgDoc, keep func(svgPath) bool, want [][2]float64) {
	t.Helper()
	var got [][2]float64
	for _, p := range d.find(keep) {
		if lo, hi, ok := p.segment(false); ok {
			got = append(got, [2]float64{lo.x, hi.x})
		}
	}
	require.Len(t, got, len(want))
	slices.SortFunc(got, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
	for i, w := range want {
		require.InDelta(t, w[0], got[i][0], svgTol, "line %d starts", i)
		require.InDelta(t, w[1], got[i][1], svgTol, "line %d ends", i)
	}
}

// requireHistogram requires a histogram's bars, each {from, to, count},
// its dashed zero line, and its mean line at mean, named legend.
func requireHistogram(t *testing.T, d svgDoc, xa, ya svgAxis, bars [][3]float64, mean float64, legend string) {
	t.Helper()
	fills := d.find(func(p svgPath) bool { return p.fill() == "#A6C0E0" })
	require.Len(t, fills, len(bars))
	for i, b := range bars {
		xs, ys := []float64{}, []float64{}
		for _, pt := range fills[i].pts {
			xs, ys = append(xs, pt.x), append(ys, pt.y)
		}
		require.InDelta(t, xa.at(b[0]), slices.Min(xs), svgTol, "bar %d starts at %v", i, b[0])
		require.InDelta(t, xa.at(b[1]), slices.Max(xs), svgTol, "bar %d ends at %v", i, b[1])
		require.InDelta(t, ya.at(0), slices.Min(ys), svgTol, "bar %d stands on 0", i)
		require.InDelta(t, ya.at(b[2]), slices.Max(ys), svgTol, "bar %d counts %v", i, b[2])
	}
	vertical := func(colour string) []float64 {
		var xs []float64
		for _, p := range d.find(func(p svgPath) bool { return p.dashed() && p.stroke() == colour }) {
			if lo, _, ok := p.segment(true); ok {
				xs = append(xs, lo.x)
			}
		}
		return xs
	}
	zero := vertical("#000000")
	require.Len(t, zero, 1, "a zero line")
	require.InDelta(t, xa.at(0), zero[0], svgTol, "the zero line")
	means := vertical("#C0392B")
	require.Len(t, means, 1, "a mean line")
	require.InDelta(t, xa.at(mean), means[0], svgTol, "the mean line")
	d.label(t, legend)
}

// requireHistoryPoints requires a marker at each point's time and
// estimate with the run's name beside it, and a bar from Low to High for
// each point that has an interval.
func requireHistoryPoints(t *testing.T, d svgDoc, xa, ya svgAxis, points []HistoryPoint) {
	t.Helper()
	// historyLabelOffset moves a name 6 points across and 3 up or down
	// from its marker's centre, and a 9-point name is under 12 high.
	const beside = 15
	markers := d.find(func(p svgPath) bool { return p.circle && p.fill() == "#2C5D9E" })
	require.Len(t, markers, len(points))
	var bars []svgPath
	for _, p := range d.find(func(p svgPath) bool { return p.stroke() == "#2C5D9E" }) {
		if _, _, ok := p.segment(true); ok {
			bars = append(bars, p)
		}
	}
	intervals := 0
	for _, pt := range points {
		x, y := xa.at(plotUnixSeconds(pt.Time)), ya.at(pt.Estimate)
		require.True(t, slices.ContainsFunc(markers, func(m svgPath) bool {
			return math.Abs(m.pts[0].x-x) < svgTol && math.Abs(m.pts[0].y-y) < svgTol
		}), "a marker for %s at (%v, %v), at (%.2f, %.2f) on the page", pt.Run, pt.Time, pt.Estimate, x, y)
		name := d.label(t, pt.Run)
		require.Equal(t, float64(PlotSmallSize), name.size)
		require.InDelta(t, x, name.x, beside, "%s's name is beside its marker", pt.Run)
		require.InDelta(t, y, name.y, beside, "%s's name is beside its marker", pt.Run)
		if math.IsNaN(pt.Low) {
			continue
		}
		intervals++
		require.True(t, slices.ContainsFunc(bars, func(b svgPath) bool {
			lo, hi, _ := b.segment(true)
			return math.Abs(lo.x-x) < svgTol && math.Abs(lo.y-ya.at(pt.Low)) < svgTol && math.Abs(hi.y-ya.at(pt.High)) < svgTol
		}), "an interval bar for %s from %v to %v", pt.Run, pt.Low, pt.High)
	}
	require.Len(t, bars, intervals, "interval bars")
}

func TestHistogramBins(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		values    []float64
		wantWidth float64 // plotNiceStep of (max − min) / clamped Freedman–Diaconis count
		wantBins  int
	}{
		// IQR 0.5, n = 5: h = 2·0.5/5^(1/3) = 0.585, (3 − (−1))/0.585 = 6.8
		// bins, raised to 10; 4/10 = 0.4 rounds to 0.5; bins centred on
		// −1, −0.5, …, 3.
		{name: "few values", values: []float64{-1, 0, 0.5, 1, 3}, wantWidth: 0.5, wantBins: 9},
		// All equal to 0: one bar, a twentieth of an axis 1 wide.
		{name: "all equal", values: []float64{0, 0, 0}, wantWidth: 0.05, wantBins: 1},
	} {
		bins, w, err := histogramBins(tc.values)
		require.NoError(t, err, tc.name)
		require.InDelta(t, tc.wantWidth, w, 1e-12, tc.name)
		require.Len(t, bins, tc.wantBins, tc.name)
		total := 0.0
		for _, b := range bins {
			total += b.Weight
		}
		require.InDelta(t, float64(len(tc.values)), total, 1e-12, tc.name)
	}
}

func TestPlotNumber(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]string{
		0.0123: "0.0123", 1.2345: "1.23", 123.45: "123", 12345.6: "12346", -0.5: "-0.500", 0: "0", 2e-7: "2e-07",
	} {
		require.Equal(t, want, PlotNumber(v), "%v", v)
	}
}

func TestHistoryTicksFollowTheSpan(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 9, 2, 33, 400_000_000, time.UTC)
	for _, tc := range []struct {
		span time.Duration
		tick string // a label the axis must show
	}{
		{400 * time.Millisecond, "09:02:33.50"},
		{40 * time.Second, "09:03:00"},
		{50 * time.Minute, "09:30"},
		{20 * 24 * time.Hour, "2026-12-0"},
	} {
		fig, err := History("ndcg@10", "ndcg@10", []HistoryPoint{
			{Run: "a", Time: at, Estimate: 0.4, Low: 0.38, High: 0.42},
			{Run: "b", Time: at.Add(tc.span), Estimate: 0.41, Low: math.NaN(), High: math.NaN()},
		})
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, fig.Write(&b, "svg"))
		require.Contains(t, svgText(t, b.Bytes()), tc.tick, "span %v", tc.span)
	}
}
