package stats_test

import (
	"math"
	"testing"

	"github.com/verdict-ml/verdict/stats"
)

// d_z and P(sup) of five pairs, by hand: d = left − right = 1, 2, 0, −1, 3;
// d̄ = 1, s² = (0 + 1 + 1 + 4 + 4)/4 = 2.5, d_z = 1/√2.5 = 0.632455532.
// Right is better (higher) on one unit, equal on one: P(sup) = 1.5/5 = 0.3.
func TestEffectSizesByHand(t *testing.T) {
	left := []float64{3, 4, 2, 1, 5}
	right := []float64{2, 2, 2, 2, 2}
	dz, err := stats.EffectSizeDz(left, right)
	if err != nil || math.Abs(dz-1/math.Sqrt(2.5)) > 1e-15 {
		t.Fatalf("d_z = %v, %v; want %v", dz, err, 1/math.Sqrt(2.5))
	}
	u := stats.PairedUnits{LeftSum: left, RightSum: right}
	b, err := stats.PairedSuperiorityUnits(u, false, stats.BootstrapOptions{Seed: 3})
	if err != nil || b.Estimate != 0.3 {
		t.Fatalf("P(sup) = %v, %v; want 0.3", b.Estimate, err)
	}
	// Lower is better: right is better on three units, equal on one.
	b, _ = stats.PairedSuperiorityUnits(u, true, stats.BootstrapOptions{Seed: 3})
	if b.Estimate != 0.7 {
		t.Fatalf("P(sup), lower is better = %v; want 0.7", b.Estimate)
	}
	if dz, _ := stats.EffectSizeDz([]float64{1, 2}, []float64{0, 1}); !math.IsNaN(dz) {
		t.Fatalf("d_z of constant differences = %v; want NaN", dz)
	}
}

// With differences in {−1, 0, 1}, each unit's score is ½ − d/2, so every
// replicate's P(sup) is ½ − (its mean difference)/2 (right is better where
// d = left − right is −1) when both draw the same
// units: the interval is the difference's, mapped, to rounding. That holds
// only if the two bootstraps make the same draws.
func TestSuperioritySharesTheBootstrapDraws(t *testing.T) {
	for _, rows := range []bool{false, true} {
		n := 5000
		u := stats.PairedUnits{LeftSum: make([]float64, n), RightSum: make([]float64, n)}
		if rows {
			u.Rows = make([]int32, n)
		}
		for i := range n {
			u.LeftSum[i] = float64(i*7%3) - 1 // −1, 0, 1
			if i%11 == 0 {
				u.LeftSum[i] = 1
			}
			if rows { // two rows a unit: drawn as (sum, rows) pairs
				u.Rows[i] = 2
				u.LeftSum[i] *= 2
			}
		}
		opts := stats.BootstrapOptions{Seed: 42, Resamples: 999}
		d, err := stats.PairedBootstrapUnits(u, opts)
		if err != nil {
			t.Fatal(err)
		}
		p, err := stats.PairedSuperiorityUnits(u, false, opts)
		if err != nil {
			t.Fatal(err)
		}
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
		if !near(p.Estimate, 0.5-d.Estimate/2) || !near(p.Low, 0.5-d.High/2) || !near(p.High, 0.5-d.Low/2) {
			t.Errorf("rows %v: P(sup) %v [%v, %v]; difference %v [%v, %v]", rows, p.Estimate, p.Low, p.High, d.Estimate, d.Low, d.High)
		}
		again, _ := stats.PairedSuperiorityUnits(u, false, opts)
		if again != p {
			t.Errorf("rows %v: not reproducible: %+v, then %+v", rows, p, again)
		}
	}
}

func TestMinAttainableP(t *testing.T) {
	if p := stats.WilcoxonMinP(5); p != 0.0625 {
		t.Errorf("Wilcoxon, 5 differences: %v; want 0.0625", p)
	}
	if p := stats.McNemarMinP(5); p != 0.0625 {
		t.Errorf("McNemar, 5 discordant: %v; want 0.0625", p)
	}
	if p := stats.SignFlipMinP(20, 999); p != 0.001 {
		t.Errorf("sign flips, 20 units, 999 flips: %v; want 0.001", p)
	}
	if p := stats.SignFlipMinP(0, 999); p != 1 {
		t.Errorf("sign flips, no differing unit: %v; want 1", p)
	}
}
