package store

import "math"

// The arguments below write SQL NULL for a value left unset, which the
// schema's columns hold as NULL rather than as a zero.

// positive maps the zero value of an optional count to SQL NULL.
func positive(v int64) any {
	if v <= 0 {
		return nil
	}
	return v
}

// level maps an unset probability level (0) to SQL NULL.
func level(v float64) any {
	if v == 0 {
		return nil
	}
	return v
}

// nullIfEmpty maps the empty string to SQL NULL.
func nullIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// nullNaN is x, or SQL NULL for NaN.
func nullNaN(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}
