package progress_test

import (
	"bytes"
	"regexp"
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
