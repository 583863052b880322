package input

// Rekind returns err as the same error wrapping the sentinel to instead of
// from, when it is an *Error made with from; any other error is returned as
// it is. It lets a reader that reuses the decoding of another reader of its
// package, which reports with that reader's sentinel, report with its own:
// the predictions reader of package scores decodes JSON Lines with the
// scores reader's scanner, and its errors wrap scores.ErrBadPredictions
// rather than scores.ErrBadInput.
func Rekind(err, from, to error) error {
	e, ok := err.(*Error)
	if !ok || e.kind != from {
		return err
	}
	c := *e
	c.kind = to
	return &c
}
