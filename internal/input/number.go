package input

import (
	"strconv"
	"strings"
)

// ParseNumber parses a number written as text the way Python, NumPy and
// pandas write one: an optional sign, decimal digits with an optional
// decimal point (at least one digit), and an optional exponent, e or E with
// an optional sign and digits, as in 0.5, -1, 1e-05, 1.5E+10, .5 and 5.;
// and NaN and the infinities in the spellings of strconv.ParseFloat (nan,
// inf, +inf, -infinity, in any case), which the callers judge themselves.
//
// It refuses the rest of what strconv.ParseFloat reads, which no such
// program writes and which would be read as a number silently: digit
// separators (1_0 as 10), hexadecimal (0x1p-2 as 0.25). White space is
// the caller's to trim. The error is strconv.ParseFloat's, a
// *strconv.NumError wrapping strconv.ErrSyntax, or strconv.ErrRange for a
// value beyond the range of a float64 (the value is then ±Inf).
func ParseNumber(s string) (float64, error) {
	if !isDecimal(s) && !isSpecial(s) {
		return 0, &strconv.NumError{Func: "ParseFloat", Num: strings.Clone(s), Err: strconv.ErrSyntax}
	}
	return strconv.ParseFloat(s, 64)
}

// isDecimal reports whether s is a decimal number, as ParseNumber reads it.
func isDecimal(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

// isSpecial reports whether s spells NaN or an infinity, which
// strconv.ParseFloat then reads or refuses ("+nan").
func isSpecial(s string) bool {
	t := strings.TrimLeft(s, "+-")
	if len(s)-len(t) > 1 {
		return false
	}
	return strings.EqualFold(t, "nan") || strings.EqualFold(t, "inf") || strings.EqualFold(t, "infinity")
}

// LostInReal reports whether v, parsed from the text s (or from a binary
// file, with s empty), is not zero but becomes 0 in a PostgreSQL real
// (float4), as the store keeps values: its magnitude is at most 2^-150
// (about 7.0e-46, half the smallest subnormal float4, 1.4e-45), or it was
// below even a float64's range, so that ParseFloat made it 0 ("1e-400").
// Subnormal float4 values, from 1.4e-45 to the smallest normal one,
// 1.18e-38, are kept, with fewer significant digits.
func LostInReal(s string, v float64) bool {
	if v != 0 {
		return float32(v) == 0
	}
	// A zero from ParseFloat: its digits say whether it was one.
	for i := 0; i < len(s) && s[i] != 'e' && s[i] != 'E'; i++ {
		if '1' <= s[i] && s[i] <= '9' {
			return true
		}
	}
	return false
}
