package store_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// stepRows are three users' ndcg at a point of training: every value is
// v, so the mean is v.
func stepRows(v float64) *memRows {
	return &memRows{metrics: []string{"ndcg"}, ids: []string{"u1", "u2", "u3"}, vals: [][]float64{{v}, {v}, {v}}}
}

func atStep(run string, step int64) store.NewEvaluation {
	ev := newEval("train", run)
	ev.Step = &step
	return ev
}

func TestSteps(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	// Three epochs, logged out of order, and one evaluation without a
	// step, logged last: the run's newest.
	ids := map[int64]int64{}
	for _, st := range []struct {
		step int64
		ndcg float64
	}{{2, 0.5}, {1, 0.25}, {3, 0.75}} {
		got, err := s.LogEvaluation(ctx, atStep("mf", st.step), stepRows(st.ndcg))
		require.NoError(t, err)
		require.False(t, got.Existing)
		require.Equal(t, st.step, *got.Step)
		ids[st.step] = got.ID
	}
	final, err := s.LogEvaluation(ctx, newEval("train", "mf"), stepRows(0.875))
	require.NoError(t, err)
	require.Nil(t, final.Step)

	curve, err := s.StepEvaluations(ctx, "train", "mf", "test")
	require.NoError(t, err)
	require.Len(t, curve, 3, "the evaluation without a step is no point of the curve")
	for i, want := range []struct {
		step int64
		ndcg float64 // each value is exact in float4
	}{{1, 0.25}, {2, 0.5}, {3, 0.75}} {
		require.Equal(t, want.step, *curve[i].Step)
		require.Equal(t, ids[want.step], curve[i].ID)
		require.True(t, scalar.EqualWithinAbs(want.ndcg, curve[i].Aggregates["ndcg"], 1e-15), "step %d", want.step)
	}
	same, err := s.StepEvaluations(ctx, "train", "mf", "")
	require.NoError(t, err, "the steps are on one set")
	require.Equal(t, curve, same)

	at2, err := s.EvaluationAtStep(ctx, "train", "mf", "test", 2)
	require.NoError(t, err)
	require.Equal(t, ids[2], at2.ID)
	at2, err = s.EvaluationAtStep(ctx, "train", "mf", "", 2)
	require.NoError(t, err)
	require.Equal(t, ids[2], at2.ID)
	_, err = s.EvaluationAtStep(ctx, "train", "mf", "test", 7)
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorContains(t, err, `run "mf" of experiment "train" has no evaluation at step 7 on "test" (its steps are 1, 2, 3)`)

	latest, err := s.LatestEvaluation(ctx, "train", "mf", "test")
	require.NoError(t, err)
	require.Equal(t, final.ID, latest.ID, "a run is its newest evaluation by time, not its highest step")

	got, err := s.GetEvaluation(ctx, ids[3])
	require.NoError(t, err)
	require.Equal(t, int64(3), *got.Step)
	list, err := s.ListEvaluations(ctx, store.EvaluationFilter{Experiment: "train", Run: "mf"})
	require.NoError(t, err)
	require.Len(t, list, 4)
	require.Nil(t, list[0].Step)
	require.Equal(t, int64(3), *list[1].Step)
	b, err := json.Marshal(got)
	require.NoError(t, err)
	require.Contains(t, string(b), `"step":3`)

	// Step 2 again with other values: refused, nothing written.
	before := count(t, url, `SELECT count(*) FROM evaluations`)
	tables := countTables(t, url)
	_, err = s.LogEvaluation(ctx, atStep("mf", 2), stepRows(0.625))
	require.ErrorIs(t, err, store.ErrConflict)
	var sc *store.StepConflictError
	require.True(t, errors.As(err, &sc))
	require.Equal(t, ids[2], sc.EvaluationID)
	require.EqualError(t, err, `run "mf" already has evaluation `+itoa(ids[2])+` on "test" at step 2, logged with other content; nothing was stored: `+
		`a run has one evaluation per evaluation set and step (a retry must send the same content, or the same idempotency key)`)
	require.Equal(t, before, count(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, tables, countTables(t, url))

	// A retry of step 2, the same values: the stored evaluation.
	again, err := s.LogEvaluation(ctx, atStep("mf", 2), stepRows(0.5))
	require.NoError(t, err)
	require.True(t, again.Existing)
	require.Equal(t, ids[2], again.ID)

	// The same values at another step are another evaluation.
	flat, err := s.LogEvaluation(ctx, atStep("mf", 4), stepRows(0.75))
	require.NoError(t, err)
	require.False(t, flat.Existing)
	require.NotEqual(t, ids[3], flat.ID)

	// A retry under an idempotency key, with or without a digest.
	keyed := atStep("mf", 5)
	keyed.IdempotencyKey = "epoch-5"
	first, err := s.LogEvaluation(ctx, keyed, stepRows(0.25))
	require.NoError(t, err)
	retry, err := s.LogEvaluation(ctx, keyed, stepRows(0.125))
	require.NoError(t, err, "without a digest, a key names a retry whatever its content")
	require.True(t, retry.Existing)
	require.Equal(t, first.ID, retry.ID)
	keyed.IdempotencyKey, keyed.RequestDigest = "epoch-5-digest", func() string { return sha("epoch 5") }
	keyed.Step = ptr(int64(6))
	first, err = s.LogEvaluation(ctx, keyed, stepRows(0.125))
	require.NoError(t, err)
	retry, err = s.LogEvaluation(ctx, keyed, stepRows(0.125))
	require.NoError(t, err)
	require.True(t, retry.Existing)
	require.Equal(t, first.ID, retry.ID)

	// Another evaluation set has its own steps.
	other := atStep("mf", 2)
	other.EvalSet = "valid"
	_, err = s.LogEvaluation(ctx, other, stepRows(0.625))
	require.NoError(t, err)
	_, err = s.EvaluationAtStep(ctx, "train", "mf", "", 2)
	require.ErrorIs(t, err, store.ErrSeveralEvalSets)
	require.ErrorContains(t, err, `run "mf" has evaluations at step 2 on test, valid; name one`)
	_, err = s.StepEvaluations(ctx, "train", "mf", "")
	require.ErrorIs(t, err, store.ErrSeveralEvalSets)
	_, err = s.StepEvaluations(ctx, "train", "nobody", "test")
	require.ErrorIs(t, err, store.ErrNotFound)
	none, err := s.StepEvaluations(ctx, "train", "mf", "holdout")
	require.NoError(t, err)
	require.Empty(t, none)
}

// TestStepsOfAggregatesAndPredictions: logs of aggregates and of
// predictions carry their step too.
func TestStepsOfAggregatesAndPredictions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	ev := atStep("monitor", 10)
	ev.TargetFingerprint = sha("targets")
	agg, err := s.LogAggregates(ctx, ev, store.Aggregates{Metrics: []string{"ndcg"}, Means: map[string]float64{"ndcg": 0.5}, Rows: 10, ScoredRows: 10, Units: 10})
	require.NoError(t, err)
	got, err := s.EvaluationAtStep(ctx, "train", "monitor", "test", 10)
	require.NoError(t, err)
	require.Equal(t, agg.ID, got.ID)
	pred, err := s.LogPredictions(ctx, atStep("clf", 1), binarySet())
	require.NoError(t, err)
	require.Equal(t, int64(1), *pred.Step)
	_, err = s.LogPredictions(ctx, atStep("clf", 2), binarySet())
	require.NoError(t, err, "the same predictions at another step")
}

func TestParamsAreFixed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	ev := newEval("params", "als")
	ev.Params = map[string]any{"lr": 0.1, "opt": map[string]any{"name": "adam", "beta": 0.9}}
	_, err := s.LogEvaluation(ctx, ev, stepRows(0.5))
	require.NoError(t, err)

	// The same values, written otherwise, and a new param: fine.
	ev.Params = map[string]any{"lr": json.Number("0.10"), "opt": json.RawMessage(`{"beta": 0.90, "name": "adam"}`), "factors": 64}
	_, err = s.LogEvaluation(ctx, ev, stepRows(0.25))
	require.NoError(t, err)
	run, err := s.GetRun(ctx, "params", "als")
	require.NoError(t, err)
	require.Equal(t, map[string]any{"lr": 0.1, "opt": map[string]any{"name": "adam", "beta": 0.9}, "factors": 64.0}, run.Params)
	require.Equal(t, `{"lr": 0.1, "opt": {"beta": 0.9, "name": "adam"}, "factors": 64}`,
		storetest.Scalar[string](t, url, `SELECT params::text FROM runs`), "the values as first logged")

	// Another value: refused, before the rows are read or anything is
	// written, wide, long, aggregates and predictions alike.
	evals, tables := count(t, url, `SELECT count(*) FROM evaluations`), countTables(t, url)
	ev.Params = map[string]any{"lr": 0.2, "factors": 64}
	want := `param "lr" of run "als" is 0.1, and this log gives 0.2; nothing was stored: ` +
		`a run's params are fixed once logged (new params may be added), so log the new value as a new run`
	for name, log := range map[string]func() error{
		"wide": func() error { _, err := s.LogEvaluation(ctx, ev, stepRows(0.75)); return err },
		"long": func() error {
			_, err := s.LogEvaluationLong(ctx, ev, &memLong{ids: []string{"u1"}, metrics: []string{"ndcg"}, vals: []float64{0.75}})
			return err
		},
		"aggregates": func() error {
			agg := ev
			agg.TargetFingerprint = sha("targets")
			_, err := s.LogAggregates(ctx, agg, store.Aggregates{Metrics: []string{"ndcg"}, Means: map[string]float64{"ndcg": 0.75}, Rows: 1, ScoredRows: 1, Units: 1})
			return err
		},
		"predictions": func() error { _, err := s.LogPredictions(ctx, ev, binarySet()); return err },
	} {
		err := log()
		require.ErrorIs(t, err, store.ErrConflict, name)
		var pc *store.ParamConflictError
		require.True(t, errors.As(err, &pc), name)
		require.Equal(t, store.ParamConflictError{Run: "als", Param: "lr", Old: "0.1", New: "0.2"}, *pc, name)
		require.EqualError(t, err, want, name)
	}
	ev.Params = map[string]any{"opt": map[string]any{"name": "sgd", "beta": 0.9}, "new": true}
	_, err = s.LogEvaluation(ctx, ev, stepRows(0.75))
	require.EqualError(t, err, `param "opt" of run "als" is {"beta": 0.9, "name": "adam"}, and this log gives {"beta": 0.9, "name": "sgd"}; nothing was stored: `+
		`a run's params are fixed once logged (new params may be added), so log the new value as a new run`)
	require.Equal(t, evals, count(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, tables, countTables(t, url))
	require.Equal(t, `{"lr": 0.1, "opt": {"beta": 0.9, "name": "adam"}, "factors": 64}`,
		storetest.Scalar[string](t, url, `SELECT params::text FROM runs`), "not even the new param is added")
}

// TestParamsCheckedInTheTransaction changes a param between the check
// before the rows are read and the log's transaction: the transaction's
// own check refuses it.
func TestParamsCheckedInTheTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	ev := newEval("params", "als")
	ev.Params = map[string]any{"lr": 0.1}
	_, err := s.LogEvaluation(ctx, ev, stepRows(0.5))
	require.NoError(t, err)

	rows := &hookRows{memRows: stepRows(0.25), hook: func() {
		storetest.Exec(t, url, `UPDATE runs SET params = '{"lr": 0.3}'`)
	}}
	_, err = s.LogEvaluation(ctx, ev, rows)
	require.ErrorIs(t, err, store.ErrConflict)
	require.ErrorContains(t, err, `param "lr" of run "als" is 0.3, and this log gives 0.1`)
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM evaluations`))
}

// hookRows calls hook once, when the first row is read.
type hookRows struct {
	*memRows
	hook func()
	done bool
}

func (r *hookRows) Next() bool {
	if !r.done {
		r.done = true
		r.hook()
	}
	return r.memRows.Next()
}

func TestTagValues(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	ev := newEval("tags", "als")
	ev.Tags = []string{"nightly"}
	ev.TagValues = map[string]string{"team": "recsys", "owner": "ana"}
	_, err := s.LogEvaluation(ctx, ev, stepRows(0.5))
	require.NoError(t, err)
	run, err := s.GetRun(ctx, "tags", "als")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"nightly": "true", "team": "recsys", "owner": "ana"}, run.TagValues)
	require.Equal(t, []string{"nightly", "owner=ana", "team=recsys"}, run.Tags)

	// Tags are mutable: a new value replaces the old, and the others stay.
	ev = newEval("tags", "als")
	ev.TagValues = map[string]string{"team": "search", "nightly": "false"}
	_, err = s.LogEvaluation(ctx, ev, stepRows(0.25))
	require.NoError(t, err)
	run, err = s.GetRun(ctx, "tags", "als")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"nightly": "false", "team": "search", "owner": "ana"}, run.TagValues)
	require.Equal(t, []string{"nightly=false", "owner=ana", "team=search"}, run.Tags)
	require.Equal(t, "{nightly=false,owner=ana,team=search}", storetest.Scalar[string](t, url, `SELECT tags::text FROM evaluation_overview LIMIT 1`))
	require.Equal(t, `{"team": "search", "owner": "ana", "nightly": "false"}`, storetest.Scalar[string](t, url, `SELECT tag_values::text FROM evaluation_overview LIMIT 1`))

	other := newEval("tags", "pop")
	other.Tags = []string{"nightly", "baseline"}
	other.TagValues = map[string]string{"build": "120"}
	_, err = s.LogEvaluation(ctx, other, stepRows(0.125))
	require.NoError(t, err)

	for _, tt := range []struct {
		filter string
		want   []string
	}{
		{"tags.team = 'search'", []string{"als"}},
		{"tags.team = 'recsys'", []string{}},
		{"tags.nightly = 'true'", []string{"pop"}},
		{"tags.nightly = 'false'", []string{"als"}},
		{"tags.baseline = 'false'", []string{"als"} /* no such tag reads as 'false' */},
		{"tags.build >= 100", []string{"pop"}},
		{"tags.team LIKE 'sea%' OR tags.baseline = 'true'", []string{"als", "pop"}},
	} {
		runs, err := s.SearchRuns(ctx, store.RunQuery{Experiment: "tags", Filter: tt.filter, OrderBy: "run"})
		require.NoError(t, err, tt.filter)
		require.Equal(t, tt.want, names(runs), tt.filter)
	}

	for _, tt := range []struct {
		tags   []string
		values map[string]string
		want   string
	}{
		{tags: []string{"team=recsys"}, want: `bad input: the tag "team=recsys" holds '=': give a tag as a key and a value (KEY=VALUE is split at its first '=')`},
		{values: map[string]string{"a=b": "c"}, want: `bad input: the tag "a=b" holds '='`},
		{values: map[string]string{" ": "c"}, want: `bad input: a tag has an empty key`},
		{values: map[string]string{"team": "re\x1bcsys"}, want: `bad input: the value of tag "team": "re\x1bcsys" contains the control character U+001B`},
	} {
		ev := newEval("tags", "bad")
		ev.Tags, ev.TagValues = tt.tags, tt.values
		_, err := s.LogEvaluation(ctx, ev, stepRows(0.5))
		require.ErrorIs(t, err, store.ErrBadInput)
		require.ErrorContains(t, err, tt.want)
	}
}

func TestSearchRunsMetrics(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	log := func(run, set string, ndcg float64) {
		t.Helper()
		ev := newEval("m", run)
		ev.EvalSet = set
		_, err := s.LogEvaluation(ctx, ev, stepRows(ndcg))
		require.NoError(t, err)
	}
	log("a", "test", 0.25)
	log("a", "test", 0.5)   // a's newest on test
	log("a", "valid", 0.75) // a's newest
	log("b", "test", 0.125)
	wide := newEval("m", "b")
	_, err := s.LogEvaluation(ctx, wide, twoMetricRows()) // b's newest: ndcg@10 0.25, recall@10 0.5
	require.NoError(t, err)

	runs, err := s.SearchRuns(ctx, store.RunQuery{Experiment: "m", OrderBy: "run"})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, names(runs))
	require.Equal(t, map[string]float64{"ndcg": 0.75}, runs[0].Metrics)
	require.Equal(t, map[string]float64{"ndcg@10": 0.25, "recall@10": 0.5}, runs[1].Metrics)

	runs, err = s.SearchRuns(ctx, store.RunQuery{Experiment: "m", EvalSet: "test", OrderBy: "metrics.ndcg desc"})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, names(runs))
	require.Equal(t, map[string]float64{"ndcg": 0.5}, runs[0].Metrics)
	require.Equal(t, map[string]float64{"ndcg@10": 0.25, "recall@10": 0.5}, runs[1].Metrics,
		"b's newest evaluation on test; metrics.ndcg reads its newest with ndcg")

	runs, err = s.SearchRuns(ctx, store.RunQuery{Experiment: "m", EvalSet: "valid", Filter: "metrics.ndcg > 0.7"})
	require.NoError(t, err)
	require.Equal(t, []string{"a"}, names(runs))
	require.Equal(t, map[string]float64{"ndcg": 0.75}, runs[0].Metrics)

	runs, err = s.SearchRuns(ctx, store.RunQuery{Experiment: "m", EvalSet: "holdout", OrderBy: "run"})
	require.NoError(t, err)
	require.Equal(t, map[string]float64{}, runs[0].Metrics, "no evaluation on the set")
	b, err := json.Marshal(runs[0])
	require.NoError(t, err)
	require.Contains(t, string(b), `"metrics":{}`)

	one, err := s.GetRun(ctx, "m", "a")
	require.NoError(t, err)
	require.Equal(t, map[string]float64{"ndcg": 0.75}, one.Metrics)
}

// TestTagsMigrate stores tags as verdict did before version 19 and
// migrates: a bare tag becomes KEY = true, and one that holds '=' after
// its first character is split there.
func TestTagsMigrate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	_, err := s.LogEvaluation(ctx, newEval("e", "old"), stepRows(0.5))
	require.NoError(t, err)
	require.NoError(t, s.MigrateDownTo(ctx, 18))
	storetest.Exec(t, url, `UPDATE runs SET tags = ARRAY['=x', 'nightly', 'team=recsys', 'url=a=b', 'z=true']`)
	_, err = s.Migrate(ctx)
	require.NoError(t, err)

	run, err := s.GetRun(ctx, "e", "old")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"=x": "true", "nightly": "true", "team": "recsys", "url": "a=b", "z": "true"}, run.TagValues)
	require.Equal(t, []string{"=x", "nightly", "team=recsys", "url=a=b", "z"}, run.Tags)

	// Down keeps them as text.
	require.NoError(t, s.MigrateDownTo(ctx, 18))
	require.Equal(t, "{=x,nightly,team=recsys,url=a=b,z}", storetest.Scalar[string](t, url, `SELECT tags::text FROM runs`))
	_, err = s.Migrate(ctx)
	require.NoError(t, err)
}

func ptr[T any](v T) *T { return &v }

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// sha is the SHA-256 of s, in hexadecimal: a request digest.
func sha(s string) string {
	d := sha256.Sum256([]byte(s))
	return hex.EncodeToString(d[:])
}

// TestGroups: a run joins a group (the configuration it trains with one of
// several seeds) when first logged with one, keeps it when a later log
// names none, and refuses another, writing nothing.
func TestGroups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	ev := newEval("seeds", "cfg-a-seed-1")
	ev.Group = "cfg-a"
	_, err := s.LogEvaluation(ctx, ev, stepRows(0.5))
	require.NoError(t, err)
	ev.Group = ""
	_, err = s.LogEvaluation(ctx, ev, stepRows(0.25))
	require.NoError(t, err, "a log without a group leaves the run's")
	run, err := s.GetRun(ctx, "seeds", "cfg-a-seed-1")
	require.NoError(t, err)
	require.Equal(t, "cfg-a", run.Group)

	evals := count(t, url, `SELECT count(*) FROM evaluations`)
	ev.Group = "cfg-b"
	_, err = s.LogEvaluation(ctx, ev, stepRows(0.75))
	require.ErrorIs(t, err, store.ErrConflict)
	var gc *store.GroupConflictError
	require.True(t, errors.As(err, &gc))
	require.Equal(t, store.GroupConflictError{Run: "cfg-a-seed-1", Old: "cfg-a", New: "cfg-b"}, *gc)
	require.Equal(t, evals, count(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, "cfg-a", storetest.Scalar[string](t, url, `SELECT config_group FROM runs`))

	// Another run of the group, and the runs' list says each one's.
	other := newEval("seeds", "cfg-a-seed-2")
	other.Group = "cfg-a"
	_, err = s.LogEvaluation(ctx, other, stepRows(0.5))
	require.NoError(t, err)
	runs, err := s.SearchRuns(ctx, store.RunQuery{Experiment: "seeds", OrderBy: "run"})
	require.NoError(t, err)
	require.Len(t, runs, 2)
	require.Equal(t, []string{"cfg-a", "cfg-a"}, []string{runs[0].Group, runs[1].Group})
}
