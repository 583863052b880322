package main

import (
	"bytes"
	"html"
	"image/png"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// calibrationChart is a rejection-rate chart as the study draws it: three methods at four sample sizes, one of them far above alpha at
// the largest, with the 99 % range of Binomial(R, 0.05)/R as the band.
func calibrationChart() CalibrationChart {
	nan := math.NaN()
	return CalibrationChart{
		Title: "type I error, ndcg-like values, equal means", XLabel: "users (n)", YLabel: "rejection rate at α = 0.05",
		Target: 0.05,
		Band: []CalibrationBand{
			{N: 20, Low: 0.0390, High: 0.0615}, {N: 100, Low: 0.0390, High: 0.0615},
			{N: 1000, Low: 0.0370, High: 0.0640}, {N: 10000, Low: 0.0300, High: 0.0725},
		},
		BandLabel: "calibrated (99 % range)",
		Series: []CalibrationSeries{
			{Name: "bootstrap + randomization", Points: []CalibrationPoint{
				{N: 20, Rate: 0.046, Low: 0.039, High: 0.054}, {N: 100, Rate: 0.049, Low: 0.041, High: 0.057},
				{N: 1000, Rate: 0.051, Low: 0.040, High: 0.064}, {N: 10000, Rate: 0.048, Low: 0.030, High: 0.070},
			}},
			{Name: "paired t", Points: []CalibrationPoint{
				{N: 20, Rate: 0.058, Low: 0.050, High: 0.067}, {N: 100, Rate: 0.052, Low: 0.044, High: 0.060},
				{N: 1000, Rate: 0.050, Low: 0.039, High: 0.062}, {N: 10000, Rate: 0.047, Low: nan, High: nan},
			}},
			{Name: "Wilcoxon signed-rank", Points: []CalibrationPoint{
				{N: 10000, Rate: 0.98, Low: 0.96, High: 0.99}, {N: 20, Rate: 0.055, Low: 0.047, High: 0.064},
				{N: 100, Rate: 0.081, Low: 0.071, High: 0.092}, {N: 1000, Rate: 0.33, Low: 0.30, High: 0.36},
			}},
		},
		YMin: 0, YMax: 0.2,
	}
}

func TestCalibrationPlotRendersSVGAndPNG(t *testing.T) {
	t.Parallel()
	fig, err := Calibration(calibrationChart())
	require.NoError(t, err)
	var svg, pngBytes bytes.Buffer
	require.NoError(t, fig.Write(&svg, "svg"))
	require.NoError(t, fig.Write(&pngBytes, "png"))

	txt := svgText(t, svg.Bytes())
	for _, w := range []string{
		"type I error, ndcg-like values, equal means", "users (n)", "rejection rate at α = 0.05",
		"bootstrap + randomization", "paired t", "Wilcoxon signed-rank", "calibrated (99 % range)",
		// The x axis is ticked at the sample sizes, with separators.
		"20", "100", "1,000", "10,000",
		// The y axis is in percent.
		"5.0 %", "10.0 %",
		// Two rates lie above the cut at 20 %, and are written out.
		"98 %", "33 %",
	} {
		require.Contains(t, txt, w)
	}
	require.NotContains(t, txt, "8.1 %", "a rate inside the axis is drawn, not written")

	img, err := png.Decode(&pngBytes)
	require.NoError(t, err)
	require.Equal(t, 1200, img.Bounds().Dx())
}

func TestCalibrationPlotFitsTheDataWithoutACut(t *testing.T) {
	t.Parallel()
	ch := calibrationChart()
	ch.YMin, ch.YMax = 0, 0
	fig, err := Calibration(ch)
	require.NoError(t, err)
	var svg bytes.Buffer
	require.NoError(t, fig.Write(&svg, "svg"))
	txt := svgText(t, svg.Bytes())
	require.Contains(t, txt, "100 %", "the axis reaches the highest interval bound")
	require.NotContains(t, txt, "98 %")
}

func TestCalibrationPlotIsDeterministic(t *testing.T) {
	t.Parallel()
	var first, second bytes.Buffer
	for _, b := range []*bytes.Buffer{&first, &second} {
		fig, err := Calibration(calibrationChart())
		require.NoError(t, err)
		require.NoError(t, fig.Write(b, "svg"))
	}
	require.True(t, bytes.Equal(first.Bytes(), second.Bytes()))
}

func TestCalibrationPercentTicks(t *testing.T) {
	t.Parallel()
	var labels []string
	for _, tk := range (percentTicks{}).Ticks(0.9, 1) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"90 %", "92 %", "94 %", "96 %", "98 %", "100 %"}, labels)
	require.Equal(t, "3.4 %", calibrationPercent(0.034))
	require.Equal(t, "97 %", calibrationPercent(0.9712))
	require.Equal(t, "10,000", calibrationSize(10000))
	require.Equal(t, "2.50", calibrationSize(2.5))
}

func TestCalibrationPlotRejectsBadInput(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, tc := range []struct {
		name    string
		edit    func(*CalibrationChart)
		wantMsg string
	}{
		{name: "no series", wantMsg: "no series", edit: func(c *CalibrationChart) { c.Series = nil }},
		{name: "no name", wantMsg: "series 2 has no name", edit: func(c *CalibrationChart) { c.Series[1].Name = "" }},
		{name: "no points", wantMsg: `series "paired t" has no points`, edit: func(c *CalibrationChart) { c.Series[1].Points = nil }},
		{name: "zero size", wantMsg: "sample size 0", edit: func(c *CalibrationChart) { c.Series[0].Points[0].N = 0 }},
		{name: "infinite size", wantMsg: "sample size +Inf", edit: func(c *CalibrationChart) { c.Series[0].Points[0].N = math.Inf(1) }},
		{name: "NaN rate", wantMsg: "rate NaN", edit: func(c *CalibrationChart) { c.Series[0].Points[1].Rate = nan }},
		{name: "one bound NaN", wantMsg: "one bound NaN", edit: func(c *CalibrationChart) { c.Series[0].Points[1].Low = nan }},
		{name: "reversed interval", wantMsg: "low bound above its high bound",
			edit: func(c *CalibrationChart) { c.Series[0].Points[1].Low, c.Series[0].Points[1].High = 0.06, 0.04 }},
		{name: "reversed band", wantMsg: "band point 2 is [0.07, 0.03]",
			edit: func(c *CalibrationChart) { c.Band[1].Low, c.Band[1].High = 0.07, 0.03 }},
		{name: "band size", wantMsg: "band point 1 has sample size -1", edit: func(c *CalibrationChart) { c.Band[0].N = -1 }},
		{name: "NaN target", wantMsg: "target NaN", edit: func(c *CalibrationChart) { c.Target = nan }},
		{name: "empty cut", wantMsg: "cut [0.2, 0.1] is empty", edit: func(c *CalibrationChart) { c.YMin, c.YMax = 0.2, 0.1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ch := calibrationChart()
			tc.edit(&ch)
			_, err := Calibration(ch)
			require.ErrorIs(t, err, errPlotInput)
			require.ErrorContains(t, err, tc.wantMsg)
		})
	}
}

// svgTextElement matches a text element of vgsvg's output and captures its
// content.
var svgTextElement = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)

// svgText returns the content of an SVG document's text elements, one a
// line, unescaped.
func svgText(t *testing.T, doc []byte) string {
	t.Helper()
	var b strings.Builder
	for _, m := range svgTextElement.FindAllSubmatch(doc, -1) {
		b.WriteString(html.UnescapeString(string(m[1])))
		b.WriteString("\n")
	}
	require.NotZero(t, b.Len(), "no text in the SVG")
	return b.String()
}
