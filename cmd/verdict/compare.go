package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

func compareCommand() *cli.Command {
	return &cli.Command{
		Name:        "compare",
		Usage:       "is the winner real? pair two evaluations user by user and test the difference",
		ArgsUsage:   "BASELINE CANDIDATE",
		Description: help("compare"),
		Flags: []cli.Flag{
			experimentFlag("experiment `NAME` of runs named as BASELINE and CANDIDATE"), evalSetFlag(),
			&cli.StringSliceFlag{Name: "metric", Aliases: []string{"m"}, Usage: "`METRIC` to compare (repeatable; default: every metric both share)"},
			&cli.StringFlag{Name: "method", Usage: "`TEST`: " + compare.MethodNames() + " (default: from the evaluations' protocols)"},
			&cli.BoolFlag{Name: "no-stratify", Usage: "with evaluations of predictions, draw each bootstrap replicate from all samples rather than each class from its own"},
			&cli.Float64Flag{Name: "rope", Usage: "with k-fold evaluations, add the Bayesian correlated t's probabilities for a region of practical equivalence of half-width `R`, and its decision"},
			decideAtFlag(),
			alphaFlag(), confidenceFlag(), resamplesFlag(), seedFlag(),
			&cli.StringFlag{Name: "resampling", Value: "auto", Usage: "`HOW` the bootstrap and sign flips draw: auto, multinomial or poisson"},
			&cli.StringFlag{Name: "adjust", Usage: "multiplicity `ADJUSTMENT`: holm, bonferroni, bh, by or none (default: holm with several metrics)"},
			allowDifferentTargetsFlag("compare"),
			&cli.StringFlag{Name: "fail-on", Usage: "exit 1 on a distinguishable `CHANGE`: regression or difference"},
			reportFormatFlag(),
			plotFlag("a forest plot of the differences, one row per metric"),
			&cli.BoolFlag{Name: "no-record", Usage: "do not record the comparison in the history"},
			&cli.StringFlag{Name: "fdr", Usage: "test under the online FDR `PROCEDURE` " + strings.Join(stats.OnlineFDRMethods(), ", ") + " over the experiment's history, instead of at a fixed alpha"},
			&cli.Float64Flag{Name: "fdr-alpha", Value: stats.DefaultAlpha, Usage: "with --fdr, the FDR `A` the history is held to"},
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
	if opts.Resampling, err = compare.ParseResampling(c.String("resampling")); err != nil {
		return userError("--%v", err)
	}
	opts.Metrics, opts.Method, opts.Adjust = c.StringSlice("metric"), method, adjust
	opts.AllowDifferentTargets, opts.Record, opts.Sentence = c.Bool("allow-different-targets"), !c.Bool("no-record"), report.Verdict
	opts.Unstratified = c.Bool("no-stratify")
	if m := c.String("fdr"); m != "" {
		opts.FDR = &compare.FDR{Method: m, Alpha: c.Float64("fdr-alpha")}
	} else if c.IsSet("fdr-alpha") {
		return userError("--fdr-alpha goes with --fdr PROCEDURE")
	}
	if c.IsSet("rope") {
		rope := c.Float64("rope")
		opts.Rope, opts.DecideAt = &rope, c.Float64("decide-at")
	} else if c.IsSet("decide-at") {
		return userError("--decide-at is the Bayesian t's threshold, which needs --rope R")
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
	defer holdingValues()()
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
