package stats

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestMcNemarReference(t *testing.T) {
	t.Parallel()
	for _, c := range readReference[struct {
		Name  string      `json:"name"`
		Mode  McNemarMode `json:"mode"`
		B     int         `json:"b"`
		C     int         `json:"c"`
		Left  []float64   `json:"left"`
		Right []float64   `json:"right"`
		Want  struct {
			B         int         `json:"b"`
			C         int         `json:"c"`
			Statistic float64     `json:"statistic"`
			PValue    float64     `json:"p_value"`
			Mode      McNemarMode `json:"mode"`
		} `json:"want"`
	}](t, "mcnemar.json") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			var got McNemarResult
			var err error
			if c.Left != nil {
				got, err = McNemar(c.Left, c.Right, McNemarOptions{Mode: c.Mode})
			} else {
				got, err = McNemarCounts(c.B, c.C, McNemarOptions{Mode: c.Mode})
			}
			require.NoError(t, err)
			require.Equal(t, c.Want.B, got.B)
			require.Equal(t, c.Want.C, got.C)
			require.Equal(t, c.Want.Mode, got.Mode)
			requireRefClose(t, c.Want.Statistic, got.Statistic, "statistic")
			requireRefClose(t, c.Want.PValue, got.PValue, "p_value")
		})
	}
}

func TestMcNemarEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		b, c          int
		mode          McNemarMode
		wantErr       error
		wantStatistic float64
		wantP         float64
		wantMode      McNemarMode
		wantNote      bool
	}{
		{name: "never disagree, auto", b: 0, c: 0, wantP: 1, wantMode: McNemarExact, wantNote: true},
		{name: "never disagree, chi2", b: 0, c: 0, mode: McNemarChi2, wantP: 1, wantMode: McNemarChi2, wantNote: true},
		// statsmodels gives (0 − 1)²/20 = 0.05 here; the correction is clamped.
		{name: "b equals c, chi2", b: 10, c: 10, mode: McNemarChi2, wantStatistic: 0, wantP: 1, wantMode: McNemarChi2, wantNote: true},
		{name: "b equals c, exact", b: 7, c: 7, mode: McNemarExact, wantStatistic: 7, wantP: 1, wantMode: McNemarExact},
		{name: "auto switches at 50", b: 25, c: 25, wantStatistic: 0, wantP: 1, wantMode: McNemarChi2, wantNote: true},
		// 2 · P(X ≤ 0) for X ~ Binomial(5, ½) = 2/32, the five-sample floor.
		{name: "five against none", b: 5, c: 0, wantStatistic: 0, wantP: 0.0625, wantMode: McNemarExact},
		{name: "negative count", b: -1, c: 3, wantErr: ErrBadParameter},
		{name: "unknown mode", b: 1, c: 3, mode: "midp", wantErr: ErrBadParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := McNemarCounts(tt.b, tt.c, McNemarOptions{Mode: tt.mode})
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantMode, got.Mode)
			require.Equal(t, tt.wantStatistic, got.Statistic)
			require.InDelta(t, tt.wantP, got.PValue, 1e-15)
			require.Equal(t, tt.wantNote, len(got.Notes) > 0)
		})
	}
}

func TestMcNemarInputErrors(t *testing.T) {
	t.Parallel()
	_, err := McNemar([]float64{1, 0}, []float64{1}, McNemarOptions{})
	require.ErrorIs(t, err, ErrLengths)
	_, err = McNemar([]float64{1, 0, 0.5}, []float64{1, 1, 0}, McNemarOptions{})
	require.ErrorIs(t, err, ErrNotBinary)
	require.ErrorContains(t, err, "left[2]")
	got, err := McNemar([]float64{1, 1, 0, 0, 1}, []float64{1, 0, 1, 0, 0}, McNemarOptions{})
	require.NoError(t, err)
	require.Equal(t, [2]int{2, 1}, [2]int{got.B, got.C})
}
