package stats_test

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/stats"
)

// Tolerances of the unit-sum functions against the rows expanded from the
// same units: the two differ only in how the sums are rounded (one
// subtraction of sums against m_u additions of a unit's mean), a few units
// in the last place of scores of order 1. unitsAbsTol covers bounds that
// lie within rounding of zero.
const (
	unitsRelTol = 1e-12
	unitsAbsTol = 1e-15
)

// Sizes of the unit tests: one unit, a few, one past the serial threshold
// (units × 2000 replicates ≥ 2¹⁸ runs in parallel), past a block of 2048
// (sum, rows) pairs, and past a block of 4096 values.
var unitSizes = []int{1, 2, 7, 200, 3000, 9000}

// unitSeeds are the seeds every size is run with.
var unitSeeds = []uint64{0, 1, 42, 1 << 63}

// pairedUnits returns n units with 1 to 5 rows each (rows nil when
// oneRow), the sums of rows of scores in [0, 1] with a gap of 0.03, and the
// same units expanded into rows at each unit's mean.
func pairedUnits(rng *rand.Rand, n int, oneRow bool) (u stats.PairedUnits, left, right []float64, units []string) {
	u.LeftSum, u.RightSum = make([]float64, n), make([]float64, n)
	if !oneRow {
		u.Rows = make([]int32, n)
	}
	for i := range n {
		m := 1
		if !oneRow {
			m = 1 + rng.IntN(5)
			u.Rows[i] = int32(m)
		}
		for range m {
			base := rng.Float64()
			u.LeftSum[i] += min(1, max(0, base+0.03+0.1*rng.NormFloat64()))
			u.RightSum[i] += min(1, max(0, base+0.1*rng.NormFloat64()))
		}
		lm, rm := u.LeftSum[i]/float64(m), u.RightSum[i]/float64(m)
		for range m {
			left, right = append(left, lm), append(right, rm)
			units = append(units, "u"+strconv.Itoa(i))
		}
	}
	return u, left, right, units
}

func requireUnitsClose(t *testing.T, want, got float64, what string) {
	t.Helper()
	require.Truef(t, scalar.EqualWithinAbsOrRel(got, want, unitsAbsTol, unitsRelTol),
		"%s: got %.17g, want %.17g", what, got, want)
}

// With one row a unit, the unit functions are PairedBootstrap and
// Randomization on the sums as rows, bit for bit.
func TestUnitsOneRowIdentical(t *testing.T) {
	t.Parallel()
	for _, n := range unitSizes {
		for _, seed := range unitSeeds {
			t.Run(strconv.Itoa(n)+"/"+strconv.FormatUint(seed, 10), func(t *testing.T) {
				t.Parallel()
				u, _, _, _ := pairedUnits(rand.New(rand.NewPCG(seed, uint64(n))), n, true)
				for _, method := range []stats.IntervalMethod{stats.Percentile, stats.BCa} {
					opts := stats.BootstrapOptions{Seed: seed, Method: method}
					want, err := stats.PairedBootstrap(u.LeftSum, u.RightSum, nil, opts)
					require.NoError(t, err)
					got, err := stats.PairedBootstrapUnits(u, opts)
					require.NoError(t, err)
					require.Equal(t, want, got, method)
				}
				opts := stats.RandomizationOptions{Seed: seed}
				want, err := stats.Randomization(u.LeftSum, u.RightSum, nil, opts)
				require.NoError(t, err)
				got, err := stats.RandomizationUnits(u, opts)
				require.NoError(t, err)
				require.Equal(t, want, got)

				// Rows of all ones are the same as nil rows.
				u.Rows = make([]int32, n)
				for i := range u.Rows {
					u.Rows[i] = 1
				}
				gotOnes, err := stats.RandomizationUnits(u, opts)
				require.NoError(t, err)
				require.Equal(t, want, gotOnes)
				boot, err := stats.PairedBootstrap(u.LeftSum, u.RightSum, nil, stats.BootstrapOptions{Seed: seed})
				require.NoError(t, err)
				bootOnes, err := stats.PairedBootstrapUnits(u, stats.BootstrapOptions{Seed: seed})
				require.NoError(t, err)
				require.Equal(t, boot, bootOnes)
			})
		}
	}
}

// With several rows a unit, the unit functions match the row-expanded
// calls (units repeated, rows at the unit's mean) to rounding. BCa is
// checked from 200 units up: with a handful of units, many replicates
// redraw every unit once and tie the estimate in exact arithmetic, and
// rounding, different on the two paths, moves such ties to either side of
// it and so the bias correction, which counts them.
func TestUnitsRowsMatchExpanded(t *testing.T) {
	t.Parallel()
	for _, n := range unitSizes {
		for _, seed := range unitSeeds {
			t.Run(strconv.Itoa(n)+"/"+strconv.FormatUint(seed, 10), func(t *testing.T) {
				t.Parallel()
				u, left, right, units := pairedUnits(rand.New(rand.NewPCG(seed, uint64(n))), n, false)
				for _, method := range []stats.IntervalMethod{stats.Percentile, stats.BCa} {
					if method == stats.BCa && n < 200 {
						continue
					}
					opts := stats.BootstrapOptions{Seed: seed, Method: method}
					want, err := stats.PairedBootstrap(left, right, units, opts)
					require.NoError(t, err)
					got, err := stats.PairedBootstrapUnits(u, opts)
					require.NoError(t, err)
					requireUnitsClose(t, want.Estimate, got.Estimate, string(method)+" estimate")
					requireUnitsClose(t, want.Low, got.Low, string(method)+" low")
					requireUnitsClose(t, want.High, got.High, string(method)+" high")
					require.Equal(t, want.Resamples, got.Resamples)
					require.Equal(t, want.Confidence, got.Confidence)
				}
				opts := stats.RandomizationOptions{Seed: seed}
				want, err := stats.Randomization(left, right, units, opts)
				require.NoError(t, err)
				got, err := stats.RandomizationUnits(u, opts)
				require.NoError(t, err)
				requireUnitsClose(t, want.Estimate, got.Estimate, "randomization estimate")
				requireUnitsClose(t, want.PValue, got.PValue, "p")
				require.Equal(t, want.Permutations, got.Permutations)
			})
		}
	}
}

// Degenerate samples: every unit with the same mean difference gives the
// zero-width interval at it, as the expanded rows do; all differences zero
// give p = 1.
func TestUnitsConstant(t *testing.T) {
	t.Parallel()
	u := stats.PairedUnits{LeftSum: []float64{0.5, 1.5, 2}, RightSum: []float64{0.3, 0.9, 1.2}, Rows: []int32{1, 3, 4}}
	// Every unit's mean difference is 0.2 (0.2/1, 0.6/3, 0.8/4) but for
	// rounding, so the interval has no width to speak of.
	boot, err := stats.PairedBootstrapUnits(u, stats.BootstrapOptions{})
	require.NoError(t, err)
	requireUnitsClose(t, 0.2, boot.Estimate, "estimate")
	requireUnitsClose(t, 0.2, boot.Low, "low")
	requireUnitsClose(t, 0.2, boot.High, "high")

	same := stats.PairedUnits{LeftSum: []float64{1, 2, 3}, RightSum: []float64{1, 2, 3}, Rows: []int32{1, 2, 3}}
	perm, err := stats.RandomizationUnits(same, stats.RandomizationOptions{})
	require.NoError(t, err)
	require.Equal(t, stats.RandomizationResult{Estimate: 0, PValue: 1, Permutations: stats.DefaultPermutations}, perm)
	boot, err = stats.PairedBootstrapUnits(same, stats.BootstrapOptions{})
	require.NoError(t, err)
	require.Equal(t, stats.BootstrapResult{Confidence: 0.95, Resamples: stats.DefaultResamples}, boot)
}

func TestUnitsErrors(t *testing.T) {
	t.Parallel()
	ok := []float64{0.5, 0.25, 1}
	tests := []struct {
		name    string
		u       stats.PairedUnits
		boot    stats.BootstrapOptions
		perm    stats.RandomizationOptions
		wantErr error
		wantMsg string
	}{
		{name: "sum lengths", u: stats.PairedUnits{LeftSum: ok, RightSum: ok[:2]}, wantErr: stats.ErrLengths},
		{name: "rows length", u: stats.PairedUnits{LeftSum: ok, RightSum: ok, Rows: []int32{1, 2}}, wantErr: stats.ErrLengths},
		{name: "no units", u: stats.PairedUnits{}, wantErr: stats.ErrTooFew},
		{name: "no units, empty rows", u: stats.PairedUnits{LeftSum: []float64{}, RightSum: []float64{}, Rows: []int32{}}, wantErr: stats.ErrTooFew},
		{name: "NaN left", u: stats.PairedUnits{LeftSum: []float64{0.5, math.NaN(), 1}, RightSum: ok},
			wantErr: stats.ErrNotFinite, wantMsg: "left sum of unit 1 is NaN"},
		{name: "Inf right", u: stats.PairedUnits{LeftSum: ok, RightSum: []float64{0.5, 0.25, math.Inf(-1)}},
			wantErr: stats.ErrNotFinite, wantMsg: "right sum of unit 2 is -Inf"},
		{name: "difference overflows", u: stats.PairedUnits{LeftSum: []float64{math.MaxFloat64, 0}, RightSum: []float64{-math.MaxFloat64, 0}},
			wantErr: stats.ErrNotFinite, wantMsg: "left − right of unit 0 overflows"},
		{name: "zero rows", u: stats.PairedUnits{LeftSum: ok, RightSum: ok, Rows: []int32{1, 0, 2}},
			wantErr: stats.ErrBadParameter, wantMsg: "unit 1 has 0 rows"},
		{name: "negative rows", u: stats.PairedUnits{LeftSum: ok, RightSum: ok, Rows: []int32{1, 2, -3}},
			wantErr: stats.ErrBadParameter, wantMsg: "unit 2 has -3 rows"},
		{name: "bad options", u: stats.PairedUnits{LeftSum: ok, RightSum: ok},
			boot: stats.BootstrapOptions{Resamples: -1}, perm: stats.RandomizationOptions{Permutations: -1}, wantErr: stats.ErrBadParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := stats.PairedBootstrapUnits(tt.u, tt.boot)
			require.ErrorIs(t, err, tt.wantErr)
			require.ErrorContains(t, err, tt.wantMsg)
			_, err = stats.RandomizationUnits(tt.u, tt.perm)
			require.ErrorIs(t, err, tt.wantErr)
			require.ErrorContains(t, err, tt.wantMsg)
			if tt.wantErr == stats.ErrTooFew || tt.name == "bad options" {
				return // not errors of the data's shape
			}
			_, err = stats.PairedUnitDifferences(tt.u)
			require.ErrorIs(t, err, tt.wantErr)
			_, err = stats.DifferenceVariance(tt.u)
			require.ErrorIs(t, err, tt.wantErr)
		})
	}
}

func TestPairedUnitDifferences(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		u    stats.PairedUnits
		want []float64
	}{
		{name: "one row a unit", u: stats.PairedUnits{LeftSum: []float64{1, 0.5, 0}, RightSum: []float64{0, 0.25, 1}},
			want: []float64{1, 0.25, -1}},
		// (2 − 1)/4, (0.5 − 1.5)/2, (1 − 1)/1
		{name: "draws", u: stats.PairedUnits{LeftSum: []float64{2, 0.5, 1}, RightSum: []float64{1, 1.5, 1}, Rows: []int32{4, 2, 1}},
			want: []float64{0.25, -0.5, 0}},
		{name: "no units", u: stats.PairedUnits{}, want: []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := stats.PairedUnitDifferences(tt.u)
			require.NoError(t, err)
			require.Equal(t, len(tt.want), len(got))
			for i := range got {
				requireUnitsClose(t, tt.want[i], got[i], "D_"+strconv.Itoa(i))
			}
		})
	}
}

func TestDifferenceVariance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		u       stats.PairedUnits
		want    float64
		wantErr error
	}{
		{
			// d = 1, 0.25, −1, 0.75: mean 0.25, deviations 0.75, 0, −1.25,
			// 0.5, squares 0.5625 + 0 + 1.5625 + 0.25 = 2.375, / 3.
			name: "one row a unit",
			u:    stats.PairedUnits{LeftSum: []float64{1, 0.5, 0, 1}, RightSum: []float64{0, 0.25, 1, 0.25}},
			want: 2.375 / 3,
		},
		{
			// Three draws each, D = 0.2, −0.1, 0.5: the sample variance of
			// the D: mean 0.2, deviations 0, −0.3, 0.3, (0.09 + 0.09) / 2.
			name: "equal draws",
			u:    stats.PairedUnits{LeftSum: []float64{1.8, 1.2, 2.4}, RightSum: []float64{1.2, 1.5, 0.9}, Rows: []int32{3, 3, 3}},
			want: 0.09,
		},
		{
			// S = 1, 0, −1 over m = 1, 2, 5: θ̂ = 0/8 = 0, m̄ = 8/3,
			// m_u·(D_u − θ̂) = S_u = 1, 0, −1, Σ² = 2, / 2 = 1, / m̄² = 9/64.
			name: "unequal draws",
			u:    stats.PairedUnits{LeftSum: []float64{1, 1, 1}, RightSum: []float64{0, 1, 2}, Rows: []int32{1, 2, 5}},
			want: 9.0 / 64,
		},
		{
			// S = 3, 1 over m = 3, 1: D = 1, 1, no spread at all.
			name: "same mean difference",
			u:    stats.PairedUnits{LeftSum: []float64{3, 1}, RightSum: []float64{0, 0}, Rows: []int32{3, 1}},
			want: 0,
		},
		{name: "all zero", u: stats.PairedUnits{LeftSum: []float64{1, 2}, RightSum: []float64{1, 2}}, want: 0},
		{name: "one unit", u: stats.PairedUnits{LeftSum: []float64{1}, RightSum: []float64{0}}, wantErr: stats.ErrTooFew},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := stats.DifferenceVariance(tt.u)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			requireUnitsClose(t, tt.want, got, "variance")
		})
	}
}

// DifferenceVariance / n is the sampling variance of the row-weighted mean
// difference: on many units it agrees with the variance of the cluster
// bootstrap's replicate means, read off a 68.27 % interval's half-width
// (±1σ of a normal), to within Monte Carlo and normal-approximation error.
func TestDifferenceVarianceMatchesBootstrap(t *testing.T) {
	t.Parallel()
	u, _, _, _ := pairedUnits(rand.New(rand.NewPCG(7, 7)), 5000, false)
	v, err := stats.DifferenceVariance(u)
	require.NoError(t, err)
	boot, err := stats.PairedBootstrapUnits(u, stats.BootstrapOptions{Confidence: 0.6827, Resamples: 20000, Seed: 3})
	require.NoError(t, err)
	sd := (boot.High - boot.Low) / 2
	// The standard error of a bootstrap standard deviation from B
	// replicates is about sd/√(2B), 0.5 % at B = 20000; allow 3 %.
	const bootSDRelTol = 0.03
	want := math.Sqrt(v / 5000)
	require.Truef(t, scalar.EqualWithinRel(sd, want, bootSDRelTol), "bootstrap sd %g, want √(V/n) = %g", sd, want)
}
