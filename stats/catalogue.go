package stats

import (
	"fmt"

	"github.com/verdict-ml/verdict/internal/columns"
)

// Method is one test of the catalogue, offered by name to any front door
// (`verdict stats NAME` on the command line): its options are a request
// (package request) declared in this package, and it reads its data from
// named columns (package columns).
type Method struct {
	Name   string
	Usage  string // one line: what the test is
	Inputs string // the columns it reads, for help; "" when it reads none

	// Options returns a new pointer to the method's options, with their
	// zero values: a front door decodes the request into it (which sets
	// the declared defaults), and may set the fields it says its own way
	// (a Context) before Run.
	Options func() any

	// Run checks the options (a pointer from Options), then runs the test
	// on the columns in, which is nil when Inputs is "".
	Run func(opts any, in *columns.Columns) (any, error)
}

// Check checks the options opts, a pointer from m.Options, by their Check
// method, if they have one: a front door calls it to refuse bad options
// before it reads any input. Run checks them again.
func (m Method) Check(opts any) error {
	if c, ok := opts.(interface{ Check() error }); ok {
		return c.Check()
	}
	return nil
}

// Methods lists the tests of the catalogue, in the order of `verdict stats
// --help`.
func Methods() []Method {
	return []Method{
		pairMethod("paired-t", "paired t-test with a confidence interval of the mean difference", PairedT),
		foldsMethod("corrected-t", "corrected resampled t-test (Nadeau & Bengio) for k-fold or r x k-fold scores",
			CorrectedResampledTDiffs, CorrectedResampledT),
		columnMethod("five-by-two", "5x2cv paired t-test (Dietterich)", "diffs", "diffs: 10 numbers, repetition-major (rep1 fold1, rep1 fold2, rep2 fold1, ...)",
			func(diffs []float64, _ struct{}) (FiveByTwoResult, error) { return FiveByTwoCVT(diffs) }),
		pairMethod("wilcoxon", "Wilcoxon signed-rank test, exact or normal approximation", Wilcoxon),
		NewMethod("friedman", "Friedman test across K models, Iman-Davenport, Nemenyi critical difference and Holm against a control",
			"scores: one row per block (data set or fold), one column per model; names (optional). In CSV, one column per model, named in the header.",
			func(in *columns.Columns, o FriedmanOptions) (any, error) {
				scores, names, err := in.Matrix("scores")
				if err != nil {
					return nil, err
				}
				o.Names = names
				return Friedman(scores, o)
			}),
		foldsMethod("bayes-t", "Bayesian correlated t-test (Corani & Benavoli) with a region of practical equivalence, and its decision",
			BayesCorrelatedTDiffs, BayesCorrelatedT),
		NewMethod("delong", "DeLong test for two correlated AUCs", "labels (0/1), left, right (scores; higher means positive)",
			func(in *columns.Columns, o DeLongOptions) (any, error) {
				labels, err := in.Floats("labels", true)
				if err != nil {
					return nil, err
				}
				left, right, err := in.Pair()
				if err != nil {
					return nil, err
				}
				return DeLong(labels, left, right, o)
			}),
		NewMethod("mcnemar", "McNemar test on paired 0/1 correctness, exact or chi-squared", "left, right (0/1 correct per sample), or b and c (the discordant counts)",
			func(in *columns.Columns, o McNemarOptions) (any, error) {
				if in.Has("b") || in.Has("c") {
					counts, err := in.Counts("b", "c")
					if err != nil {
						return nil, err
					}
					return McNemarCounts(counts[0], counts[1], o)
				}
				left, right, err := in.Pair()
				if err != nil {
					return nil, err
				}
				return McNemar(left, right, o)
			}),
		columnMethod("adjust", "adjust p-values for multiple testing", "p_values", "p_values",
			func(p []float64, o AdjustOptions) (AdjustResult, error) { return AdjustPValues(p, o.Method) }),
		columnMethod("online-fdr", "online FDR control of p-values in arrival order: the level each is held to, and the alpha-wealth",
			"p_values", "p_values", OnlineFDR),
		flagsMethod("sample-size", "units a paired test needs to detect a gap; without --variance, the worst case for 0/1-bounded scores", SampleSize),
		flagsMethod("mde", "minimum difference a paired test detects with n units; without --variance, the worst case for 0/1-bounded scores",
			MinimumDetectableDifference),
		columnMethod("bootstrap", "bootstrap confidence interval of a mean", "values", "values", Bootstrap),
		NewMethod("randomization", "paired sign-flip randomization test; with units, whole units flip", "left, right; units (optional)",
			func(in *columns.Columns, o RandomizationOptions) (any, error) {
				left, right, units, err := in.PairUnits()
				if err != nil {
					return nil, err
				}
				return Randomization(left, right, units, o)
			}),
	}
}

// NewMethod is a test whose options are the request O: Run takes a *O,
// checks it (by its Check method, if it has one) and gives run its value.
// Packages whose tests take options of their own (classify, compare) make
// their catalogue entries with it.
func NewMethod[O any](name, usage, inputs string, run func(in *columns.Columns, o O) (any, error)) Method {
	m := Method{Name: name, Usage: usage, Inputs: inputs, Options: func() any { return new(O) }}
	m.Run = func(opts any, in *columns.Columns) (any, error) {
		o, ok := opts.(*O)
		if !ok {
			panic(fmt.Sprintf("stats: method %s takes options %T, not %T", name, new(O), opts))
		}
		if err := m.Check(o); err != nil {
			return nil, err
		}
		if in == nil && inputs != "" {
			panic(fmt.Sprintf("stats: method %s reads columns, and got none", name))
		}
		return run(in, *o)
	}
	return m
}

// pairMethod is a test of the columns left and right.
func pairMethod[O, R any](name, usage string, f func(left, right []float64, o O) (R, error)) Method {
	return NewMethod(name, usage, "left, right", func(in *columns.Columns, o O) (any, error) {
		left, right, err := in.Pair()
		if err != nil {
			return nil, err
		}
		return f(left, right, o)
	})
}

// foldsMethod is a test of per-fold differences, or of the scores left and
// right of each fold.
func foldsMethod[O, R any](name, usage string, ofDiffs func([]float64, O) (R, error), ofPair func(left, right []float64, o O) (R, error)) Method {
	return NewMethod(name, usage, "left, right (one score per fold), or diffs", func(in *columns.Columns, o O) (any, error) {
		diffs, left, right, err := in.DiffsOrPair()
		if err != nil {
			return nil, err
		}
		if diffs != nil {
			return ofDiffs(diffs, o)
		}
		return ofPair(left, right, o)
	})
}

// columnMethod is a test of one column of numbers.
func columnMethod[O, R any](name, usage, column, inputs string, f func([]float64, O) (R, error)) Method {
	return NewMethod(name, usage, inputs, func(in *columns.Columns, o O) (any, error) {
		values, err := in.Floats(column, true)
		if err != nil {
			return nil, err
		}
		return f(values, o)
	})
}

// flagsMethod is a test of its options alone: it reads no columns.
func flagsMethod[O, R any](name, usage string, f func(O) (R, error)) Method {
	return NewMethod(name, usage, "", func(_ *columns.Columns, o O) (any, error) { return f(o) })
}
