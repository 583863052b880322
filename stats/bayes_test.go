package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBayesCorrelatedTReference(t *testing.T) {
	t.Parallel()
	for _, c := range readReference[struct {
		Name   string    `json:"name"`
		Left   []float64 `json:"left"`
		Right  []float64 `json:"right"`
		Diffs  []float64 `json:"diffs"`
		Rho    float64   `json:"rho"`
		NTrain int       `json:"n_train"`
		NTest  int       `json:"n_test"`
		Rope   float64   `json:"rope"`
		Want   struct {
			DF           int     `json:"df"`
			Loc          float64 `json:"loc"`
			Scale        float64 `json:"scale"`
			PLeftBetter  float64 `json:"p_left_better"`
			PEquivalent  float64 `json:"p_equivalent"`
			PRightBetter float64 `json:"p_right_better"`
		} `json:"want"`
	}](t, "bayes.json") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			opts := BayesOptions{Rho: c.Rho, NTrain: c.NTrain, NTest: c.NTest, Rope: c.Rope}
			var got BayesResult
			var err error
			if c.Left != nil {
				got, err = BayesCorrelatedT(c.Left, c.Right, opts)
			} else {
				got, err = BayesCorrelatedTDiffs(c.Diffs, opts)
			}
			require.NoError(t, err)
			require.Equal(t, c.Want.DF, got.DF)
			requireRefClose(t, c.Want.Loc, got.Loc, "loc")
			requireRefClose(t, c.Want.Scale, got.Scale, "scale")
			requireRefClose(t, c.Want.PLeftBetter, got.PLeftBetter, "p_left_better")
			requireRefClose(t, c.Want.PEquivalent, got.PEquivalent, "p_equivalent")
			requireRefClose(t, c.Want.PRightBetter, got.PRightBetter, "p_right_better")
			require.InDelta(t, 1, got.PLeftBetter+got.PEquivalent+got.PRightBetter, 1e-12)
		})
	}
}

func TestBayesCorrelatedTEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                string
		diffs               []float64
		opts                BayesOptions
		wantErr             error
		wantL, wantE, wantR float64
	}{
		{name: "all zero, no rope", diffs: []float64{0, 0, 0}, opts: BayesOptions{Rho: 0.1}, wantE: 1},
		{name: "all equal above the rope", diffs: []float64{0.02, 0.02}, opts: BayesOptions{Rho: 0.1, Rope: 0.01}, wantL: 1},
		{name: "all equal below the rope", diffs: []float64{-0.02, -0.02}, opts: BayesOptions{Rho: 0.1, Rope: 0.01}, wantR: 1},
		{name: "all equal inside the rope", diffs: []float64{0.005, 0.005}, opts: BayesOptions{Rho: 0.1, Rope: 0.01}, wantE: 1},
		{name: "one difference", diffs: []float64{0.1}, opts: BayesOptions{Rho: 0.1}, wantErr: ErrTooFew},
		{name: "rho 1", diffs: []float64{0.1, 0.2}, opts: BayesOptions{Rho: 1}, wantErr: ErrBadParameter},
		{name: "negative rho", diffs: []float64{0.1, 0.2}, opts: BayesOptions{Rho: -0.1}, wantErr: ErrBadParameter},
		{name: "n_train alone", diffs: []float64{0.1, 0.2}, opts: BayesOptions{NTrain: 90}, wantErr: ErrBadParameter},
		{name: "rho disagrees with sizes", diffs: []float64{0.1, 0.2}, opts: BayesOptions{Rho: 0.5, NTrain: 90, NTest: 10}, wantErr: ErrBadParameter},
		{name: "negative rope", diffs: []float64{0.1, 0.2}, opts: BayesOptions{Rope: -1}, wantErr: ErrBadParameter},
		{name: "Inf", diffs: []float64{0.1, math.Inf(1)}, opts: BayesOptions{Rho: 0.1}, wantErr: ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := BayesCorrelatedTDiffs(tt.diffs, tt.opts)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, 0.0, got.Scale)
			require.Equal(t, [3]float64{tt.wantL, tt.wantE, tt.wantR}, [3]float64{got.PLeftBetter, got.PEquivalent, got.PRightBetter})
			require.NotEmpty(t, got.Notes)
		})
	}
}

func TestBayesCorrelatedTRho(t *testing.T) {
	t.Parallel()
	d := []float64{0.01, 0.03, -0.01, 0.02, 0.015}
	bySizes, err := BayesCorrelatedTDiffs(d, BayesOptions{NTrain: 400, NTest: 100})
	require.NoError(t, err)
	byRho, err := BayesCorrelatedTDiffs(d, BayesOptions{Rho: 0.2})
	require.NoError(t, err)
	require.Equal(t, byRho, bySizes)

	// Without rho or sizes the differences are taken as independent, and a
	// note says so; the posterior is then narrower.
	independent, err := BayesCorrelatedTDiffs(d, BayesOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, independent.Notes)
	require.Less(t, independent.Scale, byRho.Scale)
	_, err = BayesCorrelatedT(d, d[:4], BayesOptions{Rho: 0.2})
	require.ErrorIs(t, err, ErrLengths)
}
