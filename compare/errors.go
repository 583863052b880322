package compare

import (
	"errors"
	"fmt"
)

var (
	// ErrInvalid is returned for a request that cannot be carried out as
	// asked: an unknown method or adjustment, too few evaluations, a
	// missing metric name, a control that is not among the runs. The
	// message says what was wrong.
	ErrInvalid = errors.New("invalid request")

	// ErrNothingShared is returned when the evaluations share nothing to
	// compare: no metric, no unit, or no evaluation set.
	ErrNothingShared = errors.New("nothing in common")

	// ErrNotApplicable is returned when the method does not fit the data:
	// McNemar or DeLong on units with several rows, DeLong without labels,
	// the corrected t without training and test sizes, 5x2 without ten
	// folds, draws that differ between the two sides.
	ErrNotApplicable = errors.New("method does not apply")
)

// invalidError is a request that cannot be carried out as asked, said for
// the user. It wraps ErrInvalid; its message is the problem alone.
type invalidError struct{ msg string }

func (e *invalidError) Error() string { return e.msg }
func (e *invalidError) Unwrap() error { return ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{fmt.Sprintf(format, args...)}
}
