package server

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/store"
)

// TestEvaluateCoverageOverHTTP asks the API for coverage@10 of the NumPy
// fixtures of evaluate's tests. Their targets have shape (6, 10), a
// catalogue of 10 items, and the scored rows (those with targets) predict
// 3 1 4 0, 0 6 8 2, 9 8 7 6 and 5 4 3 2: every item from 0 to 9, so by hand
// coverage@10 = 10/10 = 1, and 10/40 = 0.25 with catalogue_size=40. With
// coverage the only metric, the per-user metrics are the defaults,
// calibrated_recall and ndcg at the width of the predictions, 4.
func TestEvaluateCoverageOverHTTP(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	w := ts.token(t, store.TokenWriter, "")
	files := map[string]string{"items": "items.npy", "scores": "scores.npy", "targets": "targets.npz", "sample_ids": "ids_str.npy"}

	body, ctype := multipartBody(t, files)
	status, b := ts.do(t, "POST", "/api/v1/evaluate?experiment=e&run=r&eval_set=test&metrics=coverage@10", w, body, "Content-Type", ctype)
	require.Equal(t, 201, status, string(b))
	var got evaluate.Result
	require.NoError(t, json.Unmarshal(b, &got))
	require.Equal(t, []string{"calibrated_recall@4", "ndcg@4"}, got.Keys)
	require.Equal(t, []string{"coverage@10"}, got.WholeSetKeys)
	require.Equal(t, 1.0, got.Means["coverage@10"])
	require.Contains(t, got.Means, "ndcg@4")
	require.Contains(t, got.Means, "calibrated_recall@4")
	require.NotNil(t, got.EvaluationID)
	e, err := ts.st.GetEvaluation(context.Background(), *got.EvaluationID)
	require.NoError(t, err)
	require.Equal(t, []string{"coverage@10"}, e.WholeSet())
	require.Equal(t, 1.0, e.Aggregates["coverage@10"])

	body, ctype = multipartBody(t, files)
	status, b = ts.do(t, "POST", "/api/v1/evaluate?no_log=true&metrics=ndcg@4,coverage@10&catalogue_size=40", w, body, "Content-Type", ctype)
	require.Equal(t, 200, status, string(b))
	got = evaluate.Result{}
	require.NoError(t, json.Unmarshal(b, &got))
	require.Equal(t, []string{"ndcg@4"}, got.Keys)
	require.Equal(t, 0.25, got.Means["coverage@10"])

	body, ctype = multipartBody(t, files)
	status, b = ts.do(t, "POST", "/api/v1/evaluate?no_log=true&metrics=coverage@10&catalogue_size=-1", w, body, "Content-Type", ctype)
	require.Equal(t, 422, status, string(b))
	_, msg := apiError(t, b)
	require.Equal(t, "catalogue_size -1: want a number that is not negative", msg)
}
