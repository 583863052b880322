package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWilcoxonReference(t *testing.T) {
	t.Parallel()
	for _, c := range readReference[struct {
		Name       string       `json:"name"`
		Source     string       `json:"source"`
		Left       []float64    `json:"left"`
		Right      []float64    `json:"right"`
		ZeroMethod ZeroMethod   `json:"zero_method"`
		Mode       WilcoxonMode `json:"mode"`
		Correction bool         `json:"correction"`
		Want       struct {
			N         int          `json:"n"`
			WPlus     float64      `json:"w_plus"`
			WMinus    float64      `json:"w_minus"`
			Statistic float64      `json:"statistic"`
			Z         *float64     `json:"z"`
			PValue    float64      `json:"p_value"`
			Mode      WilcoxonMode `json:"mode"`
		} `json:"want"`
	}](t, "wilcoxon.json") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			got, err := Wilcoxon(c.Left, c.Right, WilcoxonOptions{ZeroMethod: c.ZeroMethod, Mode: c.Mode, Correction: c.Correction})
			require.NoError(t, err)
			require.Equal(t, c.Want.N, got.N)
			require.Equal(t, c.Want.Mode, got.Mode)
			requireRefClose(t, c.Want.WPlus, got.WPlus, "w_plus")
			requireRefClose(t, c.Want.WMinus, got.WMinus, "w_minus")
			requireRefClose(t, c.Want.Statistic, got.Statistic, "statistic")
			requireRefClose(t, c.Want.PValue, got.PValue, "p_value ("+c.Source+")")
			if c.Want.Z == nil {
				require.Nil(t, got.Z)
			} else {
				require.NotNil(t, got.Z)
				requireRefClose(t, *c.Want.Z, *got.Z, "z")
			}
		})
	}
}

func TestWilcoxonFiveFoldFloor(t *testing.T) {
	t.Parallel()
	// Five differences of one sign: the smallest exact two-sided p-value,
	// 2/2^5, which never reaches 0.05.
	got, err := Wilcoxon([]float64{0.81, 0.82, 0.80, 0.83, 0.79}, []float64{0.80, 0.805, 0.77, 0.825, 0.75}, WilcoxonOptions{})
	require.NoError(t, err)
	require.Equal(t, WilcoxonExact, got.Mode)
	require.Equal(t, 0.0625, got.PValue)
	require.Equal(t, 15.0, got.WPlus)
	require.Equal(t, 0.0, got.Statistic)

	// Flipping the sides gives the same p-value with W+ and W− swapped.
	flipped, err := Wilcoxon([]float64{0.80, 0.805, 0.77, 0.825, 0.75}, []float64{0.81, 0.82, 0.80, 0.83, 0.79}, WilcoxonOptions{})
	require.NoError(t, err)
	require.Equal(t, 0.0625, flipped.PValue)
	require.Equal(t, 15.0, flipped.WMinus)
}

func TestWilcoxonEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		left, right []float64
		opts        WilcoxonOptions
		wantErr     error
		wantP       float64
		wantMode    WilcoxonMode
		wantN       int
		wantNote    Note
	}{
		{name: "all zero, wilcox", left: []float64{1, 2, 3}, right: []float64{1, 2, 3},
			wantP: 1, wantMode: WilcoxonApprox, wantN: 0, wantNote: Note{Code: NoteAllDifferencesZero}},
		{name: "all zero, pratt, exact", left: []float64{1, 2, 3}, right: []float64{1, 2, 3}, opts: WilcoxonOptions{ZeroMethod: ZeroPratt, Mode: WilcoxonExact},
			wantP: 1, wantMode: WilcoxonExact, wantN: 3, wantNote: Note{Code: NoteAllDifferencesZero}},
		{name: "all zero, zsplit", left: []float64{1, 2, 3, 4}, right: []float64{1, 2, 3, 4}, opts: WilcoxonOptions{ZeroMethod: ZeroSplit},
			wantP: 1, wantMode: WilcoxonApprox, wantN: 4, wantNote: Note{Code: NoteAllDifferencesZero}},
		{name: "zeros dropped", left: []float64{1, 2, 3, 4}, right: []float64{1, 2, 2, 2}, opts: WilcoxonOptions{Mode: WilcoxonExact},
			wantP: 0.5, wantMode: WilcoxonExact, wantN: 2, wantNote: Note{Code: NoteZerosDropped, Value: 2}},
		{name: "auto with ties goes approx", left: []float64{1, 2, 3, 4}, right: []float64{0, 1, 2, 5},
			wantMode: WilcoxonApprox, wantN: 4, wantNote: Note{Code: NoteApproxTies}},
		{name: "exact with ties is conditional", left: []float64{1, 2, 3, 4}, right: []float64{0, 1, 2, 3}, opts: WilcoxonOptions{Mode: WilcoxonExact},
			// Four tied differences of +1: W+ = 10 is reached by one of 16 sign patterns.
			wantP: 0.125, wantMode: WilcoxonExact, wantN: 4, wantNote: Note{Code: NoteExactWithTies}},
		{name: "approx with few differences", left: []float64{1, 2, 3}, right: []float64{0, 0, 0}, opts: WilcoxonOptions{Mode: WilcoxonApprox},
			wantMode: WilcoxonApprox, wantN: 3, wantNote: Note{Code: NoteApproxFewPairs, Value: 3}},
		{name: "no pairs", wantErr: ErrTooFew},
		{name: "lengths differ", left: []float64{1}, right: []float64{1, 2}, wantErr: ErrLengths},
		{name: "NaN", left: []float64{1, math.NaN()}, right: []float64{1, 2}, wantErr: ErrNotFinite},
		{name: "unknown zero method", left: []float64{1}, right: []float64{0}, opts: WilcoxonOptions{ZeroMethod: "drop"}, wantErr: ErrBadParameter},
		{name: "unknown mode", left: []float64{1}, right: []float64{0}, opts: WilcoxonOptions{Mode: "fast"}, wantErr: ErrBadParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Wilcoxon(tt.left, tt.right, tt.opts)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantMode, got.Mode)
			require.Equal(t, tt.wantN, got.N)
			if tt.wantP != 0 {
				require.InDelta(t, tt.wantP, got.PValue, 1e-15)
			}
			require.Equal(t, tt.wantMode == WilcoxonApprox, got.Z != nil)
			require.Contains(t, got.Notes, tt.wantNote)
		})
	}
}

func TestWilcoxonExactModeLimit(t *testing.T) {
	t.Parallel()
	left := make([]float64, wilcoxonExactMax+1)
	right := make([]float64, len(left))
	for i := range left {
		left[i] = float64(i + 1)
	}
	_, err := Wilcoxon(left, right, WilcoxonOptions{Mode: WilcoxonExact})
	require.ErrorIs(t, err, ErrBadParameter)
}

// The exact distribution sums to one and is symmetric, so the two-sided
// p-value of the centre is 1 and of the extremes 2/2^n.
func TestWilcoxonExactDistributionEnds(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 7, 20, 52} {
		groups := make([]rankGroup, n)
		for i := range groups {
			groups[i] = rankGroup{pos: 1, rank: float64(i + 1)}
		}
		require.Equal(t, math.Min(1, math.Ldexp(1, 1-n)), wilcoxonExactP(groups), "n = %d", n)
	}
}
