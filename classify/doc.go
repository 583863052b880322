// Package classify holds metrics of classifiers computed over a whole set of
// predictions: ROC AUC, average precision, log loss, Brier score, accuracy,
// precision, recall, F1 and expected calibration error for binary
// classifiers, and accuracy, macro and micro F1, log loss and one-vs-rest
// macro ROC AUC for multi-class ones.
//
// They are pure functions on slices. The package reads no files, knows no
// database and writes no sentences. Unlike the ranking metrics of package
// evaluate, most of these metrics are not means of per-sample values (ROC
// AUC compares every positive with every negative), so each is computed
// from all predictions at once, and a bootstrap recomputes it on every
// replicate. AUCWeighted, AveragePrecisionWeighted and LogLossWeighted do
// that in O(n) from one sort, with a replicate given as per-sample counts.
//
// Every definition follows scikit-learn (version 1.2.1 is the reference the
// tests compare against, within 1e-12 absolute or relative); where verdict
// differs, the function says so. The sections below give the formulas, so
// that a number can be checked by hand.
//
// # Inputs
//
// Binary labels are []int8 holding 0 (negative) or 1 (positive): a byte
// per sample keeps a million labels in a megabyte, and a fractional label
// cannot slip in. BinaryLabels converts a float64 column, refusing
// anything but 0 and 1. Binary scores are []float64 where a higher score
// means more likely positive. The ranking metrics and the threshold metrics
// take any finite scores (probabilities, logits, margins); log loss, Brier
// and ECE need probabilities of the positive class, in [0, 1].
//
// Multi-class labels are []int32 class indices 0..k-1, and the scores are
// an n×k matrix in one []float64, row-major: probs[i*k+c] is sample i's
// score for class c. Only the multi-class log loss needs probabilities: each
// value in [0, 1] and each row summing to 1 within RowSumTolerance (1e-6).
//
// # Binary metrics
//
// With n samples, labels y_i, scores s_i, P positives and N negatives:
//
//	roc_auc            (Σ_{i pos} Σ_{j neg} [s_i > s_j] + ½[s_i = s_j]) / (P·N)
//	average_precision  Σ_t (R_t − R_{t−1}) · P_t over distinct scores t, highest first
//	log_loss           −(1/n) Σ_i [y_i ln q_i + (1 − y_i) ln(1 − q_i)],  q_i = clip(p_i)
//	brier              (1/n) Σ_i (p_i − y_i)²
//	accuracy           (TP + TN) / n
//	precision          TP / (TP + FP)
//	recall             TP / (TP + FN)
//	f1                 2·TP / (2·TP + FP + FN)
//	ece                Σ_b (n_b/n) · |mean_b(y) − mean_b(p)|
//
// In average_precision, P_t and R_t are the precision and recall of
// predicting positive every sample scoring at least t, with R_0 = 0. This
// is the step-wise sum of scikit-learn's average_precision_score, with no
// interpolation.
//
// # Multi-class metrics
//
// With k classes, labels y_i in 0..k-1, scores p_{i,c} and ŷ_i the argmax
// of row i:
//
//	accuracy       (1/n) Σ_i [ŷ_i = y_i]
//	macro_f1       (1/|C|) Σ_{c∈C} 2·TP_c / (2·TP_c + FP_c + FN_c)
//	micro_f1       2·ΣTP / (2·ΣTP + ΣFP + ΣFN), which equals accuracy
//	log_loss       −(1/n) Σ_i ln(clip(p_{i,y_i}) / Σ_c clip(p_{i,c}))
//	macro_roc_auc  (1/k) Σ_c roc_auc(y == c, p_{·,c})
//
// In macro_f1, TP_c, FP_c and FN_c count ŷ against y one-vs-rest, and C is
// the set of classes that occur among the labels or the predictions (a
// class that does neither has no F1 and is left out, as in scikit-learn's
// f1_score(average="macro")).
//
// # Ties
//
// ROC AUC counts a tied (positive, negative) pair as ½, the Mann–Whitney
// convention; it equals the trapezoidal area under the ROC curve, and
// scores all equal give 0.5. Average precision takes each distinct score
// as one threshold, so a run of tied scores enters the precision–recall
// curve as one step at the precision of the whole run; scores all equal
// give the share of positives. Neither breaks ties by the order of the
// input.
//
// The multi-class metrics predict the argmax of each row, and a row with
// several equal maxima predicts the lowest of those classes, as NumPy's
// argmax does.
//
// # Thresholds
//
// Accuracy, precision, recall and F1 predict positive when s_i ≥ threshold,
// DefaultThreshold (0.5) unless given. A score exactly at the threshold is
// positive; scikit-learn's Binarizer and classifiers' predict use s > t
// instead, which differs only for scores equal to the threshold. For
// logits, use threshold 0.
//
// # Zero division
//
// Where a ratio is 0/0, the metric is 0, as with scikit-learn's default
// zero_division="warn" (which returns 0 and warns): precision when nothing
// is predicted positive, recall when there is no positive label, F1 when
// TP = 0.
//
// # Clipping
//
// The log losses clip each probability to [Epsilon, 1 − Epsilon], with
// Epsilon = 2⁻⁵² ≈ 2.22e-16, float64's machine epsilon, as scikit-learn
// does since 1.2 (eps="auto"); before 1.2 it clipped at 1e-15. A certain and
// wrong prediction therefore costs −ln(2⁻⁵²) ≈ 36.04, not +Inf. After
// clipping, a row of probabilities is divided by its sum, again as
// scikit-learn does; for a binary p the row is (1 − q, q).
//
// # Calibration bins
//
// ECE splits [0, 1] into B equal-width bins (DefaultBins = 10). Bin b holds
// b/B ≤ p < (b+1)/B; a probability exactly on an inner edge goes to the
// bin above, and 1.0 to the last bin. Empty bins count 0. scikit-learn has
// no ECE; the reference values are computed with NumPy from this
// definition.
//
// # Single class
//
// ROC AUC and average precision compare positives with negatives and
// return ErrSingleClass when the labels hold one class only; so does macro
// ROC AUC when a class is no sample's label. Log loss, Brier, ECE and the
// threshold metrics are defined with one class and return a number. Two
// samples, one of each class, are enough for every metric.
//
// # Errors
//
// Bad data returns an error wrapping one of the sentinels in errors.go,
// with a message that says what and where: ErrLengths, ErrEmpty,
// ErrNotFinite (NaN or ±Inf), ErrLabel (a binary label not 0 or 1, or a
// class outside 0..k-1), ErrNotProbability ("needs probabilities"),
// ErrRowSum, ErrSingleClass, ErrBadParameter and ErrUnknownMetric. The
// weighted functions are meant for inner loops over data already
// validated; they do not validate, and panic on lengths that differ or
// negative weights.
//
// # Comparing two classifiers
//
// PairedBootstrap compares two models scored on the same samples by any
// binary metric: a stratified, paired bootstrap (positives resampled from
// the positives, negatives from the negatives, the same draws for both
// models) that gives the difference left − right with a percentile
// interval, a standard error and a two-sided p-value,
// min(1, 2·(1 + min(#{d* ≤ 0}, #{d* ≥ 0}))/(B + 1)). Each model's scores
// are sorted once, before resampling; a replicate then costs one O(n) pass
// over the draw counts, a few milliseconds for a million predictions
// (bench/classify compares it with a NumPy loop over scikit-learn).
//
// Its calibration is checked by TestPairedBootstrapCalibration: 1,000
// null pairs of n = 400 (two models seeing one latent signal through
// independent noise of the same scale, so with the same true AUC), each
// with B = 500 stratified replicates of the AUC difference. p < 0.05 came
// out in 50 of the 1,000 (the central 99.9 % range of a Binomial(1000,
// 0.05) is 29 to 74), and the 95 % interval covered the true difference,
// 0, in 947 (range 926 to 971).
//
// # Names
//
// Metrics lists the metrics by the names a user writes, with their
// direction (the losses log_loss, brier and ece are lower-is-better), and
// ParseMetric looks one up.
package classify
