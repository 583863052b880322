package classify

import (
	"fmt"
	"math"

	"github.com/verdict-ml/verdict/stats"
)

// Epsilon is the clipping bound of the log losses: probabilities are
// clipped to [Epsilon, 1 − Epsilon] before the logarithm, so that a
// confident mistake (p = 0 for a positive) costs −ln(Epsilon) ≈ 36.04
// rather than +Inf. It is float64's machine epsilon, 2⁻⁵² ≈ 2.22e-16,
// which is what scikit-learn's log_loss uses for float64 input since
// version 1.2 (eps="auto", np.finfo(y_pred.dtype).eps); earlier versions
// used 1e-15, which caps the cost at about 34.54.
const Epsilon = 0x1p-52

// clip limits p to [Epsilon, 1 − Epsilon].
func clip(p float64) float64 {
	return math.Max(Epsilon, math.Min(1-Epsilon, p))
}

// LogLoss returns the binary cross-entropy of probabilities of the
// positive class against binary labels:
//
//	LogLoss = −(1/n) Σ_i [y_i ln q_i + (1 − y_i) ln(1 − q_i)],
//
// with q_i = p_i clipped to [Epsilon, 1 − Epsilon]. Like scikit-learn's
// log_loss, it divides the row (1 − q_i, q_i) by its sum before the
// logarithm; the sum differs from 1 by at most a rounding, so this changes
// the result by about 1e-16 and is kept only to give scikit-learn's
// numbers. Lower is better. A single class in labels is fine: the loss is
// defined without the other class (scikit-learn asks for labels=[0, 1]
// then).
//
// LogLoss returns an error wrapping ErrNotProbability for a probability
// outside [0, 1], and ErrLengths, ErrEmpty, ErrLabel or ErrNotFinite for
// bad input. scikit-learn's log_loss clips such a value silently instead;
// it is refused here because a score outside [0, 1] is not a probability,
// and clipping it would report a loss for scores of another kind, such as
// logits.
func LogLoss(labels []int8, probs []float64) (float64, error) {
	if err := checkBinaryProbabilities("log loss", labels, probs); err != nil {
		return 0, err
	}
	return LogLossWeighted(labels, probs, nil), nil
}

// LogLossWeighted returns the log loss of a weighted sample,
// Σ w_i ℓ_i / Σ w_i with ℓ_i sample i's term in LogLoss, which is LogLoss
// of the sample written out with sample i repeated weights[i] times. nil
// weights count every sample once. It returns NaN when the weights sum to
// 0. It does not validate labels and probabilities (validate them once
// with LogLoss), and panics if lengths differ or a weight is negative.
func LogLossWeighted(labels []int8, probs []float64, weights []int32) float64 {
	if len(probs) != len(labels) || (weights != nil && len(weights) != len(labels)) {
		panic("classify: labels, probabilities and weights differ in length")
	}
	var (
		sum   stats.CompensatedSum
		total int64
	)
	for i, p := range probs {
		w := weightOf(weights, i)
		if w == 0 {
			continue
		}
		sum.Add(float64(w) * binaryLogLossTerm(labels[i], p))
		total += w
	}
	if total == 0 {
		return math.NaN()
	}
	return sum.Value() / float64(total)
}

// binaryLogLossTerm is one sample's term of LogLoss, computed in
// scikit-learn's order: clip, form the row (1 − q, q), divide by its sum,
// take the logarithm of the label's entry.
func binaryLogLossTerm(label int8, p float64) float64 {
	q := clip(p)
	sum := (1 - q) + q
	if label == 1 {
		return -math.Log(q / sum)
	}
	return -math.Log((1 - q) / sum)
}

// Brier returns the Brier score, the mean squared difference between
// probabilities of the positive class and binary labels:
//
//	Brier = (1/n) Σ_i (p_i − y_i)²,
//
// as scikit-learn's brier_score_loss computes it. It is 0 for certain and
// right predictions, 0.25 for p = ½ everywhere and 1 for certain and wrong
// ones. Lower is better. A single class in labels is fine.
//
// Brier returns an error wrapping ErrNotProbability for a probability
// outside [0, 1], and ErrLengths, ErrEmpty, ErrLabel or ErrNotFinite for
// bad input.
func Brier(labels []int8, probs []float64) (float64, error) {
	if err := checkBinaryProbabilities("Brier score", labels, probs); err != nil {
		return 0, err
	}
	var sum stats.CompensatedSum
	for i, p := range probs {
		d := p - float64(labels[i])
		sum.Add(d * d)
	}
	return sum.Value() / float64(len(probs)), nil
}

// DefaultBins is the number of ECE bins unless a caller asks for others.
const DefaultBins = 10

// MaxBins is the largest number of ECE bins accepted; more bins than that
// would leave almost every bin empty on any real evaluation.
const MaxBins = 1_000_000

// ECE returns the expected calibration error of probabilities of the
// positive class over bins equal-width bins of [0, 1]:
//
//	ECE = Σ_b (n_b / n) · |mean_{i∈b} y_i − mean_{i∈b} p_i|,
//
// the gap between the observed rate of positives and the mean predicted
// probability in each bin, weighted by the bin's share of samples; empty
// bins count 0. Lower is better; 0 is perfect calibration at this
// resolution.
//
// Bin b (counting from 0) holds the probabilities p with b/B ≤ p < (b+1)/B,
// where the edge j/B is the float64 nearest to that fraction. A probability
// exactly on an inner edge goes to the bin above it, and 1.0 goes to the
// last bin, which is closed. In NumPy the bin is
// np.searchsorted(np.arange(1, B) / B, p, side="right"). This is not
// floor(p·B), which puts some edges in the bin below: 15/22·22 rounds to
// 14.999999999999998. scikit-learn has no ECE; its calibration_curve puts
// a probability on an inner edge in the bin below, with edges from
// np.linspace (3·0.1 rather than 3/10), so an ECE built on it can differ
// when probabilities sit on edges.
//
// ECE returns an error wrapping ErrBadParameter for bins outside 1 to
// MaxBins, ErrNotProbability for a probability outside [0, 1], and
// ErrLengths, ErrEmpty, ErrLabel or ErrNotFinite for bad input.
func ECE(labels []int8, probs []float64, bins int) (float64, error) {
	if bins < 1 || bins > MaxBins {
		return 0, fmt.Errorf("%w: %d ECE bins; use 1 to %d", ErrBadParameter, bins, MaxBins)
	}
	if err := checkBinaryProbabilities("ECE", labels, probs); err != nil {
		return 0, err
	}
	positives := make([]int64, bins)
	probSums := make([]stats.CompensatedSum, bins)
	for i, p := range probs {
		b := eceBin(p, bins)
		positives[b] += int64(labels[i])
		probSums[b].Add(p)
	}
	// n_b/n · |pos_b/n_b − sum_b/n_b| = |pos_b − sum_b| / n, which needs no
	// count and has no empty-bin case.
	var sum stats.CompensatedSum
	for b := range bins {
		sum.Add(math.Abs(float64(positives[b]) - probSums[b].Value()))
	}
	return sum.Value() / float64(len(probs)), nil
}

// eceBin returns the bin of probability p among bins equal-width bins: the
// b with b/bins ≤ p < (b+1)/bins, or the last bin for p = 1. p·bins rounds,
// and so does each edge, so floor(p·bins) can land one bin off near an
// edge; comparing p with the edges either side puts it right.
func eceBin(p float64, bins int) int {
	b := min(int(p*float64(bins)), bins-1)
	switch {
	case b+1 < bins && p >= float64(b+1)/float64(bins):
		b++
	case b > 0 && p < float64(b)/float64(bins):
		b--
	}
	return b
}
