package stats_test

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
)

// cancelSafetyNet bounds how long a cancelled resampling may take to
// return before the test gives up on it. It is not what the tests assert:
// they count steps of work, and a resampling that stops as it should
// returns within a step or two, milliseconds. The full work of these tests
// takes minutes.
const cancelSafetyNet = 60 * time.Second

// stepCanceller cancels a context at the at-th step of work it is told of
// and counts the steps. Steps are counted under a lock, so once the
// cancelling step has returned, a goroutine that checks the context before
// each step can take at most the one step whose check it had already
// passed: there are at most at + goroutines − 1 steps in all.
type stepCanceller struct {
	at, limit int
	cancel    context.CancelFunc
	overrun   chan struct{} // closed by the first step beyond limit

	mu    sync.Mutex
	steps int
}

func (c *stepCanceller) step() {
	c.mu.Lock()
	c.steps++
	n := c.steps
	if n == c.at {
		c.cancel()
	}
	if n == c.limit+1 {
		close(c.overrun)
	}
	c.mu.Unlock()
	if n > c.limit {
		select {} // the test has failed: park rather than work on for minutes
	}
}

// requireStopsAtCancel runs run with a context that is cancelled at its
// at-th step of work, which run reports by calling step after each check of
// the context, on as many goroutines as GOMAXPROCS. It requires that run
// returns context.Canceled having taken no step that began after the
// cancellation, and returns the number of steps taken.
func requireStopsAtCancel(t *testing.T, at int, run func(ctx context.Context, step func()) error) int {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &stepCanceller{at: at, limit: at + runtime.GOMAXPROCS(0) - 1, cancel: cancel, overrun: make(chan struct{})}
	errc := make(chan error, 1)
	go func() { errc <- run(ctx, c.step) }()
	select {
	case err := <-errc:
		require.ErrorIs(t, err, context.Canceled)
	case <-c.overrun:
		t.Fatalf("step %d began after the cancellation at step %d", c.limit+1, at)
	case <-time.After(cancelSafetyNet):
		t.Fatalf("no return %v after the start", cancelSafetyNet)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	require.GreaterOrEqual(t, c.steps, at, "cancelled once the work was under way")
	require.LessOrEqual(t, c.steps, c.limit)
	return c.steps
}

// TestResamplingStopsWhenCancelled starts the longest resampling allowed,
// a million replicates of a million units (minutes of work, 31 250 chunks
// of 32 replicates), and cancels it as its second chunk starts: the
// bootstrap and the sign-flip test return the context's error, and no chunk
// starts after the cancellation, since each goroutine checks the context
// before each chunk.
func TestResamplingStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	u := stats.PairedUnits{LeftSum: make([]float64, 1_000_000), RightSum: make([]float64, 1_000_000)}
	for i := range u.LeftSum {
		u.LeftSum[i], u.RightSum[i] = rng.Float64(), rng.Float64()
	}
	for _, tt := range []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{name: "bootstrap", run: func(ctx context.Context) error {
			_, err := stats.PairedBootstrapUnits(u, stats.BootstrapOptions{Resamples: stats.MaxResamples, Context: ctx})
			return err
		}},
		{name: "randomization", run: func(ctx context.Context) error {
			_, err := stats.RandomizationUnits(u, stats.RandomizationOptions{Permutations: stats.MaxResamples, Context: ctx})
			return err
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			chunks := requireStopsAtCancel(t, 2, func(ctx context.Context, step func()) error {
				return tt.run(stats.WithChunkStart(ctx, step))
			})
			t.Logf("%d of %d chunks started", chunks, stats.MaxResamples/32)
		})
	}
}

// TestPairedBootstrapCountsCancelled starts the longest resampling allowed
// of a million samples and cancels it from the statistic of its first
// replicate (the first call is on the sample itself): it returns the
// context's error, and no replicate starts after the cancellation, since
// each goroutine checks the context before each replicate.
func TestPairedBootstrapCountsCancelled(t *testing.T) {
	t.Parallel()
	left, right := pairedNormal(4, 1_000_000, 0)
	steps := requireStopsAtCancel(t, 2, func(ctx context.Context, step func()) error {
		newStat := func() stats.CountStatistic {
			mean := meanStatistic(left, right)()
			return func(counts []int32) (float64, float64) {
				step()
				return mean(counts)
			}
		}
		_, err := stats.PairedBootstrapCounts([]int{400_000, 600_000}, newStat, stats.BootstrapOptions{Resamples: stats.MaxResamples, Context: ctx})
		return err
	})
	t.Logf("the statistic ran on %d of %d replicates", steps-1, stats.MaxResamples)
}

// TestResamplesBounded refuses more than MaxResamples replicates, before
// any work.
func TestResamplesBounded(t *testing.T) {
	t.Parallel()
	u := stats.PairedUnits{LeftSum: []float64{1, 2}, RightSum: []float64{0, 1}}
	_, err := stats.PairedBootstrapUnits(u, stats.BootstrapOptions{Resamples: stats.MaxResamples + 1})
	require.ErrorIs(t, err, stats.ErrBadParameter)
	_, err = stats.RandomizationUnits(u, stats.RandomizationOptions{Permutations: 1_000_000_000})
	require.ErrorIs(t, err, stats.ErrBadParameter)
	_, err = stats.Bootstrap([]float64{1, 2}, stats.BootstrapOptions{Resamples: stats.MaxResamples})
	require.NoError(t, err, "the bound itself is allowed")
}
