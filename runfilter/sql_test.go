package runfilter_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/runfilter"
)

// render parses a filter and renders it with testColumns.
func render(t *testing.T, filter string) (string, []any) {
	t.Helper()
	f, err := runfilter.Parse(filter)
	require.NoError(t, err, filter)
	c := &testColumns{}
	return f.SQL(c), c.args
}

func TestPrecedence(t *testing.T) {
	t.Parallel()
	// NOT binds tightest, then AND, then OR; parentheses override.
	for _, tt := range []struct{ filter, want string }{
		{"run = 'a' OR run = 'b' AND run = 'c'", "((run = $1::text) OR ((run = $2::text) AND (run = $3::text)))"},
		{"(run = 'a' OR run = 'b') AND run = 'c'", "(((run = $1::text) OR (run = $2::text)) AND (run = $3::text))"},
		{"NOT run = 'a' AND run = 'b'", "((NOT (run = $1::text)) AND (run = $2::text))"},
		{"NOT (run = 'a' AND run = 'b')", "(NOT ((run = $1::text) AND (run = $2::text)))"},
		{"run = 'a' AND run = 'b' AND run = 'c'", "(((run = $1::text) AND (run = $2::text)) AND (run = $3::text))"},
		{"run = 'a' or run = 'b' and not run = 'c'", "((run = $1::text) OR ((run = $2::text) AND (NOT (run = $3::text))))"},
	} {
		got, args := render(t, tt.filter)
		require.Equal(t, tt.want, got, tt.filter)
		require.Len(t, args, strings.Count(tt.want, "::text"))
	}
}

func TestEmptyFilterIsTrue(t *testing.T) {
	t.Parallel()
	for _, filter := range []string{"", "  \t\n"} {
		got, args := render(t, filter)
		require.Equal(t, "TRUE", got)
		require.Empty(t, args)
	}
}

// TestSQLTypes: an operand is read as a number when compared with a
// number, as a time when created is compared with times, and as text
// otherwise; every value is a parameter with its cast.
func TestSQLTypes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		filter, want string
		args         []any
	}{
		{"git_commit != 'abc'", "(git_commit != $1::text)", []any{"abc"}},
		{"params.lr <= 0.01", "(params[$1]:number <= $2::double precision)", []any{"lr", 0.01}},
		{"tags.gpu IN ('a100', 'h100')", "(tags[$1] IN ($2::text, $3::text))", []any{"gpu", "a100", "h100"}},
		{"metrics.ndcg@20 IN (1, 2e-1)", "(metrics[$1]:number IN ($2::double precision, $3::double precision))", []any{"ndcg@20", 1.0, 0.2}},
		{"metrics.note ILIKE 'x%'", "(metrics[$1] ILIKE $2::text)", []any{"note", "x%"}},
		{"created LIKE '2026-11%'", "(created LIKE $1::text)", []any{"2026-11%"}},
		{"created > -7d", "(created:time > (now() - $1::double precision * interval '1 second'))", []any{7 * 24 * 3600.0}},
		{"created >= 0m", "(created:time >= now())", nil},
		{"created < '2026-11-01T09:30:00Z'", "(created:time < $1::timestamptz)", []any{time.Date(2026, 11, 1, 9, 30, 0, 0, time.UTC)}},
	} {
		got, args := render(t, tt.filter)
		require.Equal(t, tt.want, got, tt.filter)
		require.Equal(t, tt.args, args, tt.filter)
	}
}

func TestOrderSQL(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ order, want string }{
		{"run", "run ASC NULLS LAST"},
		{"created desc", "created:time DESC NULLS LAST"},
		{"metrics.ndcg@20 desc", "metrics[$1]:number DESC NULLS LAST"},
		{"params.lr", "params[$1] ASC NULLS LAST"},
	} {
		o, err := runfilter.ParseOrder(tt.order)
		require.NoError(t, err, tt.order)
		require.Equal(t, tt.want, o.SQL(&testColumns{}), tt.order)
	}
}
