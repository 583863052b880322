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
		{name: "one fold", diffs: []float64{0.1, 0.2}, opts: BayesOptions{Folds: 1}, wantErr: ErrBadParameter},
		{name: "folds disagree with sizes", diffs: []float64{0.1, 0.2}, opts: BayesOptions{Folds: 5, NTrain: 90, NTest: 10}, wantErr: ErrBadParameter},
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

// TestBayesDecide checks the decision rule at its boundaries: a
// probability equal to the threshold does not decide, the next float above
// it does, and NaN never does.
func TestBayesDecide(t *testing.T) {
	t.Parallel()
	above := math.Nextafter(0.95, 1)
	below := math.Nextafter(0.95, 0)
	tests := []struct {
		name    string
		r       BayesResult
		at      float64
		want    BayesDecision
		wantErr bool
	}{
		{name: "left exactly at", r: BayesResult{PLeftBetter: 0.95, PEquivalent: 0.05}, at: 0.95, want: BayesUndecided},
		{name: "left just above", r: BayesResult{PLeftBetter: above, PEquivalent: 1 - above}, at: 0.95, want: BayesLeftBetter},
		{name: "left just below", r: BayesResult{PLeftBetter: below, PEquivalent: 1 - below}, at: 0.95, want: BayesUndecided},
		{name: "equivalent exactly at", r: BayesResult{PEquivalent: 0.95, PRightBetter: 0.05}, at: 0.95, want: BayesUndecided},
		{name: "equivalent just above", r: BayesResult{PEquivalent: above, PRightBetter: 1 - above}, at: 0.95, want: BayesEquivalent},
		{name: "right exactly at", r: BayesResult{PRightBetter: 0.95, PLeftBetter: 0.05}, at: 0.95, want: BayesUndecided},
		{name: "right just above", r: BayesResult{PRightBetter: above, PLeftBetter: 1 - above}, at: 0.95, want: BayesRightBetter},
		{name: "right at 1", r: BayesResult{PRightBetter: 1}, at: 0.999, want: BayesRightBetter},
		{name: "half at 0.5", r: BayesResult{PLeftBetter: 0.5, PRightBetter: 0.5}, at: 0.5, want: BayesUndecided},
		{name: "NaN", r: BayesResult{PLeftBetter: math.NaN(), PEquivalent: math.NaN(), PRightBetter: math.NaN()}, at: 0.95, want: BayesUndecided},
		{name: "threshold below 0.5", r: BayesResult{PLeftBetter: 1}, at: 0.4, wantErr: true},
		{name: "threshold 1", r: BayesResult{PLeftBetter: 1}, at: 1, wantErr: true},
		{name: "threshold NaN", r: BayesResult{PLeftBetter: 1}, at: math.NaN(), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.wantErr {
				require.Panics(t, func() { tt.r.Decide(tt.at) })
				return
			}
			require.Equal(t, tt.want, tt.r.Decide(tt.at))
		})
	}
}

// TestBayesCorrelatedTDecision checks the decision BayesCorrelatedTDiffs
// stores, and the threshold it checks. The posterior of d is the example's:
// P(left better) = 0.99351 (scipy 1.10: t(9, d̄, scale).sf(0.005)), which
// exceeds 0.95 and 0.99 but not 0.995.
func TestBayesCorrelatedTDecision(t *testing.T) {
	t.Parallel()
	d := []float64{0.012, 0.02, 0.004, 0.015, 0.009, 0.011, 0.018, 0.007, 0.013, 0.01}
	tests := []struct {
		name     string
		diffs    []float64
		opts     BayesOptions
		wantAt   float64
		want     BayesDecision
		wantErr  error
		wantNote bool
	}{
		{name: "default threshold", diffs: d, opts: BayesOptions{NTrain: 900, NTest: 100, Rope: 0.005}, wantAt: 0.95, want: BayesLeftBetter},
		{name: "at 0.99", diffs: d, opts: BayesOptions{NTrain: 900, NTest: 100, Rope: 0.005, DecideAt: 0.99}, wantAt: 0.99, want: BayesLeftBetter},
		{name: "at 0.995", diffs: d, opts: BayesOptions{NTrain: 900, NTest: 100, Rope: 0.005, DecideAt: 0.995}, wantAt: 0.995, want: BayesUndecided},
		{name: "mirrored", diffs: negated(d), opts: BayesOptions{NTrain: 900, NTest: 100, Rope: 0.005}, wantAt: 0.95, want: BayesRightBetter},
		{name: "wide rope", diffs: d, opts: BayesOptions{NTrain: 900, NTest: 100, Rope: 0.05}, wantAt: 0.95, want: BayesEquivalent},
		{name: "point mass inside the rope", diffs: []float64{0.001, 0.001}, opts: BayesOptions{Rho: 0.1, Rope: 0.01, DecideAt: 0.99}, wantAt: 0.99, want: BayesEquivalent},
		{name: "threshold below 0.5", diffs: d, opts: BayesOptions{Rho: 0.1, DecideAt: 0.4}, wantErr: ErrBadParameter},
		{name: "threshold 1", diffs: d, opts: BayesOptions{Rho: 0.1, DecideAt: 1}, wantErr: ErrBadParameter},
		{name: "threshold NaN", diffs: d, opts: BayesOptions{Rho: 0.1, DecideAt: math.NaN()}, wantErr: ErrBadParameter},
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
			require.Equal(t, tt.wantAt, got.DecideAt)
			require.Equal(t, tt.want, got.Decision)
			require.Equal(t, got.Decide(got.DecideAt), got.Decision)
		})
	}
}

// TestBayesCorrelatedTKFoldRho checks that ρ = 1/k is the posterior of
// folds of sizes k − 1 and 1.
func TestBayesCorrelatedTKFoldRho(t *testing.T) {
	t.Parallel()
	d := []float64{0.01, 0.03, -0.01, 0.02, 0.015}
	for _, k := range []int{2, 5, 10} {
		rho, err := KFoldRho(k)
		require.NoError(t, err)
		byRho, err := BayesCorrelatedTDiffs(d, BayesOptions{Rho: rho, Rope: 0.01})
		require.NoError(t, err)
		bySizes, err := BayesCorrelatedTDiffs(d, BayesOptions{NTrain: k - 1, NTest: 1, Rope: 0.01})
		require.NoError(t, err)
		require.InDelta(t, bySizes.Scale, byRho.Scale, 1e-12)
		require.InDelta(t, bySizes.PLeftBetter, byRho.PLeftBetter, 1e-12)
		require.InDelta(t, bySizes.PEquivalent, byRho.PEquivalent, 1e-12)
		byFolds, err := BayesCorrelatedTDiffs(d, BayesOptions{Folds: k, Rope: 0.01})
		require.NoError(t, err)
		require.Equal(t, byRho, byFolds)
	}
}

func negated(x []float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = -v
	}
	return y
}
