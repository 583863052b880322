package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// DeLongOptions configures DeLong. The zero value asks for a 95 % interval.
type DeLongOptions struct {
	// Confidence is the coverage of the interval around the AUC
	// difference, in (0, 1). Zero means 0.95.
	Confidence float64 `req:"confidence" default:"0.95" arg:"LEVEL" help:"level of the confidence interval"`
}

// DeLongResult is the outcome of DeLong. Diff is AUCLeft − AUCRight.
type DeLongResult struct {
	AUCLeft  float64 `json:"auc_left"`
	AUCRight float64 `json:"auc_right"`
	Diff     float64 `json:"diff"`
	SE       float64 `json:"se"`
	Z        float64 `json:"z"`
	PValue   float64 `json:"p_value"`
	CILow    float64 `json:"ci_low"`
	CIHigh   float64 `json:"ci_high"`
	Notes    []Note  `json:"notes,omitempty"`
}

// DeLong compares the ROC AUCs of two scorers on the same samples with
// DeLong, DeLong and Clarke-Pearson's (1988) test for correlated AUCs, in
// the midrank form of Sun and Xu (2014), which takes O(N log N) time.
// labels are 0 (negative) or 1 (positive); a higher score means more
// likely positive.
//
// For each scorer, with m positives X, n negatives Y, and midranks T_Z in
// the pooled sample, T_X among positives and T_Y among negatives, the
// placement values are
//
//	V10_i = (T_Z(X_i) − T_X(X_i)) / n      (share of negatives below X_i, ties ½)
//	V01_j = 1 − (T_Z(Y_j) − T_Y(Y_j)) / m  (share of positives above Y_j, ties ½)
//
// and AUC is the mean of V10 (equivalently of V01). The difference
// δ = AUC_left − AUC_right has variance
//
//	Var δ = Var(V10_left − V10_right)/m + Var(V01_left − V01_right)/n
//
// with sample variances (divisor m − 1 and n − 1), which is the S10/S01
// covariance form of the paper. Then z = δ/se, p = 2Φ(−|z|) and
// CI = δ ± z_{(1+c)/2} · se. This is what pROC's roc.test(method =
// "delong", paired = TRUE) reports, with direction "<" (controls score
// lower).
//
// Edge cases:
//   - Fewer than 2 positives or 2 negatives returns ErrTooFew: with a single
//     class the AUC is undefined, and with one member of a class its
//     placement variance is.
//   - se = 0 (for example both scorers perfect): if δ = 0 too, z = 0 and
//     p = 1; otherwise z = ±Inf and p = 0. Either way the interval is
//     [δ, δ] and a note explains.
//
// Labels other than 0 and 1 return ErrNotBinary, inputs of different
// lengths ErrLengths, NaN or ±Inf ErrNotFinite, and a confidence outside
// (0, 1) ErrBadParameter.
func DeLong(labels, left, right []float64, opts DeLongOptions) (DeLongResult, error) {
	conf, err := confidenceOrDefault(opts.Confidence)
	if err != nil {
		return DeLongResult{}, err
	}
	if len(left) != len(labels) || len(right) != len(labels) {
		return DeLongResult{}, fmt.Errorf("%w: labels has %d values, left %d, right %d", ErrLengths, len(labels), len(left), len(right))
	}
	if err := checkBinaryInput("labels", labels); err != nil {
		return DeLongResult{}, err
	}
	if err := checkFiniteInput("left", left); err != nil {
		return DeLongResult{}, err
	}
	if err := checkFiniteInput("right", right); err != nil {
		return DeLongResult{}, err
	}
	m := 0
	for _, l := range labels {
		if l == 1 {
			m++
		}
	}
	n := len(labels) - m
	if m < 2 || n < 2 {
		return DeLongResult{}, fmt.Errorf("%w: DeLong needs at least 2 positive and 2 negative labels, got %d and %d", ErrTooFew, m, n)
	}
	aucL, v10L, v01L := placements(labels, left, m, n)
	aucR, v10R, v01R := placements(labels, right, m, n)
	for i := range v10L {
		v10L[i] -= v10R[i]
	}
	for j := range v01L {
		v01L[j] -= v01R[j]
	}
	_, var10 := meanVariance(v10L)
	_, var01 := meanVariance(v01L)
	variance := math.Max(0, var10/float64(m)+var01/float64(n))

	res := DeLongResult{AUCLeft: aucL, AUCRight: aucR, Diff: aucL - aucR, SE: math.Sqrt(variance)}
	if res.SE == 0 {
		res.CILow, res.CIHigh = res.Diff, res.Diff
		if res.Diff == 0 {
			res.Z, res.PValue = 0, 1
			res.Notes = []Note{{Code: NotePlacementsAgree}}
		} else {
			res.Z, res.PValue = math.Copysign(math.Inf(1), res.Diff), 0
			res.Notes = []Note{{Code: NoteAUCVarianceZero}}
		}
		return res, nil
	}
	res.Z = res.Diff / res.SE
	res.PValue = math.Min(1, 2*normalUpperP(math.Abs(res.Z)))
	half := -mathext.NormalQuantile((1-conf)/2) * res.SE
	res.CILow, res.CIHigh = res.Diff-half, res.Diff+half
	return res, nil
}

// placements returns the AUC of scores against 0/1 labels and the placement
// values V10 (one per positive, in sample order) and V01 (one per
// negative), from midranks as Sun and Xu (2014) compute them.
func placements(labels, scores []float64, m, n int) (auc float64, v10, v01 []float64) {
	pos := make([]float64, 0, m)
	neg := make([]float64, 0, n)
	for i, l := range labels {
		if l == 1 {
			pos = append(pos, scores[i])
		} else {
			neg = append(neg, scores[i])
		}
	}
	pooled := append(append(make([]float64, 0, m+n), pos...), neg...)
	tz := averageRanks(pooled)
	tx := averageRanks(pos)
	ty := averageRanks(neg)
	v10 = make([]float64, m)
	var sum float64
	for i := range pos {
		v10[i] = (tz[i] - tx[i]) / float64(n)
		sum += v10[i]
	}
	v01 = make([]float64, n)
	for j := range neg {
		v01[j] = 1 - (tz[m+j]-ty[j])/float64(m)
	}
	return sum / float64(m), v10, v01
}

// checkBinaryInput returns ErrNotBinary naming the input and the index of
// its first value other than 0 or 1.
func checkBinaryInput(name string, x []float64) error {
	for i, v := range x {
		if v != 0 && v != 1 {
			return fmt.Errorf("%w: %s[%d] is %v", ErrNotBinary, name, i, v)
		}
	}
	return nil
}
