package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
)

func testCurve() *compare.TrainingCurve {
	at := time.Date(2024, 3, 1, 14, 30, 0, 0, time.UTC)
	return &compare.TrainingCurve{Experiment: "train", EvalSet: "test", Metric: "ndcg", Confidence: 0.9, Resamples: 500, Seed: 3,
		Runs: []string{"narrow", "wide"},
		Points: []compare.CurvePoint{
			{Run: "narrow", Step: 100, EvaluationID: 1, Mean: 0.3125, Low: 0.25, High: 0.375, Units: 4, LoggedAt: at},
			{Run: "narrow", Step: 200, EvaluationID: 2, Mean: 0.4375, Low: 0.375, High: 0.5, Units: 4, LoggedAt: at},
			{Run: "wide", Step: 100, EvaluationID: 3, Mean: 0.5, Low: 0.25, High: 0.75, Units: 4, LoggedAt: at},
			{Run: "wide", Step: 200, EvaluationID: 4, Mean: 0.625, Low: math.NaN(), High: math.NaN(), Units: 4, LoggedAt: at},
		}}
}

func TestCurveFormats(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, report.Curve(&b, "csv", testCurve()))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Equal(t, "run,step,evaluation_id,metric,mean,mean_ci_low,mean_ci_high,confidence,n_units,logged_at", lines[0])
	require.Equal(t, "narrow,100,1,ndcg,0.3125,0.25,0.375,0.9,4,2024-03-01T14:30:00Z", lines[1])
	require.Equal(t, "wide,200,4,ndcg,0.625,,,0.9,4,2024-03-01T14:30:00Z", lines[4])

	b.Reset()
	require.NoError(t, report.Curve(&b, "json", testCurve()))
	var c struct {
		Points []map[string]any `json:"points"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &c))
	require.Equal(t, map[string]any{"run": "narrow", "step": 100.0, "evaluation_id": 1.0, "mean": 0.3125, "mean_ci_low": 0.25, "mean_ci_high": 0.375,
		"n_units": 4.0, "logged_at": "2024-03-01T14:30:00Z"}, c.Points[0])
	require.Nil(t, c.Points[3]["mean_ci_low"])

	b.Reset()
	require.NoError(t, report.Curve(&b, "markdown", testCurve()))
	require.Contains(t, b.String(), "ndcg on test (higher is better) by step; 90% bootstrap intervals")
	require.Contains(t, b.String(), "| narrow | 100 | 0.312 [0.250, 0.375] | 4 |")
	require.Contains(t, b.String(), "| wide | 200 | 0.6250 (aggregates only) | 4 |")
}

func TestCurvePlot(t *testing.T) {
	t.Parallel()
	fig, err := report.CurvePlot(testCurve())
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, fig.Write(&b, "svg"))
	svg := b.String()
	for _, s := range []string{"ndcg on test by step", "narrow", "wide", ">step<", "90% bootstrap CI"} {
		require.Contains(t, svg, s)
	}
	b.Reset()
	require.NoError(t, fig.Write(&b, "png"))
	require.True(t, bytes.HasPrefix(b.Bytes(), []byte("\x89PNG")))

	_, err = report.CurvePlot(&compare.TrainingCurve{Metric: "ndcg"})
	require.True(t, errors.Is(err, report.ErrNothingToPlot), err)
}
