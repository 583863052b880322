package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/internal/columns"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
)

func statsMethods() []statsMethod {
	return []statsMethod{
		{
			name: "paired-t", usage: "paired t-test with a confidence interval of the mean difference",
			inputs: "left, right", flags: []cli.Flag{confidenceFlag()},
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				return withPair(in, func(left, right []float64) (any, error) {
					return stats.PairedT(left, right, stats.PairedTOptions{Confidence: c.Float64("confidence")})
				})
			},
		},
		{
			name: "corrected-t", usage: "corrected resampled t-test (Nadeau & Bengio) for k-fold or r x k-fold scores",
			inputs: "left, right (one score per fold), or diffs", flags: []cli.Flag{nTrainFlag(), nTestFlag(), kFoldsFlag()},
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				if !c.IsSet("folds") && (!c.IsSet("n-train") || !c.IsSet("n-test")) {
					return nil, userError("corrected-t needs --n-train and --n-test, or --folds")
				}
				opts := stats.CorrectedTOptions{NTrain: c.Int("n-train"), NTest: c.Int("n-test"), Folds: c.Int("folds")}
				diffs, left, right, err := in.DiffsOrPair()
				if err != nil {
					return nil, err
				}
				if diffs != nil {
					return stats.CorrectedResampledTDiffs(diffs, opts)
				}
				return stats.CorrectedResampledT(left, right, opts)
			},
		},
		{
			name: "five-by-two", usage: "5x2cv paired t-test (Dietterich)",
			inputs: "diffs: 10 numbers, repetition-major (rep1 fold1, rep1 fold2, rep2 fold1, ...)",
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				diffs, err := in.Floats("diffs", true)
				if err != nil {
					return nil, err
				}
				return stats.FiveByTwoCVT(diffs)
			},
		},
		{
			name: "wilcoxon", usage: "Wilcoxon signed-rank test, exact or normal approximation",
			inputs: "left, right",
			flags: []cli.Flag{
				&cli.StringFlag{Name: "zero-method", Value: "wilcox", Usage: "zero differences: `METHOD` wilcox (drop), pratt or zsplit"},
				&cli.StringFlag{Name: "mode", Value: "auto", Usage: "`MODE`: auto, exact or approx"},
				&cli.BoolFlag{Name: "correction", Usage: "continuity correction of the normal approximation"},
			},
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				return withPair(in, func(left, right []float64) (any, error) {
					return stats.Wilcoxon(left, right, stats.WilcoxonOptions{ZeroMethod: stats.ZeroMethod(c.String("zero-method")),
						Mode: stats.WilcoxonMode(c.String("mode")), Correction: c.Bool("correction")})
				})
			},
		},
		{
			name: "friedman", usage: "Friedman test across K models, Iman-Davenport, Nemenyi critical difference and Holm against a control",
			inputs: "scores: one row per block (data set or fold), one column per model; names (optional). In CSV, one column per model, named in the header.",
			flags:  []cli.Flag{alphaFlag(), &cli.StringFlag{Name: "control", Usage: "control model `NAME` for the Holm comparisons (default: the first)"}},
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				scores, names, err := in.Matrix("scores")
				if err != nil {
					return nil, err
				}
				return stats.Friedman(scores, stats.FriedmanOptions{Names: names, Alpha: c.Float64("alpha"), Control: c.String("control")})
			},
		},
		{
			name: "bayes-t", usage: "Bayesian correlated t-test (Corani & Benavoli) with a region of practical equivalence, and its decision",
			inputs: "left, right, or diffs",
			flags: []cli.Flag{
				&cli.Float64Flag{Name: "rho", Usage: "correlation `RHO` of the folds (default: n-test / (n-train + n-test), or 1/K with --folds)"},
				nTrainFlag(), nTestFlag(), kFoldsFlag(),
				&cli.Float64Flag{Name: "rope", Value: 0, Usage: "half-width `R` of the region of practical equivalence"}, decideAtFlag(),
			},
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				if !c.IsSet("rho") && !c.IsSet("folds") && (!c.IsSet("n-train") || !c.IsSet("n-test")) {
					return nil, userError("bayes-t needs --rho, --folds, or --n-train and --n-test")
				}
				opts := stats.BayesOptions{Rho: c.Float64("rho"), Folds: c.Int("folds"), NTrain: c.Int("n-train"), NTest: c.Int("n-test"), Rope: c.Float64("rope"), DecideAt: c.Float64("decide-at")}
				diffs, left, right, err := in.DiffsOrPair()
				if err != nil {
					return nil, err
				}
				if diffs != nil {
					return stats.BayesCorrelatedTDiffs(diffs, opts)
				}
				return stats.BayesCorrelatedT(left, right, opts)
			},
		},
		{
			name: "delong", usage: "DeLong test for two correlated AUCs",
			inputs: "labels (0/1), left, right (scores; higher means positive)", flags: []cli.Flag{confidenceFlag()},
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				labels, err := in.Floats("labels", true)
				if err != nil {
					return nil, err
				}
				return withPair(in, func(left, right []float64) (any, error) {
					return stats.DeLong(labels, left, right, stats.DeLongOptions{Confidence: c.Float64("confidence")})
				})
			},
		},
		{
			name: "mcnemar", usage: "McNemar test on paired 0/1 correctness, exact or chi-squared",
			inputs: "left, right (0/1 correct per sample), or b and c (the discordant counts)",
			flags:  []cli.Flag{&cli.StringFlag{Name: "mode", Value: "auto", Usage: "`MODE`: auto (exact when b+c < 50), exact or chi2 (continuity-corrected)"}},
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				opts := stats.McNemarOptions{Mode: stats.McNemarMode(c.String("mode"))}
				if in.Has("b") || in.Has("c") {
					counts, err := in.Counts("b", "c")
					if err != nil {
						return nil, err
					}
					return stats.McNemarCounts(counts[0], counts[1], opts)
				}
				return withPair(in, func(left, right []float64) (any, error) { return stats.McNemar(left, right, opts) })
			},
		},
		{
			name: "adjust", usage: "adjust p-values for multiple testing",
			inputs: "p_values",
			flags:  []cli.Flag{&cli.StringFlag{Name: "method", Value: "holm", Usage: "`METHOD`: holm, bonferroni, bh (Benjamini-Hochberg) or by (Benjamini-Yekutieli)"}},
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				p, err := in.Floats("p_values", true)
				if err != nil {
					return nil, err
				}
				return stats.AdjustPValues(p, stats.AdjustMethod(c.String("method")))
			},
		},
		{
			name: "online-fdr", usage: "online FDR control of p-values in arrival order: the level each is held to, and the alpha-wealth",
			inputs: "p_values",
			flags: []cli.Flag{
				&cli.StringFlag{Name: "method", Value: stats.OnlineLONDDep, Usage: "`PROCEDURE`: " + strings.Join(stats.OnlineFDRMethods(), ", ")},
				&cli.Float64Flag{Name: "alpha", Value: stats.DefaultAlpha, Usage: "the target FDR `A`"},
				&cli.Float64Flag{Name: "w0", DefaultText: "alpha/10", Usage: "the initial wealth `W` of lord-dep and lord++"},
			},
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				p, err := in.Floats("p_values", true)
				if err != nil {
					return nil, err
				}
				return stats.OnlineFDR(p, stats.OnlineFDROptions{Method: c.String("method"), Alpha: c.Float64("alpha"), W0: c.Float64("w0")})
			},
		},
		{
			name: "sample-size", usage: "units a paired test needs to detect a gap; without --variance, the worst case for 0/1-bounded scores",
			flags: []cli.Flag{&cli.Float64Flag{Name: "delta", Required: true, Usage: "the gap `D` to detect"}, varianceFlag(), alphaFlag(), powerFlag()},
			run: func(c *cli.Context, _ *columns.Columns) (any, error) {
				return stats.SampleSize(stats.SampleSizeOptions{Delta: c.Float64("delta"), Alpha: c.Float64("alpha"), Power: c.Float64("power"), Variance: c.Float64("variance")})
			},
		},
		{
			name: "mde", usage: "minimum difference a paired test detects with n units; without --variance, the worst case for 0/1-bounded scores",
			flags: []cli.Flag{&cli.IntFlag{Name: "n", Required: true, Usage: "number of units `N`"}, varianceFlag(), alphaFlag(), powerFlag()},
			run: func(c *cli.Context, _ *columns.Columns) (any, error) {
				return stats.MinimumDetectableDifference(stats.MDEOptions{N: c.Int("n"), Alpha: c.Float64("alpha"), Power: c.Float64("power"), Variance: c.Float64("variance")})
			},
		},
		{
			name: "bootstrap", usage: "bootstrap confidence interval of a mean",
			inputs: "values", flags: bootstrapFlags(),
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				values, err := in.Floats("values", true)
				if err != nil {
					return nil, err
				}
				return stats.Bootstrap(values, bootstrapOptions(c))
			},
		},
		{
			name:   "paired-bootstrap",
			usage:  "bootstrap interval of the mean difference; with units, a cluster bootstrap over units; with --metric, a stratified bootstrap of a classifier metric",
			inputs: "left, right; units (optional: a unit ID per row). With --metric: label (0/1), left, right (two models' scores of each sample)",
			flags:  append(bootstrapFlags(), classifierFlags()...),
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				if c.IsSet("metric") {
					return classifierBootstrap(c, in)
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
				return stats.PairedBootstrap(left, right, units, bootstrapOptions(c))
			},
		},
		{
			name: "randomization", usage: "paired sign-flip randomization test; with units, whole units flip",
			inputs: "left, right; units (optional)",
			flags:  []cli.Flag{&cli.IntFlag{Name: "permutations", Value: 2000, Usage: "random sign flips `B`"}, seedFlag()},
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				left, right, units, err := in.PairUnits()
				if err != nil {
					return nil, err
				}
				return stats.Randomization(left, right, units, stats.RandomizationOptions{Permutations: c.Int("permutations"), Seed: c.Uint64("seed")})
			},
		},
		{
			name: "compare", usage: "is the winner real? interval, p-value, better/worse/same counts and a verdict sentence",
			inputs: `left, right as {"id": score} objects, matched by id (intersection only). In CSV: columns id, left, right; an empty cell is a missing score.`,
			flags: []cli.Flag{alphaFlag(), confidenceFlag(), resamplesFlag(), seedFlag(),
				&cli.StringFlag{Name: "left-name", Value: "left", Usage: "`NAME` of the left side, the baseline, in the verdict"},
				&cli.StringFlag{Name: "right-name", Value: "right", Usage: "`NAME` of the right side, the candidate, in the verdict"},
				&cli.StringFlag{Name: "metric", Usage: "`METRIC` the scores are of, for the verdict"},
				&cli.BoolFlag{Name: "lower-is-better", Usage: "lower scores are better (a loss, an error rate)"},
			},
			run: func(c *cli.Context, in *columns.Columns) (any, error) {
				left, right, err := in.KeyedPair()
				if err != nil {
					return nil, err
				}
				dir := compare.HigherIsBetter
				if c.Bool("lower-is-better") {
					dir = compare.LowerIsBetter
				}
				opts := compareOptions(c)
				opts.Sentence = report.Verdict
				res, err := compare.Scores(c.Context, c.String("metric"), dir,
					compare.Named{Name: c.String("left-name"), Scores: left}, compare.Named{Name: c.String("right-name"), Scores: right}, opts)
				if err != nil {
					return nil, err
				}
				return res.Metrics[0], nil
			},
		},
	}
}

// withPair runs f on the input's columns left and right.
func withPair(in *columns.Columns, f func(left, right []float64) (any, error)) (any, error) {
	left, right, err := in.Pair()
	if err != nil {
		return nil, err
	}
	return f(left, right)
}

func kFoldsFlag() cli.Flag {
	return &cli.IntFlag{Name: "folds", Usage: "`K` folds of a k-fold cross-validation whose fold sizes were not recorded: rho = 1/K"}
}
func decideAtFlag() cli.Flag {
	return &cli.Float64Flag{Name: "decide-at", Value: stats.DefaultDecideAt, Usage: "the Bayesian t decides when a posterior probability exceeds `P` (strictly; from 0.5 to below 1)"}
}

func varianceFlag() cli.Flag {
	return &cli.Float64Flag{Name: "variance", Usage: "variance `V` of the paired differences per unit",
		DefaultText: "0.5, the worst case for scores in [0, 1] on two uncorrelated sides"}
}

func bootstrapFlags() []cli.Flag {
	return []cli.Flag{confidenceFlag(), resamplesFlag(), seedFlag(),
		&cli.StringFlag{Name: "ci", Value: "percentile", Usage: "interval `METHOD`: percentile or bca"}}
}

// classifierFlags are paired-bootstrap's flags for a classifier metric.
func classifierFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "metric", Usage: "classifier `METRIC`: roc_auc (auc), average_precision (ap), log_loss (logloss), brier, accuracy, precision, recall, f1 or ece"},
		&cli.BoolFlag{Name: "stratify", Value: true, Usage: "draw positives from positives and negatives from negatives (--stratify=false or --no-stratify: all together)"},
		&cli.BoolFlag{Name: "no-stratify", Usage: "draw all samples together"},
		&cli.Float64Flag{Name: "threshold", Value: classify.DefaultThreshold, Usage: "score `T` at or above which accuracy, precision, recall and f1 predict positive"},
		&cli.IntFlag{Name: "bins", Value: classify.DefaultBins, Usage: "number `B` of equal-width ece bins"},
	}
}

// classifierBootstrap is paired-bootstrap --metric: a label column and two
// models' scores.
func classifierBootstrap(c *cli.Context, in *columns.Columns) (any, error) {
	if c.IsSet("stratify") && c.IsSet("no-stratify") && c.Bool("stratify") == c.Bool("no-stratify") {
		return nil, userError("--stratify=%t and --no-stratify=%t contradict each other", c.Bool("stratify"), c.Bool("no-stratify"))
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
	opts := classify.BootstrapOptions{
		Options:          classify.Options{Threshold: c.Float64("threshold"), Bins: c.Int("bins")},
		Unstratified:     !c.Bool("stratify") || c.Bool("no-stratify"),
		BootstrapOptions: bootstrapOptions(c),
	}
	opts.Context = c.Context
	return classify.PairedBootstrap(c.String("metric"), labels, left, right, opts)
}

func bootstrapOptions(c *cli.Context) stats.BootstrapOptions {
	return stats.BootstrapOptions{Confidence: c.Float64("confidence"), Resamples: c.Int("resamples"),
		Seed: c.Uint64("seed"), Method: stats.IntervalMethod(c.String("ci"))}
}
