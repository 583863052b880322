package evaluate_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/stats"
)

// TestWholeSetBootstrap compares the demo's item-kNN and popularity
// rankings of MovieLens on coverage@10 by the paired bootstrap over the 610
// users (2,000 replicates, seed 1). The observed values must be Run's
// coverage of each model, and their gap is so wide (item-kNN recommends
// many times the movies popularity does) that no replicate closes it: the
// p-value is the least 2,000 replicates give, 2/2001. A model against
// itself differs on no replicate, so p is 1 and the interval is [0, 0].
// The replicates also show the bias of a set count under resampling (see
// the package documentation): the interval lies below the observed gap.
func TestWholeSetBootstrap(t *testing.T) {
	t.Parallel()
	ids, knn, targets := movieLens(t, "knn", 10)
	_, pop, _ := movieLens(t, "popularity", 10)
	coverage := func() evaluate.WholeSetMetric { return evaluate.CatalogueCoverage(10, movieLensMovies) }
	runCoverage := func(ranked [][]int64) float64 {
		src, err := evaluate.NewInMemoryRankings(ids, ranked, targets, 0)
		require.NoError(t, err)
		res, err := evaluate.Run(context.Background(), src, evaluate.RunOptions{
			Metrics: []evaluate.Metric{evaluate.HitRate(10)}, WholeSet: []evaluate.WholeSetMetric{coverage()}})
		require.NoError(t, err)
		return res.Means["coverage@10"]
	}
	opts := stats.BootstrapOptions{Resamples: 2000, Seed: 1}

	res, err := evaluate.WholeSetBootstrap(ids, knn, pop, targets, 0, coverage, "coverage@10", opts)
	require.NoError(t, err)
	require.Equal(t, runCoverage(knn), res.Left)
	require.Equal(t, runCoverage(pop), res.Right)
	require.Equal(t, res.Left-res.Right, res.Difference)
	require.Greater(t, res.Low, 0.0, "the interval excludes 0")
	// A replicate holds about 63 % of the users, the others drawn
	// again, and duplicates add no movie: coverage shrinks on every
	// replicate, item-kNN's most, so here the whole interval lies below
	// the observed gap.
	require.Less(t, res.High, res.Difference)
	require.InDelta(t, 2.0/2001, res.PValue, 1e-15, "formula of stats.PairedBootstrapCounts, no replicate on the other side of 0")
	require.Zero(t, res.Undefined)

	again, err := evaluate.WholeSetBootstrap(ids, knn, pop, targets, 0, coverage, "coverage@10", opts)
	require.NoError(t, err)
	require.Equal(t, res, again, "seeded: the same bit for bit")

	same, err := evaluate.WholeSetBootstrap(ids, knn, knn, targets, 0, coverage, "coverage@10", opts)
	require.NoError(t, err)
	require.Zero(t, same.Difference)
	require.Zero(t, same.Low)
	require.Zero(t, same.High)
	require.Equal(t, 1.0, same.PValue)

	_, err = evaluate.WholeSetBootstrap(ids, knn, pop, targets, 0, coverage, "coverage@20", opts)
	require.ErrorIs(t, err, evaluate.ErrBadMetric)
	_, err = evaluate.WholeSetBootstrap(ids, knn, pop, make([][]int64, len(ids)), 0, coverage, "coverage@10", opts)
	require.ErrorIs(t, err, stats.ErrTooFew, "no row has targets")
}
