package runfilter_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/runfilter"
)

func TestParseErrorsPointAtTheColumn(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ filter, want string }{
		{"params.lr <", "bad filter: column 12: expected a value (a 'string' or a number) but found end of expression"},
		{"run = 'x", "bad filter: column 7: unterminated string"},
		{"foo = 1", `bad filter: column 1: unknown name "foo": want run, created, git_commit, params.NAME, tags.NAME or metrics.NAME`},
		{"run == 'x'", `bad filter: column 5: unknown operator "=="`},
		{"(run = 'x'", "bad filter: column 11: expected ) but found end of expression"},
		{"run = 'x' run", `bad filter: column 11: unexpected "run" after a complete expression`},
		{"run = 'x'; DROP TABLE runs; --", `bad filter: column 10: unexpected character ';'`},
		// An error in the first token is no empty filter.
		{"'", "bad filter: column 1: unterminated string"},
		{"%", `bad filter: column 1: unexpected character '%'`},
		{"  ;", `bad filter: column 3: unexpected character ';'`},
	} {
		_, err := runfilter.Parse(tt.filter)
		require.ErrorIs(t, err, runfilter.ErrBadFilter, tt.filter)
		require.EqualError(t, err, tt.want)
	}
}

// TestCreatedValueErrors: created compares with dates and ages only, and
// an age with created only.
func TestCreatedValueErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ filter, want string }{
		{"created > 'yesterday'", `bad filter: column 11: created compares with a date ('2026-11-01', '2026-11-01T09:30:00Z') or an age (-7d, -12h, -30m), not 'yesterday'`},
		{"created > 1700000000", `bad filter: column 11: created compares with a date ('2026-11-01', '2026-11-01T09:30:00Z') or an age (-7d, -12h, -30m), not 1700000000`},
		{"created > '2026-13-01'", `bad filter: column 11: created compares with a date ('2026-11-01', '2026-11-01T09:30:00Z') or an age (-7d, -12h, -30m), not '2026-13-01'`},
		{"created > '7 days'", `bad filter: column 11: created compares with a date ('2026-11-01', '2026-11-01T09:30:00Z') or an age (-7d, -12h, -30m), not '7 days'`},
		{"run = 'x' AND created IN ('2026-11-01', 'soon')", `bad filter: column 41: created compares with a date ('2026-11-01', '2026-11-01T09:30:00Z') or an age (-7d, -12h, -30m), not 'soon'`},
		{"created > -7days", `bad filter: column 11: "-7days" is not a number, nor an age such as -7d, -12h or -30m`},
		{"created > -7w", `bad filter: column 11: "-7w" is not a number, nor an age such as -7d, -12h or -30m`},
		{"created > -1.5d", `bad filter: column 11: "-1.5d" is not a number, nor an age such as -7d, -12h or -30m`},
		{"params.lr > -7d", `bad filter: column 13: an age such as -7d compares with created only`},
		{"created LIKE -7d", `bad filter: column 14: LIKE needs a string pattern`},
	} {
		_, err := runfilter.Parse(tt.filter)
		require.ErrorIs(t, err, runfilter.ErrBadFilter, tt.filter)
		require.EqualError(t, err, tt.want)
	}
}

func TestParseOrderErrorsSayOrderBy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ order, want string }{
		{"metrics.ndcg@20 up", `bad order-by: column 17: unexpected "up": want asc or desc`},
		{"foo desc", `bad order-by: column 1: unknown name "foo": want run, created, git_commit, params.NAME, tags.NAME or metrics.NAME`},
		{"params.", `bad order-by: column 8: expected a name after params. but found end of expression`},
		{"run desc;", `bad order-by: column 9: unexpected character ';'`},
		{"params.'lr", `bad order-by: column 8: unterminated string`},
		{"run 1x", `bad order-by: column 5: "1x" is not a number, nor an age such as -7d, -12h or -30m`},
	} {
		_, err := runfilter.ParseOrder(tt.order)
		require.EqualError(t, err, tt.want)
		require.ErrorIs(t, err, runfilter.ErrBadOrder)
		require.ErrorIs(t, err, runfilter.ErrBadFilter, "callers that handle a bad filter handle a bad order")
	}
	// A filter's errors still say filter.
	_, err := runfilter.Parse("run =")
	require.EqualError(t, err, `bad filter: column 6: expected a value (a 'string' or a number) but found end of expression`)
	require.NotErrorIs(t, err, runfilter.ErrBadOrder)
}

func TestParseOrder(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		order string
		want  runfilter.Order
	}{
		{"run", runfilter.Order{Key: runfilter.Operand{Kind: runfilter.Run}}},
		{"CREATED asc", runfilter.Order{Key: runfilter.Operand{Kind: runfilter.Created}}},
		{"metrics.ndcg@20 desc", runfilter.Order{Key: runfilter.Operand{Kind: runfilter.Metrics, Name: "ndcg@20"}, Desc: true}},
		{"params.'a b' DESC", runfilter.Order{Key: runfilter.Operand{Kind: runfilter.Params, Name: "a b"}, Desc: true}},
	} {
		got, err := runfilter.ParseOrder(tt.order)
		require.NoError(t, err, tt.order)
		require.Equal(t, tt.want, got, tt.order)
	}
}
