package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAdjustPValuesReference(t *testing.T) {
	t.Parallel()
	for _, c := range readReference[struct {
		Name    string       `json:"name"`
		PValues []float64    `json:"p_values"`
		Method  AdjustMethod `json:"method"`
		Want    struct {
			Adjusted []float64 `json:"adjusted"`
		} `json:"want"`
	}](t, "adjust.json") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			got, err := AdjustPValues(c.PValues, c.Method)
			require.NoError(t, err)
			require.Len(t, got.Adjusted, len(c.Want.Adjusted))
			for i := range got.Adjusted {
				requireRefClose(t, c.Want.Adjusted[i], got.Adjusted[i], "adjusted")
			}
		})
	}
}

func TestAdjustPValuesEdgeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		p       []float64
		method  AdjustMethod
		want    []float64
		wantErr error
	}{
		{name: "empty", p: nil, method: AdjustBH, want: []float64{}},
		{name: "default is holm", p: []float64{0.01, 0.04, 0.03}, want: []float64{0.03, 0.06, 0.06}},
		{name: "bonferroni caps at one", p: []float64{0.5, 0.2}, method: AdjustBonferroni, want: []float64{1, 0.4}},
		{name: "unknown method", p: []float64{0.5}, method: "sidak", wantErr: ErrBadParameter},
		{name: "above one", p: []float64{0.5, 1.5}, method: AdjustHolm, wantErr: ErrBadParameter},
		{name: "negative", p: []float64{-0.1}, method: AdjustHolm, wantErr: ErrBadParameter},
		{name: "NaN", p: []float64{math.NaN()}, method: AdjustHolm, wantErr: ErrNotFinite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := AdjustPValues(tt.p, tt.method)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.InDeltaSlice(t, tt.want, got.Adjusted, 1e-15)
		})
	}
}

// Adjusted p-values never fall below the raw ones; Holm is never above
// Bonferroni, BH never above BY, and BH never above Holm.
func TestAdjustPValuesOrdering(t *testing.T) {
	t.Parallel()
	p := []float64{0.001, 0.2, 0.013, 0.04, 0.04, 0.6, 0.0002}
	adj := map[AdjustMethod][]float64{}
	for _, m := range []AdjustMethod{AdjustHolm, AdjustBonferroni, AdjustBH, AdjustBY} {
		r, err := AdjustPValues(p, m)
		require.NoError(t, err)
		adj[m] = r.Adjusted
	}
	for i := range p {
		for m, a := range adj {
			require.GreaterOrEqual(t, a[i], p[i], "%s[%d]", m, i)
		}
		require.LessOrEqual(t, adj[AdjustHolm][i], adj[AdjustBonferroni][i])
		require.LessOrEqual(t, adj[AdjustBH][i], adj[AdjustBY][i])
		require.LessOrEqual(t, adj[AdjustBH][i], adj[AdjustHolm][i])
	}
}
