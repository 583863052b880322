package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
)

var inputFormats = []string{"csv", "tsv", "jsonl", "parquet", "npz"}

func logCommand() *cli.Command {
	return &cli.Command{
		Name:      "log",
		Usage:     "store per-user scores computed elsewhere as one evaluation of a run",
		ArgsUsage: "FILE",
		Description: `log reads one value per user (sample ID) and metric from FILE and stores it,
with the means, as an evaluation of run --run in --experiment, scored on
evaluation set --eval-set. The experiment and run are created on first use.

FILE is, by extension or --input-format:
  .csv .tsv        wide: sample_id,<metric>,<metric>,...   long: sample_id,metric,value
  .jsonl .ndjson   one object per line, wide or long keys as above
  .parquet         columns as above
  .npz             a sample_id array plus one 1-D array per metric (np.savez)
  .gz              on the text formats: compressed
An optional draw column allows several rows per user (eval draws > 1).

Everything is written in one transaction: on any error nothing is stored.
Bad input (NaN or Inf, an empty or duplicate sample ID, a ragged row, a
missing value, no rows) is refused with exit code 2 and a message naming the
file, line, sample ID and column.

Logging the same content again for the same run and evaluation set, or with
the same --idempotency-key, writes nothing and returns the first evaluation.

Without --target-fingerprint, verdict fingerprints the set of sample IDs and
records that comparisons can only check the samples, not the targets. Use
'verdict fingerprint' on the targets to attach the full guard.

Example:
  verdict log --experiment movielens --run als-64 --eval-set test \
      --param factors=64 --tag nightly scores.csv`,
		Flags: append(runFlags(true),
			&cli.StringFlag{Name: "target-fingerprint", Usage: "fingerprint `F` of the targets, from 'verdict fingerprint'"},
			&cli.StringSliceFlag{Name: "lower-is-better", Usage: "`METRIC` for which lower is better, e.g. logloss (repeatable)"},
			&cli.StringFlag{Name: "protocol", Value: "holdout", Usage: "`PROTOCOL`: holdout, kfold, repeated_kfold or 5x2"},
			&cli.IntFlag{Name: "folds", Usage: "number of folds `K` (k-fold protocols)"},
			&cli.IntFlag{Name: "repeats", Usage: "number of repetitions `R` (repeated k-fold)"},
			&cli.Int64Flag{Name: "n-train", Usage: "training set size `N` (k-fold protocols)"},
			&cli.Int64Flag{Name: "n-test", Usage: "test set size `N` (k-fold protocols)"},
			connectionsFlag(),
			&cli.StringFlag{Name: "labels", Usage: "CSV `FILE` of sample_id,label (0/1) recorded with the evaluation set, for 'verdict compare --method delong'"},
			&cli.StringFlag{Name: "input-format", Usage: "input `FORMAT`: " + strings.Join(inputFormats, ", ") + " (default: from the extension)"},
			&cli.StringFlag{Name: "format", Value: "table", Usage: "output `FORMAT`: table or json (an input format name here means --input-format)"},
		),
		Action: runLog,
	}
}

func runLog(c *cli.Context) error {
	if c.NArg() != 1 {
		return userError("log takes exactly one FILE, got %d arguments (see 'verdict log --help')", c.NArg())
	}
	path := c.Args().First()
	inFormat, outFormat := c.String("input-format"), c.String("format")
	switch {
	case outFormat == "table" || outFormat == "json":
	case slices.Contains(inputFormats, outFormat) && inFormat == "":
		inFormat, outFormat = outFormat, "table"
	default:
		return userError("--format %q: want table or json (or an input format: %s)", outFormat, strings.Join(inputFormats, ", "))
	}

	ev, err := newEvaluationFromFlags(c)
	if err != nil {
		return err
	}
	in, err := scores.OpenScores(path, inFormat)
	if err != nil {
		return cli.Exit(err.Error(), exitError)
	}
	defer in.Close()

	ev.Connections = c.Int("connections")
	if f := c.String("labels"); f != "" {
		if ev.Labels, err = readLabels(f); err != nil {
			return err
		}
	}
	bar := newProgress(c.App.ErrWriter, in)
	if bar != nil {
		ev.Progress = func(int64) {
			done, _ := in.Progress()
			_ = bar.Set64(done)
		}
	}
	st, err := openStore(c)
	if err != nil {
		return err
	}
	defer st.Close()

	var logged *store.Logged
	if long := in.Long(); long != nil {
		logged, err = st.LogEvaluationLong(c.Context, ev, long)
	} else {
		logged, err = st.LogEvaluation(c.Context, ev, in.Wide())
	}
	if bar != nil {
		_ = bar.Finish()
		_ = bar.Clear()
	}
	var dup *store.DuplicateError
	if errors.As(err, &dup) && dup.Where == "" {
		err = locateDuplicate(path, inFormat, dup)
	}
	if err != nil {
		if isBadInput(err) || errors.Is(err, scores.ErrBadInput) {
			return cli.Exit(err.Error(), exitError)
		}
		return err
	}
	return printLogged(c.App.Writer, outFormat, logged)
}

func newEvaluationFromFlags(c *cli.Context) (store.NewEvaluation, error) {
	ev := store.NewEvaluation{
		Experiment:        c.String("experiment"),
		Run:               c.String("run"),
		EvalSet:           c.String("eval-set"),
		TargetFingerprint: c.String("target-fingerprint"),
		Tags:              c.StringSlice("tag"),
		GitCommit:         c.String("git-commit"),
		LowerIsBetter:     c.StringSlice("lower-is-better"),
		IdempotencyKey:    c.String("idempotency-key"),
		Protocol: store.Protocol{
			Name:    c.String("protocol"),
			Folds:   c.Int("folds"),
			Repeats: c.Int("repeats"),
			NTrain:  c.Int64("n-train"),
			NTest:   c.Int64("n-test"),
		},
	}
	params := map[string]any{}
	if f := c.String("params-file"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return ev, userError("--params-file: %v", err)
		}
		if err := json.Unmarshal(b, &params); err != nil {
			return ev, userError("--params-file %s: not a JSON object: %v", f, err)
		}
	}
	if err := parseKeyValues(params, c.StringSlice("param"), "--param"); err != nil {
		return ev, err
	}
	ev.Params = params
	meta := map[string]any{}
	if err := parseKeyValues(meta, c.StringSlice("meta"), "--meta"); err != nil {
		return ev, err
	}
	ev.Metadata = meta
	if ev.GitCommit == "" {
		ev.GitCommit = gitHead()
	}
	return ev, nil
}

// parseKeyValues adds KEY=VALUE pairs to m. A VALUE that parses as JSON is
// kept as such (numbers, true, null, objects); anything else is a string.
func parseKeyValues(m map[string]any, pairs []string, flag string) error {
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return userError("%s %q: want KEY=VALUE", flag, kv)
		}
		var parsed any
		if err := json.Unmarshal([]byte(v), &parsed); err == nil {
			m[k] = parsed
		} else {
			m[k] = v
		}
	}
	return nil
}

// gitHead is the commit checked out in the working directory, or "".
func gitHead() string {
	out, err := exec.Command("git", "rev-parse", "--verify", "--quiet", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// newProgress returns a byte progress bar on a terminal for files large enough
// to take a moment, else nil.
func newProgress(w io.Writer, in *scores.Scores) *progressbar.ProgressBar {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	_, total := in.Progress()
	if total < 32<<20 {
		return nil
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("loading"),
		progressbar.OptionShowBytes(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
	)
}

// locateDuplicate rereads the input to name the lines of a duplicate the
// database found.
func locateDuplicate(path, format string, dup *store.DuplicateError) error {
	in, err := scores.OpenScores(path, format)
	if err != nil {
		return dup
	}
	defer in.Close()
	var where []string
	if r := in.Wide(); r != nil {
		for r.Next() && len(where) < 2 {
			if r.SampleID() == dup.SampleID && r.Draw() == dup.Draw {
				where = append(where, r.Where())
			}
		}
	}
	if len(where) < 2 {
		return dup
	}
	located := *dup
	located.Where = where[1] + fmt.Sprintf(" (first at %s)", where[0])
	return &located
}

type loggedJSON struct {
	EvaluationID    int64              `json:"evaluation_id"`
	Existing        bool               `json:"existing"`
	Experiment      string             `json:"experiment"`
	Run             string             `json:"run"`
	EvalSet         string             `json:"eval_set"`
	Rows            int64              `json:"n_rows"`
	ScoredRows      int64              `json:"n_scored_rows"`
	Units           int64              `json:"n_units"`
	Metrics         []string           `json:"metrics"`
	Aggregates      map[string]float64 `json:"aggregates"`
	Fingerprint     string             `json:"fingerprint"`
	FingerprintKind string             `json:"fingerprint_kind"`
	Seconds         float64            `json:"seconds"`
}

func printLogged(w io.Writer, format string, l *store.Logged) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(loggedJSON{
			EvaluationID: l.ID, Existing: l.Existing, Experiment: l.Experiment, Run: l.Run, EvalSet: l.EvalSet,
			Rows: l.Rows, ScoredRows: l.ScoredRows, Units: l.Units, Metrics: l.Metrics, Aggregates: l.Aggregates,
			Fingerprint: l.Fingerprint, FingerprintKind: l.FingerprintKind, Seconds: l.Elapsed.Seconds(),
		})
	}
	if l.Existing {
		_, err := fmt.Fprintf(w, "evaluation %d: already logged for %s/%s on %s (same content or idempotency key); nothing written\n",
			l.ID, l.Experiment, l.Run, l.EvalSet)
		return err
	}
	_, err := fmt.Fprintf(w, "evaluation %d: %s/%s on %s: %s, %s, %s in %.2f s\n",
		l.ID, l.Experiment, l.Run, l.EvalSet, count(l.Rows, "row"), count(l.Units, "unit"), count(int64(len(l.Metrics)), "metric"), l.Elapsed.Seconds())
	return err
}

// count is n with thousands separators and the noun, plural unless n is 1:
// "1 metric", "1,000,000 rows".
func count(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(n) + " " + noun + "s"
}

// thousands formats n with thousands separators: 1234567 -> "1,234,567".
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func connectionsFlag() cli.Flag {
	return &cli.IntFlag{Name: "connections", Value: 1, Usage: "load over `N` database connections at once, for large inputs on servers with cores and disk bandwidth to spare"}
}

// readLabels reads a sample_id,label CSV file.
func readLabels(path string) ([]store.Label, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, userError("--labels: %v", err)
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	head, err := r.Read()
	if err != nil || len(head) < 2 || head[0] != "sample_id" || head[1] != "label" {
		return nil, userError("--labels %s: want a header sample_id,label", path)
	}
	var out []store.Label
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, userError("--labels %s: %v", path, err)
		}
		switch rec[1] {
		case "0", "1":
			out = append(out, store.Label{SampleID: rec[0], Label: int16(rec[1][0] - '0')})
		default:
			return nil, userError("--labels %s: line %d (sample %q): label %q is not 0 or 1", path, line, rec[0], rec[1])
		}
	}
}
