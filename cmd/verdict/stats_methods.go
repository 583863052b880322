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

// statsMethods are the subcommands of `verdict stats`: the tests of the
// catalogue (stats.Methods), with paired-bootstrap after bootstrap, and
// compare last. These two are here: their options are also those of
// packages classify and compare, which import stats.
func statsMethods() []statsMethod {
	var ms []statsMethod
	for _, m := range stats.Methods() {
		ms = append(ms, statsMethod{Method: m})
		if m.Name == "bootstrap" {
			ms = append(ms, pairedBootstrapMethod())
		}
	}
	return append(ms, cliMethod("compare", "is the winner real? interval, p-value, better/worse/same counts and a verdict sentence",
		`left, right as {"id": score} objects, matched by id (intersection only). In CSV: columns id, left, right; an empty cell is a missing score.`,
		compareScores))
}

// cliMethod is a method whose options are the request O, and whose run
// reads the command line (the flags given, its context).
func cliMethod[O any](name, usage, inputs string, run func(c *cli.Context, in *columns.Columns, o O) (any, error)) statsMethod {
	return statsMethod{
		Method: stats.Method{Name: name, Usage: usage, Inputs: inputs, Options: func() any { return new(O) }},
		run:    func(c *cli.Context, opts any, in *columns.Columns) (any, error) { return run(c, in, *opts.(*O)) },
	}
}

// pairedBootstrapMethod is paired-bootstrap: stats.PairedBootstrap, or
// with --metric, classify.PairedBootstrap.
func pairedBootstrapMethod() statsMethod {
	return cliMethod("paired-bootstrap",
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
		})
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
