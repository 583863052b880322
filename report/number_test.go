package report_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/report"
)

func TestNumShowsFourSignificantDigits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0.41234, "0.4123"}, {0.412, "0.4120"}, {12.3456, "12.35"}, {1234.56, "1235"},
		{123456, "123456"}, {0.0012346, "0.001235"}, {0.00012346, "1.235e-04"},
		{2.5e7, "2.500e+07"}, {-0.5, "-0.5000"}, {0, "0"}, {math.NaN(), "n/a"}, {math.Inf(-1), "-inf"},
	} {
		require.Equal(t, c.want, report.Num(c.x), "%v", c.x)
	}
	require.Equal(t, "+0.01230", report.Signed(0.0123))
	require.Equal(t, "-0.01230", report.Signed(-0.0123))
	require.Equal(t, "0", report.Signed(0))
	require.Equal(t, []string{"0.250", "0.000", "12.000", "n/a"}, report.Nums([]float64{0.25, 0, 12, math.NaN()}, false))
	// 0.2787 keeps four digits and 0.0236 three.
	require.Equal(t, []string{"0.2787", "0.0236"}, report.Nums([]float64{0.27869, 0.02356}, false))
	require.Equal(t, []string{"-0.250", "0.000", "+1.500"}, report.Nums([]float64{-0.25, 0, 1.5}, true))
	require.Equal(t, []string{"1.000e-05", "2.000"}, report.Nums([]float64{1e-5, 2}, false))
}

func TestIntervalSharesDecimals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		est, lo, hi float64
		signed      bool
		want        string
	}{
		{0.4123, 0.3981, 0.4268, false, "0.412 [0.398, 0.427]"},
		// The width (0.001) needs two significant digits: four decimals.
		{0.41234, 0.41181, 0.41287, false, "0.4123 [0.4118, 0.4129]"},
		{0.0123, -0.0012, 0.0250, true, "+0.0123 [-0.0012, +0.0250]"},
		{-1.5, -2.25, -0.75, true, "-1.50 [-2.25, -0.75]"},
		{12.5, 10, 15, false, "12.5 [10.0, 15.0]"},
		{0.0002, 0.0001, 0.0003, false, "2.00e-04 [1.00e-04, 3.00e-04]"},
		{0.5, math.NaN(), math.NaN(), false, "0.5000 [n/a, n/a]"},
		{0, 0, 0, true, "0 [0, 0]"},
		{0.01, 0, 0.02, true, "+0.0100 [0.0000, +0.0200]"},
	} {
		require.Equal(t, c.want, report.Interval(c.est, c.lo, c.hi, c.signed))
	}
}

func TestPValues(t *testing.T) {
	t.Parallel()
	require.Equal(t, "0.012", report.P(0.012345))
	require.Equal(t, "0.500", report.P(0.5))
	require.Equal(t, "1.000", report.P(1))
	require.Equal(t, "<0.001", report.P(0.00002))
	require.Equal(t, "p < 0.001", report.PText(0.00002))
	require.Equal(t, "p = 0.041", report.PText(0.041))
}

func TestPValueNeverRoundsAcrossAlpha(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		p, alpha float64
		cell     string
		text     string
	}{
		{name: "three decimals", p: 0.0341, alpha: 0.05, cell: "0.034", text: "p = 0.034"},
		{name: "just below alpha keeps the digits that show it", p: 0.0499, alpha: 0.05, cell: "0.0499", text: "p = 0.0499"},
		{name: "further digits as needed", p: 0.049996, alpha: 0.05, cell: "0.049996", text: "p = 0.049996"},
		{name: "just above alpha may print as alpha", p: 0.0501, alpha: 0.05, cell: "0.050", text: "p = 0.050"},
		{name: "equal to alpha", p: 0.05, alpha: 0.05, cell: "0.050", text: "p = 0.050"},
		{name: "another alpha", p: 0.00996, alpha: 0.01, cell: "0.00996", text: "p = 0.00996"},
		{name: "below 0.001", p: 0.0004997501249375312, alpha: 0.05, cell: "<0.001", text: "p < 0.001"},
		{name: "below 0.001 with alpha 0.001", p: 0.00099, alpha: 0.001, cell: "<0.001", text: "p < 0.001"},
		{name: "zero", p: 0, alpha: 0.05, cell: "<0.001", text: "p < 0.001"},
		{name: "alpha below 0.001: digits show the side", p: 0.00042, alpha: 0.0005, cell: "0.00042", text: "p = 0.00042"},
		{name: "alpha below 0.001, p above it", p: 0.00052, alpha: 0.0005, cell: "0.00052", text: "p = 0.00052"},
		{name: "alpha below 0.001, p just below it", p: 0.000496, alpha: 0.0005, cell: "0.000496", text: "p = 0.000496"},
		{name: "alpha below 0.001, tiny p", p: 4.2e-9, alpha: 1e-4, cell: "4.2e-09", text: "p = 4.2e-09"},
		{name: "p within a rounding error of alpha", p: math.Nextafter(0.05, 0), alpha: 0.05, cell: "0.049999999999999996", text: "p = 0.049999999999999996"},
		{name: "one", p: 1, alpha: 0.05, cell: "1.000", text: "p = 1.000"},
		{name: "NaN", p: math.NaN(), alpha: 0.05, cell: "n/a", text: "p = n/a"},
		{name: "no alpha: NaN", p: 0.0499, alpha: math.NaN(), cell: "0.050", text: "p = 0.050"},
		{name: "no alpha: zero", p: 0.0499, alpha: 0, cell: "0.050", text: "p = 0.050"},
		{name: "no alpha: below 0.001", p: 1e-9, alpha: 0, cell: "<0.001", text: "p < 0.001"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.cell, report.PValue(c.p, c.alpha))
			require.Equal(t, c.text, report.PValueText(c.p, c.alpha))
		})
	}
}

func TestPIsPValueWithoutAlpha(t *testing.T) {
	t.Parallel()
	for _, p := range []float64{0, 1e-5, 0.001, 0.0123456, 0.0499, 0.5, 1, math.NaN()} {
		require.Equal(t, report.PValue(p, 0), report.P(p))
		require.Equal(t, report.PValueText(p, 0), report.PText(p))
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {12345, "12,345"}, {123456, "123,456"},
		{1234567, "1,234,567"}, {-5000, "-5,000"}, {-999, "-999"},
		{math.MaxInt64, "9,223,372,036,854,775,807"}, {math.MinInt64, "-9,223,372,036,854,775,808"},
	} {
		require.Equal(t, c.want, report.Thousands(c.n), "%d", c.n)
	}
}

func TestCountKeepsTwoFigures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0, "0"}, {7.4, "7"}, {-0.4, "0"}, {37, "37"}, {99.6, "100"}, {123, "120"}, {995, "1,000"},
		{3616, "3,600"}, {25682, "26,000"}, {512345, "510,000"}, {-25682, "-26,000"},
		{2147483647, "2,100,000,000"}, {1.23e18, "1.2e+18"},
		{math.NaN(), "n/a"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"},
	} {
		require.Equal(t, c.want, report.Count(c.x), "%v", c.x)
	}
}
