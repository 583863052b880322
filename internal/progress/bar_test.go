package progress

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// source is a Source whose counts a test sets.
type source struct{ done, total int64 }

func (s *source) Progress() (int64, int64) { return s.done, s.total }

// clock is a time a test moves.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestBarRatesAreOverTheWallTimeSinceTheStart(t *testing.T) {
	t.Parallel()
	src := &source{total: 24_000_000}
	var rows atomic.Int64
	c := &clock{t: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)}
	var out bytes.Buffer
	b := newBar(&out, "evaluate", src, &rows, c.now)

	// 6 MB and 30,000 rows in the first 2 s: 3 MB/s and 15,000 rows/s.
	src.done, c.t = 6_000_000, c.t.Add(2*time.Second)
	rows.Add(30_000)
	require.Equal(t, "evaluate  25% |███████                       | 6.0 MB/24 MB, 3.0 MB/s, 15,000 rows/s, 2s", b.line())

	// A burst of 18 MB found by one tick 100 ms later is 24 MB over 2.1 s,
	// not 18 MB over 0.1 s (180 MB/s).
	src.done, c.t = 24_000_000, c.t.Add(100*time.Millisecond)
	rows.Add(90_000)
	require.Equal(t, "evaluate 100% |██████████████████████████████| 24 MB/24 MB, 11 MB/s, 57,143 rows/s, 2s", b.line())

	b.draw()
	require.True(t, strings.HasPrefix(out.String(), "\revaluate 100% |"))
	b.clear()
	require.True(t, strings.HasSuffix(out.String(), "\r"+strings.Repeat(" ", len([]rune(b.line())))+"\r"), "the line is blanked")
}

func TestBarLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		done, total, rows int64
		elapsed           time.Duration
		want              string
	}{
		{0, 0, 0, 0, "log   0% |                              | 0 B/0 B, 0s"},
		{500, 1000, 0, time.Second, "log  50% |███████████████               | 500 B/1.0 kB, 500 B/s, 1s"},
		{1_500_000_000_000, 3_000_000_000_000, 4_000_000, 1000 * time.Second,
			"log  50% |███████████████               | 1.5 TB/3.0 TB, 1.5 GB/s, 4,000 rows/s, 16m40s"},
	} {
		require.Equal(t, c.want, barLine("log", c.done, c.total, c.rows, c.elapsed))
	}
}

func TestBarCountsTheRowsOfBatches(t *testing.T) {
	t.Parallel()
	l, err := Begin(&bytes.Buffer{}, &source{total: 1}, Options{Mode: "none"})
	require.NoError(t, err)
	l.Batch(4096)
	l.Batch(100)
	require.Equal(t, int64(4196), l.shown.Load())
	l.End(nil)
}
