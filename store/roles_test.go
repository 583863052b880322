package store_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

var roleCounter atomic.Int64

// newRole creates a role of kind through CreateRole under a name unique to
// the test binary (roles belong to the whole server), drops it when t ends,
// and returns its name and the URL of the database as that role. The test
// cluster trusts local connections, so the URL needs no password.
func newRole(t *testing.T, s *store.Store, dbURL string, kind store.RoleKind) (string, string) {
	t.Helper()
	name := fmt.Sprintf("verdict_test_%s_%d", kind, roleCounter.Add(1))
	res, err := s.CreateRole(context.Background(), name, kind, "")
	require.NoError(t, err)
	require.False(t, res.Updated)
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), dbURL)
		require.NoError(t, err)
		defer conn.Close(context.Background())
		_, err = conn.Exec(context.Background(), "DROP OWNED BY "+pgx.Identifier{name}.Sanitize()+"; DROP ROLE "+pgx.Identifier{name}.Sanitize())
		require.NoError(t, err)
	})
	u, err := url.Parse(dbURL)
	require.NoError(t, err)
	q := u.Query()
	q.Set("user", name)
	u.RawQuery = q.Encode()
	return name, u.String()
}

// requireDenied runs each statement on the database at u and requires
// PostgreSQL to refuse it for lack of privilege (42501) or ownership.
func requireDenied(t *testing.T, u string, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u)
	require.NoError(t, err)
	defer conn.Close(ctx)
	for _, stmt := range stmts {
		_, err := conn.Exec(ctx, stmt)
		var pgErr *pgconn.PgError
		require.True(t, errors.As(err, &pgErr), "%s: want a refusal, got %v", stmt, err)
		require.Equal(t, "42501", pgErr.Code, "%s: %s", stmt, pgErr.Message)
	}
}

// unitCount is the number of stored per-unit rows, read as the test
// cluster's superuser.
func unitCount(t *testing.T, u string) int {
	return count(t, u, `SELECT count(*) FROM unit_values`)
}

func TestWriterRoleLogsAndComparesButCannotDropOrAlter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin, adminURL := setup(t)
	before, err := admin.LogEvaluation(ctx, newEval("e", "before"), manyRows(200, false))
	require.NoError(t, err)

	_, writerURL := newRole(t, admin, adminURL, store.Writer)
	w, err := store.Open(ctx, writerURL, store.Options{})
	require.NoError(t, err)
	defer w.Close()

	// Logging: one connection, several, long input, labels; and a retry.
	plain, err := w.LogEvaluation(ctx, newEval("e", "writer"), manyRows(200, false))
	require.NoError(t, err)
	require.Equal(t, before.Aggregates, plain.Aggregates, "the same rows give the same means")
	ev := newEval("e", "writer-parallel")
	ev.Connections = 3
	par, err := w.LogEvaluation(ctx, ev, manyRows(3000, true))
	require.NoError(t, err)
	require.Equal(t, 3, count(t, adminURL, fmt.Sprintf(`SELECT count(*) FROM pg_inherits WHERE inhparent = 'verdict_units.unit_values_%d'::regclass`, par.ID)))
	long, err := w.LogEvaluationLong(ctx, newEval("e", "writer-long"), &memLong{ids: []string{"u1", "u2"}, metrics: []string{"x", "x"}, vals: []float64{1, 0.5}})
	require.NoError(t, err)
	require.Equal(t, 0.75, long.Aggregates["x"])
	labelled := newEval("e", "writer-labels")
	labelled.Labels = []store.Label{{SampleID: "user-00000", Label: 1}, {SampleID: "user-00001", Label: 0}}
	_, err = w.LogEvaluation(ctx, labelled, manyRows(200, false))
	require.NoError(t, err)
	ev = newEval("e", "writer")
	ev.IdempotencyKey = "k"
	first, err := w.LogEvaluation(ctx, ev, manyRows(100, false))
	require.NoError(t, err)
	again, err := w.LogEvaluation(ctx, ev, manyRows(100, false))
	require.NoError(t, err)
	require.Equal(t, first.ID, again.ID)
	require.True(t, again.Existing)
	preds, err := w.LogPredictions(ctx, newEval("e", "writer-predictions"), binarySet())
	require.NoError(t, err)

	// Comparing: pairs both evaluations, one of them the admin's, and
	// records the comparison.
	p, err := w.Pair(ctx, before.ID, plain.ID, "a", false)
	require.NoError(t, err)
	require.Len(t, p.SampleIDs, 200)
	id, err := w.RecordComparison(ctx, store.ComparisonRecord{LeftID: before.ID, RightID: plain.ID, Metric: "a",
		Method: "bootstrap", Confidence: 0.95, Alpha: 0.05, N: 200, Verdict: "equal"})
	require.NoError(t, err)
	require.Positive(t, id)
	// Under an online FDR procedure: the ledger is made, locked, spent
	// from and saved by the writer.
	require.NoError(t, w.InTx(ctx, func(tx *store.Tx) error {
		l, err := tx.LockLedger(ctx, "e", "lond-dep", 0.05, 0, []byte(`{"tests": 0}`))
		if err != nil {
			return err
		}
		l.State, l.Tests = []byte(`{"tests": 1}`), 1
		if err := tx.SaveLedger(ctx, l); err != nil {
			return err
		}
		_, err = tx.RecordComparison(ctx, store.ComparisonRecord{LeftID: before.ID, RightID: plain.ID, Metric: "a",
			Method: "paired-t", Confidence: 0.95, Alpha: 0.001, N: 200, Verdict: "equal",
			FDR: &store.FDRRecord{Method: "lond-dep", Test: 1, Level: 0.001, WealthBefore: 0.05, WealthAfter: 0.049}})
		return err
	}))
	ledger, err := admin.GetLedger(ctx, "e")
	require.NoError(t, err)
	require.Equal(t, 1, ledger.Tests)

	// Bad input leaves nothing, as for anyone.
	rowsBefore := unitCount(t, adminURL)
	bad := manyRows(200, false)
	bad.ids[150] = bad.ids[3]
	_, err = w.LogEvaluation(ctx, newEval("e", "bad"), bad)
	require.ErrorIs(t, err, store.ErrBadInput)
	require.Equal(t, rowsBefore, unitCount(t, adminURL))

	// What a writer may not do.
	tables := []string{"experiments", "runs", "evaluation_sets", "evaluations", "sample_labels", "comparisons", "unit_values", "unattached_unit_values", "predictions", "fdr_ledgers", "goose_db_version"}
	var forbidden []string
	for _, table := range tables {
		forbidden = append(forbidden,
			"DROP TABLE "+table,
			"ALTER TABLE "+table+" ADD COLUMN x int",
			"TRUNCATE "+table,
			"DELETE FROM "+table)
	}
	for _, e := range []*store.Logged{before, plain, par} {
		part := fmt.Sprintf("verdict_units.unit_values_%d", e.ID)
		forbidden = append(forbidden,
			"DROP TABLE "+part,
			"ALTER TABLE "+part+" DETACH PARTITION verdict_units.unit_values_g0",
			"ALTER TABLE "+part+" ADD COLUMN x int",
			"DELETE FROM "+part,
			"UPDATE "+part+" SET vals = '{0,0}'",
			// A stored evaluation's values cannot be added to.
			"INSERT INTO "+part+" (sample_id, vals) VALUES ('extra', '{1,1}')")
	}
	forbidden = append(forbidden,
		"INSERT INTO unit_values (evaluation_id, sample_id, vals) VALUES (1, 'extra', '{1,1}')",
		"INSERT INTO unattached_unit_values (table_name, evaluation_id) VALUES ('unit_values_1', 1)",
		"DROP TABLE verdict_units.unit_values_g0",
		"ALTER TABLE unit_values DETACH PARTITION verdict_units.unit_values_g0",
		"UPDATE evaluations SET metrics = '{z}'",
		"UPDATE comparisons SET verdict = 'forged'",
		"UPDATE runs SET name = 'renamed'",
		"CREATE TABLE mine (x int)",
		"CREATE TABLE verdict_units.mine (x int)",
		"CREATE FUNCTION evaluations_id_seq() RETURNS int LANGUAGE sql AS 'SELECT 1'",
		"DROP FUNCTION verdict_units.attach_values(integer)",
		"CREATE SCHEMA mine",
		"ALTER TABLE verdict_units.unit_values_g0 OWNER TO CURRENT_USER")
	requireDenied(t, writerURL, forbidden...)

	// The functions refuse what a log would never ask: values for a stored
	// evaluation, or for an ID never allocated.
	conn, err := pgx.Connect(ctx, writerURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	for _, q := range []string{
		fmt.Sprintf(`SELECT verdict_units.create_values(%d, 1)`, before.ID),
		fmt.Sprintf(`SELECT verdict_units.index_values(%d, NULL)`, before.ID),
		fmt.Sprintf(`SELECT verdict_units.attach_values_parts(%d, 3)`, par.ID),
		`SELECT verdict_units.create_values(1000000, 1)`,
		`SELECT verdict_units.create_values_part(1000000, 2, 0)`,
		`SELECT verdict_units.attach_values(1000000)`,
	} {
		_, err := conn.Exec(ctx, q)
		var pgErr *pgconn.PgError
		require.True(t, errors.As(err, &pgErr), "%s: %v", q, err)
		require.Equal(t, "22023", pgErr.Code, "%s: %s", q, pgErr.Message)
	}
	// A temporary table named like one of verdict's does not stand in for it
	// inside the functions.
	_, err = conn.Exec(ctx, `CREATE TEMPORARY TABLE evaluations (id integer); INSERT INTO evaluations VALUES (1000000)`)
	require.NoError(t, err)
	_, err = conn.Exec(ctx, `SELECT verdict_units.attach_values(1000000)`)
	require.ErrorContains(t, err, "evaluation 1000000 is not stored")

	// Everything the writer logged reads back whole, as the admin.
	for _, e := range []*store.Logged{plain, par} {
		got, err := admin.Pair(ctx, e.ID, e.ID, "a", false)
		require.NoError(t, err)
		require.Len(t, got.SampleIDs, int(e.Units))
	}
	got, err := admin.PairPredictions(ctx, preds.ID, preds.ID, false)
	require.NoError(t, err)
	require.Len(t, got.SampleIDs, 4)
	// The stored predictions cannot be added to, even by the writer.
	_, err = conn.Exec(ctx, fmt.Sprintf(`INSERT INTO verdict_units.predictions_%d (sample_id, label, scores) VALUES ('s9', 0, '{0.5}')`, preds.ID))
	require.ErrorContains(t, err, "permission denied")
}

func TestReaderRoleReadsAndNothingElse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin, adminURL := setup(t)
	left, err := admin.LogEvaluation(ctx, newEval("e", "left"), manyRows(300, false))
	require.NoError(t, err)
	_, readerURL := newRole(t, admin, adminURL, store.Reader)
	// An evaluation logged after the role was made is readable too: the
	// default privileges cover tables created later.
	ev := newEval("e", "right")
	ev.Connections = 2
	right, err := admin.LogEvaluation(ctx, ev, manyRows(300, false))
	require.NoError(t, err)

	r, err := store.Open(ctx, readerURL, store.Options{})
	require.NoError(t, err)
	defer r.Close()
	p, err := r.Pair(ctx, left.ID, right.ID, "b", false)
	require.NoError(t, err)
	require.Len(t, p.SampleIDs, 300)
	runs, err := r.ListRuns(ctx, "e")
	require.NoError(t, err)
	require.Len(t, runs, 2)

	// Every documented table and view can be read with plain SQL.
	conn, err := pgx.Connect(ctx, readerURL)
	require.NoError(t, err)
	defer conn.Close(ctx)
	for _, rel := range []string{"experiments", "runs", "evaluation_sets", "evaluations", "unit_values", "comparisons", "sample_labels",
		"evaluation_overview", "evaluation_metrics", "unit_values_long", "comparison_history",
		fmt.Sprintf("verdict_units.unit_values_%d", left.ID), fmt.Sprintf("verdict_units.unit_values_%d", right.ID)} {
		var n int
		require.NoError(t, conn.QueryRow(ctx, "SELECT count(*) FROM "+rel).Scan(&n), rel)
	}

	// Nothing else.
	_, err = r.LogEvaluation(ctx, newEval("e", "reader"), manyRows(10, false))
	require.ErrorContains(t, err, "permission denied")
	_, err = r.RecordComparison(ctx, store.ComparisonRecord{LeftID: left.ID, RightID: right.ID, Metric: "a", Method: "t", Verdict: "x"})
	require.ErrorContains(t, err, "permission denied")
	var forbidden []string
	for _, table := range []string{"experiments", "runs", "evaluation_sets", "evaluations", "sample_labels", "comparisons", "unattached_unit_values", "goose_db_version"} {
		forbidden = append(forbidden, "DROP TABLE "+table, "TRUNCATE "+table, "DELETE FROM "+table)
	}
	forbidden = append(forbidden,
		"INSERT INTO experiments (name) VALUES ('x')",
		"UPDATE experiments SET name = 'x'",
		"UPDATE runs SET params = '{}'",
		"UPDATE evaluations SET metrics = metrics",
		"UPDATE comparisons SET verdict = 'forged'",
		"INSERT INTO comparisons (left_evaluation_id, right_evaluation_id) VALUES (1, 1)",
		fmt.Sprintf("INSERT INTO verdict_units.unit_values_%d (sample_id, vals) VALUES ('x', '{1,1}')", left.ID),
		fmt.Sprintf("DROP TABLE verdict_units.unit_values_%d", left.ID),
		"CREATE TABLE mine (x int)",
		"CREATE TABLE verdict_units.mine (x int)",
		"SELECT nextval(pg_get_serial_sequence('evaluations', 'id'))",
		"SELECT verdict_units.create_values(1, 1)",
		"SELECT verdict_units.drop_unattached(1)")
	requireDenied(t, readerURL, forbidden...)
	require.Equal(t, 600, unitCount(t, adminURL))
}

func TestCreateRoleRefusesOthersRolesAndBadNames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	admin, adminURL := setup(t)
	name, _ := newRole(t, admin, adminURL, store.Reader)

	// Again, as the same kind: the grants are applied again.
	res, err := admin.CreateRole(ctx, name, store.Reader, "")
	require.NoError(t, err)
	require.True(t, res.Updated)
	// As the other kind, or a role verdict did not make: refused.
	_, err = admin.CreateRole(ctx, name, store.Writer, "")
	require.ErrorIs(t, err, store.ErrRoleExists)
	super := storetest.Scalar[string](t, adminURL, `SELECT current_user`)
	_, err = admin.CreateRole(ctx, super, store.Reader, "")
	require.ErrorIs(t, err, store.ErrRoleExists)

	for _, bad := range []string{"", "pg_mine", "PG_x", strings.Repeat("a", 64), "a\x1bb", "a\xffb"} {
		_, err := admin.CreateRole(ctx, bad, store.Reader, "")
		require.ErrorIs(t, err, store.ErrRoleName, "%q", bad)
	}
	// Quotes and spaces are names like any other, quoted in every statement.
	odd := fmt.Sprintf(`o"dd; DROP TABLE runs --%d`, roleCounter.Add(1))
	_, err = admin.CreateRole(ctx, odd, store.Writer, `pa'ss"word`)
	require.NoError(t, err)
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, adminURL)
		require.NoError(t, err)
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, "DROP OWNED BY "+pgx.Identifier{odd}.Sanitize()+"; DROP ROLE "+pgx.Identifier{odd}.Sanitize())
		require.NoError(t, err)
	})
	require.True(t, storetest.Scalar[bool](t, adminURL, `SELECT to_regclass('runs') IS NOT NULL`))
	require.True(t, storetest.Scalar[bool](t, adminURL, `SELECT rolpassword LIKE 'SCRAM-SHA-256$4096:%' FROM pg_authid WHERE rolname = $1`, odd))
}
