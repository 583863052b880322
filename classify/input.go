package classify

import (
	"fmt"
	"math"
)

// BinaryLabels converts labels read as numbers, as a CSV or NumPy column
// holds them, to the []int8 the binary metrics take. Each value must be
// exactly 0 or 1; anything else (0.5, 2, −1, NaN) returns an error wrapping
// ErrLabel that gives its index, rather than being rounded or thresholded.
func BinaryLabels(x []float64) ([]int8, error) {
	out := make([]int8, len(x))
	for i, v := range x {
		switch v {
		case 0:
		case 1:
			out[i] = 1
		default:
			return nil, fmt.Errorf("%w: labels[%d] is %v; binary labels are 0 or 1", ErrLabel, i, v)
		}
	}
	return out, nil
}

// checkBinary validates the input of a binary metric: equal lengths, at
// least one prediction, labels 0 or 1, finite scores.
func checkBinary(labels []int8, scores []float64) error {
	if len(labels) != len(scores) {
		return fmt.Errorf("%w: %d labels, %d scores", ErrLengths, len(labels), len(scores))
	}
	if len(labels) == 0 {
		return ErrEmpty
	}
	for i, l := range labels {
		if l != 0 && l != 1 {
			return fmt.Errorf("%w: labels[%d] is %d; binary labels are 0 or 1", ErrLabel, i, l)
		}
	}
	for i, s := range scores {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return fmt.Errorf("%w: scores[%d] is %v", ErrNotFinite, i, s)
		}
	}
	return nil
}

// checkBinaryProbabilities is checkBinary for the metrics that read scores
// as probabilities of the positive class; metric names the metric for the
// message.
func checkBinaryProbabilities(metric string, labels []int8, probs []float64) error {
	if err := checkBinary(labels, probs); err != nil {
		return err
	}
	for i, p := range probs {
		if p < 0 || p > 1 {
			return fmt.Errorf("%w: %s needs probabilities in [0, 1], and scores[%d] is %v", ErrNotProbability, metric, i, p)
		}
	}
	return nil
}

// checkBothClasses returns ErrSingleClass unless labels hold both 0 and 1.
func checkBothClasses(metric string, labels []int8) error {
	var pos int
	for _, l := range labels {
		pos += int(l)
	}
	if pos == 0 || pos == len(labels) {
		return fmt.Errorf("%w: %s needs positive and negative labels, and all %d labels are %d", ErrSingleClass, metric, len(labels), labels[0])
	}
	return nil
}

// Check refuses a threshold that is not finite and a number of bins
// outside 1 to MaxBins, with an error wrapping ErrBadParameter that starts
// with the parameter's name.
func (o Options) Check() error {
	if err := checkThreshold(o.Threshold); err != nil {
		return err
	}
	if o.Bins < 1 || o.Bins > MaxBins {
		return fmt.Errorf("%w: bins %d: want 1 to %d", ErrBadParameter, o.Bins, MaxBins)
	}
	return nil
}

// checkThreshold refuses a threshold that is NaN or infinite.
func checkThreshold(threshold float64) error {
	if math.IsNaN(threshold) || math.IsInf(threshold, 0) {
		return fmt.Errorf("%w: threshold %v is not finite", ErrBadParameter, threshold)
	}
	return nil
}

// RowSumTolerance is how far from 1 the sum of a row of multi-class
// probabilities may be: 1e-6, absolute. It accepts float32 softmax outputs
// (whose rows sum to 1 within a few times 1.2e-7) and refuses scores that
// are not probabilities, such as logits or one-vs-rest scores. scikit-learn
// 1.2 renormalises any row silently, and later versions warn when a row
// misses 1 by more than about 1.5e-8 relative.
const RowSumTolerance = 1e-6

// checkMulticlass validates the input of a multi-class metric: k ≥ 2, at
// least one prediction, k values per label, labels in 0..k-1 and finite
// values. With probabilities set, it also requires every value in [0, 1]
// and every row to sum to 1 within RowSumTolerance; metric names the metric
// for the message.
func checkMulticlass(metric string, labels []int32, probs []float64, k int, probabilities bool) error {
	if k < 2 {
		return fmt.Errorf("%w: %d classes; a multi-class metric needs at least 2", ErrBadParameter, k)
	}
	if len(probs) != len(labels)*k {
		return fmt.Errorf("%w: %d labels and %d classes need %d values, have %d", ErrLengths, len(labels), k, len(labels)*k, len(probs))
	}
	if len(labels) == 0 {
		return ErrEmpty
	}
	for i, l := range labels {
		if l < 0 || int(l) >= k {
			return fmt.Errorf("%w: labels[%d] is %d; with %d classes labels are 0 to %d", ErrLabel, i, l, k, k-1)
		}
	}
	for i, p := range probs {
		if math.IsNaN(p) || math.IsInf(p, 0) {
			return fmt.Errorf("%w: row %d, class %d is %v", ErrNotFinite, i/k, i%k, p)
		}
		if probabilities && (p < 0 || p > 1) {
			return fmt.Errorf("%w: %s needs probabilities in [0, 1], and row %d, class %d is %v", ErrNotProbability, metric, i/k, i%k, p)
		}
	}
	if !probabilities {
		return nil
	}
	for r := range labels {
		var sum float64
		for _, p := range probs[r*k : (r+1)*k] {
			sum += p
		}
		if math.Abs(sum-1) > RowSumTolerance {
			return fmt.Errorf("%w: %s needs each row to sum to 1 within %g, and row %d sums to %v", ErrRowSum, metric, RowSumTolerance, r, sum)
		}
	}
	return nil
}
