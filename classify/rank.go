package classify

import (
	"cmp"
	"math"
	"slices"

	"github.com/verdict-ml/verdict/stats"
)

// Order returns the indices of scores sorted by ascending score: scores[order[0]]
// is the lowest. Tied scores keep no particular order among themselves,
// which AUCWeighted and AveragePrecisionWeighted do not need, since they
// treat a run of equal scores as one group. It panics if scores has more
// than math.MaxInt32 values.
//
// Order does not check its input; a NaN sorts before every number. Validate
// the scores first, with ROCAUC or AveragePrecision on the same data.
func Order(scores []float64) []int32 {
	if len(scores) > math.MaxInt32 {
		panic("classify: more scores than an int32 order can index")
	}
	// Sorting (score, index) pairs keeps each comparison's reads next to
	// each other, where sorting bare indices would look every score up at
	// a random place.
	type entry struct {
		score float64
		index int32
	}
	entries := make([]entry, len(scores))
	for i, s := range scores {
		entries[i] = entry{s, int32(i)}
	}
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.score, b.score) })
	order := make([]int32, len(scores))
	for i, e := range entries {
		order[i] = e.index
	}
	return order
}

// ROCAUC returns the area under the ROC curve of scores against binary
// labels (1 is positive; a higher score means more likely positive). It is
// the Mann–Whitney statistic: the share of (positive, negative) pairs in
// which the positive scores higher, a tie counting ½,
//
//	AUC = (Σ_{i pos} Σ_{j neg} [s_i > s_j] + ½ [s_i = s_j]) / (P · N),
//
// which equals the trapezoidal area under the ROC curve that scikit-learn's
// roc_auc_score computes. Scores need not be probabilities; only their
// order matters. It takes O(n log n) time: one sort (Order), then one pass
// (AUCWeighted).
//
// ROCAUC returns an error wrapping ErrSingleClass when labels hold only one
// class, ErrLengths, ErrEmpty, ErrLabel or ErrNotFinite for bad input.
func ROCAUC(labels []int8, scores []float64) (float64, error) {
	if err := checkBinary(labels, scores); err != nil {
		return 0, err
	}
	if err := checkBothClasses("ROC AUC", labels); err != nil {
		return 0, err
	}
	return AUCWeighted(Order(scores), labels, scores, nil), nil
}

// AUCWeighted is the ROC AUC of a sample in which sample i counts
// weights[i] times (nil: once each), in O(n) given order, the ascending
// order of scores from Order (nil: already in order):
//
//	AUC = Σ_{i pos} Σ_{j neg} w_i w_j ([s_i > s_j] + ½ [s_i = s_j]) / (P · N),
//
// P and N the weighted positives and negatives. Sums are exact integers
// (twice the Mann–Whitney U), so it is ROCAUC of the written-out sample
// whatever the order within ties. NaN when P or N is 0. Labels (0/1) and
// scores (finite) are not validated; it panics on lengths that differ or a
// negative weight. The weights' total must stay below 2³¹.
func AUCWeighted(order []int32, labels []int8, scores []float64, weights []int32) float64 {
	n := len(labels)
	checkWeightedLengths(n, order, scores, weights)
	var (
		negBelow int64 // weighted negatives scoring below the current group
		pos      int64 // weighted positives seen so far
		twiceU   int64 // 2 × Mann–Whitney U
	)
	for i := 0; i < n; {
		s := scores[at(order, i)]
		var gp, gn int64
		j := i
		for ; j < n; j++ {
			idx := at(order, j)
			if scores[idx] != s {
				break
			}
			w := weightOf(weights, idx)
			if labels[idx] == 1 {
				gp += w
			} else {
				gn += w
			}
		}
		twiceU += gp * (2*negBelow + gn)
		negBelow += gn
		pos += gp
		i = j
	}
	if pos == 0 || negBelow == 0 {
		return math.NaN()
	}
	return float64(twiceU) / (2 * float64(pos) * float64(negBelow))
}

// AveragePrecision returns the average precision of scores against binary
// labels, the step-wise area under the precision–recall curve that
// scikit-learn's average_precision_score computes:
//
//	AP = Σ_t (R_t − R_{t−1}) · P_t,
//
// over the distinct scores t from the highest down, where P_t and R_t are
// the precision and recall of predicting positive every sample scoring at
// least t, and R_0 = 0. Tied scores form one threshold: a run of equal
// scores enters the curve as a single step, so ties are neither broken in
// the positives' favour nor against them. Only steps that add a positive
// contribute, so AP = (1/P) Σ_t pos_t · P_t with pos_t the positives
// scoring exactly t. There is no interpolation (unlike the 11-point or
// VOC AP). Scores need not be probabilities.
//
// AveragePrecision returns an error wrapping ErrSingleClass when labels
// hold only one class (with no positive, recall is undefined; with no
// negative, AP is 1 whatever the scores), ErrLengths, ErrEmpty, ErrLabel or
// ErrNotFinite for bad input.
func AveragePrecision(labels []int8, scores []float64) (float64, error) {
	if err := checkBinary(labels, scores); err != nil {
		return 0, err
	}
	if err := checkBothClasses("average precision", labels); err != nil {
		return 0, err
	}
	return AveragePrecisionWeighted(Order(scores), labels, scores, nil), nil
}

// AveragePrecisionWeighted returns the average precision of a weighted
// sample in O(n) time, given order, the ascending sort order of scores from
// Order; it is AveragePrecision of the sample written out with sample i
// repeated weights[i] times. It walks the order from the top, one group of
// equal scores at a time, with the weighted counts of true and false
// positives as exact integers.
//
// nil weights, nil order, validation and panics are as for AUCWeighted. It
// returns NaN when the weighted sample has no positive; a sample without
// negatives gives 1.
func AveragePrecisionWeighted(order []int32, labels []int8, scores []float64, weights []int32) float64 {
	n := len(labels)
	checkWeightedLengths(n, order, scores, weights)
	var (
		tp, fp int64
		sum    stats.CompensatedSum
	)
	for i := n - 1; i >= 0; {
		s := scores[at(order, i)]
		var gp, gn int64
		j := i
		for ; j >= 0; j-- {
			idx := at(order, j)
			if scores[idx] != s {
				break
			}
			w := weightOf(weights, idx)
			if labels[idx] == 1 {
				gp += w
			} else {
				gn += w
			}
		}
		tp += gp
		fp += gn
		if gp > 0 {
			sum.Add(float64(gp) * float64(tp) / float64(tp+fp))
		}
		i = j
	}
	if tp == 0 {
		return math.NaN()
	}
	return sum.Value() / float64(tp)
}

// at returns the sample at position i of the sort order; a nil order is
// the identity.
func at(order []int32, i int) int {
	if order == nil {
		return i
	}
	return int(order[i])
}

// weightOf returns sample i's weight; nil weights are all 1.
func weightOf(weights []int32, i int) int64 {
	if weights == nil {
		return 1
	}
	w := weights[i]
	if w < 0 {
		panic("classify: negative weight")
	}
	return int64(w)
}

// checkWeightedLengths panics unless scores, and order and weights where
// given, have n values: a mismatch there is a programming error, since the
// same slices passed validation before.
func checkWeightedLengths(n int, order []int32, scores []float64, weights []int32) {
	if len(scores) != n || (order != nil && len(order) != n) || (weights != nil && len(weights) != n) {
		panic("classify: labels, scores, order and weights differ in length")
	}
}
