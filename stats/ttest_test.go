package stats

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"
)

// Tolerances against the reference fixtures in testdata/reference, which
// gen_reference.py (scipy 1.10, statsmodels 0.13, mpmath) and gen_delong.R
// (pROC 1.18) wrote. refAbsTol only matters for values that are zero or
// nearly so, such as z = 0.
const (
	refRelTol = 1e-9
	refAbsTol = 1e-14
)

// readReference returns the cases of a reference fixture, requiring at
// least five of them.
func readReference[T any](t *testing.T, name string) []T {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference", name))
	require.NoError(t, err)
	var doc struct {
		Cases []T `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.GreaterOrEqual(t, len(doc.Cases), 5, "%s holds too few cases", name)
	return doc.Cases
}

// requireRefClose requires got to equal want within refRelTol relative or
// refAbsTol absolute.
func requireRefClose(t *testing.T, want, got float64, what string) {
	t.Helper()
	require.Truef(t, scalar.EqualWithinAbsOrRel(got, want, refAbsTol, refRelTol),
		"%s: got %.17g, want %.17g (relative error %.3g)", what, got, want, math.Abs(got-want)/math.Abs(want))
}

func TestPairedTReference(t *testing.T) {
	t.Parallel()
	type want struct {
		N        int     `json:"n"`
		MeanDiff float64 `json:"mean_diff"`
		T        float64 `json:"t"`
		DF       int     `json:"df"`
		PValue   float64 `json:"p_value"`
		CILow    float64 `json:"ci_low"`
		CIHigh   float64 `json:"ci_high"`
	}
	for _, c := range readReference[struct {
		Name       string    `json:"name"`
		Left       []float64 `json:"left"`
		Right      []float64 `json:"right"`
		Confidence float64   `json:"confidence"`
		Want       want      `json:"want"`
	}](t, "paired_t.json") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			got, err := PairedT(c.Left, c.Right, PairedTOptions{Confidence: c.Confidence})
			require.NoError(t, err)
			require.Equal(t, c.Want.N, got.N)
			require.Equal(t, c.Want.DF, got.DF)
			requireRefClose(t, c.Want.MeanDiff, got.MeanDiff, "mean_diff")
			requireRefClose(t, c.Want.T, got.T, "t")
			requireRefClose(t, c.Want.PValue, got.PValue, "p_value")
			requireRefClose(t, c.Want.CILow, got.CILow, "ci_low")
			requireRefClose(t, c.Want.CIHigh, got.CIHigh, "ci_high")
			require.Empty(t, got.Notes)
		})
	}
}

func TestPairedTEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		left, right  []float64
		opts         PairedTOptions
		wantErr      error
		wantT, wantP float64
		wantCI       [2]float64
		wantNote     bool
	}{
		{name: "all differences zero", left: []float64{0.3, 0.5, 0.9}, right: []float64{0.3, 0.5, 0.9},
			wantT: 0, wantP: 1, wantCI: [2]float64{0, 0}, wantNote: true},
		{name: "all differences equal and positive", left: []float64{1, 2, 3, 4}, right: []float64{0.5, 1.5, 2.5, 3.5},
			wantT: math.Inf(1), wantP: 0, wantCI: [2]float64{0.5, 0.5}, wantNote: true},
		{name: "all differences equal and negative", left: []float64{0, 0}, right: []float64{1, 1},
			wantT: math.Inf(-1), wantP: 0, wantCI: [2]float64{-1, -1}, wantNote: true},
		{name: "one pair", left: []float64{1}, right: []float64{0}, wantErr: ErrTooFew},
		{name: "no pairs", wantErr: ErrTooFew},
		{name: "lengths differ", left: []float64{1, 2}, right: []float64{1}, wantErr: ErrLengths},
		{name: "NaN", left: []float64{1, math.NaN()}, right: []float64{1, 2}, wantErr: ErrNotFinite},
		{name: "Inf on the right", left: []float64{1, 2}, right: []float64{math.Inf(-1), 2}, wantErr: ErrNotFinite},
		{name: "confidence 1", left: []float64{1, 2}, right: []float64{0, 0}, opts: PairedTOptions{Confidence: 1}, wantErr: ErrBadParameter},
		{name: "negative confidence", left: []float64{1, 2}, right: []float64{0, 0}, opts: PairedTOptions{Confidence: -0.5}, wantErr: ErrBadParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := PairedT(tt.left, tt.right, tt.opts)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantT, got.T)
			require.Equal(t, tt.wantP, got.PValue)
			require.Equal(t, tt.wantCI, [2]float64{got.CILow, got.CIHigh})
			require.Equal(t, tt.wantNote, len(got.Notes) > 0)
		})
	}
}

func TestPairedTErrorNamesTheInput(t *testing.T) {
	t.Parallel()
	_, err := PairedT([]float64{1, 2, 3}, []float64{1, math.NaN(), 3}, PairedTOptions{})
	require.ErrorIs(t, err, ErrNotFinite)
	require.ErrorContains(t, err, "right[1]")

	_, err = PairedT([]float64{1, math.MaxFloat64}, []float64{1, -math.MaxFloat64}, PairedTOptions{})
	require.ErrorIs(t, err, ErrNotFinite)
	require.ErrorContains(t, err, "left[1] − right[1] overflows")
}

func TestCorrectedResampledTReference(t *testing.T) {
	t.Parallel()
	for _, c := range readReference[struct {
		Name   string    `json:"name"`
		Left   []float64 `json:"left"`
		Right  []float64 `json:"right"`
		Diffs  []float64 `json:"diffs"`
		NTrain int       `json:"n_train"`
		NTest  int       `json:"n_test"`
		Want   struct {
			N        int     `json:"n"`
			MeanDiff float64 `json:"mean_diff"`
			T        float64 `json:"t"`
			DF       int     `json:"df"`
			PValue   float64 `json:"p_value"`
		} `json:"want"`
	}](t, "corrected_t.json") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			opts := CorrectedTOptions{NTrain: c.NTrain, NTest: c.NTest}
			var got CorrectedTResult
			var err error
			if c.Left != nil {
				got, err = CorrectedResampledT(c.Left, c.Right, opts)
			} else {
				got, err = CorrectedResampledTDiffs(c.Diffs, opts)
			}
			require.NoError(t, err)
			require.Equal(t, c.Want.N, got.N)
			require.Equal(t, c.Want.DF, got.DF)
			requireRefClose(t, c.Want.MeanDiff, got.MeanDiff, "mean_diff")
			requireRefClose(t, c.Want.T, got.T, "t")
			requireRefClose(t, c.Want.PValue, got.PValue, "p_value")
		})
	}
}

func TestCorrectedResampledTEdgeCases(t *testing.T) {
	t.Parallel()
	tenFold := CorrectedTOptions{NTrain: 900, NTest: 100}
	tests := []struct {
		name         string
		diffs        []float64
		opts         CorrectedTOptions
		wantErr      error
		wantT, wantP float64
	}{
		{name: "zero differences", diffs: []float64{0, 0, 0, 0, 0}, opts: tenFold, wantT: 0, wantP: 1},
		{name: "equal differences", diffs: []float64{0.01, 0.01, 0.01}, opts: tenFold, wantT: math.Inf(1), wantP: 0},
		{name: "one fold", diffs: []float64{0.01}, opts: tenFold, wantErr: ErrTooFew},
		{name: "sizes missing", diffs: []float64{0.01, 0.02}, wantErr: ErrBadParameter},
		{name: "rho 1", diffs: []float64{0.01, 0.02}, opts: CorrectedTOptions{Rho: 1}, wantErr: ErrBadParameter},
		{name: "negative rho", diffs: []float64{0.01, 0.02}, opts: CorrectedTOptions{Rho: -0.1}, wantErr: ErrBadParameter},
		{name: "rho disagrees with sizes", diffs: []float64{0.01, 0.02}, opts: CorrectedTOptions{NTrain: 900, NTest: 100, Rho: 0.2}, wantErr: ErrBadParameter},
		{name: "n_test alone", diffs: []float64{0.01, 0.02}, opts: CorrectedTOptions{NTest: 100, Rho: 0.1}, wantErr: ErrBadParameter},
		{name: "one fold", diffs: []float64{0.01, 0.02}, opts: CorrectedTOptions{Folds: 1}, wantErr: ErrBadParameter},
		{name: "folds disagree with sizes", diffs: []float64{0.01, 0.02}, opts: CorrectedTOptions{Folds: 5, NTrain: 900, NTest: 100}, wantErr: ErrBadParameter},
		{name: "folds disagree with rho", diffs: []float64{0.01, 0.02}, opts: CorrectedTOptions{Folds: 5, Rho: 0.1}, wantErr: ErrBadParameter},
		{name: "negative test size", diffs: []float64{0.01, 0.02}, opts: CorrectedTOptions{NTrain: 10, NTest: -1}, wantErr: ErrBadParameter},
		{name: "NaN", diffs: []float64{0.01, math.NaN()}, opts: tenFold, wantErr: ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := CorrectedResampledTDiffs(tt.diffs, tt.opts)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantT, got.T)
			require.Equal(t, tt.wantP, got.PValue)
			require.NotEmpty(t, got.Notes)
		})
	}
	_, err := CorrectedResampledT([]float64{1, 2}, []float64{1}, tenFold)
	require.ErrorIs(t, err, ErrLengths)
}

// TestCorrectedResampledTKFoldRho checks that ρ = 1/k, for folds whose
// sizes were not recorded, gives the corrected t of sizes n_train = k − 1,
// n_test = 1: ρ/(1 − ρ) = 1/(k − 1) = n_test/n_train.
func TestCorrectedResampledTKFoldRho(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	d := []float64{0.012, 0.025, -0.004, 0.018, 0.009, 0.021, 0.003, 0.015, 0.011, 0.007}
	for _, k := range []int{2, 3, 5, 10, 20} {
		rho, err := KFoldRho(k)
		require.NoError(t, err)
		byRho, err := CorrectedResampledTDiffs(d, CorrectedTOptions{Rho: rho})
		require.NoError(t, err)
		bySizes, err := CorrectedResampledTDiffs(d, CorrectedTOptions{NTrain: k - 1, NTest: 1})
		require.NoError(t, err)
		require.InDelta(t, bySizes.T, byRho.T, tol, "k = %d", k)
		require.InDelta(t, bySizes.PValue, byRho.PValue, tol, "k = %d", k)
		require.InDelta(t, bySizes.Rho, byRho.Rho, tol, "k = %d", k)
		byFolds, err := CorrectedResampledTDiffs(d, CorrectedTOptions{Folds: k})
		require.NoError(t, err)
		require.Equal(t, byRho, byFolds)
		// Agreeing sizes and rho are accepted together.
		both, err := CorrectedResampledTDiffs(d, CorrectedTOptions{NTrain: 100 * (k - 1), NTest: 100, Rho: rho})
		require.NoError(t, err)
		require.InDelta(t, bySizes.T, both.T, tol, "k = %d", k)
	}
	for _, k := range []int{-1, 0, 1} {
		_, err := KFoldRho(k)
		require.ErrorIs(t, err, ErrBadParameter)
	}
}

// The corrected t is never larger in magnitude than the naive paired t on
// the same differences: the correction only inflates the variance.
func TestCorrectedResampledTIsMoreConservative(t *testing.T) {
	t.Parallel()
	d := []float64{0.012, 0.02, 0.004, 0.015, 0.009, 0.011, 0.018, 0.007, 0.013, 0.01}
	naive, err := PairedT(d, make([]float64, len(d)), PairedTOptions{})
	require.NoError(t, err)
	corrected, err := CorrectedResampledTDiffs(d, CorrectedTOptions{NTrain: 900, NTest: 100})
	require.NoError(t, err)
	// (1/10 + 1/9) / (1/10) is the variance ratio, so t shrinks by its root.
	ratio := math.Sqrt((1.0/10 + 100.0/900) / (1.0 / 10))
	require.InDelta(t, naive.T/ratio, corrected.T, 1e-12)
	require.Greater(t, corrected.PValue, naive.PValue)
}

func TestFiveByTwoCVTReference(t *testing.T) {
	t.Parallel()
	for _, c := range readReference[struct {
		Name  string    `json:"name"`
		Diffs []float64 `json:"diffs"`
		Want  struct {
			T      float64 `json:"t"`
			DF     int     `json:"df"`
			PValue float64 `json:"p_value"`
		} `json:"want"`
	}](t, "five_by_two.json") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			got, err := FiveByTwoCVT(c.Diffs)
			require.NoError(t, err)
			require.Equal(t, c.Want.DF, got.DF)
			requireRefClose(t, c.Want.T, got.T, "t")
			requireRefClose(t, c.Want.PValue, got.PValue, "p_value")
		})
	}
}

func TestFiveByTwoCVTEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		diffs        []float64
		wantErr      error
		wantT, wantP float64
	}{
		{name: "nine differences", diffs: make([]float64, 9), wantErr: ErrTooFew},
		{name: "eleven differences", diffs: make([]float64, 11), wantErr: ErrLengths},
		{name: "Inf", diffs: []float64{0, 0, 0, 0, 0, 0, 0, 0, 0, math.Inf(1)}, wantErr: ErrNotFinite},
		{name: "all zero", diffs: make([]float64, 10), wantT: 0, wantP: 1},
		{name: "folds agree within repetitions", diffs: []float64{0.1, 0.1, 0.2, 0.2, 0, 0, 0.1, 0.1, 0.3, 0.3}, wantT: math.Inf(1), wantP: 0},
		{name: "folds agree, first zero", diffs: []float64{0, 0, 0.2, 0.2, 0, 0, 0.1, 0.1, 0.3, 0.3}, wantT: 0, wantP: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := FiveByTwoCVT(tt.diffs)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantT, got.T)
			require.Equal(t, tt.wantP, got.PValue)
			require.NotEmpty(t, got.Notes)
		})
	}
}

// The Student quantile behind the interval inverts the tail probability it
// is solved from. 1e-10 rather than 1e-12 because gonum's incomplete beta
// itself loses digits near df = 1e5.
func TestStudentQuantileUpperInvertsTail(t *testing.T) {
	t.Parallel()
	for _, df := range []float64{1, 2, 3, 5, 9, 29, 99, 1000, 1e5} {
		for _, q := range []float64{0.25, 0.05, 0.025, 0.005, 1e-6} {
			x := studentQuantileUpper(df, q)
			got := studentTwoSidedP(x, df) / 2
			require.Truef(t, scalar.EqualWithinRel(got, q, 1e-10), "df %g q %g: tail %.17g", df, q, got)
		}
	}
}
