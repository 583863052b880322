package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// httpError is an error with its HTTP status and the code of the API's
// error body: {"error": {"code": ..., "message": ...}}.
type httpError struct {
	status     int
	code       string
	msg        string
	retryAfter int // seconds, for Retry-After; 0 for none
}

func (e *httpError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &httpError{status: http.StatusBadRequest, code: "bad_request", msg: fmt.Sprintf(format, args...)}
}

// classify gives err its status and code, for every route in one place: a
// handler returns the library's error as it is. Bad input, the same errors
// the command line reports with exit code 2 (a filter that does not parse,
// a parameter out of range), is 422 with the same message; an unknown
// experiment, run or evaluation is 404; anything unexpected is 500 with a
// message that reveals nothing, logged in full.
func classify(err error) *httpError {
	var he *httpError
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &he):
		return he
	case errors.As(err, &tooBig):
		return &httpError{status: http.StatusRequestEntityTooLarge, code: "payload_too_large",
			msg: fmt.Sprintf("the body is larger than this server takes (%d bytes): split the evaluation, or ask for a larger --max-body", tooBig.Limit)}
	case errors.Is(err, errReadIdle):
		return &httpError{status: http.StatusRequestTimeout, code: "timeout", msg: err.Error()}
	case errors.Is(err, store.ErrNotFound):
		return &httpError{status: http.StatusNotFound, code: "not_found", msg: err.Error()}
	case errors.Is(err, store.ErrConflict):
		return &httpError{status: http.StatusConflict, code: "conflict", msg: err.Error()}
	case errors.Is(err, store.ErrNotComparable):
		return &httpError{status: http.StatusConflict, code: "not_comparable", msg: err.Error() + "; allow_different_targets=true compares the units they share"}
	case errors.Is(err, store.ErrSeveralEvalSets):
		return &httpError{status: http.StatusBadRequest, code: "bad_request", msg: err.Error() + " with eval_set"}
	case errors.Is(err, compare.ErrNeedExperiment):
		return &httpError{status: http.StatusBadRequest, code: "bad_request", msg: err.Error() + ": name runs with experiment"}
	case errors.Is(err, store.ErrBadInput), errors.Is(err, store.ErrBadFilter), errors.Is(err, scores.ErrBadInput), errors.Is(err, evaluate.ErrBadInput),
		errors.Is(err, store.ErrUnknownMetric), errors.Is(err, store.ErrNoUnits), errors.Is(err, compare.ErrInvalid), errors.Is(err, compare.ErrNothingShared),
		errors.Is(err, compare.ErrNotApplicable), errors.Is(err, compare.ErrNoEvaluations), errors.Is(err, scores.ErrUnknownFormat),
		errors.Is(err, stats.ErrBadParameter), errors.Is(err, stats.ErrTooFew), errors.Is(err, request.ErrInvalid), errors.Is(err, evaluate.ErrBadMetric), errors.Is(err, evaluate.ErrBadDebug):
		return &httpError{status: http.StatusUnprocessableEntity, code: "invalid_input", msg: err.Error()}
	case errors.Is(err, store.ErrSchemaTooNew):
		return &httpError{status: http.StatusServiceUnavailable, code: "read_only", msg: err.Error()}
	case errors.Is(err, context.Canceled):
		return &httpError{status: 499, code: "canceled", msg: "the request was canceled"}
	}
	return &httpError{status: http.StatusInternalServerError, code: "internal", msg: "internal error: the server's log has the details"}
}

// fail writes err as the response: JSON for the API, a page for the web
// view.
func (s *Server) fail(w *recorder, r *http.Request, rt route, err error) {
	he := classify(err)
	if he.status >= 500 && he.status != http.StatusServiceUnavailable {
		s.cfg.Logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "error", err.Error())
	}
	if w.written {
		return // too late to say more; the log has it
	}
	if he.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(he.retryAfter))
	}
	if rt.web && he.status == http.StatusUnauthorized {
		s.signInPage(w, r, map[bool]string{true: he.msg}[rt.formToken])
		return
	}
	if rt.web {
		setPageHeaders(w)
		w.WriteHeader(he.status)
		page := &report.Page{Title: fmt.Sprintf("verdict: %d %s", he.status, http.StatusText(he.status)),
			Links:    []report.Link{{Text: "All experiments", Href: "/"}},
			Sections: []report.Section{{ID: "error", Heading: he.code, Parts: []report.Part{{Text: he.msg}}}}}
		_ = page.WriteHTML(w)
		return
	}
	writeJSON(w, he.status, map[string]any{"error": map[string]string{"code": he.code, "message": he.msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}
