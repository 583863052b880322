package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store/storetest"
)

func TestLogAndRuns(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	csv := writeFile(t, "scores.csv", "sample_id,ndcg@10,recall@10\nu1,0.5,1\nu2,0.25,0\nu3,0,0.5\n")

	res := runVerdict(t, url, "log", "-e", "movies", "-r", "pop", "-s", "test",
		"--param", "k=10", "--param", "name=popularity", "--tag", "baseline", "--git-commit", "abc123", csv)
	require.Equal(t, 0, res.code, res.stderr)
	require.Regexp(t, `^evaluation 1: movies/pop on test: 3 rows, 3 units, 2 metrics in \d+\.\d\d s\n$`, res.stdout)

	// Again: nothing written, the first evaluation is returned.
	res = runVerdict(t, url, "log", "-e", "movies", "-r", "pop", "-s", "test", "--format", "json", csv)
	require.Equal(t, 0, res.code, res.stderr)
	var out loggedJSON
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.True(t, out.Existing)
	require.Equal(t, int64(1), out.EvaluationID)
	// Means by hand from the file: (0.5+0.25+0)/3, (1+0+0.5)/3.
	require.InDelta(t, 0.25, out.Aggregates["ndcg@10"], 1e-15)
	require.InDelta(t, 0.5, out.Aggregates["recall@10"], 1e-15)
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM evaluations`))

	// Without --git-commit the working directory's HEAD is recorded.
	res = runVerdict(t, url, "log", "-e", "movies", "-r", "knn", "-s", "test", csv)
	require.Equal(t, 0, res.code, res.stderr)
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	require.NoError(t, err, "the tests run inside the repository")
	require.Equal(t, strings.TrimSpace(string(head)), storetest.Scalar[string](t, url, `SELECT git_commit FROM runs WHERE name = 'knn'`))

	res = runVerdict(t, url, "runs", "-e", "movies")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "EXPERIMENT  RUN  CREATED")
	require.Regexp(t, `movies      pop  \d{4}-\d\d-\d\d \d\d:\d\d            1  abc123`, res.stdout)
	require.Regexp(t, `movies      knn  \d{4}-\d\d-\d\d \d\d:\d\d            1  [0-9a-f]{12}\n`, res.stdout)
	require.Equal(t, `{"k": 10, "name": "popularity"}`, storetest.Scalar[string](t, url, `SELECT params::text FROM runs`))
}

// TestLogRecordsProtocol logs with --required-k and checks, in the
// database, the required k and the eval draws: the most rows any user has,
// 1 without a draw column.
func TestLogRecordsProtocol(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	tests := []struct {
		name      string
		content   string
		args      []string
		requiredK any // nil: NULL
		draws     int
	}{
		{name: "plain.csv", content: "sample_id,ndcg@20\nu1,0.5\nu2,0.25\n", args: []string{"--required-k", "20"}, requiredK: int64(20), draws: 1},
		{name: "draws.csv", content: "sample_id,draw,ndcg@20\nu1,0,0.5\nu1,1,0.25\nu1,2,1\nu2,0,0\n", args: []string{"--required-k", "20"}, requiredK: int64(20), draws: 3},
		{name: "unknown.csv", content: "sample_id,auc\nu1,1\nu2,0\n", draws: 1},
	}
	for _, tt := range tests {
		path := writeFile(t, tt.name, tt.content)
		res := runVerdict(t, url, append([]string{"log", "-e", "e", "-r", tt.name, "-s", "test", path}, tt.args...)...)
		require.Equal(t, 0, res.code, res.stderr)
		require.Equal(t, tt.requiredK, storetest.Scalar[any](t, url, `SELECT required_k::bigint FROM evaluations e JOIN runs r ON r.id = e.run_id WHERE r.name = $1`, tt.name), tt.name)
		require.Equal(t, tt.draws, queryInt(t, url, `SELECT eval_draws FROM evaluations e JOIN runs r ON r.id = e.run_id WHERE r.name = $1`, tt.name), tt.name)
	}

	res := runVerdict(t, url, "log", "-e", "e", "-r", "bad", "-s", "test", "--required-k", "-5", writeFile(t, "s.csv", "sample_id,a\nu1,1\n"))
	require.Equal(t, 2, res.code)
	require.Equal(t, "verdict: --required-k -5: want a number that is not negative\n", res.stderr)
}

func TestLogRefusesBadFiles(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}

	tests := []struct {
		name string
		path string
		want string // the exact message after "verdict: "
	}{
		{name: "NaN", path: file("nan.csv", "sample_id,ndcg@10\nu1,0.5\nu2,NaN\n"),
			want: `{dir}/nan.csv: line 3 (sample "u2"), column "ndcg@10": value is NaN`},
		{name: "+Inf", path: file("inf.csv", "sample_id,a,b\nu1,0.5,inf\n"),
			want: `{dir}/inf.csv: line 2 (sample "u1"), column "b": value is +Inf`},
		{name: "-Inf", path: file("neginf.jsonl", `{"sample_id":"u1","a":1}`+"\n"+`{"sample_id":"u2","a":-Infinity}`+"\n"),
			want: `{dir}/neginf.jsonl: line 2 (sample "u2"), column "a": value is -Inf`},
		{name: "empty sample ID", path: file("empty-id.csv", "sample_id,a\nu1,1\n,0\n"),
			want: `{dir}/empty-id.csv: line 3: empty sample ID`},
		{name: "adjacent duplicate", path: file("dup.csv", "sample_id,a\nu1,1\nu1,0\n"),
			want: `{dir}/dup.csv: line 3: duplicate row: sample "u1" occurs more than once`},
		{name: "distant duplicate", path: file("dup2.csv", "sample_id,a\nu2,1\nu1,1\nu2,0\n"),
			want: `{dir}/dup2.csv: line 4 (first at {dir}/dup2.csv: line 2): duplicate row: sample "u2" occurs more than once`},
		{name: "duplicate sample and draw", path: file("dupdraw.csv", "sample_id,draw,a\nu1,0,1\nu1,1,1\nu2,0,1\nu1,1,0\n"),
			want: `{dir}/dupdraw.csv: line 5 (first at {dir}/dupdraw.csv: line 3): duplicate row: sample "u1", draw 1 occurs more than once`},
		{name: "ragged row", path: file("ragged.csv", "sample_id,a,b\nu1,1,0\nu2,1\n"),
			want: `{dir}/ragged.csv: line 3 (sample "u2"): 2 fields, but the header has 3`},
		{name: "non-numeric", path: file("text.csv", "sample_id,a\nu1,high\n"),
			want: `{dir}/text.csv: line 2 (sample "u1"), column "a": "high" is not a number`},
		{name: "metric missing (wide)", path: file("missing.csv", "sample_id,a,b\nu1,1,\n"),
			want: `{dir}/missing.csv: line 2 (sample "u1"), column "b": value missing`},
		{name: "metric missing (long)", path: file("missing-long.csv", "sample_id,metric,value\nu1,a,1\nu1,b,1\nu2,a,0\n"),
			want: `{dir}/missing-long.csv: line 4 (sample "u2"), column "b": value missing: the sample has no "b"`},
		{name: "zero rows", path: file("empty.csv", "sample_id,a\n"),
			want: `no rows: the input holds no per-unit values`},
		{name: "unknown format", path: file("scores.xlsx", "whatever"),
			want: `{dir}/scores.xlsx: unknown scores format ".xlsx": the formats are csv, tsv, jsonl (also .ndjson), parquet and npz, and the text formats may be gzipped (.csv.gz); name the format when the file name does not say it, with --input-format`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runVerdict(t, url, "log", "-e", "e", "-r", "r", "-s", "test", tt.path)
			require.Equal(t, 2, res.code, "exit code; stderr: %s", res.stderr)
			require.Equal(t, "verdict: "+strings.ReplaceAll(tt.want, "{dir}", dir)+"\n", res.stderr)
			require.Empty(t, res.stdout)
		})
	}
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM evaluations`), "the database is unchanged")
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM runs`))
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM pg_tables WHERE schemaname = 'verdict_units'`))
}

// TestLogKilledMidCopyLeavesNothing kills a real `verdict log` process with
// SIGKILL while its COPY is streaming, and checks that no part of the
// evaluation is visible. The input is a named pipe, so the test decides when
// the process is mid-COPY instead of racing it.
func TestLogKilledMidCopyLeavesNothing(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	ctx := context.Background()
	fifo := filepath.Join(t.TempDir(), "scores.csv")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))

	cmd := verdictCmd(t, "--database-url", url, "log", "-e", "e", "-r", "killed", "-s", "test", fifo)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintln(w, "sample_id,a,b")
	require.NoError(t, err)
	var b strings.Builder
	for i := range 50_000 {
		fmt.Fprintf(&b, "u%07d,%d,0.5\n", i, i%2)
	}
	_, err = w.WriteString(b.String())
	require.NoError(t, err)

	// Wait until the server has received rows of this COPY.
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	require.Eventually(t, func() bool {
		var n int64
		err := conn.QueryRow(ctx, `
			SELECT coalesce(max(p.tuples_processed), 0)
			FROM pg_stat_progress_copy p JOIN pg_database d ON d.oid = p.datid
			WHERE d.datname = current_database()`).Scan(&n)
		return err == nil && n > 0
	}, 30*time.Second, 10*time.Millisecond, "the COPY never started")

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	w.Close()

	// The server rolls the transaction back when it sees the connection gone.
	require.Eventually(t, func() bool {
		var n int
		err := conn.QueryRow(ctx, `
			SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND application_name = 'verdict'`).Scan(&n)
		return err == nil && n == 0
	}, 30*time.Second, 10*time.Millisecond, "the killed session lingers")
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM runs`))
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM unit_values`))
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM pg_tables WHERE schemaname = 'verdict_units'`))

	// And the same log, unhindered, goes through.
	csv := writeFile(t, "scores.csv", "sample_id,a,b\nu1,1,0.5\n")
	res := runVerdict(t, url, "log", "-e", "e", "-r", "killed", "-s", "test", csv)
	require.Equal(t, 0, res.code, res.stderr)
}

// TestConcurrentLogProcesses runs 8 `verdict log` processes at once into one
// experiment, two of them logging the same content for the same run.
func TestConcurrentLogProcesses(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	dir := t.TempDir()

	const procs = 8
	var wg sync.WaitGroup
	outs := make([][]byte, procs)
	errs := make([]error, procs)
	for i := range procs {
		run := fmt.Sprintf("run-%d", i)
		if i == procs-1 {
			run = "run-0" // the same content as process 0: logged once
		}
		var b strings.Builder
		b.WriteString("sample_id,ndcg@10,recall@10\n")
		for u := range 2000 {
			fmt.Fprintf(&b, "user-%04d,%g,%g\n", u, float64((u+i%(procs-1))%7)/8, float64(u%3)/4)
		}
		path := filepath.Join(dir, fmt.Sprintf("scores-%d.csv", i))
		if i == procs-1 {
			path = filepath.Join(dir, "scores-0-again.csv")
			b.Reset()
			b.WriteString("sample_id,ndcg@10,recall@10\n")
			for u := range 2000 {
				fmt.Fprintf(&b, "user-%04d,%g,%g\n", u, float64(u%7)/8, float64(u%3)/4)
			}
		}
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
		cmd := verdictCmd(t, "--database-url", url, "log", "-e", "shared", "-r", run, "-s", "test", "--format", "json", path)
		wg.Go(func() { outs[i], errs[i] = cmd.Output() })
	}
	wg.Wait()
	ids := map[int64]bool{}
	for i := range procs {
		require.NoError(t, errs[i], "process %d", i)
		var out loggedJSON
		require.NoError(t, json.Unmarshal(outs[i], &out), string(outs[i]))
		require.Equal(t, int64(2000), out.Units)
		ids[out.EvaluationID] = true
	}
	require.Len(t, ids, procs-1, "the duplicate log returned the same evaluation")
	require.Equal(t, procs-1, queryInt(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, procs-1, queryInt(t, url, `SELECT count(*) FROM runs`))
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM experiments`))
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM evaluation_sets`))
	require.Equal(t, (procs-1)*2000, queryInt(t, url, `SELECT count(*) FROM unit_values`))
	require.Equal(t, 0, queryInt(t, url, `
		SELECT count(*) FROM (SELECT evaluation_id, sample_id FROM unit_values GROUP BY 1, 2 HAVING count(*) > 1) d`))
}

// loggedJSON is the part of `verdict log --format json` the tests read.
type loggedJSON struct {
	EvaluationID int64              `json:"evaluation_id"`
	Existing     bool               `json:"existing"`
	Units        int64              `json:"n_units"`
	Aggregates   map[string]float64 `json:"aggregates"`
}

// TestLogIdempotencyKeyHoldsOneContent: a key reused with other content
// (a nightly job that keeps its key) is refused with exit 2, naming the
// key and the evaluation it holds, and stores nothing; the same content
// again, from a copy of the file and with the flags' short names, returns
// the first evaluation.
func TestLogIdempotencyKeyHoldsOneContent(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	night1 := writeFile(t, "night1.csv", "sample_id,ndcg@10\nu1,0.5\nu2,0.25\n")
	night2 := writeFile(t, "night2.csv", "sample_id,ndcg@10\nu1,0.75\nu2,0.25\n")
	copy1 := writeFile(t, "copy.csv", "sample_id,ndcg@10\nu1,0.5\nu2,0.25\n")

	res := runVerdict(t, url, "log", "--experiment", "movies", "--run", "nightly", "--eval-set", "test", "--idempotency-key", "epoch-1", night1)
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "evaluation 1:")

	res = runVerdict(t, url, "log", "-e", "movies", "-r", "nightly", "-s", "test", "--idempotency-key", "epoch-1", night2)
	require.Equal(t, 2, res.code, res.stdout)
	require.Contains(t, res.stderr, `idempotency key "epoch-1" already holds evaluation 1 of run "nightly", logged with other content; nothing was stored`)
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, 2, queryInt(t, url, `SELECT count(*) FROM unit_values`))

	// Other flags that shape the evaluation are other content too.
	res = runVerdict(t, url, "log", "-e", "movies", "-r", "nightly", "-s", "test", "--idempotency-key", "epoch-1", "--lower-is-better", "ndcg@10", night1)
	require.Equal(t, 2, res.code, res.stdout)
	require.Contains(t, res.stderr, "logged with other content")

	res = runVerdict(t, url, "log", "-e", "movies", "-r", "nightly", "-s", "test", "--idempotency-key", "epoch-1", "--format", "json", copy1)
	require.Equal(t, 0, res.code, res.stderr)
	var out loggedJSON
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &out))
	require.True(t, out.Existing)
	require.Equal(t, int64(1), out.EvaluationID)
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM evaluations`))
}
