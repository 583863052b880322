package progress_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/progress"
)

// counter is a source whose bytes read a test sets.
type counter struct{ done, total atomic.Int64 }

func (c *counter) Progress() (int64, int64) { return c.done.Load(), c.total.Load() }

// syncBuffer is a buffer written by the progress goroutine and read by the
// test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestStart(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"auto", "none"} {
		var out syncBuffer
		src := &counter{}
		src.total.Store(1 << 30)
		stop, err := progress.Start(&out, mode, "log", src)
		require.NoError(t, err)
		stop()
		require.Empty(t, out.String(), "%s: nothing, and not on a buffer", mode)
	}

	_, err := progress.Start(&syncBuffer{}, "loud", "log", &counter{})
	require.EqualError(t, err, `"loud": want auto, bar, log or none`)
}

func TestStartLog(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits for a line, 5 s")
	}
	var out syncBuffer
	src := &counter{}
	src.total.Store(300 << 20)
	src.done.Store(120 << 20)
	stop, err := progress.Start(&out, "log", "evaluate", src)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return out.String() != "" }, 10*time.Second, 50*time.Millisecond)
	stop()
	require.Regexp(t, regexp.MustCompile(`^verdict evaluate: 40% of the input read \(120 of 300 MB\) after \d s\n`), out.String())
}

// TestStartBarRate reads a 24 MB input at once: the bar's rate is the bytes
// over the wall time since the start, at most 24 MB over its first tick's
// 100 ms, never terabytes a second.
func TestStartBarRate(t *testing.T) {
	t.Parallel()
	var out syncBuffer
	src := &counter{}
	src.total.Store(24_000_000)
	src.done.Store(24_000_000)
	began := time.Now()
	stop, err := progress.Start(&out, "bar", "evaluate", src)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "/s") }, 5*time.Second, 10*time.Millisecond)
	elapsed := time.Since(began)
	stop()
	m := regexp.MustCompile(`24 MB/24 MB, ([0-9.]+) (B|kB|MB)/s`).FindStringSubmatch(out.String())
	require.NotNil(t, m, out.String())
	rate, err := strconv.ParseFloat(m[1], 64)
	require.NoError(t, err)
	rate *= map[string]float64{"B": 1, "kB": 1e3, "MB": 1e6}[m[2]]
	require.LessOrEqual(t, rate, 24e6/0.1*1.05, "at most 24 MB over the first tick")
	require.GreaterOrEqual(t, rate, 24e6/elapsed.Seconds()*0.95, "at least 24 MB over the whole wait")
}
