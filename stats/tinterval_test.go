package stats

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTIntervalReference checks TInterval against testdata/reference/
// t_interval.json, which gen_t_interval.py wrote with scipy 1.10: each
// interval is the test's own mean ± q·se, se from the data (the corrected
// resampled t's √((1/J + n_test/n_train)·s²), the paired t's s/√n) and q
// solved with brentq on scipy.stats.t.sf. TInterval gets the mean, t and df
// once as the fixture records them and once as this package's tests
// compute them from the data.
func TestTIntervalReference(t *testing.T) {
	t.Parallel()
	for _, c := range readReference[struct {
		Name       string    `json:"name"`
		Kind       string    `json:"kind"`
		Diffs      []float64 `json:"diffs"`
		NTrain     int       `json:"n_train"`
		NTest      int       `json:"n_test"`
		Confidence float64   `json:"confidence"`
		Want       struct {
			Mean float64 `json:"mean"`
			T    float64 `json:"t"`
			DF   int     `json:"df"`
			Low  float64 `json:"low"`
			High float64 `json:"high"`
		} `json:"want"`
	}](t, "t_interval.json") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			check := func(what string, got Interval) {
				t.Helper()
				require.Equal(t, c.Confidence, got.Confidence, what)
				requireRefClose(t, c.Want.Mean, got.Estimate, what+" estimate")
				requireRefClose(t, c.Want.Low, got.Low, what+" low")
				requireRefClose(t, c.Want.High, got.High, what+" high")
			}
			check("fixture's t", TInterval(c.Want.Mean, c.Want.T, c.Want.DF, c.Confidence))

			var mean, tStat float64
			var df int
			switch c.Kind {
			case "corrected":
				r, err := CorrectedResampledTDiffs(c.Diffs, CorrectedTOptions{NTrain: c.NTrain, NTest: c.NTest})
				require.NoError(t, err)
				mean, tStat, df = r.MeanDiff, r.T, r.DF
			case "paired":
				r, err := PairedT(c.Diffs, make([]float64, len(c.Diffs)), PairedTOptions{Confidence: c.Confidence})
				require.NoError(t, err)
				mean, tStat, df = r.MeanDiff, r.T, r.DF
				iv := TInterval(mean, tStat, df, c.Confidence)
				requireRefClose(t, r.CILow, iv.Low, "PairedT's own low")
				requireRefClose(t, r.CIHigh, iv.High, "PairedT's own high")
			default:
				t.Fatalf("unknown kind %q", c.Kind)
			}
			check("computed t", TInterval(mean, tStat, df, c.Confidence))
		})
	}
}

// TestTIntervalEdgeCases: every undefined standard error gives the point
// itself, as documented.
func TestTIntervalEdgeCases(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		name    string
		mean, t float64
		df      int
	}{
		{name: "t zero, mean zero", mean: 0, t: 0, df: 9},
		{name: "t zero, mean not zero", mean: 0.01, t: 0, df: 9},
		{name: "t +Inf", mean: 0.02, t: inf, df: 4},
		{name: "t -Inf", mean: -0.02, t: -inf, df: 4},
		{name: "t NaN", mean: 0.02, t: nan, df: 4},
		{name: "df 0", mean: 0.02, t: 2, df: 0},
		{name: "df negative", mean: 0.02, t: 2, df: -3},
		{name: "mean +Inf", mean: inf, t: 2, df: 4},
		{name: "mean NaN", mean: nan, t: 2, df: 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := TInterval(tt.mean, tt.t, tt.df, 0.95)
			require.Equal(t, 0.95, got.Confidence)
			for _, v := range []float64{got.Estimate, got.Low, got.High} {
				if math.IsNaN(tt.mean) {
					require.True(t, math.IsNaN(v))
				} else {
					require.Equal(t, tt.mean, v)
				}
			}
		})
	}
}

// A negative t with a negative mean and a positive t with a positive mean
// give the same width: se = |mean/t|.
func TestTIntervalSymmetric(t *testing.T) {
	t.Parallel()
	pos, neg := TInterval(0.03, 2.5, 9, 0.95), TInterval(-0.03, -2.5, 9, 0.95)
	requireRefClose(t, -pos.High, neg.Low, "low")
	requireRefClose(t, -pos.Low, neg.High, "high")
}

func TestTIntervalPanics(t *testing.T) {
	t.Parallel()
	for _, c := range []float64{0, 1, -0.5, 95, math.NaN()} {
		require.PanicsWithValue(t, fmt.Sprintf("stats: TInterval confidence must be in (0, 1), got %g", c),
			func() { TInterval(0.1, 2, 9, c) }, "confidence %g", c)
	}
}
