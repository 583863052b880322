package stats_test

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
)

// TestResamplingReproducible checks that the same inputs and seed give the
// same results bit for bit on one core and on two. Exact equality is the
// point here, not a tolerance: a recorded comparison must be reproducible.
// The inputs are large enough for the resampling to run in parallel. Not
// parallel itself: it sets GOMAXPROCS.
func TestResamplingReproducible(t *testing.T) {
	rng := rand.New(rand.NewPCG(77, 7))
	const n = 20_000
	left, right := make([]float64, n), make([]float64, n)
	units := make([]string, n)
	ids := make(map[string]struct{}, n)
	for i := range left {
		left[i] = rng.Float64()
		right[i] = left[i] + 0.002 + 0.1*rng.NormFloat64()
		units[i] = "user " + strconv.Itoa(rng.IntN(n/3))
		ids[units[i]] = struct{}{}
	}

	type results struct {
		percentile, bca, cluster, clusterBCa stats.BootstrapResult
		rows, clustered                      stats.RandomizationResult
	}
	run := func(procs int, seed uint64) results {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var r results
		var err error
		r.percentile, err = stats.PairedBootstrap(left, right, nil, stats.BootstrapOptions{Seed: seed})
		require.NoError(t, err)
		r.bca, err = stats.PairedBootstrap(left, right, nil, stats.BootstrapOptions{Seed: seed, Method: stats.BCa})
		require.NoError(t, err)
		r.cluster, err = stats.PairedBootstrap(left, right, units, stats.BootstrapOptions{Seed: seed})
		require.NoError(t, err)
		r.clusterBCa, err = stats.PairedBootstrap(left, right, units, stats.BootstrapOptions{Seed: seed, Method: stats.BCa})
		require.NoError(t, err)
		r.rows, err = stats.Randomization(left, right, nil, stats.RandomizationOptions{Seed: seed})
		require.NoError(t, err)
		r.clustered, err = stats.Randomization(left, right, units, stats.RandomizationOptions{Seed: seed})
		require.NoError(t, err)
		return r
	}
	one, two := run(1, 3), run(2, 3)
	require.Equal(t, one, two)
	require.Equal(t, one, run(2, 3), "and again")

	other := run(2, 4)
	require.NotEqual(t, one.percentile, other.percentile, "another seed, other resamples")
	require.NotEqual(t, one.cluster, other.cluster)
	require.Greater(t, len(ids), n/4, "units with several rows each")
}
