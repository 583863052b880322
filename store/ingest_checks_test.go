package store_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// nameKinds sets each kind of name the store limits on an evaluation to
// log, wide or long.
var nameKinds = []struct {
	kind string
	long bool // the metric name comes from a long source
	set  func(ev *store.NewEvaluation, metrics *[]string, name string)
}{
	{kind: "experiment name", set: func(ev *store.NewEvaluation, _ *[]string, name string) { ev.Experiment = name }},
	{kind: "run name", set: func(ev *store.NewEvaluation, _ *[]string, name string) { ev.Run = name }},
	{kind: "evaluation set name", set: func(ev *store.NewEvaluation, _ *[]string, name string) { ev.EvalSet = name }},
	{kind: "metric name", set: func(_ *store.NewEvaluation, m *[]string, name string) { *m = []string{"ok", name} }},
	{kind: "metric name", long: true, set: func(_ *store.NewEvaluation, m *[]string, name string) { *m = []string{"ok", name} }},
	{kind: "tag", set: func(ev *store.NewEvaluation, _ *[]string, name string) { ev.Tags = []string{"ok", name} }},
	{kind: "param name", set: func(ev *store.NewEvaluation, _ *[]string, name string) {
		ev.Params = map[string]any{"ok": 1.0, name: 2.0}
	}},
	{kind: "idempotency key", set: func(ev *store.NewEvaluation, _ *[]string, name string) { ev.IdempotencyKey = name }},
	{kind: "metadata key", set: func(ev *store.NewEvaluation, _ *[]string, name string) {
		ev.Metadata = map[string]any{"ok": 1.0, name: 2.0}
	}},
	{kind: "git commit", set: func(ev *store.NewEvaluation, _ *[]string, name string) { ev.GitCommit = name }},
}

// logNamed logs a one-sample evaluation of run with one kind of name set
// to name.
func logNamed(ctx context.Context, s *store.Store, i int, run, name string) error {
	k := nameKinds[i]
	ev := newEval("e", run)
	metrics := []string{"m"}
	k.set(&ev, &metrics, name)
	if k.long {
		long := &memLong{}
		for _, m := range metrics {
			long.ids, long.metrics, long.vals = append(long.ids, "u1"), append(long.metrics, m), append(long.vals, 1)
		}
		_, err := s.LogEvaluationLong(ctx, ev, long)
		return err
	}
	vals := make([]float64, len(metrics))
	_, err := s.LogEvaluation(ctx, ev, &memRows{metrics: metrics, ids: []string{"u1"}, vals: [][]float64{vals}})
	return err
}

func TestNameLengthLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	for i, k := range nameKinds {
		t.Run(fmt.Sprintf("%s long=%v", k.kind, k.long), func(t *testing.T) {
			require.NoError(t, logNamed(ctx, s, i, fmt.Sprintf("ascii-%d", i), strings.Repeat("a", 256)), "256 bytes are allowed")
			require.NoError(t, logNamed(ctx, s, i, fmt.Sprintf("utf8-%d", i), strings.Repeat("é", 128)), "so are 128 two-byte characters")

			for _, tt := range []struct {
				name string
				want string
			}{
				{strings.Repeat("b", 257), fmt.Sprintf(`the %s %q… is 257 bytes long; at most 256 are allowed`, k.kind, strings.Repeat("b", 40))},
				{strings.Repeat("é", 129), fmt.Sprintf(`the %s %q… is 258 bytes long; at most 256 are allowed`, k.kind, strings.Repeat("é", 20))},
				{strings.Repeat("c", 100<<10), fmt.Sprintf(`the %s %q… is 102400 bytes long; at most 256 are allowed`, k.kind, strings.Repeat("c", 40))},
			} {
				err := logNamed(ctx, s, i, fmt.Sprintf("over-%d", i), tt.name)
				require.ErrorIs(t, err, store.ErrBadInput)
				require.ErrorContains(t, err, tt.want)
			}
		})
	}
	require.Equal(t, 2*len(nameKinds), count(t, url, `SELECT count(*) FROM evaluations`), "every name at the limit, and nothing over it, was stored")
	require.Zero(t, count(t, url, `SELECT count(*) FROM runs WHERE name LIKE 'over-%'`))
}

func TestControlCharactersInNamesRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	for i, k := range nameKinds {
		t.Run(fmt.Sprintf("%s long=%v", k.kind, k.long), func(t *testing.T) {
			// Printable names outside ASCII, format characters (category
			// Cf, not Cc) included, are names like any other.
			require.NoError(t, logNamed(ctx, s, i, fmt.Sprintf("ok-%d", i), "ndcg@10 — α\u200d"))

			for _, tt := range []struct {
				name, want string
			}{
				{"red\x1b[31malert\x1b[0m", `"red\x1b[31malert\x1b[0m" contains the control character U+001B`},
				{"bell\a", `"bell\a" contains the control character U+0007`},
				{"two\nlines", `"two\nlines" contains the control character U+000A`},
				{"tab\there", `"tab\there" contains the control character U+0009`},
				{"del\x7f", `"del\x7f" contains the control character U+007F`},
				{"c1 csi \u009b31m", `"c1 csi \u009b31m" contains the control character U+009B`},
				{"next line\u0085", `"next line\u0085" contains the control character U+0085`},
				{"latin-1 \xe9", `"latin-1 \xe9" is not valid UTF-8`},
			} {
				err := logNamed(ctx, s, i, fmt.Sprintf("bad-%d", i), tt.name)
				require.ErrorIs(t, err, store.ErrBadInput, "%q", tt.name)
				require.ErrorContains(t, err, "the "+k.kind+" "+tt.want)
			}
		})
	}
	require.Equal(t, len(nameKinds), count(t, url, `SELECT count(*) FROM evaluations`))
	require.Zero(t, count(t, url, `SELECT count(*) FROM runs WHERE name LIKE 'bad-%'`))
}

// TestSchemaRefusesLongNamesAndControlCharacters writes names with SQL, as
// another client could: the schema holds them to the limits verdict checks.
func TestSchemaRefusesLongNamesAndControlCharacters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, url := setup(t)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `
		INSERT INTO experiments (name) VALUES ('x');
		INSERT INTO runs (experiment_id, name) SELECT id, 'r' FROM experiments;
		INSERT INTO evaluation_sets (experiment_id, name, fingerprint, fingerprint_kind) SELECT id, 's', 'f', 'samples' FROM experiments WHERE name = 'x'`)
	require.NoError(t, err)

	const evaluation = `INSERT INTO evaluations (run_id, evaluation_set_id, metrics, lower_is_better, aggregates,
			n_rows, n_scored_rows, n_units, content_sha256, idempotency_key, software_version)
		SELECT r.id, s.id, %s, %s, '{}', 1, 1, 1, md5(%s || $1), %s, 'test'
		FROM runs r, evaluation_sets s WHERE r.name = 'r' AND s.name = 's'`
	tests := []struct {
		column, constraint, sql string
	}{
		{"experiments.name", "experiments_name_limits", `INSERT INTO experiments (name) VALUES ($1)`},
		{"runs.name", "runs_name_limits", `INSERT INTO runs (experiment_id, name) SELECT id, $1 FROM experiments WHERE name = 'x'`},
		{"runs.tags", "runs_tags_limits", `INSERT INTO runs (experiment_id, name, tags) SELECT id, md5('tags' || $1), ARRAY['ok', $1] FROM experiments WHERE name = 'x'`},
		{"runs.params", "runs_params_limits", `INSERT INTO runs (experiment_id, name, params) SELECT id, md5('params' || $1), jsonb_build_object('ok', 1, $1::text, 2) FROM experiments WHERE name = 'x'`},
		{"evaluation_sets.name", "evaluation_sets_name_limits", `INSERT INTO evaluation_sets (experiment_id, name, fingerprint, fingerprint_kind) SELECT id, $1, 'f', 'samples' FROM experiments WHERE name = 'x'`},
		{"evaluations.metrics", "evaluations_metrics_limits", fmt.Sprintf(evaluation, `ARRAY['ok', $1]`, `'{}'`, `'metrics'`, `NULL`)},
		{"evaluations.lower_is_better", "evaluations_metrics_limits", fmt.Sprintf(evaluation, `ARRAY['ok', $1]`, `ARRAY[$1]`, `'lower'`, `NULL`)},
		{"evaluations.idempotency_key", "evaluations_idempotency_key_limits", fmt.Sprintf(evaluation, `ARRAY['ok']`, `'{}'`, `'key'`, `$1`)},
	}
	for _, tt := range tests {
		t.Run(tt.column, func(t *testing.T) {
			for _, ok := range []string{strings.Repeat("a", 256), strings.Repeat("é", 128), "ndcg@10 — α\u200d"} {
				_, err := conn.Exec(ctx, tt.sql, ok)
				require.NoError(t, err, "%q is a valid name", ok)
			}
			for _, bad := range []string{strings.Repeat("b", 257), strings.Repeat("é", 129), strings.Repeat("c", 100<<10),
				"red\x1b[31m", "bell\a", "two\nlines", "del\x7f", "c1 csi \u009b", "next line\u0085"} {
				_, err := conn.Exec(ctx, tt.sql, bad)
				var pgErr *pgconn.PgError
				require.True(t, errors.As(err, &pgErr), "%q must be refused, got %v", bad, err)
				require.Equal(t, "23514", pgErr.Code, "a check violation: %v", err)
				require.Equal(t, tt.constraint, pgErr.ConstraintName)
			}
		})
	}
}

// TestRunWithANameFromBeforeTheLimits logs to a run that holds a tag stored
// before the schema limited names: the log is refused with a message that
// says why, not a constraint's name.
func TestRunWithANameFromBeforeTheLimits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	_, err := s.LogEvaluation(ctx, newEval("e", "old"), twoMetricRows())
	require.NoError(t, err)
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `
		ALTER TABLE runs DROP CONSTRAINT runs_tags_limits;
		UPDATE runs SET tags = ARRAY[E'\x1b[31mred'];
		ALTER TABLE runs ADD CONSTRAINT runs_tags_limits CHECK (verdict_names_ok(tags)) NOT VALID`)
	require.NoError(t, err)

	_, err = s.LogEvaluation(ctx, newEval("e", "old"), &memRows{metrics: []string{"m"}, ids: []string{"u1"}, vals: [][]float64{{1}}})
	require.ErrorIs(t, err, store.ErrBadInput)
	require.EqualError(t, err, `bad input: run "old" has a tag or param name, logged before names were limited, that is over 256 bytes long or holds a control character; fix it in the database to log to this run`)
}

// TestRowsNotFromReadersAreCheckedToo gives the store, as a program using
// the library or a server would, a sample ID that is not UTF-8 and values
// that a real would store as 0, wide and long: each is refused with its
// row, sample and metric, and nothing is stored.
func TestRowsNotFromReadersAreCheckedToo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	for _, tc := range []struct {
		name string
		id   string
		val  float64
		want string
	}{
		{"not UTF-8", "u\xff2", 0.5, `mem: row 2: sample ID "u\xff2" is not valid UTF-8`},
		{"underflow", "u2", 1e-50, `mem: row 2 (sample "u2"), column "a": value 1e-50 is too small for a real (float4), which would store 0`},
		{"negative underflow", "u2", -1e-46, `mem: row 2 (sample "u2"), column "a": value -1e-46 is too small for a real (float4), which would store 0`},
	} {
		wide := &memRows{metrics: []string{"a"}, ids: []string{"u1", tc.id}, vals: [][]float64{{0.25}, {tc.val}}}
		_, err := s.LogEvaluation(ctx, newEval("e", "wide"), wide)
		require.ErrorIs(t, err, store.ErrBadInput, tc.name)
		require.EqualError(t, err, tc.want, tc.name)

		long := &memLong{ids: []string{"u1", tc.id}, metrics: []string{"a", "a"}, vals: []float64{0.25, tc.val}}
		_, err = s.LogEvaluationLong(ctx, newEval("e", "long"), long)
		require.ErrorIs(t, err, store.ErrBadInput, tc.name)
	}
	// The smallest values a real holds are stored as they are.
	tiny := &memRows{metrics: []string{"a"}, ids: []string{"u1", "u2"}, vals: [][]float64{{1.5e-45}, {-1.5e-45}}}
	_, err := s.LogEvaluation(ctx, newEval("e", "tiny"), tiny)
	require.NoError(t, err)
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, 2, count(t, url, `SELECT count(*) FROM unit_values WHERE vals[1] <> 0`))
}
