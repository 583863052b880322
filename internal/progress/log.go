package progress

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultEvery is the number of batches between two progress lines of the
// service log when it is turned on by Options.Format or the "log" mode
// rather than by Options.Every: about a million rows at the readers' 4,096
// rows a batch.
const DefaultEvery = 250

// Options are a command line's choices of progress, as Begin reads them.
type Options struct {
	// Command names the command in the lines, e.g. "evaluate".
	Command string
	// Mode is the display of --progress, as Start takes it ("" is "auto"),
	// except that "log" turns the service log on.
	Mode string
	// Quiet turns Mode off, whatever it says; the service log still runs
	// when Every or Format ask for it.
	Quiet bool
	// Every is the number of batches between two progress lines of the
	// service log. More than 0 turns the log on; 0 leaves it off unless
	// Format or Mode turn it on, and then means DefaultEvery.
	Every int
	// Format is the service log's handler: "text" (slog.TextHandler) or
	// "json" (slog.JSONHandler). Any value turns the log on; "" is "text"
	// when something else turns it on.
	Format string
	// Metrics are the keys of the values computed for each row, such as
	// ndcg@10 (see MetricKeys), given in the start line when there are any:
	// their number (metrics) and names (metric_keys).
	Metrics []string
}

// Log is the progress of one command: the service log, or the display of
// Start. Its methods do nothing on a nil Log.
type Log struct {
	stop  func()       // the display of Start; nil with the service log
	log   *slog.Logger // nil without the service log
	out   *dropWriter
	src   Source
	every int64
	start time.Time

	mu            sync.Mutex
	rows, batches int64

	shown atomic.Int64 // rows, for the bar of Start's display
}

// Begin starts showing the progress of src on w as o asks, and returns the
// Log to report each scored batch to (Batch) and the end to (End).
//
// The service log is on when o.Every is more than 0, o.Format is given or
// o.Mode is "log" (and not o.Quiet). It then replaces the bar, and writes
// through log/slog, as text or JSON:
//
//   - a start line, msg=start: the command, the input's size in bytes when
//     src knows it (input_bytes), the number and keys of the metrics, the
//     interval in batches (log_every) and the process ID;
//   - a progress line, msg=progress, every o.Every batches: the rows and
//     batches so far, the bytes read (bytes_read) and the share of the
//     input they are when its size is known (input_pct), the seconds since
//     Begin (elapsed_s) and the rows per second (rows_per_s);
//   - a finish line, msg=finish, from End, even when the command failed:
//     the same totals, the process's peak resident memory (peak_rss_bytes,
//     and peak_rss_mb in units of 10⁶ bytes; left out where the system
//     does not say) and the outcome, "ok" at level INFO or "error" at level
//     ERROR with the error.
//
// The first write to w that fails (a closed pipe, a full disk) turns the
// log off: nothing more is formatted or written, and Err reports that
// failure. The command goes on as if the lines had been written. Lines
// are written from the goroutine that calls Batch and End, so a reader
// that stops reading without closing the pipe stalls them once the pipe's
// buffer is full; a line every few hundred batches takes long to fill it.
//
// Otherwise Begin starts Start's display of o.Mode, which End stops; its
// bar shows the rows per second that Batch counts. A
// negative o.Every, an unknown o.Format or an unknown o.Mode is an error
// naming the flag (--log-every, --log-format, --progress) and its values.
func Begin(w io.Writer, src Source, o Options) (*Log, error) {
	if o.Every < 0 {
		return nil, fmt.Errorf("--log-every %d: want a number of batches, 1 or more (0: no service log)", o.Every)
	}
	mode := o.Mode
	switch mode {
	case "", "auto", "bar", "log", "none":
	default:
		return nil, fmt.Errorf("--progress %q: want auto, bar, log or none", mode)
	}
	if o.Quiet {
		mode = "none"
	}
	if o.Every == 0 && o.Format == "" && mode != "log" {
		l := &Log{}
		stop, err := start(w, cmp.Or(mode, "auto"), o.Command, src, &l.shown)
		if err != nil {
			return nil, fmt.Errorf("--progress %w", err)
		}
		l.stop = stop
		return l, nil
	}
	out := &dropWriter{w: w}
	var h slog.Handler
	switch o.Format {
	case "", "text":
		h = slog.NewTextHandler(out, nil)
	case "json":
		h = slog.NewJSONHandler(out, nil)
	default:
		return nil, fmt.Errorf("--log-format %q: want text or json", o.Format)
	}
	every := o.Every
	if every == 0 {
		every = DefaultEvery
	}
	l := &Log{log: slog.New(h).With("command", o.Command), out: out, src: src, every: int64(every), start: time.Now()}
	attrs := []any{}
	if _, total := src.Progress(); total > 0 {
		attrs = append(attrs, "input_bytes", total)
	}
	if len(o.Metrics) > 0 {
		attrs = append(attrs, "metrics", len(o.Metrics), "metric_keys", strings.Join(o.Metrics, ","))
	}
	l.log.Info("start", append(attrs, "log_every", every, "pid", os.Getpid())...)
	return l, nil
}

// MetricKeys lists the keys of metrics in order, for Options.Metrics: the
// keys of ndcg@10,20 are ndcg@10 and ndcg@20.
func MetricKeys[M interface{ Keys() []string }](metrics []M) []string {
	var keys []string
	for _, m := range metrics {
		keys = append(keys, m.Keys()...)
	}
	return keys
}

// Batch counts a scored batch of rows, and writes a progress line when the
// batches so far are a multiple of the interval; with Start's display
// instead of the service log, the bar shows the rows per second. Its signature is that of
// evaluate.RunOptions.OnBatch.
func (l *Log) Batch(rows int) {
	if l == nil {
		return
	}
	if l.log == nil {
		l.shown.Add(int64(rows)) // the bar's rows per second
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rows += int64(rows)
	l.batches++
	if l.batches%l.every == 0 && l.out.Err() == nil {
		l.log.Info("progress", l.totals()...)
	}
}

// End writes the finish line with err, nil for success, or stops the
// display. Call it once, after the last Batch.
func (l *Log) End(err error) {
	switch {
	case l == nil:
		return
	case l.stop != nil:
		l.stop()
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.out.Err() != nil {
		return
	}
	attrs := l.totals()
	if peak, ok := peakRSS(); ok {
		attrs = append(attrs, "peak_rss_bytes", peak, "peak_rss_mb", round(float64(peak)/1e6, 1))
	}
	if err != nil {
		l.log.Error("finish", append(attrs, "outcome", "error", "error", err.Error())...)
		return
	}
	l.log.Info("finish", append(attrs, "outcome", "ok")...)
}

// Err returns the first error of the service log's writer, after which
// nothing more was written, or nil.
func (l *Log) Err() error {
	if l == nil || l.out == nil {
		return nil
	}
	return l.out.Err()
}

// totals are the counts of the progress and finish lines. l.mu is held.
func (l *Log) totals() []any {
	elapsed := time.Since(l.start).Seconds()
	attrs := []any{"rows", l.rows, "batches", l.batches}
	done, total := l.src.Progress()
	attrs = append(attrs, "bytes_read", done)
	if total > 0 {
		attrs = append(attrs, "input_pct", round(100*float64(done)/float64(total), 1))
	}
	rate := int64(0)
	if elapsed > 0 {
		rate = int64(math.Round(float64(l.rows) / elapsed))
	}
	return append(attrs, "elapsed_s", round(elapsed, 3), "rows_per_s", rate)
}

// round rounds x to digits decimals, so that lines stay short.
func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

// dropWriter passes writes on to w until one fails, and then drops every
// later write without touching w: a log whose reader is gone must cost the
// command nothing more.
type dropWriter struct {
	mu  sync.Mutex
	w   io.Writer
	err error
}

func (d *dropWriter) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		return 0, d.err
	}
	n, err := d.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	d.err = err
	return n, err
}

// Err returns the write error that turned the writer off, or nil.
func (d *dropWriter) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}
