package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mathext"
)

// McNemarMode says how McNemar computes its p-value.
type McNemarMode string

// The McNemar modes.
const (
	// McNemarAuto is exact when b + c < 50 and chi2 otherwise.
	McNemarAuto McNemarMode = "auto"
	// McNemarExact is the two-sided binomial test of b against
	// Binomial(b + c, ½).
	McNemarExact McNemarMode = "exact"
	// McNemarChi2 is the χ² test with Edwards' continuity correction.
	McNemarChi2 McNemarMode = "chi2"
)

// McNemarOptions configures McNemar. The zero value is auto mode.
type McNemarOptions struct {
	// Mode is auto, exact or chi2; empty means auto.
	Mode McNemarMode `req:"mode" default:"auto" arg:"MODE" help:"auto (exact when b+c < 50), exact or chi2 (continuity-corrected)"`
}

// McNemarResult is the outcome of McNemar. B counts samples left got right
// and right got wrong, C the reverse. Mode is the mode used, never auto.
// Statistic is min(b, c) in exact mode, as statsmodels reports it, and the
// corrected χ² in chi2 mode.
type McNemarResult struct {
	B         int         `json:"b"`
	C         int         `json:"c"`
	Statistic float64     `json:"statistic"`
	PValue    float64     `json:"p_value"`
	Mode      McNemarMode `json:"mode"`
	Notes     []Note      `json:"notes,omitempty"`
}

// McNemar runs McNemar's test on per-sample correctness (1 correct, 0
// wrong) of two classifiers on the same samples. Only discordant samples
// count: b where left is correct and right is not, c the reverse. See
// McNemarCounts for the test itself.
//
// Values other than 0 and 1 return ErrNotBinary, inputs of different
// lengths ErrLengths.
func McNemar(left, right []float64, opts McNemarOptions) (McNemarResult, error) {
	if len(left) != len(right) {
		return McNemarResult{}, fmt.Errorf("%w: left has %d values, right has %d", ErrLengths, len(left), len(right))
	}
	if err := checkBinaryInput("left", left); err != nil {
		return McNemarResult{}, err
	}
	if err := checkBinaryInput("right", right); err != nil {
		return McNemarResult{}, err
	}
	var b, c int
	for i := range left {
		switch {
		case left[i] == 1 && right[i] == 0:
			b++
		case left[i] == 0 && right[i] == 1:
			c++
		}
	}
	return McNemarCounts(b, c, opts)
}

// McNemarCounts runs McNemar's test from the discordant counts b (left
// right, right wrong) and c (left wrong, right right). Under the null both
// kinds of disagreement are equally likely.
//
// Exact mode is the two-sided binomial test:
//
//	p = min(1, 2 · P(X ≤ min(b, c))),  X ~ Binomial(b + c, ½)
//
// Chi2 mode uses Edwards' continuity correction:
//
//	χ² = max(0, |b − c| − 1)² / (b + c),  p = P(χ²_1 ≥ χ²)
//
// Both match statsmodels' mcnemar(exact=True) and
// mcnemar(exact=False, correction=True), except where b = c: statsmodels and
// R's mcnemar.test square |b − c| − 1 = −1 into a statistic 1/(b + c) > 0
// and a p-value below 1. A correction meant to shrink the statistic should
// not make it grow, so McNemarCounts clamps at 0 and reports p = 1.
//
// Auto mode is exact when b + c < 50, where the χ² approximation is poor,
// and chi2 otherwise.
//
// b + c = 0 (the two never disagree): exact mode gives p = 1 with
// statistic 0, as statsmodels does; in chi2 mode the statistic is 0/0,
// where statsmodels returns NaN, and McNemarCounts reports statistic 0 and
// p = 1. Both add a note.
//
// Negative counts or an unknown mode return ErrBadParameter.
func McNemarCounts(b, c int, opts McNemarOptions) (McNemarResult, error) {
	if b < 0 || c < 0 {
		return McNemarResult{}, fmt.Errorf("%w: McNemar counts must not be negative, got b = %d, c = %d", ErrBadParameter, b, c)
	}
	mode := opts.Mode
	if mode == "" {
		mode = McNemarAuto
	}
	switch mode {
	case McNemarAuto:
		mode = McNemarChi2
		if b+c < 50 {
			mode = McNemarExact
		}
	case McNemarExact, McNemarChi2:
	default:
		return McNemarResult{}, fmt.Errorf("%w: McNemar mode must be auto, exact or chi2, got %q", ErrBadParameter, mode)
	}
	res := McNemarResult{B: b, C: c, Mode: mode}
	if b+c == 0 {
		res.PValue = 1
		res.Notes = []Note{{Code: NoteNoDiscordantPairs}}
		return res, nil
	}
	n := float64(b + c)
	if mode == McNemarExact {
		k := float64(min(b, c))
		res.Statistic = k
		if k == n/2 {
			res.PValue = 1
			return res, nil
		}
		// P(X ≤ k) for X ~ Binomial(n, ½) is I_{½}(n − k, k + 1).
		res.PValue = math.Min(1, 2*mathext.RegIncBeta(n-k, k+1, 0.5))
		return res, nil
	}
	diff := math.Max(0, math.Abs(float64(b-c))-1)
	res.Statistic = diff * diff / n
	if b == c {
		res.Notes = []Note{{Code: NoteContinuityClamped}}
	}
	res.PValue = mathext.GammaIncRegComp(0.5, res.Statistic/2)
	return res, nil
}
