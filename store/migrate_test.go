package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

func TestMigrateUpDownUp(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	current, known, err := s.SchemaVersions(ctx)
	require.NoError(t, err)
	require.Equal(t, known, current, "Open migrates to the newest version")
	require.Positive(t, known)

	// Log something so that down has data and a partition to remove.
	_, err = s.LogEvaluation(ctx, newEval("exp", "run"), twoMetricRows())
	require.NoError(t, err)
	_, err = s.LogPredictions(ctx, newEval("exp", "classifier"), binarySet())
	require.NoError(t, err)

	require.NoError(t, s.MigrateDownTo(ctx, 0))
	current, _, err = s.SchemaVersions(ctx)
	require.NoError(t, err)
	require.Zero(t, current)
	require.Empty(t, userTables(t, url), "down to zero leaves no verdict tables")

	applied, err := s.Migrate(ctx)
	require.NoError(t, err)
	require.Len(t, applied, int(known))
	current, _, err = s.SchemaVersions(ctx)
	require.NoError(t, err)
	require.Equal(t, known, current)

	st, err := s.MigrationStatus(ctx)
	require.NoError(t, err)
	for _, m := range st {
		require.True(t, m.Applied, m.Name)
	}
	_, err = s.LogEvaluation(ctx, newEval("exp", "run"), twoMetricRows())
	require.NoError(t, err, "the schema works again after down and up")
	_, err = s.LogPredictions(ctx, newEval("exp", "classifier"), binarySet())
	require.NoError(t, err)
}

// TestMigrateDownFromPredictions steps down below version 11 with
// evaluations of predictions stored: they go, with their comparisons, and the evaluations
// of per-unit values stay.
func TestMigrateDownFromPredictions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	kept, err := s.LogEvaluation(ctx, newEval("exp", "run"), twoMetricRows())
	require.NoError(t, err)
	a, err := s.LogPredictions(ctx, newEval("exp", "a"), binarySet())
	require.NoError(t, err)
	set := binarySet()
	set.Scores[0] = 0.05
	b, err := s.LogPredictions(ctx, newEval("exp", "b"), set)
	require.NoError(t, err)
	_, err = s.RecordComparison(ctx, store.ComparisonRecord{LeftID: a.ID, RightID: b.ID, Metric: "roc_auc", Method: "delong",
		Confidence: 0.95, Alpha: 0.05, N: 4, Verdict: "v", Parameters: map[string]any{}, Outputs: map[string]any{}})
	require.NoError(t, err)

	require.NoError(t, s.MigrateDownTo(ctx, 10))
	require.Equal(t, int64(1), storetest.Scalar[int64](t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, int64(kept.ID), storetest.Scalar[int64](t, url, `SELECT id FROM evaluations`))
	require.Zero(t, storetest.Scalar[int64](t, url, `SELECT count(*) FROM comparisons`))
	require.Zero(t, storetest.Scalar[int64](t, url, `SELECT count(*) FROM pg_class WHERE relname LIKE 'predictions%' AND relkind IN ('r', 'p')`))
	_, err = s.Migrate(ctx)
	require.NoError(t, err)
	_, err = s.LogPredictions(ctx, newEval("exp", "a"), binarySet())
	require.NoError(t, err)
}

func TestSchemaTooNewRefusesWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := setup(t)

	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (9999, true)`)
	require.NoError(t, err)

	s, err := store.Open(ctx, url, store.Options{})
	require.NoError(t, err, "a newer schema still opens for reading")
	defer s.Close()
	_, err = s.LogEvaluation(ctx, newEval("exp", "run"), twoMetricRows())
	require.ErrorIs(t, err, store.ErrSchemaTooNew)
	var ve *store.SchemaVersionError
	require.True(t, errors.As(err, &ve))
	require.Equal(t, int64(9999), ve.Found)
	_, known, verr := s.SchemaVersions(ctx)
	require.NoError(t, verr)
	require.Equal(t, known, ve.Known)
	require.Contains(t, err.Error(), fmt.Sprintf("database schema is at version 9999, but this verdict knows versions up to %d", known))

	_, err = s.Migrate(ctx)
	require.ErrorIs(t, err, store.ErrSchemaTooNew)
	_, err = s.ListRuns(ctx, "")
	require.NoError(t, err, "reads still work")
}

// userTables lists the tables and views outside the system schemas, except
// goose's version table.
func userTables(t *testing.T, url string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `
		SELECT table_schema || '.' || table_name FROM information_schema.tables
		WHERE table_schema NOT IN ('pg_catalog', 'information_schema')
		  AND table_name <> 'goose_db_version'`)
	require.NoError(t, err)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	return names
}
