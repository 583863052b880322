package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/internal/progress"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request/cliflag"
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
		Flags: append(cliflag.Flags(scores.LogRequest{}),
			&cli.StringFlag{Name: "params-file", Usage: "JSON object `FILE` of run parameters (--param wins)"},
			idempotencyKeyFlag(), connectionsFlag(),
			&cli.StringFlag{Name: "labels", Usage: "CSV `FILE` of sample_id,label (0/1) recorded with the evaluation set, for 'verdict compare --method delong'"},
			&cli.StringFlag{Name: "predictions", Usage: "`FILE` of a classifier's predictions: sample_id,label,score (binary) or sample_id,label,p_<class>... (multi-class); verdict computes and stores the metrics"},
			&cli.StringFlag{Name: "format", Value: "table", Usage: "output `FORMAT`: table or json (an input format name here means --input-format)"},
		),
		Action: runLog,
	}
}

func runLog(c *cli.Context) error {
	var req scores.LogRequest
	if err := cliflag.DecodeFlags(c, &req); err != nil {
		return err
	}
	predictions := c.String("predictions")
	req.Predictions = predictions != ""
	if err := req.Check(c.IsSet("labels"), func(name string) bool { return c.IsSet(strings.ReplaceAll(name, "_", "-")) }); err != nil {
		return requestError(req, err)
	}
	if want := map[bool]int{true: 0, false: 1}[req.Predictions]; c.NArg() != want {
		return userError("log takes one FILE or --predictions FILE, got %d arguments (see 'verdict log --help')", c.NArg())
	}
	inFormat, outFormat, err := logFormats(c, req.InputFormat)
	if err != nil {
		return err
	}
	ev, err := req.Evaluation(false, c.String("params-file"))
	if err != nil {
		return requestError(req, err)
	}
	ev.IdempotencyKey, ev.Connections = c.String("idempotency-key"), c.Int("connections")
	if ev.IdempotencyKey != "" {
		ev.RequestDigest = requestDigest(c)
	}
	if req.Predictions {
		return logPredictions(c, ev, predictions, inFormat, outFormat, req.Classify())
	}
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
		lg, err := progress.Begin(c.App.ErrWriter, in, progress.Options{Command: "log", Mode: c.String("progress"), Quiet: c.Bool("quiet")})
		if err != nil {
			return userError("%v", err)
		}
		logged, err := in.Log(c.Context, st, ev)
		if lg.End(nil); err != nil {
			return err // exit code 2, as every error
		}
		return report.Logged(c.App.Writer, outFormat, logged)
	})
}

// logPredictions logs a classifier's predictions with their metrics.
func logPredictions(c *cli.Context, ev store.NewEvaluation, path, inFormat, outFormat string, opts classify.Options) error {
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
func logFormats(c *cli.Context, inputFormat string) (in, out string, err error) {
	in, out = inputFormat, c.String("format")
	switch {
	case out == "table" || out == "json":
	case slices.Contains(inputFormats, out) && in == "":
		in, out = out, "table"
	default:
		return "", "", userError("--format %q: want table or json (or an input format: %s)", out, strings.Join(inputFormats, ", "))
	}
	return in, out, nil
}

// idempotencyKeyFlag is --idempotency-key of log and evaluate.
func idempotencyKeyFlag() cli.Flag {
	return &cli.StringFlag{Name: "idempotency-key", Usage: "`KEY` that makes a retried log return the first evaluation; the key holds one content, and the same key with other files or flags is refused"}
}

func connectionsFlag() cli.Flag {
	return &cli.IntFlag{Name: "connections", Value: 1, Usage: "load over `N` database connections at once, for large inputs on servers with cores and disk bandwidth to spare"}
}
