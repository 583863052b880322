package stats

import "errors"

var (
	// ErrTooFew is returned when there are fewer observations than a method
	// needs; the message says how many it has and needs.
	ErrTooFew = errors.New("too few observations")

	// ErrNotFinite is returned for NaN or ±Inf in the input; the message
	// names the input and the index.
	ErrNotFinite = errors.New("value is not finite")

	// ErrLengths is returned when inputs that must pair up differ in length.
	ErrLengths = errors.New("inputs differ in length")

	// ErrNotBinary is returned for labels or correctness values other than
	// 0 and 1.
	ErrNotBinary = errors.New("value is not 0 or 1")

	// ErrBadParameter is returned for a parameter outside its range, such as
	// a confidence of 1 or a negative number of resamples.
	ErrBadParameter = errors.New("bad parameter")
)
