package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
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
