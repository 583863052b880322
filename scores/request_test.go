package scores_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/scores"
)

// TestRunInfoEvaluation: the step and the tags a front door was given
// reach the evaluation to store, tags as keys and values.
func TestRunInfoEvaluation(t *testing.T) {
	t.Parallel()
	step := int64(12)
	r := scores.RunInfo{Experiment: "e", Run: "r", EvalSet: "test", Step: &step,
		Tags: []string{"nightly", "team=recsys", "url=a=b"}, Params: []string{"lr=0.1"}, GitCommit: "abc"}
	ev, err := r.Evaluation(true, "")
	require.NoError(t, err)
	require.Equal(t, int64(12), *ev.Step)
	require.Equal(t, map[string]string{"nightly": "true", "team": "recsys", "url": "a=b"}, ev.TagValues)
	require.Empty(t, ev.Tags)
	require.Equal(t, map[string]any{"lr": 0.1}, ev.Params)

	r.Step, r.Tags = nil, nil
	ev, err = r.Evaluation(true, "")
	require.NoError(t, err)
	require.Nil(t, ev.Step, "no step given, none stored")
	require.Empty(t, ev.TagValues)

	r.Tags = []string{"=recsys"}
	_, err = r.Evaluation(true, "")
	require.EqualError(t, err, `tag "=recsys": want KEY or KEY=VALUE`)
}
