package report

import (
	"bytes"
	"math"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestForestLabelsEachRowInItsOwnPrecision(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	for _, c := range []struct {
		name string
		row  ForestRow
		want string
	}{
		{name: "three significant digits", row: ForestRow{Estimate: 0.0412, Low: 0.0351, High: 0.0476}, want: "0.0412 [0.0351, 0.0476]"},
		{name: "large scale", row: ForestRow{Estimate: 0.3, Low: 0.25, High: 0.35}, want: "0.300 [0.250, 0.350]"},
		{name: "small scale", row: ForestRow{Estimate: 0.0004, Low: -0.0001, High: 0.0009}, want: "0.000400 [-0.000100, 0.000900]"},
		// The width 0.001 needs four decimals for two digits.
		{name: "narrow interval", row: ForestRow{Estimate: 0.41234, Low: 0.41181, High: 0.41287}, want: "0.4123 [0.4118, 0.4129]"},
		// -0.00001 needs five decimals to show a digit.
		{name: "a bound near zero", row: ForestRow{Estimate: 0.3, Low: -0.00001, High: 0.6}, want: "0.30000 [-0.00001, 0.60000]"},
		{name: "tiny values in scientific notation", row: ForestRow{Estimate: 4e-9, Low: 1e-9, High: 7e-9}, want: "4.00e-09 [1.00e-09, 7.00e-09]"},
		{name: "no interval", row: ForestRow{Estimate: -0.0127, Low: nan, High: nan}, want: "-0.0127"},
		{name: "negative zero", row: ForestRow{Estimate: math.Copysign(0, -1), Low: -0.5, High: 0.5}, want: "0.000 [-0.500, 0.500]"},
		{name: "all zero", row: ForestRow{Estimate: 0, Low: 0, High: 0}, want: "0.00 [0.00, 0.00]"},
		{name: "large numbers", row: ForestRow{Estimate: 1234.5, Low: 1000, High: 1500}, want: "1234 [1000, 1500]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, forestLabel(c.row))
		})
	}
}

// A compare of two metrics on different scales: the small one's row must
// read in nonzero digits, not "0.000 [-0.000, 0.001]".
func TestForestOfMixedScalesLabelsSmallRowWithDigits(t *testing.T) {
	t.Parallel()
	fig, err := Forest("candidate − baseline", "difference (95% CI)", []ForestRow{
		{Label: "ndcg@10", Estimate: 0.3, Low: 0.25, High: 0.35, Distinguishable: true},
		{Label: "coverage", Estimate: 0.0004, Low: -0.0001, High: 0.0009},
	})
	require.NoError(t, err)
	var svg bytes.Buffer
	require.NoError(t, fig.Write(&svg, "svg"))
	txt := svgText(t, svg.Bytes())
	require.Contains(t, txt, "0.300 [0.250, 0.350]")
	require.Contains(t, txt, "0.000400 [-0.000100, 0.000900]")

	labels := newForestValues([]ForestRow{{Estimate: 0.3, Low: 0.25, High: 0.35}, {Estimate: 0.0004, Low: -0.0001, High: 0.0009}}).texts
	nonzero := regexp.MustCompile(`[1-9]`)
	for _, num := range regexp.MustCompile(`-?[0-9.e+-]+`).FindAllString(labels[1], -1) {
		require.Regexp(t, nonzero, num, "label %q", labels[1])
	}
}
