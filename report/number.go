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

// P formats a p-value with no alpha to compare it with: three decimals
// ("0.056"), or "<0.001". It is PValue(p, 0); a report that tests against
// an alpha uses PValue, which never rounds p across it.
func P(p float64) string { return PValue(p, 0) }

// PText is a p-value with no alpha for a sentence: "p = 0.056" or
// "p < 0.001". It is PValueText(p, 0).
func PText(p float64) string { return PValueText(p, 0) }

// PValue formats a p-value for a table cell, tested against alpha. It has
// three decimals ("0.034"), and more whenever three would print a number on
// the other side of alpha than p: 0.0499 with alpha 0.05 prints as
// "0.0499", not "0.050", and 0.0501 as "0.050", since a reader takes a p
// equal to alpha as not below it. Below 0.001 it is "<0.001", which is
// below any alpha of 0.001 or more; with a smaller alpha, "<0.001" would
// not say which side of alpha p is on, so p gets two significant digits,
// or more as needed ("0.00042", "4.2e-05"). NaN is "n/a".
//
// An alpha that is NaN, zero or negative means no alpha: three decimals
// or "<0.001", as P prints.
func PValue(p, alpha float64) string {
	hasAlpha := alpha > 0 // false for NaN
	sameSide := func(s string) bool {
		v, err := strconv.ParseFloat(s, 64)
		return !hasAlpha || err == nil && (v < alpha) == (p < alpha)
	}
	switch {
	case math.IsNaN(p):
		return "n/a"
	case p < 1e-3 && (!hasAlpha || alpha >= 1e-3):
		return "<0.001"
	case p < 1e-3:
		for digits := 2; digits <= pMaxDigits; digits++ {
			if s := strconv.FormatFloat(p, 'g', digits, 64); sameSide(s) {
				return s
			}
		}
	default:
		for decimals := 3; decimals <= pMaxDigits; decimals++ {
			if s := strconv.FormatFloat(p, 'f', decimals, 64); sameSide(s) {
				return s
			}
		}
	}
	// p is within a rounding error of alpha: all its digits.
	return strconv.FormatFloat(p, 'g', -1, 64)
}

// PValueText is PValue for a sentence: "p = 0.034", "p = 0.0499",
// "p < 0.001", "p = n/a". A table and the sentence under it show the same
// digits.
func PValueText(p, alpha float64) string {
	s := PValue(p, alpha)
	if rest, ok := strings.CutPrefix(s, "<"); ok {
		return "p < " + rest
	}
	return "p = " + s
}

// pMaxDigits bounds the digits PValue tries before it prints p in full.
const pMaxDigits = 10

// Thousands writes n with a comma between groups of three digits:
// "1,234,567", "-5,000", "999".
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	digits := strings.TrimPrefix(s, "-")
	var b strings.Builder
	b.WriteString(s[:len(s)-len(digits)])
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Count writes an estimated count, such as the sample size a test would
// need, the way a sentence says "about 26,000 units": x rounded to a whole
// number, then to two significant figures, with Thousands' commas. 25682
// is "26,000", 995 is "1,000", 37 is "37" and 7.4 is "7". Magnitudes
// from 1e18 on are written "1.2e+18"; NaN is "n/a" and ±Inf "inf" or
// "-inf".
//
// Two figures because such a count is an order of magnitude, not a
// measurement: more digits would claim a precision it does not have.
func Count(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.IsInf(x, 0):
		return sign(x, false) + "inf"
	case math.Abs(x) >= 1e18:
		return strconv.FormatFloat(x, 'e', 1, 64)
	}
	r := math.Round(x)
	if a := math.Abs(r); a >= 100 {
		scale := math.Pow10(int(math.Floor(math.Log10(a))) - 1)
		r = math.Round(r/scale) * scale
	}
	return Thousands(int64(r))
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
