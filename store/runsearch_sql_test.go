package store

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/runfilter"
)

// compile returns the SQL and arguments of a filter.
func compile(t *testing.T, filter string) (string, []any) {
	t.Helper()
	f, err := runfilter.Parse(filter)
	require.NoError(t, err, filter)
	b := &sqlBuilder{args: []any{"exp", "set"}, evalSet: 2}
	return f.SQL(b), b.args[2:]
}

func TestRunFilterEveryOperator(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		filter, want string
		args         []any
	}{
		{"run = 'x'", "(r.name = $3::text)", []any{"x"}},
		{"run != 'x'", "(r.name != $3::text)", []any{"x"}},
		{"run < 'x'", "(r.name < $3::text)", []any{"x"}},
		{"run <= 'x'", "(r.name <= $3::text)", []any{"x"}},
		{"run > 'x'", "(r.name > $3::text)", []any{"x"}},
		{"run >= 'x'", "(r.name >= $3::text)", []any{"x"}},
		{"run LIKE 'x%'", "(r.name LIKE $3::text)", []any{"x%"}},
		{"run ILIKE 'X%'", "(r.name ILIKE $3::text)", []any{"X%"}},
		{"run IN ('x', 'y', 'z')", "(r.name IN ($3::text, $4::text, $5::text))", []any{"x", "y", "z"}},
		{"git_commit = 'abc'", "(coalesce(r.git_commit, '') = $3::text)", []any{"abc"}},
	} {
		got, args := compile(t, tt.filter)
		require.Equal(t, tt.want, got, tt.filter)
		require.Equal(t, tt.args, args, tt.filter)
	}
	// Names of params, tags and metrics are parameters too, and numbers
	// compare as numbers.
	got, args := compile(t, "params.lr <= 0.01")
	require.Contains(t, got, "<= $4::double precision")
	require.Equal(t, []any{"lr", 0.01}, args)
}

// TestRunFilterSQLHasOnlyParameters compiles hostile filters and checks
// that none of their text reaches the SQL: every name and value the user
// wrote is an argument, verbatim.
func TestRunFilterSQLHasOnlyParameters(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		filter string
		user   []string // what the user wrote, as the arguments must hold it
	}{
		{"run = '''; DROP TABLE runs; --'", []string{"'; DROP TABLE runs; --"}},
		{"params.'x'') OR 1=1; --' = 'y'", []string{"x') OR 1=1; --", "y"}},
		{"tags.'a\"b' = 'yes'", []string{"a\"b", "yes"}},
		{"metrics.'ndcg@20/* c */' > 0.5", []string{"ndcg@20/* c */"}},
		{"run IN ('ｐｏｐ', 'рор', 'pop''--')", []string{"ｐｏｐ", "рор", "pop'--"}},
		{"git_commit LIKE '%$1%'", []string{"%$1%"}},
	} {
		got, args := compile(t, tt.filter)
		for _, u := range tt.user {
			require.Contains(t, args, u, tt.filter)
			require.NotContains(t, got, u, "%s: user text in the SQL", tt.filter)
		}
		for _, bad := range []string{"DROP", "--", "/*", ";", "1=1", "ｐｏｐ", "рор"} {
			require.NotContains(t, got, bad, tt.filter)
		}
	}
}
