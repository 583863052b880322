package report

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestHistoryJoinsNoRuns: the values over time join a run's own values
// by a line, and never one run's to another's: runs with one value each
// are markers alone.
func TestHistoryJoinsNoRuns(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	sloped := func(points []HistoryPoint) []svgPath {
		t.Helper()
		fig, err := History("ndcg@10", "ndcg@10", points)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, fig.Write(&b, "svg"))
		d := readSVG(t, b.Bytes())
		return d.find(func(p svgPath) bool {
			if p.circle || p.stroke() != "#2C5D9E" {
				return false
			}
			_, _, v := p.segment(true)
			_, _, h := p.segment(false)
			return !v && !h
		})
	}
	require.Empty(t, sloped([]HistoryPoint{
		{Run: "popularity", Time: at, Estimate: 0.30, Low: 0.28, High: 0.32},
		{Run: "item-knn", Time: at.Add(time.Hour), Estimate: 0.33, Low: 0.31, High: 0.35},
		{Run: "mf-64", Time: at.Add(2 * time.Hour), Estimate: 0.36, Low: 0.34, High: 0.38},
	}), "no line joins different runs")
	lines := sloped([]HistoryPoint{
		{Run: "mf-64", Time: at, Estimate: 0.30, Low: math.NaN(), High: math.NaN()},
		{Run: "item-knn", Time: at.Add(time.Hour), Estimate: 0.20, Low: math.NaN(), High: math.NaN()},
		{Run: "mf-64", Time: at.Add(2 * time.Hour), Estimate: 0.36, Low: math.NaN(), High: math.NaN()},
		{Run: "mf-64", Time: at.Add(3 * time.Hour), Estimate: 0.38, Low: math.NaN(), High: math.NaN()},
	})
	require.Len(t, lines, 1, "one line, mf-64's")
	require.Len(t, lines[0].pts, 3, "through mf-64's three values, past item-knn's")
}

// TestForestWrapsItsAxisLabel: a long axis label under a forest plot with
// a value column is broken into lines that each start inside the figure.
func TestForestWrapsItsAxisLabel(t *testing.T) {
	label := "difference in ndcg@10, 95% CI (filled: distinguishable after Holm; green: better than mf-64, red: worse)"
	fig, err := Forest("ndcg@10 on test: mf-64 minus each run", label, []ForestRow{
		{Label: "item-knn", Estimate: 0.0133, Low: 0.0058, High: 0.0209, Distinguishable: true, Worse: true},
		{Label: "popularity", Estimate: 0.0371, Low: 0.0292, High: 0.0449, Distinguishable: true, Worse: true},
	})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, fig.Write(&b, "svg"))
	d := readSVG(t, b.Bytes())
	var lines []string
	for _, l := range d.texts {
		if l.size == plotLabelSize && strings.Contains(label, l.text) && !l.rotated {
			require.GreaterOrEqual(t, l.x, 0.0, "%q starts inside the figure", l.text)
			// Liberation Sans averages under 0.6 em a character.
			require.LessOrEqual(t, l.x+0.6*plotLabelSize*float64(len(l.text)), plotWidth.Points(), "%q ends inside the figure", l.text)
			lines = append(lines, l.text)
		}
	}
	require.Greater(t, len(lines), 1, "the label is wrapped: %v", lines)
	require.Equal(t, label, strings.Join(lines, " "))
}
