package stats_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
)

// TestResamplingStopsWhenCancelled starts the longest resampling allowed,
// a million replicates of a million units (minutes of work), and cancels it
// after 100 ms: the bootstrap and the sign-flip test return the context's
// error within a second of the cancellation.
func TestResamplingStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 7))
	u := stats.PairedUnits{LeftSum: make([]float64, 1_000_000), RightSum: make([]float64, 1_000_000)}
	for i := range u.LeftSum {
		u.LeftSum[i], u.RightSum[i] = rng.Float64(), rng.Float64()
	}
	for name, run := range map[string]func(ctx context.Context) error{
		"bootstrap": func(ctx context.Context) error {
			_, err := stats.PairedBootstrapUnits(u, stats.BootstrapOptions{Resamples: stats.MaxResamples, Context: ctx})
			return err
		},
		"randomization": func(ctx context.Context) error {
			_, err := stats.RandomizationUnits(u, stats.RandomizationOptions{Permutations: stats.MaxResamples, Context: ctx})
			return err
		},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		err := run(ctx)
		require.ErrorIs(t, err, context.Canceled, name)
		require.Less(t, time.Since(start), 1100*time.Millisecond, "%s stops within a second of the cancellation", name)
	}
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
