package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"
)

func TestPowerReference(t *testing.T) {
	t.Parallel()
	for _, c := range readReference[struct {
		Name  string  `json:"name"`
		Kind  string  `json:"kind"`
		Delta float64 `json:"delta"`
		N     int     `json:"n"`
		Alpha float64 `json:"alpha"`
		Power float64 `json:"power"`
		Want  struct {
			N   int     `json:"n"`
			MDE float64 `json:"mde"`
		} `json:"want"`
	}](t, "power.json") {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			switch c.Kind {
			case "sample_size":
				got, err := SampleSize(SampleSizeOptions{Delta: c.Delta, Alpha: c.Alpha, Power: c.Power})
				require.NoError(t, err)
				require.Equal(t, c.Want.N, got.N)
			case "mde":
				got, err := MinimumDetectableDifference(MDEOptions{N: c.N, Alpha: c.Alpha, Power: c.Power})
				require.NoError(t, err)
				requireRefClose(t, c.Want.MDE, got.MDE, "mde")
			default:
				t.Fatalf("unknown kind %q", c.Kind)
			}
		})
	}
}

func TestSampleSizeDefaults(t *testing.T) {
	t.Parallel()
	// The contextgrid-style estimate: a gap of 0.25 at alpha 0.05, power 0.8.
	got, err := SampleSize(SampleSizeOptions{Delta: 0.25})
	require.NoError(t, err)
	require.Equal(t, 63, got.N)
	neg, err := SampleSize(SampleSizeOptions{Delta: -0.25})
	require.NoError(t, err)
	require.Equal(t, got, neg)
}

// MinimumDetectableDifference and SampleSize invert each other.
func TestSampleSizeInvertsMDE(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 8, 63, 100, 610, 12345} {
		mde, err := MinimumDetectableDifference(MDEOptions{N: n})
		require.NoError(t, err)
		got, err := SampleSize(SampleSizeOptions{Delta: mde.MDE})
		require.NoError(t, err)
		require.Equal(t, n, got.N, "n = %d, mde = %g", n, mde.MDE)
	}
}

func TestPowerErrors(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string]SampleSizeOptions{
		"zero delta":      {},
		"NaN delta":       {Delta: math.NaN()},
		"alpha 1":         {Delta: 0.1, Alpha: 1},
		"power 1":         {Delta: 0.1, Power: 1},
		"power below a/2": {Delta: 0.1, Power: 0.01},
		"tiny delta":      {Delta: 1e-9},
		"negative alpha":  {Delta: 0.1, Alpha: -0.05},
	} {
		_, err := SampleSize(opts)
		require.ErrorIs(t, err, ErrBadParameter, name)
	}
	_, err := MinimumDetectableDifference(MDEOptions{})
	require.ErrorIs(t, err, ErrBadParameter)
	_, err = MinimumDetectableDifference(MDEOptions{N: 10, Power: 1.5})
	require.ErrorIs(t, err, ErrBadParameter)
}

// powerMDETol is the tolerance of MDEs computed by hand from quantiles
// printed to 16 digits.
const powerMDETol = 1e-12

// TestSampleSizeVariance checks the paired formula
// n = ⌈(z_{1−α/2} + z_power)² · Var(d) / δ²⌉ on hand-computed values, with
// the quantiles of scipy 1.10's norm.ppf: z_{0.975} = 1.959963984540054,
// z_{0.995} = 2.5758293035489004, z_{0.8} = 0.8416212335729143,
// z_{0.9} = 1.2815515655446004.
func TestSampleSizeVariance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts SampleSizeOptions
		want int
	}{
		// (1.95996 + 0.84162)² = 7.84888; × 0.09 / 0.03² = × 100 → 784.89.
		{name: "defaults", opts: SampleSizeOptions{Delta: 0.03, Variance: 0.09}, want: 785},
		// (1.95996 + 1.28155)² = 10.50742; × 0.02 / 0.01² = × 200 → 2101.48.
		{name: "power 0.9", opts: SampleSizeOptions{Delta: 0.01, Alpha: 0.05, Power: 0.9, Variance: 0.02}, want: 2102},
		// (2.57583 + 0.84162)² = 11.67897; × 0.25 / 0.1² = × 25 → 291.97.
		{name: "alpha 0.01", opts: SampleSizeOptions{Delta: -0.1, Alpha: 0.01, Variance: 0.25}, want: 292},
		// 7.84888 × 1 / 0.25² = × 16 → 125.58: 0/1 scores that always
		// disagree, twice the worst case assumed by default (63).
		{name: "variance 1", opts: SampleSizeOptions{Delta: 0.25, Variance: 1}, want: 126},
		// 7.84888 × 1e-4 / 0.5² → 0.003: never below one unit.
		{name: "at least one", opts: SampleSizeOptions{Delta: 0.5, Variance: 1e-4}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := SampleSize(tt.opts)
			require.NoError(t, err)
			require.Equal(t, SampleSizeResult{N: tt.want}, got, "a given variance carries no note")
		})
	}
}

// A Variance of ½ is the default's worst case: the same count as the
// default (the reference fixture's, from the old unpaired formula
// ⌈2·z²·¼/δ²⌉), without the note.
func TestSampleSizeWorstCaseVariance(t *testing.T) {
	t.Parallel()
	for _, delta := range []float64{0.5, 0.25, 0.1, 0.05, 0.02, 0.01, 0.001} {
		for _, power := range []float64{0.5, 0.8, 0.95} {
			def, err := SampleSize(SampleSizeOptions{Delta: delta, Power: power})
			require.NoError(t, err)
			half, err := SampleSize(SampleSizeOptions{Delta: delta, Power: power, Variance: 0.5})
			require.NoError(t, err)
			require.Equal(t, def.N, half.N, "delta %g power %g", delta, power)
			require.Equal(t, []Note{{Code: NoteWorstCaseVariance}}, def.Notes)
			require.Empty(t, half.Notes)

			mdeDef, err := MinimumDetectableDifference(MDEOptions{N: def.N, Power: power})
			require.NoError(t, err)
			mdeHalf, err := MinimumDetectableDifference(MDEOptions{N: def.N, Power: power, Variance: 0.5})
			require.NoError(t, err)
			require.Equal(t, mdeDef.MDE, mdeHalf.MDE)
			require.Equal(t, []Note{{Code: NoteWorstCaseVariance}}, mdeDef.Notes)
			require.Empty(t, mdeHalf.Notes)
		}
	}
}

// TestMDEVariance checks mde = (z_{1−α/2} + z_power)·√(Var(d)/N) on
// hand-computed values (quantiles as in TestSampleSizeVariance), and that
// SampleSize inverts it at the same variance.
func TestMDEVariance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts MDEOptions
		want float64
	}{
		// 2.8015852181129683 · √(0.09/100) = 2.80159 · 0.03.
		{name: "100 units", opts: MDEOptions{N: 100, Variance: 0.09}, want: 2.8015852181129683 * 0.03},
		// 2.8015852181129683 · √(0.04/400) = 2.80159 · 0.01.
		{name: "400 units", opts: MDEOptions{N: 400, Variance: 0.04}, want: 2.8015852181129683 * 0.01},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := MinimumDetectableDifference(tt.opts)
			require.NoError(t, err)
			require.Truef(t, scalar.EqualWithinAbsOrRel(got.MDE, tt.want, powerMDETol, powerMDETol), "mde %.17g, want %.17g", got.MDE, tt.want)
			require.Empty(t, got.Notes)
			n, err := SampleSize(SampleSizeOptions{Delta: got.MDE, Variance: tt.opts.Variance})
			require.NoError(t, err)
			require.Equal(t, tt.opts.N, n.N)
		})
	}
}

func TestPowerVarianceErrors(t *testing.T) {
	t.Parallel()
	for name, v := range map[string]float64{
		"negative": -0.1,
		"NaN":      math.NaN(),
		"+Inf":     math.Inf(1),
		"-Inf":     math.Inf(-1),
	} {
		_, err := SampleSize(SampleSizeOptions{Delta: 0.1, Variance: v})
		require.ErrorIs(t, err, ErrBadParameter, name)
		_, err = MinimumDetectableDifference(MDEOptions{N: 100, Variance: v})
		require.ErrorIs(t, err, ErrBadParameter, name)
	}
	// A count past math.MaxInt32 is an error, not an overflow: 7.85 · 1e6 /
	// 1e-6 ≈ 7.8e12 units.
	_, err := SampleSize(SampleSizeOptions{Delta: 1e-3, Variance: 1e6})
	require.ErrorIs(t, err, ErrBadParameter)
	_, err = SampleSize(SampleSizeOptions{Delta: 1e-300, Variance: 1e300})
	require.ErrorIs(t, err, ErrBadParameter)
}
