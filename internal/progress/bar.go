package progress

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"
)

// barWidth is the width of the bar itself, in characters.
const barWidth = 30

// bar draws the progress of a source as one line, redrawn in place: the
// share of the input read as a bar and a percentage, the bytes read of the
// total, and the rates since the bar began, bytes and (when rows are
// counted) rows per second. The rates are the counts over the wall time
// since the start, not over the last tick: a tick that finds a burst of
// buffered input does not make a rate of it.
type bar struct {
	w     io.Writer
	label string
	src   Source
	rows  *atomic.Int64 // rows scored so far; nil when nothing counts them
	start time.Time
	now   func() time.Time
	drawn int // the width of the line last drawn, to clear
}

func newBar(w io.Writer, label string, src Source, rows *atomic.Int64, now func() time.Time) *bar {
	return &bar{w: w, label: label, src: src, rows: rows, start: now(), now: now}
}

// line is the bar's text at this moment.
func (b *bar) line() string {
	done, total := b.src.Progress()
	var rows int64
	if b.rows != nil {
		rows = b.rows.Load()
	}
	return barLine(b.label, done, total, rows, b.now().Sub(b.start))
}

// draw writes the line over the one before.
func (b *bar) draw() {
	s := b.line()
	n := len([]rune(s))
	fmt.Fprint(b.w, "\r"+s+strings.Repeat(" ", max(b.drawn-n, 0)))
	b.drawn = n
}

// clear blanks the line drawn, leaving the cursor at its start.
func (b *bar) clear() {
	if b.drawn > 0 {
		fmt.Fprint(b.w, "\r"+strings.Repeat(" ", b.drawn)+"\r")
	}
}

// barLine is the bar of done bytes of total, with rows scored, elapsed
// after the start: "evaluate  40% |████████████                  | 120
// MB/300 MB, 12.0 MB/s, 45,000 rows/s, 10s". Rows per second are left out
// while no row is counted, and both rates before any time has passed.
func barLine(label string, done, total, rows int64, elapsed time.Duration) string {
	share := 0.0
	if total > 0 {
		share = min(max(float64(done)/float64(total), 0), 1)
	}
	filled := int(share * barWidth)
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %3.0f%% |%s%s| %s/%s", label, 100*share,
		strings.Repeat("█", filled), strings.Repeat(" ", barWidth-filled), humanBytes(float64(done)), humanBytes(float64(total)))
	if s := elapsed.Seconds(); s > 0 {
		fmt.Fprintf(&sb, ", %s/s", humanBytes(float64(done)/s))
		if rows > 0 {
			fmt.Fprintf(&sb, ", %s rows/s", thousands(int64(float64(rows)/s+0.5)))
		}
	}
	fmt.Fprintf(&sb, ", %s", elapsed.Truncate(time.Second))
	return sb.String()
}

// humanBytes is n bytes in units of 1000: "512 B", "24 MB", "1.5 GB".
func humanBytes(n float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB"}
	i := 0
	for n >= 999.5 && i < len(units)-1 {
		n /= 1000
		i++
	}
	if i == 0 || n >= 9.95 {
		return fmt.Sprintf("%.0f %s", n, units[i])
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
