package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
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

func TestPlotEdgeCasesDraw(t *testing.T) {
	t.Parallel()
	at := time.Date(2024, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		plot func() (*Figure, error)
	}{
		{name: "cd without cd or cliques", plot: func() (*Figure, error) {
			return CriticalDifference("", []string{"a", "b"}, []float64{1.5, 1.5}, math.NaN(), [][]string{{"a"}})
		}},
		{name: "cd longer than the axis", plot: func() (*Figure, error) {
			return CriticalDifference("ranks", []string{"a", "b", "c"}, []float64{1, 2, 3}, 4.2, [][]string{{"a", "b", "c"}})
		}},
		{name: "cd many runs", plot: func() (*Figure, error) {
			var names []string
			var ranks []float64
			for i := range 25 {
				names = append(names, "run-"+string(rune('a'+i)))
				ranks = append(ranks, 1+float64(i)*0.95)
			}
			return CriticalDifference("", names, ranks, 3.1, nil)
		}},
		{name: "forest without intervals", plot: func() (*Figure, error) {
			return Forest("", "", []ForestRow{{Label: "a", Estimate: 0, Low: math.NaN(), High: math.NaN()}})
		}},
		{name: "histogram all equal", plot: func() (*Figure, error) {
			return Histogram("identical runs", "difference", []float64{0, 0, 0})
		}},
		{name: "histogram one value", plot: func() (*Figure, error) {
			return Histogram("", "", []float64{0.25})
		}},
		{name: "history one point", plot: func() (*Figure, error) {
			return History("", "", []HistoryPoint{{Run: "ease", Time: at, Estimate: 0.1, Low: math.NaN(), High: math.NaN()}})
		}},
		{name: "history within a day", plot: func() (*Figure, error) {
			return History("", "", []HistoryPoint{
				{Run: "a", Time: at, Estimate: 0.1, Low: 0.09, High: 0.11},
				{Run: "b", Time: at.Add(5 * time.Hour), Estimate: 0.1, Low: 0.09, High: 0.11},
			})
		}},
		{name: "history over years", plot: func() (*Figure, error) {
			return History("", "", []HistoryPoint{
				{Run: "a", Time: at, Estimate: 0.1, Low: math.NaN(), High: math.NaN()},
				{Run: "b", Time: at.AddDate(3, 0, 0), Estimate: 0.2, Low: math.NaN(), High: math.NaN()},
			})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fig, err := tc.plot()
			require.NoError(t, err)
			var b bytes.Buffer
			require.NoError(t, fig.Write(&b, "svg"))
			svgText(t, b.Bytes())
		})
	}
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
		require.Equal(t, want, plotNumber(v), "%v", v)
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
