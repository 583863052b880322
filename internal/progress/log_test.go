package progress_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/progress"
)

// jsonLines decodes the JSON lines of a log.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var line map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), sc.Text())
		lines = append(lines, line)
	}
	return lines
}

func TestBeginRefusesBadOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts progress.Options
		want string
	}{
		{name: "negative interval", opts: progress.Options{Every: -1},
			want: "--log-every -1: want a number of batches, 1 or more (0: no service log)"},
		{name: "unknown format", opts: progress.Options{Format: "xml"},
			want: `--log-format "xml": want text or json`},
		{name: "unknown mode", opts: progress.Options{Mode: "loud", Every: 10},
			want: `--progress "loud": want auto, bar, log or none`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			_, err := progress.Begin(&out, &counter{}, tt.opts)
			require.EqualError(t, err, tt.want)
			require.Empty(t, out.String())
		})
	}
}

// TestBeginWhichLog checks which options turn the service log on: its start
// line is written by Begin, the display of Start writes nothing on a buffer
// before its first tick.
func TestBeginWhichLog(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		opts    progress.Options
		service bool
	}{
		{name: "nothing asked", opts: progress.Options{}},
		{name: "a bar", opts: progress.Options{Mode: "bar"}},
		{name: "an interval", opts: progress.Options{Every: 5}, service: true},
		{name: "a format", opts: progress.Options{Format: "json"}, service: true},
		{name: "log mode", opts: progress.Options{Mode: "log"}, service: true},
		{name: "log mode, quiet", opts: progress.Options{Mode: "log", Quiet: true}},
		{name: "quiet with an interval", opts: progress.Options{Quiet: true, Every: 5}, service: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out syncBuffer
			tt.opts.Command = "evaluate"
			lg, err := progress.Begin(&out, &counter{}, tt.opts)
			require.NoError(t, err)
			started := out.String()
			lg.Batch(10)
			lg.End(nil)
			require.Equal(t, tt.service, strings.Contains(started, "msg=start") || strings.Contains(started, `"msg":"start"`), started)
			require.NoError(t, lg.Err())
		})
	}
}

func TestLogLines(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	src := &counter{}
	src.total.Store(300 << 20)
	lg, err := progress.Begin(&out, src, progress.Options{Command: "evaluate", Every: 2, Format: "json", Metrics: []string{"ndcg@10", "ndcg@20", "recall@20"}})
	require.NoError(t, err)
	for i := range 5 {
		src.done.Store(int64(i+1) * 60 << 20) // a fifth of the input a batch
		lg.Batch(4096)
	}
	lg.End(nil)
	require.NoError(t, lg.Err())

	lines := jsonLines(t, out.String())
	require.Len(t, lines, 4, "start, progress at batches 2 and 4, finish")
	for _, l := range lines {
		require.Equal(t, "evaluate", l["command"])
		require.NotEmpty(t, l["time"])
	}
	start, p2, p4, finish := lines[0], lines[1], lines[2], lines[3]
	require.Equal(t, "start", start["msg"])
	require.Equal(t, "INFO", start["level"])
	require.EqualValues(t, 300<<20, start["input_bytes"])
	require.EqualValues(t, 3, start["metrics"])
	require.Equal(t, "ndcg@10,ndcg@20,recall@20", start["metric_keys"])
	require.EqualValues(t, 2, start["log_every"])
	require.EqualValues(t, os.Getpid(), start["pid"])

	require.Equal(t, "progress", p2["msg"])
	require.EqualValues(t, 2*4096, p2["rows"])
	require.EqualValues(t, 2, p2["batches"])
	require.EqualValues(t, 120<<20, p2["bytes_read"])
	require.EqualValues(t, 40, p2["input_pct"], "120 of 300 MiB")
	require.EqualValues(t, 4*4096, p4["rows"])
	require.EqualValues(t, 80, p4["input_pct"], "240 of 300 MiB")
	for _, l := range lines[1:] {
		require.Contains(t, l, "elapsed_s")
		require.Contains(t, l, "rows_per_s")
	}

	require.Equal(t, "finish", finish["msg"])
	require.Equal(t, "INFO", finish["level"])
	require.Equal(t, "ok", finish["outcome"])
	require.NotContains(t, finish, "error")
	require.EqualValues(t, 5*4096, finish["rows"])
	require.EqualValues(t, 5, finish["batches"])
	require.EqualValues(t, 100, finish["input_pct"])
	peak, ok := finish["peak_rss_bytes"].(float64)
	require.True(t, ok, "peak_rss_bytes on Linux: %v", finish)
	require.Greater(t, peak, float64(1<<20), "a Go test binary holds more than a MiB")
	require.InDelta(t, peak/1e6, finish["peak_rss_mb"], 0.05, "rounded to 0.1 MB")
}

func TestLogText(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	src := &counter{} // the size of the input is not known
	lg, err := progress.Begin(&out, src, progress.Options{Command: "evaluate", Every: 1})
	require.NoError(t, err)
	lg.Batch(7)
	lg.End(errors.New("row 8 (sample u8): item 3 twice"))

	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 3)
	require.Regexp(t, `^time=\S+ level=INFO msg=start command=evaluate log_every=1 pid=\d+$`, lines[0])
	require.Regexp(t, `^time=\S+ level=INFO msg=progress command=evaluate rows=7 batches=1 bytes_read=0 elapsed_s=[0-9.e-]+ rows_per_s=\d+$`, lines[1])
	require.Regexp(t, `^time=\S+ level=ERROR msg=finish command=evaluate rows=7 batches=1 bytes_read=0 elapsed_s=\S+ rows_per_s=\S+ peak_rss_bytes=\d+ peak_rss_mb=[0-9.]+ outcome=error error="row 8 \(sample u8\): item 3 twice"$`, lines[2])
}

// failingWriter fails its write number failAt (1-based) and every write
// after it, and counts the writes it was asked for.
type failingWriter struct {
	failAt, writes int
	out            bytes.Buffer
}

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	f.writes++
	if f.writes >= f.failAt {
		return 0, errDiskFull
	}
	return f.out.Write(p)
}

// TestLogDropsAfterFailure fails the log's second write, its first progress
// line: nothing more is written, the work goes on to its end, and Err says
// why the log stopped.
func TestLogDropsAfterFailure(t *testing.T) {
	t.Parallel()
	w := &failingWriter{failAt: 2}
	lg, err := progress.Begin(w, &counter{}, progress.Options{Command: "evaluate", Every: 1, Format: "json"})
	require.NoError(t, err)
	rows := 0
	for range 1000 {
		rows += 10
		lg.Batch(10)
	}
	lg.End(errors.New("late failure"))
	require.Equal(t, 10000, rows, "the work completes")
	require.Equal(t, 2, w.writes, "the start line, then the failed progress line, then nothing")
	require.ErrorIs(t, lg.Err(), errDiskFull)
	require.Len(t, jsonLines(t, w.out.String()), 1, "the start line only")
}

// TestLogClosedPipe writes the log to a pipe whose reader has gone: every
// write would fail with EPIPE; the first does, and the rest are dropped.
func TestLogClosedPipe(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	require.NoError(t, r.Close())
	defer w.Close()

	lg, err := progress.Begin(w, &counter{}, progress.Options{Command: "evaluate", Every: 1})
	require.NoError(t, err)
	require.ErrorIs(t, lg.Err(), syscall.EPIPE, "the start line failed")
	require.NoError(t, w.Close(), "dropped writes must not reach the file: a write to a closed file would be a different error")
	rows := 0
	for range 100000 {
		rows++
		lg.Batch(1)
	}
	lg.End(nil)
	require.Equal(t, 100000, rows, "the work completes")
	require.ErrorIs(t, lg.Err(), syscall.EPIPE, "the first failure, not a later one")
}

// TestNoSIGPIPE writes through NoSIGPIPE's file to a pipe, then to the same
// pipe once its reader is gone: an EPIPE error, and the test process lives.
func TestNoSIGPIPE(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	f := progress.NoSIGPIPE(w)
	defer f.Close()
	require.NotEqual(t, w.Fd(), f.Fd(), "a descriptor of its own")

	_, err = f.Write([]byte("line\n"))
	require.NoError(t, err)
	got := make([]byte, 5)
	_, err = r.Read(got)
	require.NoError(t, err)
	require.Equal(t, "line\n", string(got))

	require.NoError(t, r.Close())
	_, err = f.Write([]byte("line\n"))
	require.ErrorIs(t, err, syscall.EPIPE)
}
