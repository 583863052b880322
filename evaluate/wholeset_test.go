package evaluate_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
)

// movieLensMovies is the catalogue's size for coverage: the 9,742 movies of
// MovieLens "latest-small", as its README counts them.
const movieLensMovies = 9742

// TestCatalogueCoverage computes coverage@5 and coverage@20 of the demo's
// popularity and item-kNN rankings of MovieLens, read by each reader. The
// expected value is computed here independently: every user's top k movie
// IDs put in one list, sorted and compacted, and counted, over 9,742.
// Popularity recommends nearly the same movies to everyone, so its
// coverage is a small fraction of item-kNN's.
func TestCatalogueCoverage(t *testing.T) {
	t.Parallel()
	want := func(ranked [][]int64, k int) float64 {
		var all []int64
		for _, row := range ranked {
			all = append(all, row[:min(k, len(row))]...)
		}
		slices.Sort(all)
		return float64(len(slices.Compact(all))) / movieLensMovies
	}
	got := map[string]float64{}
	for _, model := range []string{"popularity", "knn"} {
		ids, ranked, targets := movieLens(t, model, 20)
		items, scores, npyTargets, npyIDs := movieLensNumPy(t, ids, ranked, targets)
		preds, tgts := movieLensTables(t, ids, ranked, targets, false)
		run, qrels := movieLensTREC(t, ids, ranked, targets)
		for name, open := range map[string]func() (evaluate.Rankings, error){
			"numpy": func() (evaluate.Rankings, error) {
				return evaluate.OpenNumPyRankings(items, scores, npyTargets, npyIDs, evaluate.RankingOptions{BatchSize: 64})
			},
			"table": func() (evaluate.Rankings, error) {
				return evaluate.OpenTableRankings(preds, tgts, evaluate.RankingOptions{BatchSize: 64})
			},
			"trec": func() (evaluate.Rankings, error) {
				return evaluate.OpenTRECRankings(run, qrels, evaluate.RankingOptions{BatchSize: 64})
			},
			"in-memory": func() (evaluate.Rankings, error) {
				return evaluate.NewInMemoryRankings(ids, ranked, targets, 0)
			},
		} {
			src, err := open()
			require.NoError(t, err)
			res, err := evaluate.Run(context.Background(), src, evaluate.RunOptions{
				Metrics:  []evaluate.Metric{evaluate.NDCG(10)},
				WholeSet: []evaluate.WholeSetMetric{evaluate.CatalogueCoverage(5, movieLensMovies), evaluate.CatalogueCoverage(20, movieLensMovies)},
				Workers:  2,
			})
			require.NoError(t, src.Close())
			require.NoError(t, err, "%s %s", model, name)
			require.Equal(t, []string{"ndcg@10"}, res.Keys)
			require.Equal(t, []string{"coverage@5", "coverage@20"}, res.WholeSetKeys)
			require.Equal(t, 20, res.RequiredK, "coverage@20 looks at rank 20")
			for _, k := range []int{5, 20} {
				key := "coverage@" + []string{"5", "20"}[k/20]
				// Counts over the same integer: equal to the last bit.
				require.Equal(t, want(ranked, k), res.Means[key], "%s %s %s", model, name, key)
			}
			got[model] = res.Means["coverage@20"]
		}
	}
	require.Less(t, got["popularity"], got["knn"]/5)
}

// TestWholeSetKeys checks that Run refuses a whole-set metric whose key is
// already taken.
func TestWholeSetKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		metrics  []evaluate.Metric
		wholeSet []evaluate.WholeSetMetric
	}{
		{"twice", nil, []evaluate.WholeSetMetric{evaluate.CatalogueCoverage(3, 10), evaluate.CatalogueCoverage(3, 20)}},
		{"nil", nil, []evaluate.WholeSetMetric{nil}},
		{"per-user key", []evaluate.Metric{constMetric("coverage@3")}, []evaluate.WholeSetMetric{evaluate.CatalogueCoverage(3, 10)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := evaluate.Run(context.Background(), openFixtures(t, nil), evaluate.RunOptions{Metrics: tc.metrics, WholeSet: tc.wholeSet})
			require.ErrorIs(t, err, evaluate.ErrBadMetric)
		})
	}
	require.Panics(t, func() { evaluate.CatalogueCoverage(0, 10) })
	require.Panics(t, func() { evaluate.CatalogueCoverage(10, 0) })
}

// constMetric is a per-user metric with one key, the string, and 0 for
// every row.
type constMetric string

func (n constMetric) Keys() []string                           { return []string{string(n)} }
func (n constMetric) RequiredK() int                           { return 1 }
func (n constMetric) Compute(b *evaluate.Batch, out []float64) {}
