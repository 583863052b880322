package server

import (
	"fmt"
	"net/http"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/report"
)

// evaluateParts are the files of an evaluate request.
var evaluateParts = map[string]string{"items": ".npy", "scores": ".npy", "targets": ".npz", "sample_ids": ".npy"}

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
	parts, err := s.spoolParts(r, func(part, _, _ string) (string, bool) { ext, ok := evaluateParts[part]; return ext, ok },
		"items, targets, scores and sample_ids")
	defer parts.close()
	if err != nil {
		return err
	}
	if opts.Log.IdempotencyKey != "" {
		opts.Log.RequestDigest = parts.digest.digest
	}
	files := parts.files
	if files["items"] == "" || files["targets"] == "" {
		return badRequest("the parts items and targets are required (scores and sample_ids are optional)")
	}
	src, err := evaluate.OpenNumPyRankings(files["items"], files["scores"], files["targets"], files["sample_ids"],
		evaluate.RankingOptions{Width: opts.RequiredK(), SkipValidation: noValidate})
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
