package classify

import "errors"

var (
	// ErrEmpty is returned by every metric for an input without predictions.
	ErrEmpty = errors.New("no predictions")

	// ErrLengths is returned when labels and scores differ in length, or a
	// multi-class probability matrix does not have k values per label; the
	// message gives both lengths.
	ErrLengths = errors.New("inputs differ in length")

	// ErrNotFinite is returned for a NaN or ±Inf score or probability; the
	// message names the input and the index (the row and class for a
	// multi-class matrix).
	ErrNotFinite = errors.New("value is not finite")

	// ErrLabel is returned for a binary label other than 0 or 1, and for a
	// multi-class label outside 0..k-1; the message gives the index and the
	// label.
	ErrLabel = errors.New("label out of range")

	// ErrNotProbability is returned by the metrics that need probabilities
	// (LogLoss, Brier, ECE, MulticlassLogLoss) for a value outside [0, 1];
	// the message names the metric, the index and the value.
	ErrNotProbability = errors.New("value is not a probability")

	// ErrRowSum is returned by MulticlassLogLoss for a row of probabilities
	// whose sum differs from 1 by more than RowSumTolerance; the message
	// gives the row and its sum.
	ErrRowSum = errors.New("probabilities do not sum to 1")

	// ErrSingleClass is returned by ROCAUC and AveragePrecision when the
	// labels hold only one class, and by MacroROCAUC when a class has no
	// sample or every sample: the ranking metrics compare positives with
	// negatives and are undefined without both.
	ErrSingleClass = errors.New("only one class present")

	// ErrBadParameter is returned for a threshold that is not finite, a
	// number of ECE bins below 1 or above MaxBins, and fewer than 2 classes.
	ErrBadParameter = errors.New("bad parameter")

	// ErrUnknownMetric is returned by ParseMetric for a name it does not
	// know; the message lists the known names.
	ErrUnknownMetric = errors.New("unknown metric")
)
