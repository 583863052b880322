package store_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
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

func TestCreatedFilterDatesAndDurations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	for _, run := range []string{"old", "mid", "new"} {
		_, err := s.LogEvaluation(ctx, newEval("e", run), twoMetricRows())
		require.NoError(t, err)
	}
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `
		UPDATE runs SET created_at = '2020-01-15T12:00:00Z' WHERE name = 'old';
		UPDATE runs SET created_at = now() - interval '10 days' WHERE name = 'mid';
		UPDATE runs SET created_at = now() - interval '1 hour' WHERE name = 'new'`)
	require.NoError(t, err)

	for _, tt := range []struct {
		filter string
		want   []string
	}{
		{"created > -7d", []string{"new"}},
		{"created > '-7d'", []string{"new"}},
		{"created > 7d", []string{"new"}},
		{"created < -7d", []string{"old", "mid"}},
		{"created > -11d", []string{"mid", "new"}},
		{"created > -2h", []string{"new"}},
		{"created > -30m", []string{}},
		{"created >= -120m AND created <= -0m", []string{"new"}},
		// Dates are midnight in the local time zone; these hold in any.
		{"created < '2020-01-17'", []string{"old"}},
		{"created > '2020-01-14'", []string{"old", "mid", "new"}},
		{"created > '2020-01-15T11:59:59Z'", []string{"old", "mid", "new"}},
		{"created = '2020-01-15T12:00:00Z'", []string{"old"}},
		{"created = '2020-01-15T13:00:00+01:00'", []string{"old"}},
		{"created < '2020-01-15T13:00:00+01:00'", []string{}},
		{"created < '2020-01-15T12:00:00.5Z'", []string{"old"}},
		{"created IN ('2020-01-15T12:00:00Z', '2021-01-01')", []string{"old"}},
		{"created LIKE '2020-01-15T12%'", []string{"old"}},
		{"NOT created > -7d AND run != 'old'", []string{"mid"}},
	} {
		got, err := s.SearchRuns(ctx, store.RunQuery{Experiment: "e", Filter: tt.filter, OrderBy: "created"})
		require.NoError(t, err, tt.filter)
		require.Equal(t, tt.want, names(got), tt.filter)
	}

}

func TestOrderByErrorsSayOrderBy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := searchSetup(t)
	for _, tt := range []struct{ order, want string }{
		{"metrics.ndcg@20 up", `bad order-by: column 17: unexpected "up": want asc or desc`},
		{"foo desc", `bad order-by: column 1: unknown name "foo": want run, created, git_commit, params.NAME, tags.NAME or metrics.NAME`},
		{"params.", `bad order-by: column 8: expected a name after params. but found end of expression`},
		{"run desc;", `bad order-by: column 9: unexpected character ';'`},
		{"params.'lr", `bad order-by: column 8: unterminated string`},
		{"run 1x", `bad order-by: column 5: "1x" is not a number, nor an age such as -7d, -12h or -30m`},
	} {
		_, err := s.SearchRuns(ctx, store.RunQuery{Experiment: "movies", OrderBy: tt.order})
		require.EqualError(t, err, tt.want)
		require.ErrorIs(t, err, store.ErrBadOrder)
		require.ErrorIs(t, err, store.ErrBadFilter, "callers that handle a bad filter handle a bad order")
	}
	// A filter's errors still say filter.
	_, err := s.SearchRuns(ctx, store.RunQuery{Experiment: "movies", Filter: "run =", OrderBy: "run"})
	require.EqualError(t, err, `bad filter: column 6: expected a value (a 'string' or a number) but found end of expression`)
	require.NotErrorIs(t, err, store.ErrBadOrder)
}
