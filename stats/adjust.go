package stats

import (
	"fmt"
	"math"
	"sort"
)

// AdjustMethod names a multiple-testing adjustment of p-values.
type AdjustMethod string

// The adjustment methods. Holm and Bonferroni control the family-wise error
// rate; BH and BY control the false discovery rate.
const (
	// AdjustHolm is Holm's (1979) step-down method. It is uniformly more
	// powerful than Bonferroni under the same assumptions (none).
	AdjustHolm AdjustMethod = "holm"
	// AdjustBonferroni multiplies every p-value by the number of tests.
	AdjustBonferroni AdjustMethod = "bonferroni"
	// AdjustBH is Benjamini and Hochberg's (1995) step-up method, valid for
	// independent or positively dependent tests.
	AdjustBH AdjustMethod = "bh"
	// AdjustBY is Benjamini and Yekutieli's (2001) step-up method, valid
	// under any dependence at the price of a factor Σ_{i≤m} 1/i.
	AdjustBY AdjustMethod = "by"
)

// AdjustOptions is the method of AdjustPValues, as a request declares it.
type AdjustOptions struct {
	Method AdjustMethod `req:"method" default:"holm" arg:"METHOD" help:"holm, bonferroni, bh (Benjamini-Hochberg) or by (Benjamini-Yekutieli)"`
}

// AdjustResult is the outcome of AdjustPValues: the adjusted p-values in
// the order of the input.
type AdjustResult struct {
	Adjusted []float64 `json:"adjusted"`
	Notes    []Note    `json:"notes,omitempty"`
}

// AdjustPValues adjusts m p-values for multiple testing. A hypothesis is
// rejected at level α when its adjusted p-value is below α. With
// p_(1) ≤ … ≤ p_(m) the sorted p-values:
//
//	bonferroni  p̃_i   = min(1, m · p_i)
//	holm        p̃_(i) = min(1, max_{j≤i} (m − j + 1) · p_(j))
//	bh          p̃_(i) = min(1, min_{j≥i} m/j · p_(j))
//	by          p̃_(i) = min(1, min_{j≥i} c_m · m/j · p_(j)),  c_m = Σ_{k≤m} 1/k
//
// These are statsmodels' multipletests methods holm, bonferroni, fdr_bh and
// fdr_by, and R's p.adjust methods holm, bonferroni, BH and BY. Tied
// p-values receive equal adjusted values whatever their order.
//
// An empty method means holm. No p-values give an empty result. A p-value
// outside [0, 1] or an unknown method returns ErrBadParameter, and NaN or
// ±Inf ErrNotFinite.
func AdjustPValues(pValues []float64, method AdjustMethod) (AdjustResult, error) {
	if method == "" {
		method = AdjustHolm
	}
	switch method {
	case AdjustHolm, AdjustBonferroni, AdjustBH, AdjustBY:
	default:
		return AdjustResult{}, fmt.Errorf("%w: adjustment method must be holm, bonferroni, bh or by, got %q", ErrBadParameter, method)
	}
	if err := checkFiniteInput("p_values", pValues); err != nil {
		return AdjustResult{}, err
	}
	for i, p := range pValues {
		if p < 0 || p > 1 {
			return AdjustResult{}, fmt.Errorf("%w: p_values[%d] = %g is not a probability in [0, 1]", ErrBadParameter, i, p)
		}
	}
	return AdjustResult{Adjusted: adjustPValues(pValues, method)}, nil
}

// adjustPValues implements AdjustPValues for checked input.
func adjustPValues(p []float64, method AdjustMethod) []float64 {
	m := len(p)
	out := make([]float64, m)
	if m == 0 {
		return out
	}
	mf := float64(m)
	if method == AdjustBonferroni {
		for i, v := range p {
			out[i] = math.Min(1, mf*v)
		}
		return out
	}
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return p[order[a]] < p[order[b]] })
	switch method {
	case AdjustHolm:
		running := 0.0
		for j, idx := range order {
			running = math.Max(running, float64(m-j)*p[idx])
			out[idx] = math.Min(1, running)
		}
	case AdjustBH, AdjustBY:
		factor := 1.0
		if method == AdjustBY {
			factor = 0
			for k := 1; k <= m; k++ {
				factor += 1 / float64(k)
			}
		}
		running := math.Inf(1)
		for j := m - 1; j >= 0; j-- {
			idx := order[j]
			running = math.Min(running, p[idx]*factor*mf/float64(j+1))
			out[idx] = math.Min(1, running)
		}
	default:
		panic("stats: unknown adjustment method " + string(method))
	}
	return out
}
