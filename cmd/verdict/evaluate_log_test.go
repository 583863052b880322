package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/demo"
	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/store/storetest"
)

// serviceLogInput writes the demo's top-20 popularity rankings of the
// MovieLens "latest-small" users (610, each with their 10 latest ratings as
// targets, as `verdict demo` splits them) as long tables, and returns the
// paths of the predictions and the targets and the predictions' size.
// extra is appended to the predictions.
func serviceLogInput(t *testing.T, extra string) (pred, targ string, size int64) {
	t.Helper()
	ratings, err := demo.LoadMovieLens()
	require.NoError(t, err)
	s := demo.SplitLatest(ratings, 10)
	ids, ranked, targets := demo.Rankings(s, demo.Popularity(s), 20)
	var p, g strings.Builder
	p.WriteString("sample_id,item,rank\n")
	g.WriteString("sample_id,item\n")
	for u, id := range ids {
		for i, item := range ranked[u] {
			fmt.Fprintf(&p, "%s,%d,%d\n", id, item, i+1)
		}
		for _, item := range targets[u] {
			fmt.Fprintf(&g, "%s,%d\n", id, item)
		}
	}
	p.WriteString(extra)
	dir := t.TempDir()
	pred, targ = filepath.Join(dir, "predictions.csv"), filepath.Join(dir, "targets.csv")
	require.NoError(t, os.WriteFile(pred, []byte(p.String()), 0o644))
	require.NoError(t, os.WriteFile(targ, []byte(g.String()), 0o644))
	return pred, targ, int64(p.Len())
}

// serviceLogLines decodes the JSON lines of a service log.
func serviceLogLines(t *testing.T, stderr string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(stderr))
	for sc.Scan() {
		var line map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "a log line that is not JSON: %s", sc.Text())
		lines = append(lines, line)
	}
	return lines
}

func TestEvaluateLogJSON(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	pred, targ, size := serviceLogInput(t, "")
	res := runVerdict(t, url, "evaluate", "--predictions", pred, "--targets", targ,
		"--metrics", "ndcg@10,20", "--metrics", "recall@20", "--log-format", "json", "--log-every", "1",
		"-e", "movielens", "-r", "popularity", "-s", "latest-10", "--format", "json")
	require.Equal(t, 0, res.code, res.stderr)
	var out evaluate.Result
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.NotNil(t, out.EvaluationID)

	lines := serviceLogLines(t, res.stderr)
	require.GreaterOrEqual(t, len(lines), 3, "start, a progress line a batch, finish: %s", res.stderr)
	start, progress, finish := lines[0], lines[1:len(lines)-1], lines[len(lines)-1]
	for _, l := range lines {
		require.Equal(t, "evaluate", l["command"])
		require.NotEmpty(t, l["time"])
	}
	require.Equal(t, "start", start["msg"])
	require.EqualValues(t, 3, start["metrics"])
	require.Equal(t, "ndcg@10,ndcg@20,recall@20", start["metric_keys"])
	require.EqualValues(t, 1, start["log_every"])
	require.Positive(t, start["input_bytes"], "the predictions and targets, at least")
	require.GreaterOrEqual(t, start["input_bytes"], float64(size))

	rows := 0.0
	for i, p := range progress {
		require.Equal(t, "progress", p["msg"])
		require.EqualValues(t, i+1, p["batches"])
		require.Greater(t, p["rows"], rows, "rows grow")
		rows = p["rows"].(float64)
		for _, f := range []string{"bytes_read", "input_pct", "elapsed_s", "rows_per_s"} {
			require.Contains(t, p, f)
		}
	}

	require.Equal(t, "finish", finish["msg"])
	require.Equal(t, "INFO", finish["level"])
	require.Equal(t, "ok", finish["outcome"])
	require.EqualValues(t, 610, finish["rows"], "MovieLens latest-small has 610 users")
	require.EqualValues(t, out.Rows, finish["rows"])
	require.EqualValues(t, len(progress), finish["batches"])
	require.EqualValues(t, 100, finish["input_pct"])
	require.Greater(t, finish["peak_rss_bytes"], float64(1<<20))
	require.Contains(t, finish, "peak_rss_mb")
	require.Contains(t, finish, "rows_per_s")
	require.Equal(t, 610, queryInt(t, url, `SELECT n_rows FROM evaluations WHERE id = $1`, *out.EvaluationID))
}

// TestEvaluateLogFailure checks the finish line of an evaluation that fails
// while it runs: the last user lists an item twice.
func TestEvaluateLogFailure(t *testing.T) {
	t.Parallel()
	pred, targ, _ := serviceLogInput(t, "")
	b, err := os.ReadFile(pred)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	last := strings.Split(lines[len(lines)-1], ",") // sample_id,item,20
	require.NoError(t, os.WriteFile(pred, fmt.Appendf(b, "%s,%s,21\n", last[0], last[1]), 0o644))

	res := runVerdict(t, "postgres://unused.invalid/none", "evaluate", "--predictions", pred, "--targets", targ,
		"--metrics", "ndcg@21", "--log-every", "1", "--no-log")
	require.Equal(t, 2, res.code, res.stderr)
	log, msg, ok := strings.Cut(res.stderr, "\nverdict: ")
	require.True(t, ok, "the error after the log: %s", res.stderr)
	require.Regexp(t, `^time=\S+ level=INFO msg=start command=evaluate input_bytes=\d+ metrics=1 metric_keys=ndcg@21 log_every=1 pid=\d+\n`, log)
	finish := regexp.MustCompile(`\ntime=\S+ level=ERROR msg=finish command=evaluate rows=\d+ batches=\d+ bytes_read=\d+ input_pct=[0-9.]+ elapsed_s=\S+ rows_per_s=\d+ peak_rss_bytes=\d+ peak_rss_mb=[0-9.]+ outcome=error error=(".+")$`).FindStringSubmatch(log)
	require.NotNil(t, finish, "a finish line last: %s", log)
	got, err := strconv.Unquote(finish[1])
	require.NoError(t, err)
	require.Equal(t, strings.TrimSuffix(msg, "\n"), got, "the error of the finish line is the one reported")
}

// TestEvaluateLogBrokenPipe runs verdict as a service whose stderr is a pipe
// nobody reads any more: Go would end the process with SIGPIPE at its first
// line. The evaluation completes, exits 0 and is stored.
func TestEvaluateLogBrokenPipe(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	pred, targ, _ := serviceLogInput(t, "")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	require.NoError(t, r.Close())

	var stdout bytes.Buffer
	cmd := verdictCmd(t, "--database-url", url, "evaluate", "--predictions", pred, "--targets", targ,
		"--metrics", "ndcg@10", "--log-every", "1", "-e", "movielens", "-r", "popularity", "-s", "latest-10", "--format", "json")
	cmd.Stdout, cmd.Stderr = &stdout, w
	err = cmd.Run()
	require.NoError(t, w.Close())
	require.NoError(t, err, "exit status 0, not a death by SIGPIPE")
	var out evaluate.Result
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &out))
	require.NotNil(t, out.EvaluationID)
	require.Equal(t, 610, queryInt(t, url, `SELECT n_rows FROM evaluations WHERE id = $1`, *out.EvaluationID))
	require.Equal(t, 610, queryInt(t, url, `SELECT count(*) FROM unit_values`), "every user has targets")
}

func TestEvaluateLogFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string // a regular expression
	}{
		{name: "progress log is the text log, every 250 batches", args: []string{"--progress", "log"},
			stderr: `^time=\S+ level=INFO msg=start command=evaluate input_bytes=\d+ metrics=3 metric_keys=hit_rate@2,precision@4,recall@4 log_every=250 pid=\d+\n` +
				`time=\S+ level=INFO msg=finish command=evaluate rows=6 batches=1 bytes_read=\d+ input_pct=100 elapsed_s=\S+ rows_per_s=\d+ peak_rss_bytes=\d+ peak_rss_mb=\S+ outcome=ok\n$`},
		{name: "quiet silences progress log", args: []string{"--progress", "log", "--quiet"}, stderr: `^$`},
		{name: "a format alone turns the log on", args: []string{"--log-format", "json"},
			stderr: `^\{"time":"[^"]+","level":"INFO","msg":"start","command":"evaluate",.*"log_every":250,.*\n\{.*"msg":"finish".*"outcome":"ok"\}\n$`},
		{name: "an interval wins over the bar", args: []string{"--log-every", "1", "--progress", "bar"},
			stderr: `^time=\S+ level=INFO msg=start .* log_every=1 .*\n.* msg=progress .* rows=6 batches=1 .*\n.* msg=finish .*outcome=ok\n$`},
		{name: "a negative interval", args: []string{"--log-every", "-1"}, code: 2,
			stderr: `^verdict: --log-every -1: want a number of batches, 1 or more \(0: no service log\)\n$`},
		{name: "an unknown format", args: []string{"--log-format", "xml"}, code: 2,
			stderr: `^verdict: --log-format "xml": want text or json\n$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runVerdict(t, "postgres://unused.invalid/none", evaluateArgs(append(tt.args, "--no-log")...)...)
			require.Equal(t, tt.code, res.code, res.stderr)
			require.Regexp(t, regexp.MustCompile(tt.stderr), res.stderr)
		})
	}
}
