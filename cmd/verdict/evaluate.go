package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

func evaluateCommand() *cli.Command {
	return &cli.Command{
		Name:      "evaluate",
		Usage:     "compute ranking metrics per user from top-K predictions and targets, and log them",
		ArgsUsage: " ",
		Description: `evaluate computes ndcg, recall, calibrated_recall, precision, hit_rate, mrr
and map at any cutoffs for every user (row), from a model's ranked predictions
and the test targets, checks the predictions, fingerprints the targets and logs
the evaluation with its per-user values, as 'verdict log' would.

Inputs (streamed, never read whole):
  NumPy, as a Python job saves them:
    --items items.npy          int32/int64 n x K item indices, best first
    --scores scores.npy        optional float n x K scores, for validation
    --targets targets.npz      scipy.sparse.save_npz of a CSR matrix (nonzero = relevant)
    --sample-ids ids.npy       optional integer or string IDs (default: the row index)
  TREC:
    --trec-run run.txt --trec-qrels qrels.txt
    Ranked by score descending, ties by docno descending, as trec_eval does.
    A qrels query missing from the run is a row with no hits (trec_eval -c).
  Long tables, CSV or Parquet (string item IDs are fine):
    --predictions preds.csv    sample_id,item,rank or sample_id,item,score,
                               each sample's rows together
    --targets targets.csv      sample_id,item

Metrics: --metrics ndcg@10,20,50 --metrics recall@20 ... (default:
calibrated_recall and ndcg at the full prediction width). Rows without
targets keep their place but count in no mean.

Validation (on unless --no-validate): item indices inside the targets'
columns, no item twice in a row, finite scores in descending order, equal
row counts. An error names the row and sample ID; exit code 2, nothing logged.

Give --experiment, --run and --eval-set to log, or --no-log to only compute.

Example:
  verdict evaluate --items items.npy --targets targets.npz --sample-ids user_ids.npy \
      --metrics ndcg@10,20 --metrics recall@20 -e movielens -r als-64 -s test`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "items", Usage: "NumPy `FILE` of n x K predicted item indices, best first"},
			&cli.StringFlag{Name: "scores", Usage: "NumPy `FILE` of the predictions' scores (validation only)"},
			&cli.StringFlag{Name: "targets", Usage: "targets `FILE`: a scipy.sparse CSR .npz, or with --predictions a CSV or Parquet sample_id,item table"},
			&cli.StringFlag{Name: "sample-ids", Usage: "NumPy `FILE` of sample IDs, one per row"},
			&cli.StringFlag{Name: "trec-run", Usage: "TREC run `FILE` (qid Q0 docno rank score tag)"},
			&cli.StringFlag{Name: "trec-qrels", Usage: "TREC qrels `FILE` (qid iter docno rel; rel > 0 is relevant)"},
			&cli.StringFlag{Name: "predictions", Usage: "long-table predictions `FILE`, CSV or Parquet: sample_id,item,rank or sample_id,item,score"},
			&cli.StringSliceFlag{Name: "metrics", Aliases: []string{"m"}, Usage: "metric `SPEC`s, e.g. ndcg@10,20,50 (repeatable)"},
			&cli.BoolFlag{Name: "no-validate", Usage: "skip the checks of the predictions"},
			&cli.BoolFlag{Name: "no-log", Usage: "compute and print, but store nothing"},
			&cli.StringFlag{Name: "per-user-out", Usage: "write sample_id and one column per metric, for scored rows in input order, to CSV `FILE`"},
			reportFormatFlag(),
			&cli.StringFlag{Name: "progress", Value: "auto", Usage: "progress `MODE`: auto (a bar on a terminal), bar, log (plain periodic lines) or none"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "show no progress"},
			connectionsFlag(),
		}, runFlags(false)...),
		Action: runEvaluate,
	}
}

// runFlags are the flags naming and describing the run an evaluation is
// logged for, shared with `verdict log`.
func runFlags(required bool) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "experiment", Aliases: []string{"e"}, Usage: "experiment `NAME`", Required: required},
		&cli.StringFlag{Name: "run", Aliases: []string{"r"}, Usage: "run `NAME`", Required: required},
		&cli.StringFlag{Name: "eval-set", Aliases: []string{"s"}, Usage: "evaluation set `NAME`", Required: required},
		&cli.StringSliceFlag{Name: "param", Usage: "run parameter `KEY=VALUE` (repeatable; VALUE is JSON when it parses, else a string)"},
		&cli.StringFlag{Name: "params-file", Usage: "JSON object `FILE` of run parameters (--param wins)"},
		&cli.StringSliceFlag{Name: "tag", Usage: "run `TAG` (repeatable)"},
		&cli.StringSliceFlag{Name: "meta", Usage: "evaluation metadata `KEY=VALUE` (repeatable)"},
		&cli.StringFlag{Name: "git-commit", Usage: "git `COMMIT` of the run (default: HEAD of the working directory's repository)"},
		&cli.StringFlag{Name: "idempotency-key", Usage: "`KEY` that makes a retried log return the first evaluation"},
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
	logIt := !c.Bool("no-log")
	if logIt {
		var missing []string
		for _, f := range []string{"experiment", "run", "eval-set"} {
			if c.String(f) == "" {
				missing = append(missing, "--"+f)
			}
		}
		if len(missing) > 0 {
			return userError("logging needs %s (or pass --no-log to only compute)", strings.Join(missing, ", "))
		}
	}
	var metrics []evaluate.Metric
	if specs := c.StringSlice("metrics"); len(specs) > 0 {
		var err error
		if metrics, err = evaluate.ParseMetrics(specs); err != nil {
			return cli.Exit(err.Error(), exitError)
		}
	}
	requiredK := 0
	for _, m := range metrics {
		requiredK = max(requiredK, m.RequiredK())
	}
	opts := evaluate.RankingOptions{Width: requiredK, SkipValidation: c.Bool("no-validate")}
	src, err := openRankings(c, opts)
	if err != nil {
		return err
	}
	defer src.Close()
	if metrics == nil {
		metrics = evaluate.DefaultMetrics(src.Width())
	}
	ev, err := evaluate.NewEvaluator(metrics)
	if err != nil {
		return cli.Exit(err.Error(), exitError)
	}

	stopProgress, err := startProgress(c, src)
	if err != nil {
		return err
	}
	scoring := ev.Start(c.Context, src, runtime.GOMAXPROCS(0))
	defer scoring.Close()
	var rows store.Rows = scoring
	var perUser *perUserWriter
	if path := c.String("per-user-out"); path != "" {
		if perUser, err = newPerUserWriter(path, ev.Keys()); err != nil {
			stopProgress()
			return err
		}
		rows = &teeRows{Scoring: scoring, w: perUser}
	}

	out := evaluationJSON{RequiredK: ev.RequiredK()}
	switch {
	case logIt:
		st, err := openStore(c)
		if err != nil {
			stopProgress()
			return err
		}
		defer st.Close()
		nev, err := newEvaluationFromFlags(c)
		if err != nil {
			stopProgress()
			return err
		}
		nev.Protocol.Cutoffs, nev.Protocol.RequiredK = cutoffs(ev.Keys()), ev.RequiredK()
		nev.Connections = c.Int("connections")
		logged, err := st.LogEvaluation(c.Context, nev, rows)
		stopProgress()
		if err != nil {
			return evaluateError(err)
		}
		out.EvaluationID = &logged.ID
		out.Existing = logged.Existing
		out.Units = logged.Units
	case perUser != nil:
		for rows.Next() {
		}
		stopProgress()
		if err := scoring.Err(); err != nil {
			return evaluateError(err)
		}
	default:
		err := scoring.Drain()
		stopProgress()
		if err != nil {
			return evaluateError(err)
		}
	}
	if perUser != nil {
		if err := perUser.Close(); err != nil {
			return err
		}
	}
	sum := scoring.Summary()
	out.Metrics = sum.Means()
	out.Keys = ev.Keys()
	out.Rows, out.ScoredRows = sum.Rows(), sum.ScoredRows()
	if out.EvaluationID == nil {
		out.Units = sum.Units()
	}
	out.TargetFingerprint = src.Targets().Sum()
	reportMissing(c.App.ErrWriter, src)
	return printEvaluation(c.App.Writer, format, out)
}

// openRankings opens the ranking input the flags name.
func openRankings(c *cli.Context, opts evaluate.RankingOptions) (evaluate.Rankings, error) {
	items, targets := c.String("items"), c.String("targets")
	run, qrels, preds := c.String("trec-run"), c.String("trec-qrels"), c.String("predictions")
	numpy := items != "" || c.String("scores") != "" || c.String("sample-ids") != ""
	given := 0
	for _, b := range []bool{numpy, run != "" || qrels != "", preds != ""} {
		if b {
			given++
		}
	}
	if given > 1 {
		return nil, userError("give one input: NumPy (--items), TREC (--trec-run) or long tables (--predictions)")
	}
	var src evaluate.Rankings
	var err error
	switch {
	case numpy:
		if items == "" || targets == "" {
			return nil, userError("NumPy input needs --items and --targets (--scores and --sample-ids are optional)")
		}
		src, err = evaluate.OpenNumPyRankings(items, c.String("scores"), targets, c.String("sample-ids"), opts)
	case run != "" || qrels != "":
		if run == "" || qrels == "" {
			return nil, userError("TREC input needs both --trec-run and --trec-qrels")
		}
		src, err = evaluate.OpenTRECRankings(run, qrels, opts)
	case preds != "":
		if targets == "" {
			return nil, userError("--predictions needs --targets (a sample_id,item table)")
		}
		src, err = evaluate.OpenTableRankings(preds, targets, opts)
	default:
		return nil, userError("no input: give --items and --targets, --trec-run and --trec-qrels, or --predictions and --targets (see 'verdict evaluate --help')")
	}
	if err != nil {
		return nil, cli.Exit(err.Error(), exitError)
	}
	return src, nil
}

// reportMissing says how many samples had targets but no predictions.
func reportMissing(w io.Writer, src evaluate.Rankings) {
	switch r := src.(type) {
	case *evaluate.TRECRankings:
		if n := r.MissingQueries(); n > 0 {
			fmt.Fprintf(w, "verdict: %d qrels queries with relevant documents are missing from the run: scored as rows with no hits (as trec_eval -c)\n", n)
		}
	case *evaluate.TableRankings:
		if n := r.MissingSamples(); n > 0 {
			fmt.Fprintf(w, "verdict: %d samples of the targets have no predictions: scored as rows with no hits\n", n)
		}
	}
}

// evaluateError maps an evaluation's error to its exit: bad input is the
// user's to fix.
func evaluateError(err error) error {
	if isBadInput(err) || errors.Is(err, evaluate.ErrBadValue) {
		return cli.Exit(err.Error(), exitError)
	}
	return err
}

// cutoffs lists the distinct k of metric keys such as "ndcg@10", ascending.
func cutoffs(keys []string) []int {
	seen := map[int]bool{}
	var ks []int
	for _, key := range keys {
		_, k, ok := strings.Cut(key, "@")
		if n, err := strconv.Atoi(k); ok && err == nil && !seen[n] {
			seen[n] = true
			ks = append(ks, n)
		}
	}
	slices.Sort(ks)
	return ks
}

// teeRows writes every row the store reads to a per-user CSV as well.
type teeRows struct {
	*evaluate.Scoring
	w *perUserWriter
}

func (t *teeRows) Next() bool {
	if !t.Scoring.Next() {
		return false
	}
	t.w.write(t.SampleID(), t.Values())
	return true
}

// perUserWriter writes sample_id and one column per metric.
type perUserWriter struct {
	f   *os.File
	w   *bufio.Writer
	buf []byte
	err error
}

func newPerUserWriter(path string, keys []string) (*perUserWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, userError("--per-user-out: %v", err)
	}
	p := &perUserWriter{f: f, w: bufio.NewWriterSize(f, 1<<20)}
	_, p.err = p.w.WriteString("sample_id," + strings.Join(keys, ",") + "\n")
	return p, nil
}

func (p *perUserWriter) write(id string, vals []float64) {
	b := appendCSVField(p.buf[:0], id)
	for _, v := range vals {
		b = append(b, ',')
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
	}
	b = append(b, '\n')
	p.buf = b
	if p.err == nil {
		_, p.err = p.w.Write(b)
	}
}

func (p *perUserWriter) Close() error {
	err := p.err
	if ferr := p.w.Flush(); err == nil {
		err = ferr
	}
	if cerr := p.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("--per-user-out: %w", err)
	}
	return nil
}

// appendCSVField quotes a field when CSV requires it.
func appendCSVField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	return append(append(b, '"'), strings.ReplaceAll(s, `"`, `""`)+`"`...)
}

type evaluationJSON struct {
	Metrics           map[string]float64 `json:"metrics"`
	Rows              int64              `json:"n_rows"`
	ScoredRows        int64              `json:"n_scored_rows"`
	Units             int64              `json:"n_units"`
	RequiredK         int                `json:"required_k"`
	TargetFingerprint string             `json:"target_fingerprint"`
	EvaluationID      *int64             `json:"evaluation_id"`
	Existing          bool               `json:"existing,omitempty"`
	Keys              []string           `json:"-"`
}

func printEvaluation(w io.Writer, format string, e evaluationJSON) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(e)
	}
	if format == "csv" {
		t := report.Table{Header: []string{"metric", "mean"}}
		for _, k := range e.Keys {
			t.Add(k, csvNum(e.Metrics[k]))
		}
		return t.CSV(w)
	}
	t := report.Table{Header: []string{"METRIC", "MEAN"}, Right: map[int]bool{1: true}}
	means := make([]float64, len(e.Keys))
	for i, k := range e.Keys {
		means[i] = e.Metrics[k]
	}
	for i, m := range report.Nums(means, false) {
		t.Add(e.Keys[i], m)
	}
	if err := t.Write(w, format); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s rows, %s scored, %s units, required k %d, targets %s\n",
		thousands(e.Rows), thousands(e.ScoredRows), thousands(e.Units), e.RequiredK, e.TargetFingerprint[:12])
	switch {
	case e.EvaluationID == nil:
		fmt.Fprintln(w, "not logged (--no-log)")
	case e.Existing:
		fmt.Fprintf(w, "evaluation %d: already logged with the same content; nothing written\n", *e.EvaluationID)
	default:
		fmt.Fprintf(w, "logged as evaluation %d\n", *e.EvaluationID)
	}
	return nil
}

// startProgress shows the input's progress as the flags ask, and returns a
// function that stops it.
func startProgress(c *cli.Context, src evaluate.Rankings) (stop func(), err error) {
	mode := c.String("progress")
	if c.Bool("quiet") {
		mode = "none"
	}
	w := c.App.ErrWriter
	switch mode {
	case "auto":
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			mode = "bar"
		} else {
			mode = "none"
		}
	case "bar", "log", "none":
	default:
		return nil, userError("--progress %q: want auto, bar, log or none", mode)
	}
	if mode == "none" {
		return func() {}, nil
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	_, total := src.Progress()
	go func() {
		defer close(finished)
		var bar *progressbar.ProgressBar
		every := 5 * time.Second
		if mode == "bar" {
			bar = progressbar.NewOptions64(total,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("evaluating"),
				progressbar.OptionShowBytes(true),
				progressbar.OptionSetWidth(30),
				progressbar.OptionClearOnFinish(),
			)
			every = 100 * time.Millisecond
		}
		start := time.Now()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				if bar != nil {
					_ = bar.Finish()
					_ = bar.Clear()
				}
				return
			case <-tick.C:
				n, _ := src.Progress()
				if bar != nil {
					_ = bar.Set64(n)
				} else {
					fmt.Fprintf(w, "verdict evaluate: %.0f%% of the input read (%d of %d MB) after %.0f s\n",
						100*float64(n)/float64(max(total, 1)), n>>20, total>>20, time.Since(start).Seconds())
				}
			}
		}
	}()
	return func() { close(done); <-finished }, nil
}
