package compare_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

// tRun is n users of a run: ndcg@10, multiples of 1/32 with a third
// zeros, lifted by lift on a random quarter; latency_ms, float32 values
// around 20, lower better, shifted by −40·lift. With tiny set, one user's
// latency is 10⁻²⁰, outside fixed point, so that its sums cannot be taken
// where the values are stored.
func tRun(n int, seed uint64, lift float64, prefix string, tiny bool) *wideRows {
	rng := rand.New(rand.NewPCG(seed, 11))
	r := &wideRows{metrics: []string{"ndcg@10", "latency_ms"}}
	for u := range n {
		ndcg := 0.0
		if (u*7)%3 != 0 {
			ndcg = float64((u*13)%32) / 32
		}
		if rng.IntN(4) == 0 {
			ndcg = min(1, ndcg+lift)
		}
		lat := float64(float32(20 + rng.ExpFloat64()*15 - 40*lift))
		if tiny && u == 17 {
			lat = float64(float32(1e-20))
		}
		r.ids = append(r.ids, fmt.Sprintf("%s-%05d", prefix, u))
		r.vals = append(r.vals, []float64{ndcg, lat})
	}
	return r
}

// tInterval is the one-sample t interval of xs at level 0.95 and the
// two-sided p of its mean against 0, in float64 with gonum's Student t:
// an independent reference for the exact-sum t.
func tInterval(xs []float64) (mean, low, high, p float64) {
	n := float64(len(xs))
	for _, x := range xs {
		mean += x
	}
	mean /= n
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	se := math.Sqrt(ss/(n-1)) / math.Sqrt(n)
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}
	half := st.Quantile(0.975) * se
	return mean, mean - half, mean + half, 2 * st.CDF(-math.Abs(mean/se))
}

// TestLeaderboardChoosesTAtScale checks the rule that a leaderboard asked
// for no number of resamples takes, on one server and on a 3-node Citus
// cluster: when every run shown has compare.AutoTMinUnits units of one
// row each, each mean's interval is the t interval and each difference to
// the reference the paired t's, the JSON and the notes say so, and the
// numbers are the same on both deployments, bit for bit (on the cluster
// the workers summed them), the same as a comparison's of the two runs,
// and, to 1e-9, a float64 t computed here with gonum. A metric where lower
// is better, a run with a value outside fixed point, a run scored on
// other users (listed apart), the experiment summary (which reads the
// values as columns and ranks them), a run one user short, and a number
// of resamples given each take their path.
func TestLeaderboardChoosesTAtScale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs, ps := twoDeployments(t)

	n := compare.AutoTMinUnits
	runs := map[string]*wideRows{
		"a": tRun(n, 1, 0, "user", false),
		"b": tRun(n, 2, 0.05, "user", false),
		"c": tRun(n, 3, 0.01, "user", true),
		"d": tRun(n, 4, 0, "other", false), // other users: other targets
	}
	for _, st := range []*store.Store{cs, ps} {
		for _, run := range []string{"a", "b", "c", "d"} {
			r := *runs[run]
			_, err := st.LogEvaluation(ctx, store.NewEvaluation{Experiment: "big", Run: run, EvalSet: "test", LowerIsBetter: []string{"latency_ms"}}, &r)
			require.NoError(t, err)
		}
		// Experiment small: two runs of one user fewer.
		for i, run := range []string{"a", "b"} {
			_, err := st.LogEvaluation(ctx, store.NewEvaluation{Experiment: "small", Run: run, EvalSet: "test"}, tRun(n-1, uint64(i), 0.02*float64(i), "user", false))
			require.NoError(t, err)
		}
	}
	column := func(run string, m int) []float64 {
		out := make([]float64, n)
		for u, v := range runs[run].vals {
			out[u] = float64(float32(v[m])) // as stored
		}
		return out
	}
	// normalized is a leaderboard's JSON with what differs between two
	// databases (evaluation IDs, logging times) set to zero.
	normalized := func(lb *compare.Leaderboard) string {
		c := *lb
		c.Rows, c.Separate = slices.Clone(lb.Rows), slices.Clone(lb.Separate)
		for _, rows := range [][]compare.LeaderboardRow{c.Rows, c.Separate} {
			for i := range rows {
				rows[i].EvaluationID, rows[i].LoggedAt = 0, time.Time{}
			}
		}
		b, err := json.Marshal(&c)
		require.NoError(t, err)
		return string(b)
	}

	for m, metric := range []string{"ndcg@10", "latency_ms"} {
		q := compare.LeaderboardQuery{Experiment: "big", Metric: metric}
		onCitus, err := compare.NewLeaderboard(ctx, cs, q)
		require.NoError(t, err, metric)
		onPlain, err := compare.NewLeaderboard(ctx, ps, q)
		require.NoError(t, err, metric)
		require.Equal(t, normalized(onPlain), normalized(onCitus), "%s: the same numbers on both deployments", metric)

		lb := onPlain
		require.Equal(t, "paired-t", lb.Method, metric)
		require.Equal(t, &compare.AutoChoice{Method: compare.PairedT, Units: int64(n), MinUnits: compare.AutoTMinUnits}, lb.Auto, metric)
		b, err := json.Marshal(lb)
		require.NoError(t, err)
		require.Contains(t, string(b), `"method":"paired-t","auto":{"method":"t","units":10000,"min_units":10000}`)
		require.Contains(t, report.LeaderboardNotes(lb), "intervals and p-values by the t, from exact sums: chosen because every run shown has at least 10,000 units of one row each (the fewest 10,000), from where it and the bootstrap decide alike (docs/calibration.md); a number of resamples bootstraps instead")

		// The order: b was lifted most (higher ndcg, lower latency), then
		// c, then a, on both metrics.
		require.Len(t, lb.Rows, 3, metric)
		require.Equal(t, []string{"b", "c", "a"}, []string{lb.Rows[0].Run, lb.Rows[1].Run, lb.Rows[2].Run}, metric)
		require.Equal(t, "b", lb.Reference)
		for _, row := range lb.Rows {
			mean, low, high, _ := tInterval(column(row.Run, m))
			require.InEpsilon(t, mean, row.Mean.Estimate, 1e-12, "%s %s", metric, row.Run)
			require.InEpsilon(t, low, row.Mean.Low, 1e-9, "%s %s", metric, row.Run)
			require.InEpsilon(t, high, row.Mean.High, 1e-9, "%s %s", metric, row.Run)
			require.Equal(t, 0.95, row.Mean.Confidence)
			if row.Run == "b" {
				require.True(t, row.IsReference())
				continue
			}
			// The difference b − run, and its p-value, as a float64 t of
			// the differences.
			ref, own := column("b", m), column(row.Run, m)
			d := make([]float64, n)
			for u := range d {
				d[u] = ref[u] - own[u]
			}
			mean, low, high, p := tInterval(d)
			require.InEpsilon(t, mean, row.Difference.Estimate, 1e-9, "%s %s", metric, row.Run)
			require.InEpsilon(t, low, row.Difference.Low, 1e-9, "%s %s", metric, row.Run)
			require.InEpsilon(t, high, row.Difference.High, 1e-9, "%s %s", metric, row.Run)
			if p > 1e-6 {
				require.InEpsilon(t, p, *row.PValue, 1e-9, "%s %s", metric, row.Run)
			} else {
				require.InDelta(t, p, *row.PValue, 1e-15, "%s %s", metric, row.Run)
			}
			// A comparison of the two runs, which chooses the t too, gives
			// the same numbers, bit for bit.
			pair := func(st *store.Store, run string) *store.Evaluation {
				e, err := compare.Resolve(ctx, st, "big", "test", run)
				require.NoError(t, err)
				return e
			}
			for _, st := range []*store.Store{ps, cs} {
				c, err := compare.Evaluations(ctx, st, pair(st, "b"), pair(st, row.Run), compare.Options{Metrics: []string{metric}})
				require.NoError(t, err)
				r := c.Metrics[0]
				require.Equal(t, "paired-t", r.Method)
				require.Equal(t, r.Difference, *row.Difference, "%s %s", metric, row.Run)
				require.Equal(t, r.PValue, *row.PValue, "%s %s", metric, row.Run)
			}
		}
		// Run d, scored on other users, is listed apart with its mean's t
		// interval.
		require.Len(t, lb.Separate, 1)
		mean, low, high, _ := tInterval(column("d", m))
		sep := lb.Separate[0]
		require.Equal(t, "d", sep.Run)
		require.Nil(t, sep.Difference)
		require.InEpsilon(t, mean, sep.Mean.Estimate, 1e-12)
		require.InEpsilon(t, low, sep.Mean.Low, 1e-9)
		require.InEpsilon(t, high, sep.Mean.High, 1e-9)

		// A number of resamples asks for the bootstrap.
		q.Options.Resamples = 300
		boot, err := compare.NewLeaderboard(ctx, ps, q)
		require.NoError(t, err)
		require.Equal(t, "bootstrap+randomization", boot.Method)
		require.Nil(t, boot.Auto)
		require.NotEqual(t, lb.Rows[1].Mean.Low, boot.Rows[1].Mean.Low)
	}

	// The experiment summary reads every run's values as columns, ranks
	// the runs, and gives each leaderboard the same rows.
	for _, st := range []*store.Store{ps, cs} {
		x, err := compare.Summarize(ctx, st, compare.ExperimentQuery{Experiment: "big", Metrics: []string{"latency_ms"}})
		require.NoError(t, err)
		require.Len(t, x.Leaderboards, 1)
		sum := x.Leaderboards[0]
		lb, err := compare.NewLeaderboard(ctx, st, compare.LeaderboardQuery{Experiment: "big", Metric: "latency_ms"})
		require.NoError(t, err)
		require.Equal(t, normalized(lb), normalized(sum))
		require.NotNil(t, sum.Ranking, "the summary ranks the runs")
	}

	// One user short of the rule: the bootstrap, on both.
	for _, st := range []*store.Store{ps, cs} {
		lb, err := compare.NewLeaderboard(ctx, st, compare.LeaderboardQuery{Experiment: "small", Metric: "ndcg@10", Options: compare.Options{}})
		require.NoError(t, err)
		require.Equal(t, "bootstrap+randomization", lb.Method)
		require.Nil(t, lb.Auto)
		for _, note := range report.LeaderboardNotes(lb) {
			require.NotContains(t, note, "by the t")
		}
	}
}
