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
