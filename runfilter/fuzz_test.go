package runfilter_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/verdict-ml/verdict/runfilter"
)

// sqlLiterals are the only string literals the rendered SQL may contain:
// the language's own and testColumns'. Any other quote in the SQL would be
// a value of the user's pasted into it.
var sqlLiterals = []string{`'1 second'`}

// FuzzRunFilter parses arbitrary filter and order expressions: the parser
// never panics, refuses with ErrBadFilter or ErrBadOrder, and what it
// accepts renders as SQL in which every value is a parameter: no quote,
// semicolon or comment of the input reaches the SQL text.
func FuzzRunFilter(f *testing.F) {
	for _, seed := range []string{
		"params.lr < 0.01 AND tags.nightly = 'true'",
		"metrics.ndcg@20 > 0.3 OR NOT (run LIKE 'als%' AND git_commit != '')",
		"params.model IN ('mf', 'sasrec') AND created > -7d",
		"created < '2026-11-01' AND created >= '2026-01-01T00:00:00Z'",
		"run = 'it''s'; DROP TABLE runs; --",
		"metrics.ndcg@20 desc",
		"((((", "'", "params.x = 1e400", "tags.'a' = 'b'",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		if filter, err := runfilter.Parse(expr); err != nil {
			if !errors.Is(err, runfilter.ErrBadFilter) {
				t.Fatalf("%q: error does not wrap ErrBadFilter: %v", expr, err)
			}
		} else {
			checkParameterised(t, expr, filter.SQL(&testColumns{}))
		}
		if order, err := runfilter.ParseOrder(expr); err != nil {
			if !errors.Is(err, runfilter.ErrBadOrder) {
				t.Fatalf("%q: order error does not wrap ErrBadOrder: %v", expr, err)
			}
		} else {
			checkParameterised(t, expr, order.SQL(&testColumns{}))
		}
	})
}

func checkParameterised(t *testing.T, expr, sql string) {
	t.Helper()
	rest := sql
	for _, lit := range sqlLiterals {
		rest = strings.ReplaceAll(rest, lit, "")
	}
	for _, bad := range []string{"'", ";", "--", "/*"} {
		if strings.Contains(rest, bad) {
			t.Fatalf("%q compiles to SQL with %q outside a parameter:\n%s", expr, bad, sql)
		}
	}
}
