package store_test

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// manyRows returns n rows of two metrics with values exact in float4.
func manyRows(n int, draws bool) *memRows {
	r := &memRows{metrics: []string{"a", "b"}, hasDraw: draws}
	for i := range n {
		r.ids = append(r.ids, fmt.Sprintf("user-%05d", i/2))
		if draws {
			r.draws = append(r.draws, int64(i%2))
		} else {
			r.ids[i] = fmt.Sprintf("user-%05d", i)
		}
		r.vals = append(r.vals, []float64{float64(i%4) / 4, float64(i%3) / 2})
	}
	return r
}

func TestLogOverSeveralConnections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	for _, draws := range []bool{false, true} {
		single, err := s.LogEvaluation(ctx, newEval("e", fmt.Sprintf("single-%v", draws)), manyRows(5000, draws))
		require.NoError(t, err)
		for _, conns := range []int{2, 3} {
			ev := newEval("e", fmt.Sprintf("conns-%d-%v", conns, draws))
			ev.Connections = conns
			got, err := s.LogEvaluation(ctx, ev, manyRows(5000, draws))
			require.NoError(t, err)
			require.Equal(t, single.Aggregates, got.Aggregates)
			require.Equal(t, single.Fingerprint, got.Fingerprint)
			require.Equal(t, single.Units, got.Units)
			require.Equal(t, int64(5000), got.Rows)
			require.Equal(t, 0, count(t, url, fmt.Sprintf(`
				SELECT count(*) FROM unit_values a FULL JOIN unit_values b
				  ON b.sample_id = a.sample_id AND b.draw = a.draw AND b.evaluation_id = %d
				WHERE a.evaluation_id = %d AND (b.vals IS NULL OR a.vals <> b.vals)`, got.ID, single.ID)),
				"the same rows as a single-connection load")
			require.Equal(t, conns, count(t, url, fmt.Sprintf(`
				SELECT count(*) FROM pg_inherits WHERE inhparent = 'verdict_units.unit_values_%d'::regclass`, got.ID)))

			// Logging it again writes nothing and leaves no partition behind.
			again, err := s.LogEvaluation(ctx, ev, manyRows(5000, draws))
			require.NoError(t, err)
			require.True(t, again.Existing)
			require.Equal(t, got.ID, again.ID)
		}
	}
	require.Zero(t, count(t, url, `
		SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'verdict_units' AND c.relkind = 'r' AND NOT c.relispartition`), "no stray partition")

	// Bad input anywhere leaves nothing.
	bad := manyRows(5000, false)
	bad.vals[4321][1] = math.NaN()
	ev := newEval("e", "bad")
	ev.Connections = 2
	_, err := s.LogEvaluation(ctx, ev, bad)
	require.EqualError(t, err, `mem: row 4322 (sample "user-04321"), column "b": value is NaN`)

	dup := manyRows(5000, false)
	dup.ids[4000] = dup.ids[17]
	_, err = s.LogEvaluation(ctx, ev, dup)
	require.EqualError(t, err, `duplicate row: sample "user-00017" occurs more than once`)
	require.Zero(t, count(t, url, `SELECT count(*) FROM runs WHERE name = 'bad'`))
	require.Zero(t, count(t, url, `
		SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'verdict_units' AND c.relkind = 'r' AND NOT c.relispartition`))
}

func TestOrphanPartitionsAreCollected(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	// What a log killed between committing its partitions and attaching
	// them leaves behind.
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE TABLE verdict_units.unit_values_999_p0 (x int); CREATE TABLE verdict_units.unit_values_999_p1 (x int)`)
	require.NoError(t, err)

	ev := newEval("e", "r")
	ev.Connections = 2
	_, err = s.LogEvaluation(ctx, ev, manyRows(100, false))
	require.NoError(t, err)
	require.Zero(t, count(t, url, `SELECT count(*) FROM pg_tables WHERE tablename LIKE 'unit_values_999%'`))
}
