package server

import (
	"fmt"
	"mime"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
)

// logRequest reads the log request r sends, and the evaluation it names.
func logRequest(r *http.Request) (scores.LogRequest, store.NewEvaluation, error) {
	var req scores.LogRequest
	if err := decode(r, &req); err != nil {
		return req, store.NewEvaluation{}, err
	}
	q := r.URL.Query()
	if err := req.Check(false, func(name string) bool { return q.Get(name) != "" }); err != nil {
		return req, store.NewEvaluation{}, err
	}
	ev, err := req.Evaluation(true, "")
	ev.IdempotencyKey = r.Header.Get("Idempotency-Key")
	return req, ev, err
}

// logEvaluation logs the body: per-unit scores, streamed as they arrive in
// a text format, or a classifier's predictions (predictions=true); or, in a
// multipart/form-data body, the part scores with the part labels.
func (s *Server) logEvaluation(w http.ResponseWriter, r *http.Request, c *caller) error {
	req, ev, err := logRequest(r)
	if err != nil {
		return err
	}
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		return s.logParts(w, r, req, ev)
	}
	format, err := bodyFormat(req.InputFormat, r.Header.Get("Content-Type"))
	if err != nil {
		return err
	}
	body := &bodyReader{r: r.Body}
	d := newRequestDigest(r, body, format)
	if done, err := s.retried(w, r, &ev, d.digest, body); done || err != nil {
		return err
	}
	if req.Predictions {
		path, remove, err := s.spool(d, "."+format)
		if err != nil {
			return body.cause(err)
		}
		defer remove()
		return s.logPredictions(w, r, req, ev, path, format, "body")
	}
	in, tmp, done, err := s.openBody(d, format)
	if err != nil {
		return body.cause(err)
	}
	defer done()
	logged, err := in.Log(r.Context(), s.store, ev)
	if err != nil {
		return body.cause(asBody(err, tmp, "body"))
	}
	return s.logged(w, logged)
}

// logParts logs a multipart/form-data body: the part scores (or, with
// predictions=true, the predictions), and the optional part labels, a CSV
// of sample_id,label recorded with the evaluation set.
func (s *Server) logParts(w http.ResponseWriter, r *http.Request, req scores.LogRequest, ev store.NewEvaluation) error {
	const want = "scores (the file to log) and labels (sample_id,label, optional)"
	parts, err := s.spoolParts(r, func(part, filename, contentType string) (string, bool) {
		switch part {
		case "labels":
			return ".csv", true
		case "scores":
			f, err := partFormat(req.InputFormat, filename, contentType)
			return "." + f, err == nil
		}
		return "", false
	}, want)
	defer parts.close()
	if err != nil {
		return err
	}
	path := parts.files["scores"]
	if path == "" {
		return badRequest("the part scores is required: the parts are %s", want)
	}
	format, err := partFormat(req.InputFormat, parts.names["scores"], parts.headers["scores"])
	if err != nil {
		return err
	}
	if labels := parts.files["labels"]; labels != "" {
		if req.Predictions {
			return &httpError{status: http.StatusUnprocessableEntity, code: "invalid_input", msg: "labels does not apply with predictions"}
		}
		if ev.Labels, err = scores.ReadLabels(labels); err != nil {
			return asBody(err, labels, "labels")
		}
	}
	if done, err := s.retried(w, r, &ev, parts.digest.digest, nil); done || err != nil {
		return err
	}
	if req.Predictions {
		return s.logPredictions(w, r, req, ev, path, format, "scores")
	}
	in, err := scores.OpenScores(path, format)
	if err != nil {
		return asBody(err, path, "scores")
	}
	defer in.Close()
	logged, err := in.Log(r.Context(), s.store, ev)
	if err != nil {
		return asBody(err, path, "scores")
	}
	return s.logged(w, logged)
}

// retried answers a retry, a request with an Idempotency-Key whose content
// was logged before, with the first evaluation, and reports that it did.
// digest gives the content's digest, reading what is left of the body
// (the body's failure then wins: see bodyReader).
func (s *Server) retried(w http.ResponseWriter, r *http.Request, ev *store.NewEvaluation, digest func() string, body *bodyReader) (bool, error) {
	if ev.IdempotencyKey == "" {
		return false, nil
	}
	ev.RequestDigest = digest
	cause := func(err error) error {
		if body == nil {
			return err
		}
		return body.cause(err)
	}
	// A retry is answered without loading its body again: the body is read
	// through the digest only, to tell a retry from other content.
	logged, err := s.store.FindRetry(r.Context(), ev.Experiment, ev.Run, ev.IdempotencyKey, digest)
	if err != nil || logged == nil {
		return false, cause(err)
	}
	if err := cause(nil); err != nil {
		return true, err
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	return true, report.Logged(w, "json", logged)
}

// logPredictions logs the classifier's predictions in the file path, which
// messages call name.
func (s *Server) logPredictions(w http.ResponseWriter, r *http.Request, req scores.LogRequest, ev store.NewEvaluation, path, format, name string) error {
	p, err := scores.ReadPredictions(path, format, scores.PredictionOptions{})
	if err != nil {
		return asBody(err, path, name)
	}
	logged, _, err := p.Log(r.Context(), s.store, ev, req.Classify())
	if err != nil {
		return asBody(err, path, name)
	}
	return s.logged(w, logged)
}

// logged answers a log: 201 Created, or 200 when nothing new was stored.
func (s *Server) logged(w http.ResponseWriter, logged *store.Logged) error {
	status := http.StatusCreated
	if logged.Existing {
		status = http.StatusOK
	} else {
		s.metrics.logged()
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	return report.Logged(w, "json", logged)
}

// mediaFormats are the scores formats by media type.
var mediaFormats = map[string]string{
	"text/csv": "csv", "text/tab-separated-values": "tsv",
	"application/x-ndjson": "jsonl", "application/jsonl": "jsonl", "application/x-jsonlines": "jsonl",
	"application/vnd.apache.parquet": "parquet", "application/x-parquet": "parquet",
	"application/x-npz": "npz", "application/zip": "npz",
}

// bodyFormat is the scores format of a log's body: input_format, else its
// Content-Type.
func bodyFormat(inputFormat, contentType string) (string, error) {
	if inputFormat != "" { // one of the declared choices
		return strings.ToLower(inputFormat), nil
	}
	ct, _, _ := mime.ParseMediaType(contentType)
	if f, ok := mediaFormats[ct]; ok {
		return f, nil
	}
	return "", &httpError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type",
		msg: fmt.Sprintf("Content-Type %q: send text/csv, text/tab-separated-values, application/x-ndjson, application/vnd.apache.parquet or application/x-npz, or say input_format=", ct)}
}

// partFormat is the scores format of a multipart log's part scores:
// input_format, else the part's Content-Type, else its file name's
// extension.
func partFormat(inputFormat, filename, contentType string) (string, error) {
	if f, err := bodyFormat(inputFormat, contentType); err == nil {
		return f, nil
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(strings.TrimSuffix(filename, ".gz")), "."))
	if known, _ := scores.KnownFormat(ext); known {
		return ext, nil
	}
	return "", &httpError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type",
		msg: fmt.Sprintf("part scores (file %q, Content-Type %q): name its format with input_format=, a Content-Type such as text/csv, or a file name such as scores.csv", filename, contentType)}
}
