package compare_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// twoDeployments opens a store on a 3-node Citus cluster, distributed
// into 4 shards, and one on a single server, both closed when t ends.
func twoDeployments(t *testing.T) (cluster, one *store.Store) {
	t.Helper()
	ctx := context.Background()
	cluster, err := store.Open(ctx, storetest.Citus(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(cluster.Close)
	one, err = store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(one.Close)
	_, err = cluster.Distribute(ctx, store.DistributeOptions{ShardCount: 4})
	require.NoError(t, err)
	return cluster, one
}

// wideRows are per-unit values of two metrics, one row per unit, as
// store.Rows.
type wideRows struct {
	metrics []string
	ids     []string
	vals    [][]float64
	i       int
}

func (r *wideRows) Metrics() []string      { return r.metrics }
func (r *wideRows) HasDraw() bool          { return false }
func (r *wideRows) Next() bool             { r.i++; return r.i <= len(r.ids) }
func (r *wideRows) SampleID() string       { return r.ids[r.i-1] }
func (r *wideRows) Draw() int64            { return 0 }
func (r *wideRows) Values() []float64      { return r.vals[r.i-1] }
func (r *wideRows) Where() string          { return fmt.Sprintf("row %d", r.i) }
func (r *wideRows) Err() error             { return nil }
func (r *wideRows) Progress() (a, b int64) { return 0, 0 }

// scaleRun is one run's values on 2,400 users: an ndcg-like metric (a
// third zeros, multiples of 1/32, many ties) that run lift raises on some
// users, and a lower-is-better latency in milliseconds.
func scaleRun(seed uint64, lift float64) *wideRows {
	rng := rand.New(rand.NewPCG(seed, 99))
	r := &wideRows{metrics: []string{"ndcg@10", "latency_ms"}}
	for u := range 2400 {
		ndcg := 0.0
		if (u*7)%3 != 0 {
			ndcg = float64((u*13)%32) / 32
		}
		if rng.IntN(4) == 0 {
			ndcg = min(1, ndcg+lift)
		}
		r.ids = append(r.ids, fmt.Sprintf("user-%05d", u))
		r.vals = append(r.vals, []float64{ndcg, float64(float32(20 + rng.ExpFloat64()*15 - 40*lift))})
	}
	return r
}

// TestDistributedEqualsOneServer runs the same operations on a real
// 3-node Citus cluster and on one PostgreSQL server over the same data:
// evaluations logged before and after `verdict db distribute`, comparisons
// by the Poisson bootstrap with its sign-flip test, the t-test and the
// signed-rank test (recorded, with their sentences and --fail-on), a
// ranking, a leaderboard and the history. Every number and every word is
// the same, bit for bit; on the cluster the workers paired, summed and
// hashed, and the Poisson replicates were drawn from the streamed
// differences (auto chose the Poisson bootstrap there, which only the
// pushed-down path does on its own).
func TestDistributedEqualsOneServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	citusURL := storetest.Citus(t)
	cs, err := store.Open(ctx, citusURL, store.Options{})
	require.NoError(t, err)
	t.Cleanup(cs.Close)
	ps, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(ps.Close)

	type pair struct{ citus, plain *store.Evaluation }
	log := func(run string, seed uint64, lift float64) pair {
		var p pair
		for i, st := range []*store.Store{cs, ps} {
			ev := store.NewEvaluation{Experiment: "scale", Run: run, EvalSet: "test", LowerIsBetter: []string{"latency_ms"}}
			l, err := st.LogEvaluation(ctx, ev, scaleRun(seed, lift))
			require.NoError(t, err)
			if i == 0 {
				p.citus = &l.Evaluation
			} else {
				p.plain = &l.Evaluation
			}
		}
		return p
	}
	start := time.Now()
	step := func(what string) { t.Logf("%s: %.1fs", what, time.Since(start).Seconds()); start = time.Now() }
	base := log("base", 1, 0)
	cand := log("cand", 2, 0.05)
	rep, err := cs.Distribute(ctx, store.DistributeOptions{ShardCount: 4})
	require.NoError(t, err)
	require.Equal(t, int64(2), rep.Evaluations)
	step("log and distribute")
	third := log("third", 3, 0.02) // logged on the distributed database
	distributed, err := cs.Distributed(ctx)
	require.NoError(t, err)
	require.True(t, distributed)

	same := func(what string, a, b any) {
		t.Helper()
		ja, err := json.Marshal(a)
		require.NoError(t, err)
		jb, err := json.Marshal(b)
		require.NoError(t, err)
		require.JSONEq(t, string(jb), string(ja), what)
	}
	results := func(c *compare.Comparison) []compare.MetricResult {
		var out []compare.MetricResult
		for _, r := range c.Metrics {
			m := *r
			m.ComparisonID = nil
			out = append(out, m)
		}
		return out
	}
	for _, tc := range []struct {
		name               string
		method             compare.Method
		citusRes, plainRes compare.Resampling
		pair1, pair2       pair
	}{
		{"poisson bootstrap and sign flips", compare.Bootstrap, compare.Poisson, compare.Poisson, base, cand},
		{"auto resampling on the cluster", compare.Bootstrap, compare.ResamplingAuto, compare.Poisson, cand, third},
		{"t", compare.PairedT, compare.ResamplingAuto, compare.ResamplingAuto, base, cand},
		{"wilcoxon", compare.Wilcoxon, compare.Poisson, compare.Poisson, third, cand},
	} {
		opts := compare.Options{Method: tc.method, Resamples: 300, Seed: 11, Record: true, Sentence: report.Verdict}
		opts.Resampling = tc.citusRes
		onCitus, err := compare.Evaluations(ctx, cs, tc.pair1.citus, tc.pair2.citus, opts)
		require.NoError(t, err, tc.name)
		opts.Resampling = tc.plainRes
		onPlain, err := compare.Evaluations(ctx, ps, tc.pair1.plain, tc.pair2.plain, opts)
		require.NoError(t, err, tc.name)
		same(tc.name, results(onCitus), results(onPlain))
		for _, r := range onCitus.Metrics {
			require.NotEmpty(t, r.Verdict)
			if tc.method != compare.PairedT {
				require.Equal(t, "poisson", r.Resampling, tc.name)
			}
		}
		step(tc.name)
		for _, g := range []compare.Gate{compare.FailOnRegression, compare.FailOnDifference} {
			require.Equal(t, onPlain.Failed(g) == nil, onCitus.Failed(g) == nil, "%s: --fail-on %s", tc.name, g)
		}
	}

	evals := func(pick func(pair) *store.Evaluation) []*store.Evaluation {
		return []*store.Evaluation{pick(base), pick(cand), pick(third)}
	}
	citusOf := func(p pair) *store.Evaluation { return p.citus }
	plainOf := func(p pair) *store.Evaluation { return p.plain }
	for _, metric := range []string{"ndcg@10", "latency_ms"} {
		rc, err := compare.Rank(ctx, cs, compare.RankQuery{Evaluations: evals(citusOf), Metric: metric, Record: true, Sentence: report.RankVerdict})
		require.NoError(t, err)
		rp, err := compare.Rank(ctx, ps, compare.RankQuery{Evaluations: evals(plainOf), Metric: metric, Record: true, Sentence: report.RankVerdict})
		require.NoError(t, err)
		same("rank "+metric, rc, rp)
		// The cluster ranked shard by shard: its rank sums cover every
		// unit in fixed point, and one server's unit matrix gives them.
		sums, err := cs.RankSums(ctx, evals(citusOf), metric, metric == "latency_ms")
		require.NoError(t, err)
		require.Zero(t, sums.Outside)
		require.Equal(t, int64(rc.Units), sums.Ranks.Blocks)
		step("rank " + metric)

		q := compare.LeaderboardQuery{Experiment: "scale", Metric: metric, Ranks: true, Options: compare.Options{Resamples: 300, Seed: 5}}
		lc, err := compare.NewLeaderboard(ctx, cs, q)
		require.NoError(t, err)
		lp, err := compare.NewLeaderboard(ctx, ps, q)
		require.NoError(t, err)
		for i := range lc.Rows {
			lc.Rows[i].LoggedAt = lp.Rows[i].LoggedAt
		}
		same("leaderboard "+metric, lc, lp)
		step("leaderboard " + metric)
	}

	for _, best := range []bool{false, true} {
		q := compare.DiffQuery{Metric: "latency_ms", N: 15, Best: best}
		dc, err := compare.Diff(ctx, cs, cand.citus, third.citus, q)
		require.NoError(t, err)
		dp, err := compare.Diff(ctx, ps, cand.plain, third.plain, q)
		require.NoError(t, err)
		same("diff", dc, dp)
	}
	step("diff")

	// The experiment's report: a leaderboard with a ranking for each
	// metric, and the history.
	sq := compare.ExperimentQuery{Experiment: "scale", History: 20, Options: compare.Options{Resamples: 300, Seed: 5}}
	ec, err := compare.Summarize(ctx, cs, sq)
	require.NoError(t, err)
	ep, err := compare.Summarize(ctx, ps, sq)
	require.NoError(t, err)
	require.Len(t, ec.Leaderboards, 2)
	for i, l := range ec.Leaderboards {
		for j := range l.Rows {
			l.Rows[j].LoggedAt = ep.Leaderboards[i].Rows[j].LoggedAt
		}
		same("report leaderboard", l, ep.Leaderboards[i])
	}
	require.Equal(t, ep.Evaluations, ec.Evaluations)
	step("report")

	hc, err := compare.History(ctx, cs, store.HistoryFilter{Experiment: "scale", Limit: 100})
	require.NoError(t, err)
	hp, err := compare.History(ctx, ps, store.HistoryFilter{Experiment: "scale", Limit: 100})
	require.NoError(t, err)
	require.Len(t, hc, len(hp))
	require.NotEmpty(t, hc)
	for i := range hc {
		hc[i].ID, hp[i].ID = 0, 0
		hc[i].CreatedAt = hp[i].CreatedAt
		same(fmt.Sprintf("history entry %d", i), hc[i], hp[i])
	}
}
