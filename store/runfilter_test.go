package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

func searchSetup(t *testing.T) (*store.Store, string) {
	t.Helper()
	ctx := context.Background()
	s, url := setup(t)
	for _, r := range []struct {
		name string
		lr   float64
		opt  string
		tags []string
		ndcg float64
	}{
		{"als-64", 0.01, "adam", []string{"nightly"}, 0.30},
		{"als-128", 0.001, "sgd", nil, 0.35},
		{"pop", 0, "none", []string{"baseline", "nightly"}, 0.20},
		{"it's", 0.1, "o'neil", nil, 0.10},
	} {
		ev := newEval("movies", r.name)
		ev.Params = map[string]any{"lr": r.lr, "optimizer": r.opt}
		ev.Tags = r.tags
		_, err := s.LogEvaluation(ctx, ev, &memRows{metrics: []string{"ndcg@20"}, ids: []string{"u1"}, vals: [][]float64{{r.ndcg}}})
		require.NoError(t, err)
	}
	return s, url
}

func names(runs []store.Run) []string {
	out := []string{}
	for _, r := range runs {
		out = append(out, r.Name)
	}
	return out
}

func TestSearchRuns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := searchSetup(t)
	tests := []struct {
		filter, order string
		want          []string
	}{
		{"params.lr < 0.01", "run", []string{"als-128", "pop"}},
		{"params.optimizer IN ('adam', 'sgd')", "run desc", []string{"als-64", "als-128"}},
		{"tags.nightly = 'true' AND NOT run = 'pop'", "", []string{"als-64"}},
		{"metrics.ndcg@20 >= 0.3", "metrics.ndcg@20 desc", []string{"als-128", "als-64"}},
		{"run LIKE 'als-%' OR (params.lr > 0.05)", "run", []string{"als-128", "als-64", "it's"}},
		{"run ILIKE 'ALS-1%'", "", []string{"als-128"}},
		{"params.optimizer = 'o''neil'", "", []string{"it's"}},
		{"created > '2000-01-01'", "run", []string{"als-128", "als-64", "it's", "pop"}},
		{"", "params.lr desc", []string{"it's", "als-64", "als-128", "pop"}},
		// AND binds tighter than OR; parentheses change the answer.
		{"run = 'pop' OR run = 'it''s' AND params.lr > 0.05", "run", []string{"it's", "pop"}},
		{"(run = 'pop' OR run = 'it''s') AND params.lr > 0.05", "run", []string{"it's"}},
		{"NOT run = 'pop' AND NOT run = 'it''s'", "run", []string{"als-128", "als-64"}},
		{"params.optimizer != 'adam' AND params.lr <= 0.001", "run", []string{"als-128", "pop"}},
		{"metrics.ndcg@20 < 0.2 OR metrics.ndcg@20 > 0.31", "run", []string{"als-128", "it's"}},
	}
	for _, tt := range tests {
		got, err := s.SearchRuns(ctx, store.RunQuery{Experiment: "movies", Filter: tt.filter, OrderBy: tt.order})
		require.NoError(t, err, tt.filter)
		require.Equal(t, tt.want, names(got), "%s / %s", tt.filter, tt.order)
	}
}

func TestRunFilterSyntaxErrorsPointAtTheColumn(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ filter, want string }{
		{"params.lr <", "bad filter: column 12: expected a value (a 'string' or a number) but found end of expression"},
		{"run = 'x", "bad filter: column 7: unterminated string"},
		{"foo = 1", `bad filter: column 1: unknown name "foo": want run, created, git_commit, params.NAME, tags.NAME or metrics.NAME`},
		{"run == 'x'", `bad filter: column 5: unknown operator "=="`},
		{"(run = 'x'", "bad filter: column 11: expected ) but found end of expression"},
		{"run = 'x' run", `bad filter: column 11: unexpected "run" after a complete expression`},
		{"run = 'x'; DROP TABLE runs; --", `bad filter: column 10: unexpected character ';'`},
	} {
		_, err := store.ParseRunFilter(tt.filter)
		require.ErrorIs(t, err, store.ErrBadFilter, tt.filter)
		require.EqualError(t, err, tt.want)
	}
}

// TestRunFilterResistsInjection feeds injection attempts: each is rejected
// or matched literally, and the database keeps its runs.
func TestRunFilterResistsInjection(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := searchSetup(t)
	for _, filter := range []string{
		"run = ''; DROP TABLE runs; --'",
		"run = 'x'' OR ''1''=''1'",
		"params.\"lr\" = 1",
		"params.'lr''); DROP TABLE runs; --' = 1",
		"run = 'pop' /* comment */",
		"run = 'pop' -- comment",
		"run = 'ｐｏｐ'", // full-width look-alikes
		"run = 'рор'", // Cyrillic look-alikes
		"metrics.'ndcg@20'' OR 1=1 --' > 0",
		"run IN ('pop'); DELETE FROM runs; --')",
	} {
		got, err := s.SearchRuns(ctx, store.RunQuery{Experiment: "movies", Filter: filter})
		if err != nil {
			require.ErrorIs(t, err, store.ErrBadFilter, filter)
			continue
		}
		require.Empty(t, names(got), "%q must match literally, and nothing is named so", filter)
	}
	require.Equal(t, 4, count(t, url, `SELECT count(*) FROM runs`), "the runs are intact")
}
