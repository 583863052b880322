package demo

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/stats"
)

// bits are the IEEE 754 bits of every parameter of m, so that a comparison
// tells -0 from 0 and sees a NaN.
func (m *bpr) bits() []uint64 {
	var out []uint64
	for _, v := range [][]float64{m.user, m.item, m.bias} {
		for _, x := range v {
			out = append(out, math.Float64bits(x))
		}
	}
	return out
}

// TestTrainBPRReproducible trains the demo's factorisation twice with one
// seed, which must give the same parameters bit for bit, and once with
// another, which must not; the seeded runs the story logs must rank only
// unseen movies.
func TestTrainBPRReproducible(t *testing.T) {
	t.Parallel()
	s, err := DemoSplit()
	require.NoError(t, err)
	ix := newInteractions(s)
	require.Len(t, ix.users, 610)
	require.Len(t, ix.pairs, len(s.TrainRatings))

	a, b, c := trainBPR(ix, 16, 1), trainBPR(ix, 16, 1), trainBPR(ix, 16, 2)
	require.Equal(t, a.bits(), b.bits(), "one seed, the same bits")
	require.NotEqual(t, a.bits(), c.bits(), "another seed, another model")
	for _, v := range [][]float64{a.user, a.item, a.bias} {
		for _, x := range v {
			require.False(t, math.IsNaN(x) || math.IsInf(x, 0))
		}
	}

	models := SeededMFs(s, []int{16}, []uint64{1, 2})
	require.Equal(t, "mf-16-seed1", models[0].Name)
	require.Equal(t, "mf-16", models[0].Group)
	require.Equal(t, uint64(2), models[1].Params["seed"])
	u := s.Users[0]
	seen := map[int64]bool{}
	for _, m := range s.Train[u] {
		seen[m] = true
	}
	top := models[0].Rank(u, 20)
	require.Len(t, top, 20)
	for _, m := range top {
		require.False(t, seen[m], "only unseen movies")
	}
	require.Equal(t, top, mf(ix, 16, 1).Rank(u, 20), "trained alone or with others, the same model")
	require.NotEqual(t, top, models[1].Rank(u, 20), "seed 2 ranks otherwise")
}

// TestBPRTop checks the selection of a user's best unseen movies against a
// hand-made model: scores tie on movie ID, rated movies are skipped.
func TestBPRTop(t *testing.T) {
	t.Parallel()
	ix := &interactions{users: []int64{7}, movies: []int64{10, 20, 30, 40, 50}, user: map[int64]int{7: 0},
		rated: []uint64{1 << 2}} // user 7 rated movie 30
	m := &bpr{factors: 1, user: []float64{1}, item: []float64{0, 0, 0, 0, 0}, bias: []float64{0.5, 0.9, 2, 0.5, 0.1}}
	require.Equal(t, []int64{20, 10, 40}, m.top(ix, 0, 3))
	require.Equal(t, []int64{20, 10, 40, 50}, m.top(ix, 0, 10))
}

// TestAgreement checks the sentence that sets one pair of runs against the
// configurations over their seeds, for each way the two can fall out.
func TestAgreement(t *testing.T) {
	t.Parallel()
	result := func(b, c string, winner compare.Side, diff, runToRun float64) *compare.MetricResult {
		return &compare.MetricResult{Metric: "ndcg@10", Baseline: b, Candidate: c, Winner: winner,
			Difference: stats.Interval{Estimate: diff},
			Seeds:      &compare.SeedDetail{RunToRun: runToRun, SeedNoiseDominates: runToRun >= math.Abs(diff)}}
	}
	pair := func(w compare.Side) *compare.MetricResult { return result("a-seed1", "b-seed1", w, -0.01, 0) }
	for _, c := range []struct {
		pair, groups *compare.MetricResult
		want         string
	}{
		{pair(compare.Candidate), result("a", "b", compare.Neither, -0.002, 0.005),
			"the single pair of runs calls a winner, b-seed1, but over 3 seeds each the configurations are not distinguishable; seed noise is as large as the gap: two runs of one configuration typically differ by 0.0050 on ndcg@10, the configurations by 0.0020."},
		{pair(compare.Neither), result("a", "b", compare.Baseline, 0.02, 0.005),
			"the single pair of runs cannot tell them apart, but over 3 seeds each a is better; two runs of one configuration typically differ by 0.0050 on ndcg@10, less than the configurations' gap of 0.0200."},
		{pair(compare.Neither), result("a", "b", compare.Neither, 0.002, 0.005),
			"both agree: neither the single pair of runs nor the configurations over 3 seeds each are distinguishable; seed noise"},
		{pair(compare.Candidate), result("a", "b", compare.Candidate, -0.02, 0.005),
			"both agree: b-seed1 wins the single pair, and b wins over 3 seeds each;"},
		{pair(compare.Baseline), result("a", "b", compare.Candidate, -0.02, 0.005),
			"they disagree: the single pair of runs calls a-seed1, the configurations over 3 seeds each b;"},
	} {
		require.Contains(t, agreement(c.pair, c.groups, 3), c.want)
	}
}
