// Package progress shows how far a command has got: a bar on a terminal, a
// plain line every few seconds for a log, a structured service log through
// log/slog (Begin), or nothing. The bar and the plain lines poll the
// reader's byte count, so reading is never slowed by drawing; the service
// log counts the batches its caller reports, and a log writer that fails is
// dropped, never failing or slowing the command.
//
// It does not know what is read: any reader that counts its bytes will do.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// Source is a reader that reports how many bytes of its input it has read
// and the input's size, and may be asked from another goroutine.
type Source interface {
	Progress() (done, total int64)
}

// barFrom is the input size from which "auto" shows a bar: smaller inputs
// are read before a bar would say anything.
const barFrom = 32 << 20

// Start shows the progress of src on w in mode, and returns a function that
// stops it, to call once reading is done:
//
//   - "bar": a bar of bytes, redrawn ten times a second, cleared at the
//     end, with the bytes read per second since the start;
//   - "log": a line every 5 seconds, "verdict evaluate: 40% of the input
//     read (120 of 300 MB) after 10 s", for logs and CI;
//   - "none": nothing;
//   - "auto": a bar when w is a terminal and the input is 32 MB or more,
//     nothing otherwise.
//
// label names the command in the bar and the lines. An unknown mode is an
// error that names it and the modes.
func Start(w io.Writer, mode, label string, src Source) (stop func(), err error) {
	return start(w, mode, label, src, nil)
}

// start is Start, whose bar also shows the rows per second of rows (nil:
// not counted).
func start(w io.Writer, mode, label string, src Source, rows *atomic.Int64) (stop func(), err error) {
	_, total := src.Progress()
	switch mode {
	case "auto":
		mode = "none"
		if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) && total >= barFrom {
			mode = "bar"
		}
	case "bar", "log", "none":
	default:
		return nil, fmt.Errorf("%q: want auto, bar, log or none", mode)
	}
	if mode == "none" {
		return func() {}, nil
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var b *bar
		every := 5 * time.Second
		if mode == "bar" {
			b = newBar(w, label, src, rows, time.Now)
			every = 100 * time.Millisecond
		}
		start := time.Now()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				if b != nil {
					b.clear()
				}
				return
			case <-tick.C:
				if b != nil {
					b.draw()
					continue
				}
				n, _ := src.Progress()
				fmt.Fprintf(w, "verdict %s: %.0f%% of the input read (%d of %d MB) after %.0f s\n",
					label, 100*float64(n)/float64(max(total, 1)), n>>20, total>>20, time.Since(start).Seconds())
			}
		}
	}()
	return func() { close(done); <-finished }, nil
}
