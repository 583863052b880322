package columns

import "strconv"

// parseFloat is strconv.ParseFloat(string(b), 64), quicker for a plain
// decimal: [+-]digits[.digits][(e|E)[+-]digits] with at most 19
// significant digits, read as m·10^e. When m ≤ 2^53 and |e| ≤ 22, m and
// 10^|e| are exact float64s and one multiplication or division rounds
// m·10^e correctly (Clinger 1990), which is what ParseFloat returns; any
// other text is ParseFloat's.
func parseFloat(b []byte) (float64, error) {
	if v, ok := plainDecimal(b); ok {
		return v, nil
	}
	// string(b) does not escape: no allocation for up to 32 bytes.
	return strconv.ParseFloat(string(b), 64)
}

// pow10 are the powers of ten float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// plainDecimal is parseFloat's quick path: the value of b, and true, when
// b is a plain decimal whose value it gets exactly; false otherwise.
func plainDecimal(b []byte) (float64, bool) {
	i, neg := 0, false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var m uint64
	digits, exp, seen := 0, 0, false
	for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
		seen = true
		if m == 0 && b[i] == '0' {
			continue // a leading zero
		}
		if digits == 19 {
			return 0, false
		}
		m, digits = m*10+uint64(b[i]-'0'), digits+1
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			seen = true
			exp--
			if m == 0 && b[i] == '0' {
				continue
			}
			if digits == 19 {
				return 0, false
			}
			m, digits = m*10+uint64(b[i]-'0'), digits+1
		}
	}
	if !seen {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		if i == len(b) {
			return 0, false
		}
		e := 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			if e < 1000 {
				e = e*10 + int(b[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(b) || m > 1<<53 {
		return 0, false
	}
	f := float64(m)
	switch {
	case m == 0 || exp == 0:
	case 0 < exp && exp < len(pow10):
		f *= pow10[exp]
	case -len(pow10) < exp && exp < 0:
		f /= pow10[-exp]
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}
