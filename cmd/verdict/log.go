package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/internal/runinfo"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
)

var inputFormats = []string{"csv", "tsv", "jsonl", "parquet", "npz"}

func logCommand() *cli.Command {
	return &cli.Command{
		Name:        "log",
		Usage:       "store per-user scores computed elsewhere, or a classifier's predictions, as one evaluation of a run",
		ArgsUsage:   "FILE | --predictions FILE",
		Description: help("log"),
		Flags: append(runFlags(true),
			&cli.StringFlag{Name: "target-fingerprint", Usage: "fingerprint `F` of the targets, from 'verdict fingerprint'"},
			&cli.StringSliceFlag{Name: "lower-is-better", Usage: "`METRIC` for which lower is better, e.g. logloss (repeatable)"},
			&cli.StringFlag{Name: "protocol", Value: "holdout", Usage: "`PROTOCOL`: holdout, kfold, repeated_kfold or 5x2"},
			&cli.IntFlag{Name: "folds", Usage: "number of folds `K` (k-fold protocols)"},
			&cli.IntFlag{Name: "repeats", Usage: "number of repetitions `R` (repeated k-fold)"},
			&cli.Int64Flag{Name: "n-train", Usage: "training set size `N` (k-fold protocols)"},
			&cli.Int64Flag{Name: "n-test", Usage: "test set size `N` (k-fold protocols)"},
			&cli.IntFlag{Name: "required-k", Usage: "largest cutoff `K` the metrics look at, recorded with the protocol"},
			connectionsFlag(),
			&cli.BoolFlag{Name: "aggregates-only", Usage: "store the means and counts but not the per-unit values, for monitoring that only charts means (such an evaluation cannot be compared)"},
			&cli.StringFlag{Name: "labels", Usage: "CSV `FILE` of sample_id,label (0/1) recorded with the evaluation set, for 'verdict compare --method delong'"},
			&cli.StringFlag{Name: "predictions", Usage: "`FILE` of a classifier's predictions: sample_id,label,score (binary) or sample_id,label,p_<class>... (multi-class); verdict computes and stores the metrics"},
			&cli.Float64Flag{Name: "threshold", Value: classify.DefaultThreshold, Usage: "with --predictions: the score `T` at or above which a binary prediction is positive (accuracy, precision, recall, f1)"},
			&cli.IntFlag{Name: "bins", Value: classify.DefaultBins, Usage: "with --predictions: `N` equal-width bins of the expected calibration error (ece)"},
			&cli.StringFlag{Name: "input-format", Usage: "input `FORMAT`: " + strings.Join(inputFormats, ", ") + " (default: from the extension)"},
			&cli.StringFlag{Name: "format", Value: "table", Usage: "output `FORMAT`: table or json (an input format name here means --input-format)"},
		),
		Action: runLog,
	}
}

func runLog(c *cli.Context) error {
	predictions := c.String("predictions")
	for _, f := range []string{"threshold", "bins", "labels", "target-fingerprint", "lower-is-better", "aggregates-only"} {
		if forPredictions := f == "threshold" || f == "bins"; c.IsSet(f) && forPredictions != (predictions != "") {
			return userError("--%s does not apply %s --predictions (see 'verdict log --help')", f, map[bool]string{true: "without", false: "with"}[forPredictions])
		}
	}
	if want := map[bool]int{true: 0, false: 1}[predictions != ""]; c.NArg() != want {
		return userError("log takes one FILE or --predictions FILE, got %d arguments (see 'verdict log --help')", c.NArg())
	}
	inFormat, outFormat, err := logFormats(c)
	if err != nil {
		return err
	}
	ev, err := newEvaluation(c, "log needs %s")
	if err != nil {
		return err
	}
	if ev.IdempotencyKey != "" {
		ev.RequestDigest = requestDigest(c)
	}
	if predictions != "" {
		return logPredictions(c, ev, predictions, inFormat, outFormat)
	}
	ev.AggregatesOnly = c.Bool("aggregates-only")
	if f := c.String("labels"); f != "" {
		if ev.Labels, err = scores.ReadLabels(f); err != nil {
			return userError("--labels: %v", err)
		}
	}
	in, err := scores.OpenScores(c.Args().First(), inFormat)
	if err != nil {
		return withHint(err)
	}
	defer in.Close()
	return withStore(c, func(st *store.Store) error {
		stop, err := startProgress(c, "log", in)
		if err != nil {
			return err
		}
		logged, err := in.Log(c.Context, st, ev)
		if stop(); err != nil {
			return err // exit code 2, as every error
		}
		return report.Logged(c.App.Writer, outFormat, logged)
	})
}

// logPredictions logs a classifier's predictions with their metrics.
func logPredictions(c *cli.Context, ev store.NewEvaluation, path, inFormat, outFormat string) error {
	opts := classify.Options{Threshold: c.Float64("threshold"), Bins: c.Int("bins")}
	if err := opts.Check(); err != nil {
		return userError("--%s", strings.TrimPrefix(err.Error(), classify.ErrBadParameter.Error()+": "))
	}
	p, err := scores.ReadPredictions(path, inFormat, scores.PredictionOptions{})
	if err != nil {
		return withHint(err)
	}
	return withStore(c, func(st *store.Store) error {
		logged, skipped, err := p.Log(c.Context, st, ev, opts)
		if err != nil {
			return err
		}
		for _, s := range skipped {
			fmt.Fprintf(c.App.ErrWriter, "note: %s is not stored: %s\n", s.Metric, s.Reason)
		}
		return report.Logged(c.App.Writer, outFormat, logged)
	})
}

// logFormats is the input and output formats of a log: --format may name
// an input format, as users of other tools type it.
func logFormats(c *cli.Context) (in, out string, err error) {
	in, out = c.String("input-format"), c.String("format")
	switch {
	case out == "table" || out == "json":
	case slices.Contains(inputFormats, out) && in == "":
		in, out = out, "table"
	default:
		return "", "", userError("--format %q: want table or json (or an input format: %s)", out, strings.Join(inputFormats, ", "))
	}
	return in, out, nil
}

// newEvaluation describes the evaluation the flags name; missing says what
// is missing when they do not name one.
func newEvaluation(c *cli.Context, missing string) (store.NewEvaluation, error) {
	var absent []string
	for _, f := range []string{"experiment", "run", "eval-set"} {
		if c.String(f) == "" {
			absent = append(absent, "--"+f)
		}
	}
	if len(absent) > 0 {
		return store.NewEvaluation{}, userError(missing, strings.Join(absent, ", "))
	}
	ev := store.NewEvaluation{
		Experiment: c.String("experiment"), Run: c.String("run"), EvalSet: c.String("eval-set"),
		TargetFingerprint: c.String("target-fingerprint"),
		Tags:              c.StringSlice("tag"),
		LowerIsBetter:     c.StringSlice("lower-is-better"),
		IdempotencyKey:    c.String("idempotency-key"),
		Connections:       c.Int("connections"),
		Protocol: store.Protocol{
			Name: c.String("protocol"), RequiredK: c.Int("required-k"), Folds: c.Int("folds"), Repeats: c.Int("repeats"),
			NTrain: c.Int64("n-train"), NTest: c.Int64("n-test"),
		},
	}
	src := runinfo.Sources{ParamsFile: c.String("params-file"), Params: c.StringSlice("param"), Meta: c.StringSlice("meta"), GitCommit: c.String("git-commit")}
	if err := src.Apply(&ev); err != nil {
		return ev, userError("%v", err)
	}
	return ev, nil
}

func connectionsFlag() cli.Flag {
	return &cli.IntFlag{Name: "connections", Value: 1, Usage: "load over `N` database connections at once, for large inputs on servers with cores and disk bandwidth to spare"}
}
