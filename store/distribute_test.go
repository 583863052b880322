package store_test

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// snapshotQueries read every row of verdict's tables as a count and a
// digest, in a fixed order.
var snapshotQueries = map[string]string{
	"unit_values": `SELECT count(*) || ' ' || coalesce(md5(string_agg(format('%s|%s|%s|%s', evaluation_id, sample_id, draw, vals),
		E'\n' ORDER BY evaluation_id, sample_id, draw)), '') FROM unit_values`,
}

func init() {
	for _, table := range []string{"experiments", "runs", "evaluation_sets", "evaluations", "sample_labels",
		"comparisons", "fdr_ledgers", "api_tokens", "predictions"} {
		snapshotQueries[table] = `SELECT count(*) || ' ' || coalesce(md5(string_agg(t::text, E'\n' ORDER BY t::text)), '') FROM ` + table + ` t`
	}
}

// snapshot is what snapshotQueries read from the database at url.
func snapshot(t *testing.T, url string) map[string]string {
	t.Helper()
	out := make(map[string]string, len(snapshotQueries))
	for table, q := range snapshotQueries {
		out[table] = storetest.Scalar[string](t, url, q)
	}
	return out
}

// shiftedRows is n users with two metrics whose values depend on shift.
func shiftedRows(n int, shift float64) *memRows {
	r := &memRows{metrics: []string{"ndcg@10", "recall@10"}}
	for u := range n {
		r.ids = append(r.ids, fmt.Sprintf("user-%05d", u))
		r.vals = append(r.vals, []float64{float64((u+int(shift*10))%9) / 8, float64(u%4) / 4})
	}
	return r
}

// workerURLs are the URLs of the same database on each worker of the
// coordinator at coord.
func workerURLs(t *testing.T, coord string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, coord)
	require.NoError(t, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT nodename, nodeport FROM pg_dist_node WHERE noderole = 'primary' AND groupid <> 0 ORDER BY nodeport`)
	require.NoError(t, err)
	var urls []string
	for rows.Next() {
		var host string
		var port int
		require.NoError(t, rows.Scan(&host, &port))
		u, err := url.Parse(coord)
		require.NoError(t, err)
		u.Host = net.JoinHostPort(host, strconv.Itoa(port))
		// Citus hides shards from pg_class but for the applications named.
		u.RawQuery = "sslmode=disable&citus.show_shards_for_app_name_prefixes=*"
		urls = append(urls, u.String())
	}
	require.NoError(t, rows.Err())
	require.Len(t, urls, 2)
	return urls
}

// requireNothingLeft checks that no node holds a table, shard or prepared
// transaction of evaluation id, whose log failed.
func requireNothingLeft(t *testing.T, coord string, id int64) {
	t.Helper()
	tables := fmt.Sprintf(`SELECT count(*) FROM pg_class
		WHERE relnamespace = 'verdict_units'::regnamespace AND relname ~ '^unit_values_%d(_[0-9]+|_p[0-9]+)?$'`, id)
	require.Zero(t, storetest.Scalar[int64](t, coord, tables), "tables of evaluation %d on the coordinator", id)
	require.Zero(t, storetest.Scalar[int64](t, coord, `SELECT count(*) FROM evaluations WHERE id = $1`, id))
	require.Zero(t, storetest.Scalar[int64](t, coord, `SELECT count(*) FROM pg_dist_shard WHERE logicalrelid::text ~ $1`,
		fmt.Sprintf(`unit_values_%d$`, id)))
	storetest.Exec(t, coord, `SELECT recover_prepared_transactions()`)
	require.Zero(t, storetest.Scalar[int64](t, coord, `SELECT count(*) FROM pg_prepared_xacts`))
	for _, w := range workerURLs(t, coord) {
		require.Zero(t, storetest.Scalar[int64](t, w, tables), "tables of evaluation %d on %s", id, w)
		require.Zero(t, storetest.Scalar[int64](t, w, `SELECT count(*) FROM pg_prepared_xacts`), "prepared transactions on %s", w)
	}
}

// pgxExec runs stmt on a connection of its own to the database at u.
func pgxExec(ctx context.Context, u, stmt string) (int64, error) {
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		return 0, err
	}
	defer conn.Close(ctx)
	tag, err := conn.Exec(ctx, stmt)
	return tag.RowsAffected(), err
}

// lastID is the last evaluation ID allocated.
func lastID(t *testing.T, url string) int64 {
	return storetest.Scalar[int64](t, url, `SELECT last_value FROM evaluations_id_seq`)
}

// cancellingRows is a Rows that cancels its log's context after `after`
// rows, by then streamed to the server, and goes on slowly.
type cancellingRows struct {
	*memRows
	after  int
	cancel context.CancelFunc
}

func (r *cancellingRows) Next() bool {
	if r.i == r.after {
		r.cancel()
	}
	return r.memRows.Next()
}

// TestDistribute distributes a populated verdict database on a real 3-node
// Citus cluster and checks that nothing is lost or changed, that a second
// call is a no-op, that logs after it are distributed and co-located, and
// that failed logs leave nothing on any node.
func TestDistribute(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	coord := storetest.Citus(t)
	s, err := store.Open(ctx, coord, store.Options{})
	require.NoError(t, err)
	defer s.Close()

	// Before: three evaluations in group 0, one of them loaded in hash
	// parts and one with other metrics and draws; predictions; a comparison.
	a, err := s.LogEvaluation(ctx, newEval("e", "a"), shiftedRows(3000, 0))
	require.NoError(t, err)
	ev := newEval("e", "b")
	ev.Connections = 2
	b, err := s.LogEvaluation(ctx, ev, shiftedRows(3000, 0.3))
	require.NoError(t, err)
	c := &memRows{metrics: []string{"mrr", "hit@5", "ndcg@5"}, hasDraw: true}
	for u := range 500 {
		for d := range 3 {
			c.ids = append(c.ids, fmt.Sprintf("user-%05d", u))
			c.draws = append(c.draws, int64(d))
			c.vals = append(c.vals, []float64{1 / float64(u+d+1), float64(u % 2), float64(d) / 3})
		}
	}
	_, err = s.LogEvaluation(ctx, newEval("e", "c"), c)
	require.NoError(t, err)
	_, err = s.LogPredictions(ctx, newEval("e", "clf"), binarySet())
	require.NoError(t, err)
	_, err = s.RecordComparison(ctx, store.ComparisonRecord{LeftID: a.ID, RightID: b.ID, Metric: "ndcg@10", Method: "paired-t",
		Confidence: 0.95, Alpha: 0.05, N: 3000, Verdict: "v", Parameters: map[string]any{}, Outputs: map[string]any{}})
	require.NoError(t, err)
	require.Equal(t, "p", storetest.Scalar[string](t, coord, fmt.Sprintf(`SELECT relkind::text FROM pg_class WHERE oid = 'verdict_units.unit_values_%d'::regclass`, b.ID)))
	bACL := fmt.Sprintf(`SELECT relacl::text FROM pg_class WHERE oid = 'verdict_units.unit_values_%d'::regclass`, b.ID)
	aclBefore := storetest.Scalar[string](t, coord, bACL)
	before := snapshot(t, coord)
	pairBefore, err := s.Pair(ctx, a.ID, b.ID, "ndcg@10", false)
	require.NoError(t, err)
	d, err := s.Distributed(ctx)
	require.NoError(t, err)
	require.False(t, d)

	rep, err := s.Distribute(ctx, store.DistributeOptions{ShardCount: 4})
	require.NoError(t, err)
	require.False(t, rep.AlreadyDistributed)
	require.Equal(t, int64(3), rep.Evaluations)
	require.Equal(t, int64(3000+3000+1500), rep.Rows)
	require.Equal(t, 4, rep.ShardCount)
	require.Len(t, rep.Workers, 2)
	require.Equal(t, 3, rep.Ungrouped)
	require.Equal(t, 1, rep.Merged)

	t.Run("nothing lost or changed", func(t *testing.T) {
		require.Equal(t, before, snapshot(t, coord))
		require.Equal(t, aclBefore, storetest.Scalar[string](t, coord, bACL), "evaluation b's privileges")
		pairAfter, err := s.Pair(ctx, a.ID, b.ID, "ndcg@10", false)
		require.NoError(t, err)
		require.Equal(t, pairBefore, pairAfter)
	})

	t.Run("one level, distributed and co-located, shards on the workers", func(t *testing.T) {
		d, err := s.Distributed(ctx)
		require.NoError(t, err)
		require.True(t, d)
		require.Zero(t, storetest.Scalar[int64](t, coord, `SELECT count(*) FROM pg_class
			WHERE relnamespace = 'verdict_units'::regnamespace AND relname ~ '^unit_values_(g[0-9]+|[0-9]+_p[0-9]+)$'`), "groups or parts left")
		require.Equal(t, "4 1 0", storetest.Scalar[string](t, coord, `
			SELECT count(*) || ' ' || count(DISTINCT p.colocationid) || ' ' || count(*) FILTER (WHERE p.logicalrelid IS NULL)
			FROM (SELECT 'unit_values'::regclass AS rel UNION ALL
			      SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'unit_values'::regclass) r
			LEFT JOIN pg_dist_partition p ON p.logicalrelid = r.rel`))
		require.Equal(t, "4", storetest.Scalar[string](t, coord, `SELECT count(*)::text FROM pg_dist_partition`),
			"only unit_values and its partitions are Citus tables")
		require.Equal(t, "2 0", storetest.Scalar[string](t, coord, `
			SELECT count(DISTINCT pl.groupid) || ' ' || count(*) FILTER (WHERE pl.groupid = 0)
			FROM pg_dist_shard sh JOIN pg_dist_placement pl USING (shardid)
			WHERE sh.logicalrelid::text ~ '^(verdict_units\.)?unit_values'`))
		for _, w := range workerURLs(t, coord) {
			require.Positive(t, storetest.Scalar[int64](t, w, fmt.Sprintf(`SELECT count(*) FROM pg_class
				WHERE relnamespace = 'verdict_units'::regnamespace AND relname ~ '^unit_values_%d_[0-9]+$'`, b.ID)), "shards of b on %s", w)
		}
	})

	t.Run("the schema doc's queries run", func(t *testing.T) {
		doc, err := os.ReadFile("../docs/schema.md")
		require.NoError(t, err)
		conn, err := pgx.Connect(ctx, coord)
		require.NoError(t, err)
		defer conn.Close(ctx)
		for _, q := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
			rows, err := conn.Query(ctx, q[1])
			require.NoError(t, err, q[1])
			for rows.Next() {
			}
			require.NoError(t, rows.Err(), q[1])
		}
	})

	t.Run("again: a no-op", func(t *testing.T) {
		again, err := s.Distribute(ctx, store.DistributeOptions{ShardCount: 8})
		require.NoError(t, err)
		require.True(t, again.AlreadyDistributed)
		require.Equal(t, int64(3), again.Evaluations)
		require.Equal(t, rep.Rows, again.Rows)
		require.Equal(t, 4, again.ShardCount)
		require.Zero(t, again.Merged+again.Ungrouped+again.DroppedParts)
		require.Equal(t, before, snapshot(t, coord))
	})

	t.Run("logs after are distributed, co-located and attached directly", func(t *testing.T) {
		next, err := s.LogEvaluation(ctx, newEval("e", "d"), shiftedRows(2000, 0.5))
		require.NoError(t, err)
		ev := newEval("e", "wide")
		ev.Connections = 4
		wide, err := s.LogEvaluation(ctx, ev, shiftedRows(2000, 0.7))
		require.NoError(t, err)
		long, err := s.LogEvaluationLong(ctx, newEval("e", "long"), &memLong{
			ids: []string{"user-00001", "user-00001", "user-00002", "user-00002"}, metrics: []string{"ndcg@10", "recall@10", "ndcg@10", "recall@10"},
			vals: []float64{1, 0.5, 0.25, 0}})
		require.NoError(t, err)
		for _, id := range []int64{next.ID, wide.ID, long.ID} {
			require.Equal(t, "unit_values r 1 4", storetest.Scalar[string](t, coord, fmt.Sprintf(`
				SELECT i.inhparent::regclass::text || ' ' || c.relkind::text || ' ' ||
				       (SELECT count(*) FROM pg_dist_partition p JOIN pg_dist_partition u ON u.colocationid = p.colocationid
				        WHERE p.logicalrelid = c.oid AND u.logicalrelid = 'unit_values'::regclass) || ' ' ||
				       (SELECT count(*) FROM pg_dist_shard WHERE logicalrelid = c.oid)
				FROM pg_class c JOIN pg_inherits i ON i.inhrelid = c.oid
				WHERE c.oid = 'verdict_units.unit_values_%d'::regclass`, id)), "evaluation %d", id)
		}
		p, err := s.Pair(ctx, next.ID, wide.ID, "recall@10", false)
		require.NoError(t, err)
		require.Len(t, p.SampleIDs, 2000)
		require.Equal(t, int64(3+3), storetest.Scalar[int64](t, coord, `SELECT count(*) FROM pg_inherits WHERE inhparent = 'unit_values'::regclass`))
		require.Equal(t, int64(0), storetest.Scalar[int64](t, coord, fmt.Sprintf(`SELECT pg_relation_size('verdict_units.unit_values_%d')`, next.ID)),
			"the rows are on the shards only")
	})

	t.Run("a writer, which owns nothing, logs and its values are distributed", func(t *testing.T) {
		_, err := s.CreateRole(ctx, "verdict_distribute_writer", store.Writer, "")
		require.NoError(t, err)
		u, err := url.Parse(coord)
		require.NoError(t, err)
		u.User = url.User("verdict_distribute_writer")
		writer := u.String()
		w, err := store.Open(ctx, writer, store.Options{})
		require.NoError(t, err)
		defer w.Close()
		ev := newEval("e", "by-writer")
		ev.Connections = 2
		logged, err := w.LogEvaluation(ctx, ev, shiftedRows(2000, 0.4))
		require.NoError(t, err)
		require.Equal(t, "unit_values 1 0", storetest.Scalar[string](t, coord, fmt.Sprintf(`
			SELECT i.inhparent::regclass::text || ' ' ||
			       (SELECT count(*) FROM pg_dist_partition p JOIN pg_dist_partition u ON u.colocationid = p.colocationid
			        WHERE p.logicalrelid = i.inhrelid AND u.logicalrelid = 'unit_values'::regclass) || ' ' ||
			       pg_relation_size(i.inhrelid)
			FROM pg_inherits i WHERE i.inhrelid = 'verdict_units.unit_values_%d'::regclass`, logged.ID)),
			"attached, distributed and co-located, without a local copy")
		p, err := w.Pair(ctx, a.ID, logged.ID, "ndcg@10", true)
		require.NoError(t, err)
		require.Len(t, p.SampleIDs, 2000)
		requireDenied := func(stmt string) {
			_, err := pgxExec(ctx, writer, stmt)
			require.ErrorContains(t, err, "permission denied", stmt)
		}
		requireDenied(fmt.Sprintf(`INSERT INTO verdict_units.unit_values_%d (sample_id, vals) VALUES ('x', '{1,1}')`, logged.ID))
		requireDenied(fmt.Sprintf(`INSERT INTO unit_values VALUES (%d, 'x', 0, '{1,1}')`, logged.ID))

		rows := shiftedRows(2000, 0.1)
		rows.ids[1500] = rows.ids[10]
		_, err = w.LogEvaluation(ctx, newEval("e", "dup-by-writer"), rows)
		require.ErrorIs(t, err, store.ErrBadInput)
		requireNothingLeft(t, coord, lastID(t, coord))
	})

	t.Run("a duplicate found by the primary key leaves nothing on any node", func(t *testing.T) {
		rows := shiftedRows(2000, 0.1)
		rows.ids[1500] = rows.ids[10] // not adjacent: found only by the primary key
		_, err := s.LogEvaluation(ctx, newEval("e", "dup"), rows)
		var dup *store.DuplicateError
		require.ErrorAs(t, err, &dup)
		require.Equal(t, rows.ids[10], dup.SampleID)
		requireNothingLeft(t, coord, lastID(t, coord))
	})

	t.Run("a log cancelled mid-COPY leaves nothing on any node", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		rows := &cancellingRows{memRows: shiftedRows(60000, 0.2), after: 40000, cancel: cancel}
		_, err := s.LogEvaluation(cctx, newEval("e", "cancelled"), rows)
		require.ErrorIs(t, err, context.Canceled)
		requireNothingLeft(t, coord, lastID(t, coord))
	})
}

// TestDistributeRefusesPlainPostgreSQL checks that Distribute on a server
// without Citus says what Citus is and changes nothing.
func TestDistributeRefusesPlainPostgreSQL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	ev := newEval("e", "b")
	ev.Connections = 2
	_, err := s.LogEvaluation(ctx, ev, shiftedRows(1000, 0))
	require.NoError(t, err)
	before := snapshot(t, url)
	tables := `SELECT string_agg(relname || ':' || relkind::text, ' ' ORDER BY relname) FROM pg_class WHERE relnamespace = 'verdict_units'::regnamespace`
	layout := storetest.Scalar[string](t, url, tables)

	_, err = s.Distribute(ctx, store.DistributeOptions{})
	require.ErrorIs(t, err, store.ErrNotCitus)
	require.Contains(t, err.Error(), "CREATE EXTENSION citus")
	require.Contains(t, err.Error(), "citus_add_node (docs/scale-out.md)")
	require.Equal(t, before, snapshot(t, url))
	require.Equal(t, layout, storetest.Scalar[string](t, url, tables))
	require.Contains(t, layout, "unit_values_g0:p")
	d, err := s.Distributed(ctx)
	require.NoError(t, err)
	require.False(t, d)
	require.False(t, storetest.Scalar[bool](t, url, `SELECT verdict_units.distributed()`))
}
