package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:      "compare",
		Usage:     "is the winner real? pair two evaluations user by user and test the difference",
		ArgsUsage: "BASELINE CANDIDATE",
		Description: `compare pairs two logged evaluations unit by unit (sample ID) inside
PostgreSQL, and decides for each metric whether they differ: by default a
paired bootstrap interval of the mean difference plus a paired sign-flip
randomization test. A difference is distinguishable only when p < alpha
AND the interval excludes zero; the winner is then the better side for the
metric's direction (a metric logged with --lower-is-better is won by the
lower value). Differences are BASELINE - CANDIDATE.

BASELINE and CANDIDATE are evaluation IDs, or run names with --experiment
(the run's newest evaluation on --eval-set, or on its only evaluation set).
Evaluations scored against different targets are refused unless
--allow-different-targets compares the units they share.

Methods (--method):
  bootstrap     paired bootstrap interval + sign-flip randomization test
  t             paired t-test and its interval
  wilcoxon      Wilcoxon signed-rank test, with the bootstrap interval
  mcnemar       McNemar's test of 0/1 correctness, with the bootstrap interval
  delong        DeLong's test of two AUCs of per-sample scores against the
                0/1 labels logged with 'verdict log --labels'
  corrected-t   Nadeau & Bengio's corrected resampled t, for k-fold
                evaluations (one unit per fold, with --n-train and --n-test)
  5x2           Dietterich's 5x2cv t, for 5x2 evaluations (10 folds whose
                sample IDs sort repetition-major: r1f1, r1f2, r2f1, ...)
The default is corrected-t for two k-fold evaluations, 5x2 for two 5x2 ones,
and bootstrap otherwise. --rope adds the Bayesian correlated t to corrected-t.

When the difference is not distinguishable, the verdict says which half of
the rule failed and about how many units a gap of the observed size would
need, from the observed variance of the paired differences.

With several metrics, p-values are adjusted for multiplicity (--adjust, holm
by default) and the report shows both. Every comparison is recorded in the
history with its parameters and outputs (--no-record skips this); the same
seed reproduces it exactly.

In CI, --fail-on regression exits 1 when the candidate is distinguishably
worse on any metric after adjustment, --fail-on difference on any
distinguishable difference; 0 otherwise, 2 on errors:

  verdict compare -e movielens --metric ndcg@20 --fail-on regression --format markdown main pr-1234`,
		Flags: []cli.Flag{
			experimentFlag("experiment `NAME` of runs named as BASELINE and CANDIDATE"), evalSetFlag(),
			&cli.StringSliceFlag{Name: "metric", Aliases: []string{"m"}, Usage: "`METRIC` to compare (repeatable; default: every metric both share)"},
			&cli.StringFlag{Name: "method", Usage: "`TEST`: " + compare.MethodNames() + " (default: from the evaluations' protocols)"},
			&cli.Float64Flag{Name: "rope", Usage: "with k-fold evaluations, add the Bayesian correlated t's probabilities for a region of practical equivalence of half-width `R`"},
			alphaFlag(), confidenceFlag(), resamplesFlag(), seedFlag(),
			&cli.StringFlag{Name: "adjust", Usage: "multiplicity `ADJUSTMENT`: holm, bonferroni, bh, by or none (default: holm with several metrics)"},
			allowDifferentTargetsFlag("compare"),
			&cli.StringFlag{Name: "fail-on", Usage: "exit 1 on a distinguishable `CHANGE`: regression or difference"},
			reportFormatFlag(),
			plotFlag("a forest plot of the differences, one row per metric"),
			&cli.BoolFlag{Name: "no-record", Usage: "do not record the comparison in the history"},
		},
		Action: runCompare,
	}
}

func runCompare(c *cli.Context) error {
	if c.NArg() != 2 {
		return userError("compare takes BASELINE and CANDIDATE, got %d arguments (see 'verdict compare --help')", c.NArg())
	}
	gate, err := compare.ParseGate(c.String("fail-on"))
	if err != nil {
		return userError("--%v", err)
	}
	method, err := compare.ParseMethod(c.String("method"))
	if err != nil {
		return userError("--%v", err)
	}
	adjust, err := compare.ParseAdjustment(c.String("adjust"))
	if err != nil {
		return userError("--%v", err)
	}
	opts := compareOptions(c)
	opts.Metrics, opts.Method, opts.Adjust = c.StringSlice("metric"), method, adjust
	opts.AllowDifferentTargets, opts.Record, opts.Sentence = c.Bool("allow-different-targets"), !c.Bool("no-record"), report.Verdict
	if c.IsSet("rope") {
		rope := c.Float64("rope")
		opts.Rope = &rope
	}
	format, st, err := prepare(c)
	if err != nil {
		return err
	}
	defer st.Close()
	evals, err := resolveArgs(c, st)
	if err != nil {
		return err
	}
	res, err := compare.Evaluations(c.Context, st, evals[0], evals[1], opts)
	if err != nil {
		return withHint(err)
	}
	if err := report.Comparison(c.App.Writer, format, res); err != nil {
		return err
	}
	if err := savePlot(c, func() (*report.Figure, error) { return report.ComparisonForest(res) }); err != nil {
		return err
	}
	if r := res.Failed(gate); r != nil {
		what := map[bool]string{true: "worse", false: "different"}[r.Regression()]
		return cli.Exit(fmt.Sprintf("the candidate is distinguishably %s on %s (--fail-on %s)", what, r.Metric, gate), exitGate)
	}
	return nil
}

// resolveArgs finds the evaluations the positional arguments name: IDs,
// or runs of --experiment.
func resolveArgs(c *cli.Context, st *store.Store) ([]*store.Evaluation, error) {
	var evals []*store.Evaluation
	for _, arg := range c.Args().Slice() {
		e, err := compare.Resolve(c.Context, st, c.String("experiment"), c.String("eval-set"), arg)
		if err != nil {
			return nil, withHint(err)
		}
		evals = append(evals, e)
	}
	return evals, nil
}
