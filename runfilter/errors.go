package runfilter

import "errors"

// ErrBadFilter is wrapped by the errors of Parse; the message gives the
// column (1-based) where the expression went wrong.
var ErrBadFilter = errors.New("bad filter")

// ErrBadOrder is wrapped by the errors of ParseOrder; the message gives
// the column (1-based) where the key went wrong. errors.Is also matches it
// with ErrBadFilter: an order is the same language as a filter, and a
// caller that handles one handles both.
var ErrBadOrder error = badOrder{}

type badOrder struct{}

func (badOrder) Error() string        { return "bad order-by" }
func (badOrder) Is(target error) bool { return target == ErrBadFilter }
