package compare_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// TestResolveStep names evaluations as RUN@STEP: the run's evaluation at
// the step, unless a run of that very name exists.
func TestResolveStep(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)

	log := func(run string, step *int64, v float64) int64 {
		t.Helper()
		got, err := st.LogEvaluation(ctx, store.NewEvaluation{Experiment: "train", Run: run, EvalSet: "test", Step: step},
			&memRows{metric: "ndcg", ids: []string{"u1", "u2"}, vals: []float64{v, v}})
		require.NoError(t, err)
		return got.ID
	}
	one, two := int64(1), int64(2)
	atOne := log("mf", &one, 0.25)
	atTwo := log("mf", &two, 0.5)
	newest := log("mf", nil, 0.75)
	named := log("mf@1", nil, 0.125) // a run whose name holds '@'
	email := log("ana@example", nil, 0.375)

	for _, tt := range []struct {
		arg  string
		want int64
	}{
		{"mf", newest},         // the newest by time, not the highest step
		{"mf@2", atTwo},        // step 2 of mf
		{"mf@1", named},        // the run mf@1 exists: it wins over step 1 of mf
		{"ana@example", email}, // not a step: a run name
	} {
		e, err := compare.Resolve(ctx, st, "train", "", tt.arg)
		require.NoError(t, err, tt.arg)
		require.Equal(t, tt.want, e.ID, tt.arg)
	}
	e, err := compare.Resolve(ctx, st, "train", "test", "mf@2")
	require.NoError(t, err)
	require.Equal(t, int64(2), *e.Step)
	e, err = compare.Resolve(ctx, st, "train", "", "mf@01")
	require.NoError(t, err, "a step is a whole number, written as any")
	require.Equal(t, atOne, e.ID)
	e, err = compare.Resolve(ctx, st, "", "", "1")
	require.NoError(t, err, "without an experiment, an evaluation ID")
	require.Equal(t, int64(1), e.ID)

	_, err = compare.Resolve(ctx, st, "train", "", "mf@9")
	require.ErrorIs(t, err, store.ErrNotFound)
	require.EqualError(t, err, `run "mf" of experiment "train" has no evaluation at step 9 (its steps are 1, 2): not found`)
	_, err = compare.Resolve(ctx, st, "train", "", "nobody@3")
	require.ErrorIs(t, err, store.ErrNotFound)
	require.EqualError(t, err, `run "nobody" of experiment "train" has no evaluation at step 3 (it has no evaluation with a step): not found`)
	_, err = compare.Resolve(ctx, st, "", "", "mf@2")
	require.ErrorIs(t, err, compare.ErrNeedExperiment)
}
