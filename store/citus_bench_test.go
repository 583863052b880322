package store_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// genRows are n users' values of two metrics, made as they are read: an
// ndcg-like one (multiples of 1/64, a third zeros) and a latency.
type genRows struct {
	n, i, salt int
	v          [2]float64
}

func (r *genRows) Metrics() []string { return []string{"ndcg@10", "latency_ms"} }
func (r *genRows) HasDraw() bool     { return false }
func (r *genRows) Next() bool {
	r.i++
	h := uint64(r.i)*0x9e3779b97f4a7c15 ^ uint64(r.salt)*0xbf58476d1ce4e5b9
	h ^= h >> 31
	r.v[0] = 0
	if h%3 != 0 {
		r.v[0] = float64(h>>8%64) / 64
	}
	r.v[1] = float64(float32(10 + float64(h>>20%10000)/100))
	return r.i <= r.n
}
func (r *genRows) SampleID() string       { return fmt.Sprintf("user-%08d", r.i) }
func (r *genRows) Draw() int64            { return 0 }
func (r *genRows) Values() []float64      { return r.v[:] }
func (r *genRows) Where() string          { return fmt.Sprintf("row %d", r.i) }
func (r *genRows) Err() error             { return nil }
func (r *genRows) Progress() (a, b int64) { return int64(r.i), int64(r.n) }

// TestCitusBench is bench/citus's measurement, skipped unless
// VERDICT_CITUS_BENCH gives the number of units: two evaluations logged
// and compared on a 3-node loopback Citus cluster (distributed into
// VERDICT_CITUS_SHARDS shards, default 32) and on one server of the same
// settings, with the bytes that reach the coordinator read from EXPLAIN
// (ANALYZE, VERBOSE). It prints a Markdown table.
func TestCitusBench(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("VERDICT_CITUS_BENCH"))
	if n <= 0 {
		t.Skip("set VERDICT_CITUS_BENCH=UNITS to run (bench/citus/run)")
	}
	shards, _ := strconv.Atoi(os.Getenv("VERDICT_CITUS_SHARDS"))
	B, _ := strconv.Atoi(os.Getenv("VERDICT_CITUS_RESAMPLES"))
	B = max(B, 1)
	ctx := context.Background()
	cs, err := store.Open(ctx, storetest.Citus(t), store.Options{})
	require.NoError(t, err)
	defer cs.Close()
	ps, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	defer ps.Close()
	_, err = cs.Distribute(ctx, store.DistributeOptions{ShardCount: shards})
	require.NoError(t, err)

	var out strings.Builder
	row := func(what string, onCluster, onServer time.Duration, note string) {
		fmt.Fprintf(&out, "| %s | %.1f s | %.1f s | %s |\n", what, onCluster.Seconds(), onServer.Seconds(), note)
	}
	fmt.Fprintf(&out, "%d units a side, %d shards, B = %d\n\n| step | cluster | one server | what reached the coordinator |\n|---|---|---|---|\n", n, cmp.Or(shards, 32), B)
	evals := map[*store.Store][2]*store.Evaluation{}
	var logCluster, logServer time.Duration
	for _, st := range []*store.Store{cs, ps} {
		var pair [2]*store.Evaluation
		for i, run := range []string{"base", "cand"} {
			start := time.Now()
			l, err := st.LogEvaluation(ctx, store.NewEvaluation{Experiment: "bench", Run: run, EvalSet: "test"}, &genRows{n: n, salt: i})
			require.NoError(t, err)
			if st == cs {
				logCluster += time.Since(start)
			} else {
				logServer += time.Since(start)
			}
			pair[i] = &l.Evaluation
		}
		evals[st] = pair
	}
	var size int64
	require.NoError(t, cs.InTx(ctx, func(tx *store.Tx) error {
		lines, err := tx.Lines(ctx, fmt.Sprintf(`SELECT citus_total_relation_size('verdict_units.unit_values_%d')::text`, evals[cs][0].ID))
		if err == nil {
			size, err = strconv.ParseInt(lines[0], 10, 64)
		}
		return err
	}))
	fmt.Fprintf(&out, "| stored | | | %.1f MB an evaluation on the workers, index included: %.0f bytes a unit |\n", float64(size)/1e6, float64(size)/float64(n))
	row("log both evaluations", logCluster, logServer, fmt.Sprintf("%.0f rows/s on the cluster, %.0f on one server",
		float64(2*n)/logCluster.Seconds(), float64(2*n)/logServer.Seconds()))

	// Three more runs for the leaderboard and rank, then a first read of
	// every evaluation's values on both deployments, which sets the rows'
	// hint bits: every step below measures the steady state, whatever
	// step reads a table first.
	for _, st := range []*store.Store{cs, ps} {
		for i, run := range []string{"r3", "r4", "r5"} {
			l, err := st.LogEvaluation(ctx, store.NewEvaluation{Experiment: "bench", Run: run, EvalSet: "test"}, &genRows{n: n, salt: 2 + i})
			require.NoError(t, err)
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
				_, err := tx.Lines(ctx, fmt.Sprintf(`SELECT sum(vals[1])::text FROM verdict_units.unit_values_%d`, l.ID))
				return err
			}))
		}
		for _, e := range evals[st] {
			require.NoError(t, st.InTx(ctx, func(tx *store.Tx) error {
				_, err := tx.Lines(ctx, fmt.Sprintf(`SELECT sum(vals[1])::text FROM verdict_units.unit_values_%d`, e.ID))
				return err
			}))
		}
	}
	received := regexp.MustCompile(`Tuple data received from nodes: (\d+ (bytes|kB|MB))`)
	explain := func(query string, args ...any) string {
		var lines []string
		require.NoError(t, cs.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.NoJIT(ctx); err != nil {
				return err
			}
			lines, err = tx.Lines(ctx, "EXPLAIN (ANALYZE, VERBOSE) "+query, args...)
			return err
		}))
		m := received.FindStringSubmatch(strings.Join(lines, "\n"))
		require.NotNil(t, m)
		return m[1]
	}
	e := evals[cs]
	// The default: the t from compare.AutoTMinUnits units, else the
	// bootstrap (Poisson on the cluster).
	dflt, dfltArgs := store.SummaryQuery(e[0].ID, e[1].ID), []any{1, 1}
	if n < compare.AutoTMinUnits {
		dflt, dfltArgs = store.DifferencesQuery(e[0].ID, e[1].ID), []any{1, 1, int64(0)}
	}
	for _, tc := range []struct {
		name   string
		method compare.Method
		res    compare.Resampling
		query  string
		args   []any
	}{
		{"compare (the default)", "", "", dflt, dfltArgs},
		{"compare --method bootstrap (one server: multinomial; cluster: Poisson)", compare.Bootstrap, "", store.DifferencesQuery(e[0].ID, e[1].ID), []any{1, 1, int64(0)}},
		{"compare --method t", compare.PairedT, "", store.SummaryQuery(e[0].ID, e[1].ID), []any{1, 1}},
		{"compare --method wilcoxon --resampling poisson", compare.Wilcoxon, compare.Poisson, store.SignedRanksQuery(e[0].ID, e[1].ID), []any{1, 1}},
		{"compare --resampling poisson", compare.Bootstrap, compare.Poisson, store.DifferencesQuery(e[0].ID, e[1].ID), []any{1, 1, int64(0)}},
	} {
		var took [2]time.Duration
		for i, st := range []*store.Store{cs, ps} {
			start := time.Now()
			opts := compare.Options{Metrics: []string{"ndcg@10"}, Method: tc.method, Resampling: tc.res, Resamples: B}
			if tc.method == "" {
				opts.Resamples = 0
			}
			_, err := compare.Evaluations(ctx, st, evals[st][0], evals[st][1], opts)
			require.NoError(t, err)
			took[i] = time.Since(start)
		}
		row(tc.name, took[0], took[1], explain(tc.query, tc.args...))
	}
	// A leaderboard of five runs as a user asks for it (every default):
	// from compare.AutoTMinUnits units the t, whose sums the workers take
	// (a run's values, and its pairs with the reference); and with a
	// number of resamples, the bootstrap, which reads every run's values
	// as they are.
	values := "every run's values: " + explain(fmt.Sprintf(`SELECT sample_id, vals[1] FROM verdict_units.unit_values_%d`, e[0].ID)) + " a run"
	sums := values
	if n >= compare.AutoTMinUnits {
		sums = explain(store.ValueSumsQuery(e[0].ID), 1) + " a run's sums, " + explain(store.SummaryQuery(e[0].ID, e[1].ID), 1, 1) + " a pair's"
	}
	for _, resamples := range []int{0, B} {
		var took [2]time.Duration
		for i, st := range []*store.Store{cs, ps} {
			start := time.Now()
			_, err := compare.NewLeaderboard(ctx, st, compare.LeaderboardQuery{Experiment: "bench", EvalSet: "test", Metric: "ndcg@10",
				Options: compare.Options{Resamples: resamples}})
			require.NoError(t, err)
			took[i] = time.Since(start)
		}
		name, moved := "leaderboard of 5 runs (the default)", sums
		if resamples > 0 {
			name, moved = fmt.Sprintf("leaderboard of 5 runs --resamples %d (the bootstrap)", resamples), values
		}
		row(name, took[0], took[1], moved)
	}
	// `verdict diff` as a user asks for it: on the cluster the counts, the
	// users listed and the quantiles come from the workers.
	{
		var took [2]time.Duration
		for i, st := range []*store.Store{cs, ps} {
			start := time.Now()
			_, err := compare.Diff(ctx, st, evals[st][0], evals[st][1], compare.DiffQuery{Metric: "ndcg@10"})
			require.NoError(t, err)
			took[i] = time.Since(start)
		}
		row("diff (the 10 users who moved most, the quantiles)", took[0], took[1],
			explain(store.DifferenceSumsQuery(e[0].ID, e[1].ID), 1, 1)+" of sums, "+
				explain(store.TopDifferencesQuery(e[0].ID, e[1].ID, false), 1, 1, 10)+" of users listed, "+
				explain(store.DifferenceBucketsQuery(e[0].ID, e[1].ID), 1, 1, -1.0, 1.0, 1024.0)+" a counting pass")
	}
	// `verdict rank` of the five runs: on the cluster each shard ranks its
	// own users and returns its rank sums.
	{
		var took [2]time.Duration
		var runs [2][]*store.Evaluation
		for i, st := range []*store.Store{cs, ps} {
			for _, run := range []string{"base", "cand", "r3", "r4", "r5"} {
				e, err := st.LatestEvaluation(ctx, "bench", run, "test")
				require.NoError(t, err)
				runs[i] = append(runs[i], e)
			}
			start := time.Now()
			_, err := compare.Rank(ctx, st, compare.RankQuery{Evaluations: runs[i], Metric: "ndcg@10"})
			require.NoError(t, err)
			took[i] = time.Since(start)
		}
		ids := make([]int64, len(runs[0]))
		for j, e := range runs[0] {
			ids[j] = e.ID
		}
		row("rank of 5 runs (Friedman)", took[0], took[1], explain(store.RankSumsQuery(ids, false), 1, 1, 1, 1, 1))
	}
	if os.Getenv("VERDICT_CITUS_PLANS") != "" {
		for _, q := range []struct {
			name, query string
			args        []any
		}{
			{"summary (t, means, counts, hint)", store.SummaryQuery(e[0].ID, e[1].ID), []any{1, 1}},
			{"differences (Poisson bootstrap, sign flips)", store.DifferencesQuery(e[0].ID, e[1].ID), []any{1, 1, int64(0)}},
			{"signed ranks (Wilcoxon)", store.SignedRanksQuery(e[0].ID, e[1].ID), []any{1, 1}},
		} {
			require.NoError(t, cs.InTx(ctx, func(tx *store.Tx) error {
				if err := tx.NoJIT(ctx); err != nil {
					return err
				}
				lines, err := tx.Lines(ctx, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "+q.query, q.args...)
				fmt.Fprintf(&out, "\n%s:\n\n    %s\n", q.name, strings.Join(lines, "\n    "))
				return err
			}))
		}
	}
	pairs := fmt.Sprintf(`SELECT a.sample_id, a.vals[1], b.vals[1] FROM verdict_units.unit_values_%d a JOIN verdict_units.unit_values_%d b ON b.sample_id = a.sample_id`, e[0].ID, e[1].ID)
	fmt.Fprintf(&out, "\nEvery pair, for contrast: %s reach the coordinator.\n", explain(pairs))
	t.Log("\n" + out.String())
}
