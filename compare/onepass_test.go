package compare_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// manyRows is an in-memory store.Rows of several metrics, with draws when
// draws > 1: each user then has 1 to draws rows.
type manyRows struct {
	metrics []string
	ids     []string
	draw    []int64
	vals    [][]float64
	draws   int
	i       int
}

func (r *manyRows) Metrics() []string      { return r.metrics }
func (r *manyRows) HasDraw() bool          { return r.draws > 1 }
func (r *manyRows) Next() bool             { r.i++; return r.i <= len(r.ids) }
func (r *manyRows) SampleID() string       { return r.ids[r.i-1] }
func (r *manyRows) Draw() int64            { return r.draw[r.i-1] }
func (r *manyRows) Values() []float64      { return r.vals[r.i-1] }
func (r *manyRows) Where() string          { return fmt.Sprintf("row %d", r.i) }
func (r *manyRows) Err() error             { return nil }
func (r *manyRows) Progress() (a, b int64) { return 0, 0 }

// oneRun is a run's values of six metrics on 1,500 users: ndcg-like
// values with ties and zeros, a 0/1 hit, a recall with many exact 0 and 1,
// a lower-is-better loss, a constant, and a value equal on both runs.
func oneRun(seed uint64, lift float64, draws int) *manyRows {
	rng := rand.New(rand.NewPCG(seed, 7))
	r := &manyRows{metrics: []string{"ndcg@10", "hit@10", "recall@20", "logloss", "constant", "same"}, draws: draws}
	for u := range 1500 {
		n := 1
		if draws > 1 {
			n = 1 + (u*31)%draws
		}
		for d := range n {
			lifted := rng.IntN(3) == 0
			ndcg := float64((u*13+d)%32) / 32
			hit, recall := float64(rng.IntN(2)), rng.Float64()
			switch {
			case recall < 0.3:
				recall = 0
			case recall > 0.9:
				recall = 1
			}
			loss := 0.2 + rng.ExpFloat64()
			if lifted {
				ndcg, loss = min(1, ndcg+lift), loss-lift
			}
			r.ids = append(r.ids, fmt.Sprintf("user-%04d", u))
			r.draw = append(r.draw, int64(d+1))
			r.vals = append(r.vals, []float64{ndcg, hit, recall, float64(float32(loss)), 0.5, float64((u*7)%10) / 10})
		}
	}
	return r
}

// TestAllMetricsAtOnceEqualsOneByOne compares every metric of two
// evaluations in one comparison, which pairs them in one join, and each
// metric on its own with the same seed: every number and word is the same,
// bit for bit, for every method, with and without draws.
func TestAllMetricsAtOnceEqualsOneByOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	log := func(run string, seed uint64, lift float64, draws int) *store.Evaluation {
		ev := store.NewEvaluation{Experiment: "many", Run: run, EvalSet: fmt.Sprintf("test-%d", draws), LowerIsBetter: []string{"logloss"}}
		l, err := st.LogEvaluation(ctx, ev, oneRun(seed, lift, draws))
		require.NoError(t, err)
		return &l.Evaluation
	}
	type side struct{ base, cand *store.Evaluation }
	sets := map[string]side{
		"one row a user": {log("base", 1, 0, 1), log("cand", 2, 0.05, 1)},
		"draws":          {log("base-draws", 3, 0, 3), log("cand-draws", 4, 0.05, 3)},
	}
	methods := []struct {
		method     compare.Method
		resampling compare.Resampling
		draws      bool
	}{
		{compare.Bootstrap, compare.ResamplingAuto, true},
		{compare.Bootstrap, compare.Poisson, true},
		{compare.PairedT, compare.ResamplingAuto, false},
		{compare.Wilcoxon, compare.ResamplingAuto, false},
	}
	for name, s := range sets {
		for _, m := range methods {
			if name == "draws" && !m.draws {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s/%s", name, m.method, m.resampling), func(t *testing.T) {
				opts := compare.Options{Method: m.method, Resampling: m.resampling, Resamples: 500, Seed: 11, Adjust: compare.AdjustNone}
				all, err := compare.Evaluations(ctx, st, s.base, s.cand, opts)
				require.NoError(t, err)
				require.Len(t, all.Metrics, 6)
				for i, r := range all.Metrics {
					one := opts
					one.Metrics = []string{r.Metric}
					alone, err := compare.Evaluations(ctx, st, s.base, s.cand, one)
					require.NoError(t, err)
					a, err := json.Marshal(r)
					require.NoError(t, err)
					b, err := json.Marshal(alone.Metrics[0])
					require.NoError(t, err)
					require.JSONEq(t, string(b), string(a), "metric %d, %s", i, r.Metric)
				}
			})
		}
	}
	// McNemar on the 0/1 metric: alone it is tested; among metrics it does
	// not fit, the comparison fails naming the one that does not.
	one := sets["one row a user"]
	opts := compare.Options{Method: compare.McNemar, Metrics: []string{"hit@10"}, Resamples: 500, Seed: 3}
	alone, err := compare.Evaluations(ctx, st, one.base, one.cand, opts)
	require.NoError(t, err)
	require.NotNil(t, alone.Metrics[0].McNemar)
	opts.Metrics = []string{"hit@10", "ndcg@10"}
	_, err = compare.Evaluations(ctx, st, one.base, one.cand, opts)
	require.ErrorContains(t, err, "ndcg@10: ")
	require.ErrorContains(t, err, "0/1")
}

// TestReportReadsOnceEqualsEachLeaderboard builds an experiment's report,
// which reads each evaluation's values once for all its metrics, and each
// of its leaderboards on its own, which reads them for its metric: the
// same leaderboards, number for number.
func TestReportReadsOnceEqualsEachLeaderboard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	for i, lift := range []float64{0, 0.05, 0.02} {
		ev := store.NewEvaluation{Experiment: "many", Run: fmt.Sprintf("run-%d", i), EvalSet: "test", LowerIsBetter: []string{"logloss"}}
		_, err := st.LogEvaluation(ctx, ev, oneRun(uint64(i+1), lift, 1))
		require.NoError(t, err)
	}
	opts := compare.Options{Resamples: 300, Seed: 5}
	x, err := compare.Summarize(ctx, st, compare.ExperimentQuery{Experiment: "many", Options: opts})
	require.NoError(t, err)
	require.Len(t, x.Leaderboards, 6)
	for _, lb := range x.Leaderboards {
		alone, err := compare.NewLeaderboard(ctx, st, compare.LeaderboardQuery{Experiment: "many", EvalSet: lb.EvalSet, Metric: lb.Metric, Ranks: true, Options: opts})
		require.NoError(t, err)
		a, err := json.Marshal(lb)
		require.NoError(t, err)
		b, err := json.Marshal(alone)
		require.NoError(t, err)
		require.JSONEq(t, string(b), string(a), lb.Metric)
		require.Equal(t, alone.Ranking, lb.Ranking, lb.Metric)
	}
}
