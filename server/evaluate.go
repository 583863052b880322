package server

import (
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/report"
)

// evaluatePart is the extension of an evaluate request's part, as
// verdict evaluate reads the file: NumPy arrays, a TREC run and qrels, or
// long tables of predictions and targets, whose format is their file
// name's (CSV by default for predictions, CSR .npz for targets).
func evaluatePart(part, filename, _ string) (string, bool) {
	switch part {
	case "items", "scores", "sample_ids":
		return ".npy", true
	case "trec_run", "trec_qrels":
		return ".txt", true
	case "targets", "predictions":
		ext := strings.ToLower(filepath.Ext(strings.TrimSuffix(strings.ToLower(filename), ".gz")))
		if slices.Contains([]string{".npz", ".csv", ".tsv", ".parquet"}, ext) {
			return ext, true
		}
		return map[string]string{"targets": ".npz", "predictions": ".csv"}[part], true
	}
	return "", false
}

func (s *Server) evaluate(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req evaluate.Request
	if err := decode(r, &req); err != nil {
		return err
	}
	opts, err := req.Options(true, "")
	if err != nil {
		return err
	}
	noValidate := req.NoValidate
	if !req.NoLog {
		opts.Log.IdempotencyKey = r.Header.Get("Idempotency-Key")
		opts.Store = s.store
	} else if c.limited() != "" && req.Experiment != c.limited() {
		return &httpError{status: http.StatusForbidden, code: "forbidden", msg: fmt.Sprintf("this token is limited to experiment %q", c.limited())}
	}
	parts, err := s.spoolParts(r, evaluatePart, "items, targets, scores and sample_ids (NumPy); trec_run and trec_qrels; or predictions and targets (tables)")
	defer parts.close()
	if err != nil {
		return err
	}
	if opts.Log.IdempotencyKey != "" {
		opts.Log.RequestDigest = parts.digest.digest
	}
	files := parts.files
	in := evaluate.Inputs{Items: files["items"], Scores: files["scores"], Targets: files["targets"], SampleIDs: files["sample_ids"],
		TRECRun: files["trec_run"], TRECQrels: files["trec_qrels"], Predictions: files["predictions"]}
	src, err := in.Open(evaluate.RankingOptions{Width: opts.RequiredK(), SkipValidation: noValidate})
	if err != nil {
		return partNames(err, files)
	}
	defer src.Close()
	res, err := evaluate.Run(r.Context(), src, opts)
	if err != nil {
		return partNames(err, files)
	}
	status := http.StatusOK
	if res.EvaluationID != nil && !res.Existing {
		status = http.StatusCreated
		s.metrics.logged()
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	return report.Evaluation(w, "json", res)
}

// partNames names the uploaded files by their parts in err's message.
func partNames(err error, files map[string]string) error {
	for name, path := range files {
		err = asBody(err, path, name)
	}
	return err
}
