package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/verdict-ml/verdict/compare"
)

// HintText is the sentence that follows a comparison that is not
// distinguishable: how many units a gap of the observed size would take
// (compare.HintCount), why no number is given, or, with
// compare.HintUnattainable, that the test cannot reach alpha at this n
// whatever the values. It begins with a space; it is "" for
// compare.HintNone.
func HintText(r *compare.MetricResult) string {
	switch r.Hint {
	case compare.HintCount:
		if r.NRequired == nil {
			return ""
		}
		from := "from the observed variance of the paired differences"
		if r.Bootstrap != nil {
			from = "from the bootstrap's standard error"
		}
		return fmt.Sprintf(" Detecting a gap this size with 80%% power would take about %s units (%s: an order of magnitude, not a count).",
			Count(float64(*r.NRequired)), from)
	case compare.HintEqualMeans:
		return " The means are equal, so no number of units would separate them."
	case compare.HintNoVariance:
		return " Every unit differs by the same amount, so the observed variance gives no sample size."
	case compare.HintTooLarge:
		return " A gap this small for its variance is beyond any practical number of units."
	case compare.HintUnattainable:
		if r.MinAttainableP == nil {
			return ""
		}
		return fmt.Sprintf(" At n = %s the smallest p-value %s can give is about %.3g, not below alpha %.3g: no result of these units could be distinguishable, whatever the gap; it takes more %s.",
			Thousands(int64(r.N)), attainableTest(r), *r.MinAttainableP, r.Alpha, attainableUnits(r))
	}
	return ""
}

func attainableTest(r *compare.MetricResult) string {
	switch {
	case r.Wilcoxon != nil:
		return "the exact Wilcoxon test"
	case r.McNemar != nil:
		return "McNemar's exact test"
	}
	return "the sign-flip test"
}

func attainableUnits(r *compare.MetricResult) string {
	if r.McNemar != nil {
		return "units on which the two disagree"
	}
	return "units that differ"
}

// EffectText is the effect sizes of a result in a clause, " (d_z = 0.12,
// P(sup) = 0.55, 95% CI 0.53 to 0.57)", or "" when it has none.
func EffectText(r *compare.MetricResult) string {
	var s string
	if r.EffectSizeDz != nil {
		s = "d_z = " + Num(*r.EffectSizeDz)
	}
	if r.ProbSuperiority != nil {
		if s != "" {
			s += ", "
		}
		s += "P(sup) = " + ProbSuperiorityText(r)
	}
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// ProbSuperiorityText is a result's probability of superiority with its
// interval, "0.563 [0.548, 0.577]", or without one, "0.563"; "-" when it
// has none.
func ProbSuperiorityText(r *compare.MetricResult) string {
	p := r.ProbSuperiority
	if p == nil {
		return "-"
	}
	if r.ProbSuperiorityLow == nil || r.ProbSuperiorityHigh == nil {
		return strconv.FormatFloat(*p, 'f', 3, 64)
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", *p, *r.ProbSuperiorityLow, *r.ProbSuperiorityHigh)
}

// DFText is degrees of freedom as a sentence cites them: an integer when
// whole ("9999999"), else to four significant digits ("17.43").
func DFText(df float64) string {
	if df == math.Trunc(df) && math.Abs(df) < 1<<53 {
		return strconv.FormatFloat(df, 'f', 0, 64)
	}
	return strconv.FormatFloat(df, 'g', 4, 64)
}
