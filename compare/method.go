package compare

import (
	"github.com/verdict-ml/verdict/stats"
)

// Method is the paired test a comparison runs.
type Method string

const (
	// Bootstrap is a paired bootstrap interval of the mean difference with
	// a paired sign-flip randomisation test: the default for per-user
	// metrics.
	Bootstrap Method = "bootstrap"
	// PairedT is the paired t-test with its t interval.
	PairedT Method = "t"
	// Wilcoxon is the Wilcoxon signed-rank test, with the bootstrap
	// interval.
	Wilcoxon Method = "wilcoxon"
	// McNemar is McNemar's test of paired 0/1 correctness, with the
	// bootstrap interval.
	McNemar Method = "mcnemar"
	// DeLong is DeLong's test of two correlated AUCs, of per-sample scores
	// against the 0/1 labels recorded with the evaluation set.
	DeLong Method = "delong"
	// CorrectedT is Nadeau and Bengio's corrected resampled t, for k-fold
	// evaluations (one unit per fold): the default for them.
	CorrectedT Method = "corrected-t"
	// FiveByTwo is Dietterich's 5x2cv paired t, with the bootstrap
	// interval: the default for 5x2 evaluations.
	FiveByTwo Method = "5x2"
)

// Methods lists every method, in the order help texts give them.
func Methods() []Method {
	return []Method{Bootstrap, PairedT, Wilcoxon, McNemar, DeLong, CorrectedT, FiveByTwo}
}

// label is the name recorded in the history and shown in outputs: the
// test, and the interval's source where it is another method's.
func (m Method) label() string {
	switch m {
	case Bootstrap:
		return "bootstrap+randomization"
	case PairedT:
		return "paired-t"
	case Wilcoxon:
		return "wilcoxon+bootstrap-interval"
	case McNemar:
		return "mcnemar+bootstrap-interval"
	case FiveByTwo:
		return "5x2cv-t+bootstrap-interval"
	}
	return string(m)
}

// hasHint reports whether the method's test is a paired test of means whose
// sample size the observed variance of the differences can estimate. The
// fold-based tests (their unit is a fold, not a user) and DeLong (its unit
// is a sample of a whole-set AUC) give none.
func (m Method) hasHint() bool {
	switch m {
	case Bootstrap, PairedT, Wilcoxon, McNemar:
		return true
	}
	return false
}

// Adjustment is a multiplicity adjustment of p-values across metrics.
type Adjustment string

const (
	// AdjustDefault is Holm with several metrics and none with one.
	AdjustDefault Adjustment = ""
	AdjustNone    Adjustment = "none"
	AdjustHolm    Adjustment = Adjustment(stats.AdjustHolm)
	AdjustBonf    Adjustment = Adjustment(stats.AdjustBonferroni)
	AdjustBH      Adjustment = Adjustment(stats.AdjustBH)
	AdjustBY      Adjustment = Adjustment(stats.AdjustBY)
)

// resolve applies the default for n metrics.
func (a Adjustment) resolve(n int) Adjustment {
	if a != AdjustDefault {
		return a
	}
	if n > 1 {
		return AdjustHolm
	}
	return AdjustNone
}
