package classify

import (
	"fmt"
	"math"

	"github.com/verdict-ml/verdict/stats"
)

// The multi-class metrics take labels as class indices 0..k-1 and an n×k
// matrix of scores in row-major order: probs[i*k+c] is sample i's score for
// class c.

// argmax returns the index of the largest value of row, the lowest index
// among equal maxima, as NumPy's argmax does.
func argmax(row []float64) int {
	best := 0
	for c, v := range row {
		if v > row[best] {
			best = c
		}
	}
	return best
}

// MulticlassAccuracy returns the share of samples whose predicted class,
// the argmax of their row, is their label. A row with several equal maxima
// predicts the lowest of those classes, as NumPy's argmax does, so a tie
// is never counted right by chance of the order. Scores need not be
// probabilities: logits give the same argmax.
//
// MulticlassAccuracy returns an error wrapping ErrBadParameter for k < 2,
// ErrLengths when probs does not hold n·k values, and ErrEmpty, ErrLabel
// or ErrNotFinite for bad input.
func MulticlassAccuracy(labels []int32, probs []float64, k int) (float64, error) {
	if err := checkMulticlass("accuracy", labels, probs, k, false); err != nil {
		return 0, err
	}
	return argmaxAccuracy(labels, probs, k), nil
}

// argmaxAccuracy is MulticlassAccuracy without the validation.
func argmaxAccuracy(labels []int32, probs []float64, k int) float64 {
	var right int
	for i, l := range labels {
		if argmax(probs[i*k:(i+1)*k]) == int(l) {
			right++
		}
	}
	return float64(right) / float64(len(labels))
}

// MacroF1 returns the unweighted mean over classes of each class's
// one-vs-rest F1 of the argmax predictions (ties to the lowest class, as in
// MulticlassAccuracy):
//
//	F1_c = 2·TP_c / (2·TP_c + FP_c + FN_c),   MacroF1 = (1/|C|) Σ_{c∈C} F1_c,
//
// with F1_c = 0 when TP_c = 0. C is the set of classes that occur among the
// labels or the predictions, as scikit-learn's f1_score(average="macro")
// takes it when not given labels: a class that is neither present nor
// predicted has no F1 and is left out rather than counted 0. Every small
// class weighs as much as a large one.
//
// Errors are as for MulticlassAccuracy.
func MacroF1(labels []int32, probs []float64, k int) (float64, error) {
	if err := checkMulticlass("macro F1", labels, probs, k, false); err != nil {
		return 0, err
	}
	tp := make([]int, k)
	fp := make([]int, k)
	fn := make([]int, k)
	for i, l := range labels {
		pred := argmax(probs[i*k : (i+1)*k])
		if pred == int(l) {
			tp[l]++
		} else {
			fp[pred]++
			fn[l]++
		}
	}
	var (
		sum     float64
		classes int
	)
	for c := range k {
		if tp[c]+fp[c]+fn[c] == 0 {
			continue
		}
		classes++
		if tp[c] > 0 {
			sum += float64(2*tp[c]) / float64(2*tp[c]+fp[c]+fn[c])
		}
	}
	return sum / float64(classes), nil
}

// MicroF1 returns the F1 of the argmax predictions pooled over classes,
// 2·ΣTP / (2·ΣTP + ΣFP + ΣFN). With one label per sample every wrong
// prediction is one false positive and one false negative, so micro F1,
// micro precision and micro recall all equal MulticlassAccuracy;
// MicroF1 is that number under the name scikit-learn's
// f1_score(average="micro") gives it.
//
// Errors are as for MulticlassAccuracy.
func MicroF1(labels []int32, probs []float64, k int) (float64, error) {
	if err := checkMulticlass("micro F1", labels, probs, k, false); err != nil {
		return 0, err
	}
	return argmaxAccuracy(labels, probs, k), nil
}

// MulticlassLogLoss returns the cross-entropy of class probabilities
// against labels:
//
//	LogLoss = −(1/n) Σ_i ln q_{i,y_i},
//
// where row i is first clipped entry by entry to [Epsilon, 1 − Epsilon] and
// then divided by its sum, as scikit-learn's log_loss does. Each row must
// sum to 1 within RowSumTolerance; the division after clipping then moves
// the result by at most about that much, and makes the value
// scikit-learn's for the same rows. Lower is better.
//
// MulticlassLogLoss returns an error wrapping ErrNotProbability for a value
// outside [0, 1], ErrRowSum for a row that does not sum to 1, and
// otherwise the errors of MulticlassAccuracy.
func MulticlassLogLoss(labels []int32, probs []float64, k int) (float64, error) {
	if err := checkMulticlass("log loss", labels, probs, k, true); err != nil {
		return 0, err
	}
	var sum stats.CompensatedSum
	for i, l := range labels {
		var rowSum float64
		for _, p := range probs[i*k : (i+1)*k] {
			rowSum += clip(p)
		}
		sum.Add(-math.Log(clip(probs[i*k+int(l)]) / rowSum))
	}
	return sum.Value() / float64(len(labels)), nil
}

// MacroROCAUC returns the one-vs-rest ROC AUC averaged over classes with
// equal weight:
//
//	MacroROCAUC = (1/k) Σ_c AUC(labels == c, probs[:, c]),
//
// each term as ROCAUC computes it (ties count ½). This is scikit-learn's
// roc_auc_score(multi_class="ovr", average="macro"). Each column is only
// ranked, so the scores need not be probabilities, where scikit-learn
// refuses rows that do not sum to 1. It sorts each column once: O(k·n log n).
//
// MacroROCAUC returns an error wrapping ErrSingleClass when some class is
// no sample's label or every sample's (its one-vs-rest AUC is undefined),
// and otherwise the errors of MulticlassAccuracy.
func MacroROCAUC(labels []int32, probs []float64, k int) (float64, error) {
	if err := checkMulticlass("macro ROC AUC", labels, probs, k, false); err != nil {
		return 0, err
	}
	n := len(labels)
	counts := make([]int, k)
	for _, l := range labels {
		counts[l]++
	}
	for c, m := range counts {
		if m == 0 || m == n {
			return 0, fmt.Errorf("%w: macro ROC AUC needs every class among the labels and no class everywhere, and class %d labels %d of %d samples", ErrSingleClass, c, m, n)
		}
	}
	binary := make([]int8, n)
	column := make([]float64, n)
	var sum float64
	for c := range k {
		for i, l := range labels {
			binary[i] = 0
			if int(l) == c {
				binary[i] = 1
			}
			column[i] = probs[i*k+c]
		}
		sum += AUCWeighted(Order(column), binary, column, nil)
	}
	return sum / float64(k), nil
}
