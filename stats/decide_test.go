package stats_test

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	nan, inf := math.NaN(), math.Inf(1)
	iv := func(low, high float64) stats.Interval {
		return stats.Interval{Estimate: (low + high) / 2, Low: low, High: high, Confidence: 0.95}
	}
	tests := []struct {
		name     string
		p, alpha float64
		iv       stats.Interval
		want     stats.Decision
	}{
		{name: "both hold, above zero", p: 0.01, alpha: 0.05, iv: iv(0.1, 0.3),
			want: stats.Decision{Distinguishable: true, PBelowAlpha: true, ExcludesZero: true}},
		{name: "both hold, below zero", p: 0.01, alpha: 0.05, iv: iv(-0.3, -0.1),
			want: stats.Decision{Distinguishable: true, PBelowAlpha: true, ExcludesZero: true}},
		{name: "p fails", p: 0.2, alpha: 0.05, iv: iv(0.1, 0.3),
			want: stats.Decision{ExcludesZero: true}},
		{name: "p equal to alpha fails", p: 0.05, alpha: 0.05, iv: iv(0.1, 0.3),
			want: stats.Decision{ExcludesZero: true}},
		{name: "interval fails", p: 0.01, alpha: 0.05, iv: iv(-0.1, 0.3),
			want: stats.Decision{PBelowAlpha: true}},
		{name: "both fail", p: 0.2, alpha: 0.05, iv: iv(-0.1, 0.3),
			want: stats.Decision{}},
		{name: "low bound at zero", p: 0.01, alpha: 0.05, iv: iv(0, 0.3),
			want: stats.Decision{PBelowAlpha: true}},
		{name: "high bound at zero", p: 0.01, alpha: 0.05, iv: iv(-0.3, 0),
			want: stats.Decision{PBelowAlpha: true}},
		{name: "high bound at minus zero", p: 0.01, alpha: 0.05, iv: iv(-0.3, math.Copysign(0, -1)),
			want: stats.Decision{PBelowAlpha: true}},
		{name: "zero-width interval at zero", p: 0.01, alpha: 0.05, iv: iv(0, 0),
			want: stats.Decision{PBelowAlpha: true}},
		{name: "NaN p", p: nan, alpha: 0.05, iv: iv(0.1, 0.3),
			want: stats.Decision{ExcludesZero: true}},
		{name: "NaN alpha", p: 0.01, alpha: nan, iv: iv(0.1, 0.3),
			want: stats.Decision{ExcludesZero: true}},
		{name: "NaN low bound", p: 0.01, alpha: 0.05, iv: stats.Interval{Estimate: -0.2, Low: nan, High: -0.1},
			want: stats.Decision{PBelowAlpha: true}},
		{name: "NaN high bound", p: 0.01, alpha: 0.05, iv: stats.Interval{Estimate: 0.2, Low: 0.1, High: nan},
			want: stats.Decision{PBelowAlpha: true}},
		{name: "NaN everything", p: nan, alpha: 0.05, iv: iv(nan, nan),
			want: stats.Decision{}},
		{name: "infinite bound", p: 0.01, alpha: 0.05, iv: stats.Interval{Estimate: 1, Low: 0.5, High: inf},
			want: stats.Decision{Distinguishable: true, PBelowAlpha: true, ExcludesZero: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, stats.Decide(tt.p, tt.alpha, tt.iv))
		})
	}
}

func TestDecisionJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(stats.Decide(0.2, 0.05, stats.Interval{Low: 0.1, High: 0.3}))
	require.NoError(t, err)
	require.JSONEq(t, `{"distinguishable": false, "p_below_alpha": false, "interval_excludes_zero": true}`, string(b))
}
