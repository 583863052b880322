package main

import (
	"github.com/urfave/cli/v2"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/progress"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request/cliflag"
)

func evaluateCommand() *cli.Command {
	return &cli.Command{
		Name:        "evaluate",
		Usage:       "compute ranking metrics per user from top-K predictions and targets, and log them",
		ArgsUsage:   " ",
		Description: help("evaluate"),
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "items", Usage: "NumPy `FILE` of n x K predicted item indices, best first"},
			&cli.StringFlag{Name: "scores", Usage: "NumPy `FILE` of the predictions' scores (validation only)"},
			&cli.StringFlag{Name: "targets", Usage: "targets `FILE`: a scipy.sparse CSR .npz, or with --predictions a CSV or Parquet sample_id,item table"},
			&cli.StringFlag{Name: "sample-ids", Usage: "NumPy `FILE` of sample IDs, one per row"},
			&cli.StringFlag{Name: "trec-run", Usage: "TREC run `FILE` (qid Q0 docno rank score tag)"},
			&cli.StringFlag{Name: "trec-qrels", Usage: "TREC qrels `FILE` (qid iter docno rel; rel > 0 is relevant)"},
			&cli.StringFlag{Name: "predictions", Usage: "long-table predictions `FILE`, CSV or Parquet: sample_id,item,rank or sample_id,item,score"},
			&cli.StringFlag{Name: "per-user-out", Usage: "write sample_id and one column per metric, for scored rows in input order, to CSV `FILE`"},
			reportFormatFlag(),
			&cli.StringFlag{Name: "progress", Value: "auto", Usage: "progress `MODE`: auto (a bar on a terminal, for inputs of 32 MB or more), bar, log (the service log, text) or none"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "show no progress"},
			&cli.IntFlag{Name: "log-every", Usage: "write a service log to stderr (log/slog): a start line, a progress line every `N` scored batches, and a finish line with totals, peak memory and the outcome (0: no log, or every 250 batches when --log-format or --progress log turn it on)"},
			&cli.StringFlag{Name: "log-format", Usage: "service log `FORMAT`: text or json; giving it turns the log on (default: text)"},
			connectionsFlag(),
			&cli.StringFlag{Name: "params-file", Usage: "JSON object `FILE` of run parameters (--param wins)"},
			idempotencyKeyFlag(),
		}, cliflag.Flags(evaluate.Request{})...),
		Action: runEvaluate,
	}
}

func runEvaluate(c *cli.Context) error {
	if c.NArg() > 0 {
		return userError("evaluate takes no arguments, got %q: inputs are flags (see 'verdict evaluate --help')", c.Args().First())
	}
	format, err := reportFormat(c)
	if err != nil {
		return err
	}
	var req evaluate.Request
	if err := cliflag.DecodeFlags(c, &req); err != nil {
		return err
	}
	opts, err := req.Options(false, c.String("params-file"))
	if err != nil {
		return requestError(req, err)
	}
	opts.PerUser = c.String("per-user-out")
	logIt, metrics := !req.NoLog, opts.Metrics
	if logIt {
		opts.Log.IdempotencyKey, opts.Log.Connections = c.String("idempotency-key"), c.Int("connections")
		if opts.Log.IdempotencyKey != "" {
			opts.Log.RequestDigest = requestDigest(c)
		}
	}
	f := c.String
	in := evaluate.Inputs{Items: f("items"), Scores: f("scores"), Targets: f("targets"), SampleIDs: f("sample-ids"),
		TRECRun: f("trec-run"), TRECQrels: f("trec-qrels"), Predictions: f("predictions")}
	src, err := in.Open(evaluate.RankingOptions{Width: opts.RequiredK(), SkipValidation: req.NoValidate})
	if err != nil {
		return requestError(req, err)
	}
	defer src.Close()
	if logIt {
		if opts.Store, err = openStore(c); err != nil {
			return err
		}
		defer opts.Store.Close()
	}
	lg, err := progress.Begin(c.App.ErrWriter, src, progress.Options{Command: "evaluate", Mode: c.String("progress"), Quiet: c.Bool("quiet"),
		Every: c.Int("log-every"), Format: c.String("log-format"), Metrics: progress.MetricKeys(metrics)})
	if err != nil {
		return userError("%v", err)
	}
	opts.OnBatch, opts.ServiceLogErr = lg.Batch, lg.Err
	res, err := evaluate.Run(c.Context, src, opts)
	lg.End(err)
	if err != nil {
		return requestError(req, err) // exit code 2, as every error
	}
	res.NoteServiceLog(lg.Err())
	report.MissingRankings(c.App.ErrWriter, src)
	return report.Evaluation(c.App.Writer, format, res)
}
