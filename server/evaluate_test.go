package server

import (
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/store"
)

// multipartBody builds an evaluate request's body from files of
// evaluate/testdata/rankings, part name → file name.
func multipartBody(t *testing.T, parts map[string]string) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for name, file := range parts {
		b, err := os.ReadFile(filepath.Join("..", "evaluate", "testdata", "rankings", file))
		require.NoError(t, err)
		fw, err := mw.CreateFormFile(name, file)
		require.NoError(t, err)
		_, err = fw.Write(b)
		require.NoError(t, err)
	}
	require.NoError(t, mw.Close())
	return &buf, mw.FormDataContentType()
}

// TestEvaluateOverHTTP uploads the NumPy fixtures of evaluate's tests and
// gets what evaluate.Run computes from the same files, logged with its
// per-user values.
func TestEvaluateOverHTTP(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	w := ts.token(t, store.TokenWriter, "")
	files := map[string]string{"items": "items.npy", "scores": "scores.npy", "targets": "targets.npz", "sample_ids": "ids_str.npy"}
	body, ctype := multipartBody(t, files)
	status, b := ts.do(t, "POST", "/api/v1/evaluate?experiment=e&run=r&eval_set=test&metrics=ndcg@2,3&metrics=recall@3", w, body, "Content-Type", ctype)
	require.Equal(t, 201, status, string(b))
	var got evaluate.Result
	require.NoError(t, json.Unmarshal(b, &got))
	require.NotNil(t, got.EvaluationID)

	dir := filepath.Join("..", "evaluate", "testdata", "rankings")
	metrics, err := evaluate.ParseMetrics([]string{"ndcg@2,3", "recall@3"})
	require.NoError(t, err)
	src, err := evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), filepath.Join(dir, "scores.npy"), filepath.Join(dir, "targets.npz"), filepath.Join(dir, "ids_str.npy"), evaluate.RankingOptions{Width: evaluate.RequiredK(metrics)})
	require.NoError(t, err)
	defer src.Close()
	want, err := evaluate.Run(context.Background(), src, evaluate.RunOptions{Metrics: metrics})
	require.NoError(t, err)
	require.Equal(t, want.Keys, got.Keys)
	require.Equal(t, want.Means, got.Means)
	require.Equal(t, want.TargetFingerprint, got.TargetFingerprint)
	e, err := ts.st.GetEvaluation(context.Background(), *got.EvaluationID)
	require.NoError(t, err)
	require.Equal(t, want.ScoredRows, e.Units)

	// A missing part, an unknown one, a bad file: 400 or 422 naming the part.
	body, ctype = multipartBody(t, map[string]string{"items": "items.npy"})
	status, b = ts.do(t, "POST", "/api/v1/evaluate?no_log=true", w, body, "Content-Type", ctype)
	require.Equal(t, 422, status, string(b))
	_, msg := apiError(t, b)
	require.Equal(t, "NumPy input needs items and targets (scores and sample_ids are optional)", msg, "the words of verdict evaluate, spelled as parts")
	body, ctype = multipartBody(t, map[string]string{"items": "items.npy", "targets": "targets.npz", "labels": "ids_str.npy"})
	status, b = ts.do(t, "POST", "/api/v1/evaluate?no_log=true", w, body, "Content-Type", ctype)
	require.Equal(t, 400, status, string(b))
	body, ctype = multipartBody(t, map[string]string{"items": "items.npy", "targets": "trec.run"})
	status, b = ts.do(t, "POST", "/api/v1/evaluate?no_log=true", w, body, "Content-Type", ctype)
	require.Equal(t, 422, status, string(b))
	_, msg = apiError(t, b)
	require.Contains(t, msg, "targets")
	require.NotContains(t, msg, "verdict-upload")
}

// TestEvaluateTRECOverHTTP: a TREC run and its qrels, as verdict evaluate
// --trec-run --trec-qrels reads them, give what evaluate.Run computes from
// the same files.
func TestEvaluateTRECOverHTTP(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	w := ts.token(t, store.TokenWriter, "")
	body, ctype := multipartBody(t, map[string]string{"trec_run": "trec.run", "trec_qrels": "trec.qrels"})
	status, b := ts.do(t, "POST", "/api/v1/evaluate?experiment=e&run=trec&eval_set=test&metrics=ndcg@2&metrics=recall@2", w, body, "Content-Type", ctype)
	require.Equal(t, 201, status, string(b))
	var got evaluate.Result
	require.NoError(t, json.Unmarshal(b, &got))

	dir := filepath.Join("..", "evaluate", "testdata", "rankings")
	metrics, err := evaluate.ParseMetrics([]string{"ndcg@2", "recall@2"})
	require.NoError(t, err)
	src, err := evaluate.OpenTRECRankings(filepath.Join(dir, "trec.run"), filepath.Join(dir, "trec.qrels"), evaluate.RankingOptions{Width: evaluate.RequiredK(metrics)})
	require.NoError(t, err)
	defer src.Close()
	want, err := evaluate.Run(context.Background(), src, evaluate.RunOptions{Metrics: metrics})
	require.NoError(t, err)
	require.Equal(t, want.Keys, got.Keys)
	require.Equal(t, want.Means, got.Means)
	require.Equal(t, want.ScoredRows, got.ScoredRows)

	// Inputs of two kinds are refused, in the command line's words.
	body, ctype = multipartBody(t, map[string]string{"trec_run": "trec.run", "trec_qrels": "trec.qrels", "items": "items.npy"})
	status, b = ts.do(t, "POST", "/api/v1/evaluate?no_log=true", w, body, "Content-Type", ctype)
	require.Equal(t, 422, status, string(b))
	_, msg := apiError(t, b)
	require.Equal(t, "give one input: NumPy (items), TREC (trec_run) or long tables (predictions)", msg)
}

// TestEvaluateOverHTTPDefaultMetrics: without metrics, the API evaluates
// what the command line does, calibrated_recall and ndcg at the full width
// of the predictions (4 in the fixtures), instead of failing.
func TestEvaluateOverHTTPDefaultMetrics(t *testing.T) {
	t.Parallel()
	ts := startServer(t, Config{})
	w := ts.token(t, store.TokenWriter, "")
	files := map[string]string{"items": "items.npy", "scores": "scores.npy", "targets": "targets.npz", "sample_ids": "ids_str.npy"}
	body, ctype := multipartBody(t, files)
	status, b := ts.do(t, "POST", "/api/v1/evaluate?no_log=true", w, body, "Content-Type", ctype)
	require.Equal(t, 200, status, string(b))
	var got evaluate.Result
	require.NoError(t, json.Unmarshal(b, &got))

	dir := filepath.Join("..", "evaluate", "testdata", "rankings")
	src, err := evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), filepath.Join(dir, "scores.npy"), filepath.Join(dir, "targets.npz"), filepath.Join(dir, "ids_str.npy"), evaluate.RankingOptions{})
	require.NoError(t, err)
	defer src.Close()
	want, err := evaluate.Run(context.Background(), src, evaluate.RunOptions{Metrics: evaluate.DefaultMetrics(4)})
	require.NoError(t, err)
	require.Equal(t, []string{"calibrated_recall@4", "ndcg@4"}, got.Keys)
	require.Equal(t, want.Keys, got.Keys)
	require.Equal(t, want.Means, got.Means)
}
