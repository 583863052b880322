package store

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store/storetest"
)

// unitRows are n units of one metric, one row each.
type unitRows struct {
	n, i  int
	shift int
	v     []float64
}

func (r *unitRows) Metrics() []string { return []string{"ndcg@10"} }
func (r *unitRows) HasDraw() bool     { return false }
func (r *unitRows) Next() bool        { r.i++; return r.i <= r.n }
func (r *unitRows) SampleID() string  { return fmt.Sprintf("user-%06d", r.i) }
func (r *unitRows) Draw() int64       { return 0 }
func (r *unitRows) Values() []float64 {
	r.v = append(r.v[:0], float64((r.i*r.shift)%32)/32)
	return r.v
}
func (r *unitRows) Where() string          { return fmt.Sprintf("row %d", r.i) }
func (r *unitRows) Err() error             { return nil }
func (r *unitRows) Progress() (a, b int64) { return 0, 0 }

// TestPushedDownPlans reads the plans of the pairing and ranking queries
// on a real 3-node Citus cluster, distributed into 4 shards: each is one
// task per shard whose plan joins the evaluations' shards on sample_id and
// aggregates there (a co-located join, no repartition, no intermediate
// result), and the coordinator only combines the tasks' partial
// aggregates. The bytes the coordinator receives do not grow with the
// units: the same for 5,000 and 20,000 units. The Poisson bootstrap's
// stream of differences joins the same way and moves 24 bytes a pair.
func TestPushedDownPlans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	url := storetest.Citus(t)
	s, err := Open(ctx, url, Options{})
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Distribute(ctx, DistributeOptions{ShardCount: 4})
	require.NoError(t, err)
	log := func(run string, n, shift int) int64 {
		l, err := s.LogEvaluation(ctx, NewEvaluation{Experiment: "plans", Run: run, EvalSet: fmt.Sprint(n)}, &unitRows{n: n, shift: shift})
		require.NoError(t, err)
		return l.ID
	}
	received := regexp.MustCompile(`Tuple data received from nodes: (\d+) (bytes|kB)`)
	explain := func(query string, args ...any) (plan string, bytes int) {
		t.Helper()
		var lines []string
		require.NoError(t, s.InTx(ctx, func(tx *Tx) error {
			if err := tx.noJIT(ctx); err != nil {
				return err
			}
			rows, err := tx.tx.Query(ctx, "EXPLAIN (ANALYZE, VERBOSE) "+query, args...)
			if err != nil {
				return err
			}
			lines, err = pgx.CollectRows(rows, pgx.RowTo[string])
			return err
		}))
		plan = strings.Join(lines, "\n")
		m := received.FindStringSubmatch(plan)
		require.NotNil(t, m, plan)
		bytes, _ = strconv.Atoi(m[1])
		if m[2] == "kB" {
			bytes *= 1024
		}
		return plan, bytes
	}
	for _, n := range []int{5000, 20000} {
		a, b, c := log("a", n, 7), log("b", n, 11), log("c", n, 13)
		for _, q := range []struct {
			name  string
			query string
			args  []any
			// maxBytes bounds what reaches the coordinator: a few rows per
			// shard.
			maxBytes int
		}{
			{"summary", summaryQuery(a, b), []any{1, 1}, 4 * 512},
			{"rank sums of three", rankSumsQuery([]int64{a, b, c}, false), []any{1, 1, 1}, 4 * 512},
			{"signed ranks", signedRanksQuery(a, b), []any{1, 1}, 4 * 64 * 40},
			{"a diff's sums", differenceSumsQuery(a, b), []any{1, 1}, 4 * 512},
			// A counting pass of a diff's ranking: a row a shard and
			// bucket at most, whatever the units.
			{"a diff's buckets", differenceBucketsQuery(a, b), []any{1, 1, -1.0, 1.0, 64.0}, 4 * 64 * 48},
			{"a diff's values", differenceValuesQuery(a, b, 2), []any{1, 1, -0.5, -0.25, 0.25, 0.5}, 4 * 64 * 40},
		} {
			plan, bytes := explain(q.query, q.args...)
			t.Logf("%s, %d units: %d bytes reached the coordinator in %s", q.name, n, bytes, plan[strings.LastIndex(plan, "Execution Time: ")+16:])
			require.NotContains(t, plan, "JIT:", q.name)
			require.Contains(t, plan, "Custom Scan (Citus Adaptive)", q.name)
			require.Contains(t, plan, "Task Count: 4", "%s: one task per shard\n%s", q.name, plan)
			for _, bad := range []string{"Subplan", "intermediate", "Repartition", "MapMergeJob", "repartition"} {
				require.NotContains(t, plan, bad, "%s: the join must be co-located\n%s", q.name, plan)
			}
			task := plan[strings.Index(plan, "->  Task"):]
			require.Regexp(t, `(Merge|Hash) (Full )?Join`, task, "%s: the task joins the two shards\n%s", q.name, plan)
			require.Regexp(t, `Cond: \((a|b|u\d)\.sample_id = (a|b|u\d)\.sample_id\)`, task, q.name)
			require.Regexp(t, `(Hash|Group)?Aggregate`, task, "%s: the task aggregates on the worker\n%s", q.name, plan)
			require.Regexp(t, `(?s)Aggregate.*Output:.*remote_scan`, plan[:strings.Index(plan, "->  Task")], "%s: the coordinator combines partial aggregates\n%s", q.name, plan)
			require.LessOrEqual(t, bytes, q.maxBytes, "%s: %d units", q.name, n)
		}
		// A diff's list: each shard's first 15 units, merged on the
		// coordinator.
		plan, bytes := explain(topDifferencesQuery(a, b, false), 1, 1, 15)
		require.Contains(t, plan, "Task Count: 4", plan)
		require.Regexp(t, `(?s)->  Task.*Limit`, plan, "the limit runs on the workers\n%s", plan)
		require.LessOrEqual(t, bytes, 4*15*64, "top differences: %d units", n)
		// The Poisson bootstrap's stream: the same co-located join, and 24
		// bytes a pair (a hash and two words), no more.
		plan, bytes = explain(differencesQuery(a, b), 1, 1, int64(3))
		require.Contains(t, plan, "Task Count: 4", plan)
		for _, bad := range []string{"Subplan", "intermediate", "Repartition", "MapMergeJob", "repartition"} {
			require.NotContains(t, plan, bad, "differences: the join must be co-located\n%s", plan)
		}
		require.Regexp(t, `Cond: \((a|b)\.sample_id = (a|b)\.sample_id\)`, plan)
		require.LessOrEqual(t, bytes, 24*n+4*64, "differences: %d units", n)
		require.GreaterOrEqual(t, bytes, 24*n-1024, "differences: %d units", n)
	}
}
