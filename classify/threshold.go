package classify

// DefaultThreshold is the threshold of the threshold metrics unless a
// caller asks for another: a probability of the positive class of at least
// one half predicts positive.
const DefaultThreshold = 0.5

// Confusion holds the counts of binary predictions against labels at a
// threshold: true and false positives, true and false negatives.
type Confusion struct {
	TP, FP, TN, FN int
}

// ConfusionAt counts the predictions of scores at threshold against binary
// labels. A score at or above the threshold predicts positive:
//
//	ŷ_i = 1 if s_i ≥ threshold, else 0.
//
// So a probability of exactly 0.5 is positive at the default threshold.
// This differs from scikit-learn's own binarising, which is strict
// (Binarizer maps values greater than the threshold to 1, and a linear
// classifier's predict is decision_function > 0, that is p > ½); only
// scores exactly equal to the threshold are affected. Scores need not be
// probabilities: with logits, use threshold 0.
//
// ConfusionAt returns an error wrapping ErrBadParameter for a threshold
// that is not finite, and ErrLengths, ErrEmpty, ErrLabel or ErrNotFinite
// for bad input.
func ConfusionAt(labels []int8, scores []float64, threshold float64) (Confusion, error) {
	if err := checkThreshold(threshold); err != nil {
		return Confusion{}, err
	}
	if err := checkBinary(labels, scores); err != nil {
		return Confusion{}, err
	}
	var c Confusion
	for i, s := range scores {
		switch predicted := s >= threshold; {
		case predicted && labels[i] == 1:
			c.TP++
		case predicted:
			c.FP++
		case labels[i] == 1:
			c.FN++
		default:
			c.TN++
		}
	}
	return c, nil
}

// Accuracy returns (TP + TN) / n, the share of predictions that are right.
func (c Confusion) Accuracy() float64 {
	return float64(c.TP+c.TN) / float64(c.TP+c.FP+c.TN+c.FN)
}

// Precision returns TP / (TP + FP), the share of predicted positives that
// are positive, or 0 when nothing is predicted positive. The 0 is
// scikit-learn's default (zero_division="warn", which warns and returns 0):
// a classifier that predicts no positive gets no credit for precision.
func (c Confusion) Precision() float64 {
	if c.TP+c.FP == 0 {
		return 0
	}
	return float64(c.TP) / float64(c.TP+c.FP)
}

// Recall returns TP / (TP + FN), the share of positives predicted
// positive, or 0 when there is no positive label (scikit-learn's default,
// as for Precision).
func (c Confusion) Recall() float64 {
	if c.TP+c.FN == 0 {
		return 0
	}
	return float64(c.TP) / float64(c.TP+c.FN)
}

// F1 returns the harmonic mean of precision and recall,
//
//	F1 = 2·TP / (2·TP + FP + FN),
//
// or 0 when TP = 0. That covers the undefined cases the way scikit-learn's
// f1_score does by default: with no predicted positive and no positive
// label, and whenever precision and recall are both 0.
func (c Confusion) F1() float64 {
	if c.TP == 0 {
		return 0
	}
	return float64(2*c.TP) / float64(2*c.TP+c.FP+c.FN)
}

// Accuracy returns the share of right predictions of scores at threshold
// against binary labels; see ConfusionAt for the rule and the errors.
func Accuracy(labels []int8, scores []float64, threshold float64) (float64, error) {
	c, err := ConfusionAt(labels, scores, threshold)
	return c.Accuracy(), err
}

// Precision returns TP / (TP + FP) of scores at threshold against binary
// labels, 0 when nothing is predicted positive; see ConfusionAt for the
// rule and the errors.
func Precision(labels []int8, scores []float64, threshold float64) (float64, error) {
	c, err := ConfusionAt(labels, scores, threshold)
	return c.Precision(), err
}

// Recall returns TP / (TP + FN) of scores at threshold against binary
// labels, 0 when there is no positive label; see ConfusionAt for the rule
// and the errors.
func Recall(labels []int8, scores []float64, threshold float64) (float64, error) {
	c, err := ConfusionAt(labels, scores, threshold)
	return c.Recall(), err
}

// F1 returns 2·TP / (2·TP + FP + FN) of scores at threshold against binary
// labels, 0 when TP = 0; see ConfusionAt for the rule and the errors.
func F1(labels []int8, scores []float64, threshold float64) (float64, error) {
	c, err := ConfusionAt(labels, scores, threshold)
	return c.F1(), err
}
