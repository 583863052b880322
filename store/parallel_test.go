package store_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
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

// TestOrphanPartitionsFromBeforeVersion8AreCollected leaves hash partitions
// as a log killed before migration 8 did, unrecorded: the migration records
// them, and the next store opened drops them.
func TestOrphanPartitionsFromBeforeVersion8AreCollected(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	ev := newEval("e", "r")
	ev.Connections = 2
	logged, err := s.LogEvaluation(ctx, ev, manyRows(100, false))
	require.NoError(t, err)

	require.NoError(t, s.MigrateDownTo(ctx, 7))
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE TABLE verdict_units.unit_values_999_p0 (x int); CREATE TABLE verdict_units.unit_values_999_p1 (x int)`)
	require.NoError(t, err)
	_, err = s.Migrate(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, count(t, url, `SELECT count(*) FROM unattached_unit_values WHERE evaluation_id = 999`))

	reopened, err := store.Open(ctx, url, store.Options{})
	require.NoError(t, err)
	reopened.Close()
	require.Zero(t, count(t, url, `SELECT count(*) FROM pg_tables WHERE tablename LIKE 'unit_values_999%'`))
	require.Zero(t, count(t, url, `SELECT count(*) FROM unattached_unit_values`))
	require.Equal(t, 100, count(t, url, fmt.Sprintf(`SELECT count(*) FROM unit_values WHERE evaluation_id = %d`, logged.ID)),
		"the attached partitions of a logged evaluation stay")
}

// killedLogURL, in the environment of a child test process, makes
// TestKilledParallelLogLeavesNothing log into that database, to be killed.
const killedLogURL = "VERDICT_TEST_KILLED_LOG_URL"

// TestKilledParallelLogLeavesNothing kills a process that logs over several
// connections at the worst moment: its partitions are committed and its
// evaluation is not. The next store opened on the database, whatever for,
// drops the partitions.
func TestKilledParallelLogLeavesNothing(t *testing.T) {
	ctx := context.Background()
	if url := os.Getenv(killedLogURL); url != "" {
		// The child: log, and be killed before the log commits.
		s, err := store.Open(ctx, url, store.Options{})
		require.NoError(t, err)
		ev := newEval("e", "r")
		ev.Connections = 2
		_, err = s.LogEvaluation(ctx, ev, manyRows(5000, false))
		t.Fatalf("the log returned (%v) instead of waiting to be killed", err)
	}
	t.Parallel()
	s, url := setup(t)
	first, err := s.LogEvaluation(ctx, newEval("e", "r"), manyRows(100, false))
	require.NoError(t, err)
	s.Close()

	// Holding the run's row stops the child's log where it records the run:
	// after its partitions committed, before its evaluation does.
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	hold, err := conn.Begin(ctx)
	require.NoError(t, err)
	_, err = hold.Exec(ctx, `SELECT 1 FROM runs WHERE name = 'r' FOR UPDATE`)
	require.NoError(t, err)

	child := exec.Command(os.Args[0], "-test.run=^TestKilledParallelLogLeavesNothing$")
	child.Env = append(os.Environ(), killedLogURL+"="+url)
	var output bytes.Buffer
	child.Stdout, child.Stderr = &output, &output
	require.NoError(t, child.Start())
	exited := make(chan struct{})
	go func() { _ = child.Wait(); close(exited) }()
	waiting := func() bool {
		select {
		case <-exited:
			require.FailNow(t, "the child exited before it was killed", output.String())
		default:
		}
		return count(t, url, `SELECT count(*) FROM unattached_unit_values`) == 2 &&
			count(t, url, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`) == 1
	}
	require.Eventually(t, waiting, 2*time.Minute, 20*time.Millisecond)
	require.NoError(t, child.Process.Kill())
	<-exited
	// The server notices a dead client only when it next writes to it; end
	// the child's sessions as the kill would once it did.
	_, err = conn.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND application_name = 'verdict'`)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		return count(t, url, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'verdict'`) == 0
	}, time.Minute, 20*time.Millisecond)
	require.NoError(t, hold.Rollback(ctx))

	parts := `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'verdict_units' AND c.relkind = 'r' AND NOT c.relispartition`
	require.Equal(t, 2, count(t, url, parts), "the kill left two committed partitions")
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM evaluations`), "and no evaluation")

	// Any command opens the store; that is enough.
	s, err = store.Open(ctx, url, store.Options{})
	require.NoError(t, err)
	_, err = s.ListRuns(ctx, "e")
	require.NoError(t, err)
	s.Close()
	require.Zero(t, count(t, url, parts), "no orphan partition remains")
	require.Zero(t, count(t, url, `SELECT count(*) FROM unattached_unit_values`))
	require.Equal(t, 100, count(t, url, fmt.Sprintf(`SELECT count(*) FROM unit_values WHERE evaluation_id = %d`, first.ID)))
}
