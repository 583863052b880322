package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDeLongReference(t *testing.T) {
	t.Parallel()
	for _, c := range readReference[struct {
		Name       string    `json:"name"`
		Labels     []float64 `json:"labels"`
		Left       []float64 `json:"left"`
		Right      []float64 `json:"right"`
		Confidence float64   `json:"confidence"`
		Want       struct {
			AUCLeft  float64 `json:"auc_left"`
			AUCRight float64 `json:"auc_right"`
			Diff     float64 `json:"diff"`
			SE       float64 `json:"se"`
			Z        float64 `json:"z"`
			PValue   float64 `json:"p_value"`
			CILow    float64 `json:"ci_low"`
			CIHigh   float64 `json:"ci_high"`
		} `json:"want"`
	}](t, "delong.json") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			got, err := DeLong(c.Labels, c.Left, c.Right, DeLongOptions{Confidence: c.Confidence})
			require.NoError(t, err)
			requireRefClose(t, c.Want.AUCLeft, got.AUCLeft, "auc_left")
			requireRefClose(t, c.Want.AUCRight, got.AUCRight, "auc_right")
			requireRefClose(t, c.Want.Diff, got.Diff, "diff")
			requireRefClose(t, c.Want.SE, got.SE, "se")
			requireRefClose(t, c.Want.Z, got.Z, "z")
			requireRefClose(t, c.Want.PValue, got.PValue, "p_value")
			requireRefClose(t, c.Want.CILow, got.CILow, "ci_low")
			requireRefClose(t, c.Want.CIHigh, got.CIHigh, "ci_high")
		})
	}
}

func TestDeLongEdgeCases(t *testing.T) {
	t.Parallel()
	labels := []float64{0, 0, 1, 1}
	tests := []struct {
		name                string
		labels, left, right []float64
		opts                DeLongOptions
		wantErr             error
		wantZ, wantP        float64
	}{
		{name: "both perfect", labels: labels, left: []float64{0.1, 0.2, 0.8, 0.9}, right: []float64{1, 2, 3, 4}, wantZ: 0, wantP: 1},
		// Left is perfect; right scores everyone alike, so every placement
		// value of right is ½ and the difference has no variance.
		{name: "perfect against constant", labels: labels, left: []float64{0.1, 0.2, 0.8, 0.9}, right: []float64{1, 1, 1, 1}, wantZ: math.Inf(1), wantP: 0},
		{name: "single class", labels: []float64{1, 1, 1}, left: []float64{1, 2, 3}, right: []float64{1, 2, 3}, wantErr: ErrTooFew},
		{name: "one negative", labels: []float64{1, 1, 0}, left: []float64{1, 2, 3}, right: []float64{1, 2, 3}, wantErr: ErrTooFew},
		{name: "label 2", labels: []float64{0, 2, 1, 0}, left: make([]float64, 4), right: make([]float64, 4), wantErr: ErrNotBinary},
		{name: "lengths differ", labels: labels, left: make([]float64, 3), right: make([]float64, 4), wantErr: ErrLengths},
		{name: "NaN score", labels: labels, left: []float64{0, math.NaN(), 0, 0}, right: make([]float64, 4), wantErr: ErrNotFinite},
		{name: "confidence 1", labels: labels, left: make([]float64, 4), right: make([]float64, 4), opts: DeLongOptions{Confidence: 1}, wantErr: ErrBadParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := DeLong(tt.labels, tt.left, tt.right, tt.opts)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, 0.0, got.SE)
			require.Equal(t, tt.wantZ, got.Z)
			require.Equal(t, tt.wantP, got.PValue)
			require.Equal(t, got.Diff, got.CILow)
			require.Equal(t, got.Diff, got.CIHigh)
			require.NotEmpty(t, got.Notes)
		})
	}
}

// The midrank placements agree with the O(mn) definition, ties counted ½.
func TestPlacementsMatchPairCounting(t *testing.T) {
	t.Parallel()
	labels := []float64{1, 0, 1, 1, 0, 0, 1, 0, 0, 1}
	scores := []float64{0.9, 0.3, 0.3, 0.7, 0.7, 0.1, 0.5, 0.5, 0.2, 0.3}
	m, n := 5, 5
	auc, v10, v01 := placements(labels, scores, m, n)
	var pos, neg []float64
	for i, l := range labels {
		if l == 1 {
			pos = append(pos, scores[i])
		} else {
			neg = append(neg, scores[i])
		}
	}
	psi := func(x, y float64) float64 {
		switch {
		case x > y:
			return 1
		case x == y:
			return 0.5
		}
		return 0
	}
	var total float64
	for i, x := range pos {
		var s float64
		for _, y := range neg {
			s += psi(x, y)
		}
		require.InDelta(t, s/float64(n), v10[i], 1e-15)
		total += s
	}
	for j, y := range neg {
		var s float64
		for _, x := range pos {
			s += psi(x, y)
		}
		require.InDelta(t, s/float64(m), v01[j], 1e-15)
	}
	require.InDelta(t, total/float64(m*n), auc, 1e-15)
}
