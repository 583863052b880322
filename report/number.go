package report

import (
	"math"
	"strconv"
	"strings"
)

// Significant digits of the numbers a table shows: four for a single value,
// three for the largest bound of an interval.
const (
	valueDigits    = 4
	intervalDigits = 3
)

// Num formats x with four significant digits in fixed notation ("0.4123",
// "12.35", "1235"), switching to scientific notation below 0.001 and from a
// million up. NaN prints as "n/a".
func Num(x float64) string { return num(x, false) }

// Signed is Num with an explicit sign: "+0.0123", "-1.5".
func Signed(x float64) string { return num(x, true) }

// Nums formats a column of numbers with one number of decimals, so that they
// align on the decimal point: four significant digits for the largest
// magnitude, and at least three for the smallest non-zero one, with at most
// six decimals. A column with a value Num would write in scientific notation
// is formatted value by value.
func Nums(xs []float64, signed bool) []string {
	out := make([]string, len(xs))
	lo, hi := math.Inf(1), 0.0
	for _, x := range xs {
		a := math.Abs(x)
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0) || a == 0:
		case a < 1e-3 || a >= 1e6:
			for i, x := range xs {
				out[i] = num(x, signed)
			}
			return out
		default:
			lo, hi = min(lo, a), max(hi, a)
		}
	}
	d := 0
	if hi > 0 {
		d = min(max(decimalsFor(hi, valueDigits), decimalsFor(lo, valueDigits-1)), 6)
	}
	for i, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			out[i] = num(x, signed)
			continue
		}
		out[i] = withSign(strconv.FormatFloat(x, 'f', d, 64), signed && x != 0)
	}
	return out
}

func num(x float64, signed bool) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 0):
		return sign(x, signed) + "inf"
	case x == 0:
		return "0"
	}
	a := math.Abs(x)
	if a < 1e-3 || a >= 1e6 {
		return withSign(strconv.FormatFloat(x, 'e', valueDigits-1, 64), signed)
	}
	return withSign(strconv.FormatFloat(x, 'f', decimalsFor(a, valueDigits), 64), signed)
}

// Interval formats an estimate with its bounds as "0.412 [0.398, 0.427]". The
// three numbers share one number of decimals: enough for three significant
// digits of the largest magnitude, and for two of the interval's width, so a
// narrow interval never prints as a point. signed puts an explicit sign on
// each number, as differences have.
func Interval(est, low, high float64, signed bool) string {
	if math.IsNaN(low) || math.IsNaN(high) || math.IsInf(low, 0) || math.IsInf(high, 0) {
		return num(est, signed) + " [" + num(low, signed) + ", " + num(high, signed) + "]"
	}
	big := max(math.Abs(est), math.Abs(low), math.Abs(high))
	if big == 0 {
		return "0 [0, 0]"
	}
	if big < 1e-3 || big >= 1e6 {
		f := func(x float64) string {
			return withSign(strconv.FormatFloat(x, 'e', intervalDigits-1, 64), signed)
		}
		return f(est) + " [" + f(low) + ", " + f(high) + "]"
	}
	d := decimalsFor(big, intervalDigits)
	if w := high - low; w > 0 {
		d = max(d, decimalsFor(w, 2))
	}
	d = min(d, 8)
	f := func(x float64) string {
		return withSign(strconv.FormatFloat(x, 'f', d, 64), signed && x != 0)
	}
	return f(est) + " [" + f(low) + ", " + f(high) + "]"
}

// P formats a p-value as reports print them: three decimals ("0.056"), or
// "<0.001".
func P(p float64) string {
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p < 1e-3:
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

// PText is a p-value for a sentence: "p = 0.0123" or "p < 0.001".
func PText(p float64) string {
	s := P(p)
	if strings.HasPrefix(s, "<") {
		return "p < " + s[1:]
	}
	return "p = " + s
}

// decimalsFor is the number of decimals that shows digits significant
// digits of a (a > 0).
func decimalsFor(a float64, digits int) int {
	return max(0, digits-1-int(math.Floor(math.Log10(a))))
}

// withSign puts a "+" on a formatted number that has no "-" when signed.
func withSign(s string, signed bool) string {
	if signed && !strings.HasPrefix(s, "-") {
		return "+" + s
	}
	return s
}

func sign(x float64, signed bool) string {
	switch {
	case x < 0:
		return "-"
	case signed:
		return "+"
	}
	return ""
}
