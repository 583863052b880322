package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/internal/columns"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
)

// statsMethods are the subcommands of `verdict stats`; each one's options
// are declared in package stats (stats.PairedTOptions, …), or below.
func statsMethods() []statsMethod {
	return []statsMethod{
		pairMethod("paired-t", "paired t-test with a confidence interval of the mean difference", stats.PairedT),
		foldsMethod("corrected-t", "corrected resampled t-test (Nadeau & Bengio) for k-fold or r x k-fold scores",
			stats.CorrectedResampledTDiffs, stats.CorrectedResampledT),
		columnMethod("five-by-two", "5x2cv paired t-test (Dietterich)", "diffs", "diffs: 10 numbers, repetition-major (rep1 fold1, rep1 fold2, rep2 fold1, ...)",
			func(diffs []float64, _ struct{}) (stats.FiveByTwoResult, error) { return stats.FiveByTwoCVT(diffs) }),
		pairMethod("wilcoxon", "Wilcoxon signed-rank test, exact or normal approximation", stats.Wilcoxon),
		method("friedman", "Friedman test across K models, Iman-Davenport, Nemenyi critical difference and Holm against a control",
			"scores: one row per block (data set or fold), one column per model; names (optional). In CSV, one column per model, named in the header.",
			func(_ *cli.Context, in *columns.Columns, o stats.FriedmanOptions) (any, error) {
				scores, names, err := in.Matrix("scores")
				if err != nil {
					return nil, err
				}
				o.Names = names
				return stats.Friedman(scores, o)
			}),
		foldsMethod("bayes-t", "Bayesian correlated t-test (Corani & Benavoli) with a region of practical equivalence, and its decision",
			stats.BayesCorrelatedTDiffs, stats.BayesCorrelatedT),
		method("delong", "DeLong test for two correlated AUCs", "labels (0/1), left, right (scores; higher means positive)",
			func(_ *cli.Context, in *columns.Columns, o stats.DeLongOptions) (any, error) {
				labels, err := in.Floats("labels", true)
				if err != nil {
					return nil, err
				}
				left, right, err := in.Pair()
				if err != nil {
					return nil, err
				}
				return stats.DeLong(labels, left, right, o)
			}),
		method("mcnemar", "McNemar test on paired 0/1 correctness, exact or chi-squared", "left, right (0/1 correct per sample), or b and c (the discordant counts)",
			func(_ *cli.Context, in *columns.Columns, o stats.McNemarOptions) (any, error) {
				if in.Has("b") || in.Has("c") {
					counts, err := in.Counts("b", "c")
					if err != nil {
						return nil, err
					}
					return stats.McNemarCounts(counts[0], counts[1], o)
				}
				left, right, err := in.Pair()
				if err != nil {
					return nil, err
				}
				return stats.McNemar(left, right, o)
			}),
		columnMethod("adjust", "adjust p-values for multiple testing", "p_values", "p_values",
			func(p []float64, o stats.AdjustOptions) (stats.AdjustResult, error) {
				return stats.AdjustPValues(p, o.Method)
			}),
		columnMethod("online-fdr", "online FDR control of p-values in arrival order: the level each is held to, and the alpha-wealth",
			"p_values", "p_values", stats.OnlineFDR),
		flagsMethod("sample-size", "units a paired test needs to detect a gap; without --variance, the worst case for 0/1-bounded scores", stats.SampleSize),
		flagsMethod("mde", "minimum difference a paired test detects with n units; without --variance, the worst case for 0/1-bounded scores",
			stats.MinimumDetectableDifference),
		columnMethod("bootstrap", "bootstrap confidence interval of a mean", "values", "values", stats.Bootstrap),
		method("paired-bootstrap",
			"bootstrap interval of the mean difference; with units, a cluster bootstrap over units; with --metric, a stratified bootstrap of a classifier metric",
			"left, right; units (optional: a unit ID per row). With --metric: label (0/1), left, right (two models' scores of each sample)",
			func(c *cli.Context, in *columns.Columns, o pairedBootstrapOptions) (any, error) {
				if o.Metric != "" {
					return classifierBootstrap(c, in, o)
				}
				for _, name := range []string{"stratify", "no-stratify", "threshold", "bins"} {
					if c.IsSet(name) {
						return nil, userError("--%s is for a classifier metric: it needs --metric", name)
					}
				}
				left, right, units, err := in.PairUnits()
				if err != nil {
					return nil, err
				}
				return stats.PairedBootstrap(left, right, units, o.BootstrapOptions)
			}),
		method("randomization", "paired sign-flip randomization test; with units, whole units flip", "left, right; units (optional)",
			func(_ *cli.Context, in *columns.Columns, o stats.RandomizationOptions) (any, error) {
				left, right, units, err := in.PairUnits()
				if err != nil {
					return nil, err
				}
				return stats.Randomization(left, right, units, o)
			}),
		method("compare", "is the winner real? interval, p-value, better/worse/same counts and a verdict sentence",
			`left, right as {"id": score} objects, matched by id (intersection only). In CSV: columns id, left, right; an empty cell is a missing score.`,
			compareScores),
	}
}

// pairedBootstrapOptions are paired-bootstrap's: a bootstrap's, and with
// --metric, a classifier metric's.
type pairedBootstrapOptions struct {
	stats.BootstrapOptions
	Metric     string  `req:"metric" arg:"METRIC" help:"classifier metric: roc_auc (auc), average_precision (ap), log_loss (logloss), brier, accuracy, precision, recall, f1 or ece"`
	Stratify   bool    `req:"stratify" default:"true" help:"draw positives from positives and negatives from negatives, as by default (--stratify=false or --no-stratify: all together)"`
	NoStratify bool    `req:"no_stratify" help:"draw all samples together"`
	Threshold  float64 `req:"threshold" default:"0.5" arg:"T" help:"score at or above which accuracy, precision, recall and f1 predict positive"`
	Bins       int     `req:"bins" default:"10" arg:"B" help:"number of equal-width ece bins"`
}

// classifierBootstrap is paired-bootstrap --metric: a label column and two
// models' scores.
func classifierBootstrap(c *cli.Context, in *columns.Columns, o pairedBootstrapOptions) (any, error) {
	if c.IsSet("stratify") && c.IsSet("no-stratify") && o.Stratify == o.NoStratify {
		return nil, userError("--stratify=%t and --no-stratify=%t contradict each other", o.Stratify, o.NoStratify)
	}
	column := "label"
	if !in.Has(column) && in.Has("labels") {
		column = "labels"
	}
	raw, err := in.Floats(column, true)
	if err != nil {
		return nil, err
	}
	labels, err := classify.BinaryLabels(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.Source(), err)
	}
	left, right, err := in.Pair()
	if err != nil {
		return nil, err
	}
	opts := classify.BootstrapOptions{Options: classify.Options{Threshold: o.Threshold, Bins: o.Bins},
		Unstratified: !o.Stratify || o.NoStratify, BootstrapOptions: o.BootstrapOptions}
	opts.Context = c.Context
	return classify.PairedBootstrap(o.Metric, labels, left, right, opts)
}

// scoresComparison is the request of stats compare: two sides' keyed
// scores, compared as compare.Scores does.
type scoresComparison struct {
	compare.Statistics
	LeftName      string `req:"left_name" default:"left" arg:"NAME" help:"name of the left side, the baseline, in the verdict"`
	RightName     string `req:"right_name" default:"right" arg:"NAME" help:"name of the right side, the candidate, in the verdict"`
	Metric        string `req:"metric" arg:"METRIC" help:"metric the scores are of, for the verdict"`
	LowerIsBetter bool   `req:"lower_is_better" help:"lower scores are better (a loss, an error rate)"`
}

func compareScores(c *cli.Context, in *columns.Columns, o scoresComparison) (any, error) {
	left, right, err := in.KeyedPair()
	if err != nil {
		return nil, err
	}
	dir := map[bool]compare.Direction{false: compare.HigherIsBetter, true: compare.LowerIsBetter}[o.LowerIsBetter]
	opts := compare.Options{Alpha: o.Alpha, Confidence: o.Confidence, Resamples: o.Resamples, Seed: o.Seed, Sentence: report.Verdict}
	res, err := compare.Scores(c.Context, o.Metric, dir, compare.Named{Name: o.LeftName, Scores: left}, compare.Named{Name: o.RightName, Scores: right}, opts)
	if err != nil {
		return nil, err
	}
	return res.Metrics[0], nil
}
