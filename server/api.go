package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/runinfo"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
)

// The API's answers are the JSON of the command line's --format json, made
// by the same report functions from the same compare calls.

var (
	runParams = []param{
		{name: "experiment", kind: "string", doc: "experiment name", required: true},
		{name: "run", kind: "string", doc: "run name", required: true},
		{name: "eval_set", kind: "string", doc: "evaluation set name", required: true},
		{name: "param", kind: "string", repeat: true, doc: "run parameter KEY=VALUE (VALUE is JSON when it parses)"},
		{name: "tag", kind: "string", repeat: true, doc: "run tag"},
		{name: "meta", kind: "string", repeat: true, doc: "evaluation metadata KEY=VALUE"},
		{name: "git_commit", kind: "string", doc: "the run's git commit"},
		{name: "lower_is_better", kind: "string", repeat: true, doc: "a metric for which lower is better"},
		{name: "target_fingerprint", kind: "string", doc: "SHA-256 of the targets (see verdict fingerprint)"},
		{name: "protocol", kind: "string", doc: "evaluation protocol name"},
		{name: "required_k", kind: "integer", doc: "ranking depth the metrics need"},
		{name: "folds", kind: "integer", doc: "k-fold: number of folds"},
		{name: "repeats", kind: "integer", doc: "k-fold: number of repetitions"},
		{name: "n_train", kind: "integer", doc: "k-fold: training set size of each fold"},
		{name: "n_test", kind: "integer", doc: "k-fold: test set size of each fold"},
	}
)

// What a route's 409 Conflict means, for the OpenAPI description.
const (
	conflictLogged = "the Idempotency-Key was sent before with other content (body or parameters), or the evaluation conflicts with one stored; nothing is stored"
	conflictPaired = "the evaluations score different units or targets (not_comparable); allow_different_targets=true compares the units they share"
)

// table is every route the server has: the API's and the pages'.
func (s *Server) table() []route {
	return append(append(s.apiRoutes(), s.webRoutes()...), s.metricsRoute()...)
}

func (s *Server) apiRoutes() []route {
	return []route{
		{method: "GET", pattern: "/healthz", summary: "check that the server answers", public: true, handle: s.healthz},
		{method: "GET", pattern: "/api/v1/openapi.json", summary: "describe the API", role: store.TokenReader, scope: scopeNone, handle: s.openAPI},
		{method: "GET", pattern: "/api/v1/experiments", summary: "list experiments", role: store.TokenReader, scope: scopeFiltered, handle: s.listExperiments},
		{method: "POST", pattern: "/api/v1/evaluations", summary: "log an evaluation", role: store.TokenWriter, scope: scopeQuery,
			params:     append(append([]param{}, runParams...), param{name: "format", kind: "string", doc: "csv, tsv, jsonl (ndjson), parquet or npz (default: from Content-Type)"}),
			body:       "the per-unit scores, in any format verdict log reads (gzip allowed); header Idempotency-Key makes a retry return the first evaluation",
			idempotent: true, created: true, conflict: conflictLogged, handle: s.logEvaluation},
		{method: "POST", pattern: "/api/v1/evaluate", summary: "compute ranking metrics and log them", role: store.TokenWriter, scope: scopeQuery,
			params: append(append([]param{}, runParams...),
				param{name: "metrics", kind: "string", repeat: true, doc: "metric specs, e.g. ndcg@10,20"},
				param{name: "no_log", kind: "boolean", doc: "compute only"},
				param{name: "no_validate", kind: "boolean", doc: "skip the checks of the predictions"}),
			body:      "files items, targets and optional scores and sample_ids (NumPy, as verdict evaluate --items ...)",
			bodyTypes: []string{"multipart/form-data"}, idempotent: true, created: true, conflict: conflictLogged, handle: s.evaluate},
		{method: "GET", pattern: "/api/v1/runs", summary: "list runs", role: store.TokenReader, scope: scopeQuery,
			params: paramsOf(store.RunQuery{}), handle: s.listRuns},
		{method: "GET", pattern: "/api/v1/evaluations", summary: "list evaluations, newest first", role: store.TokenReader, scope: scopeQuery,
			params: paramsOf(store.EvaluationFilter{}), handle: s.listEvaluations},
		{method: "GET", pattern: "/api/v1/evaluations/{id}", summary: "show one evaluation", role: store.TokenReader, scope: scopeEvaluation, handle: s.getEvaluation},
		{method: "GET", pattern: "/api/v1/leaderboard", summary: "rank runs by a metric", role: store.TokenReader, scope: scopeQuery,
			params: paramsOf(compare.LeaderboardRequest{}), conflict: conflictPaired, handle: s.leaderboard},
		{method: "GET", pattern: "/api/v1/compare", summary: "compare two evaluations without recording it", role: store.TokenReader, scope: scopeQuery,
			params: paramsOf(compare.Request{}), conflict: conflictPaired, handle: s.compare(false)},
		{method: "POST", pattern: "/api/v1/compare", summary: "compare two evaluations and record it in the history", role: store.TokenWriter, scope: scopeQuery,
			params: paramsOf(compare.Request{}), idempotent: true, conflict: conflictPaired, handle: s.compare(true)},
		{method: "GET", pattern: "/api/v1/rank", summary: "rank evaluations user by user without recording it", role: store.TokenReader, scope: scopeQuery,
			params: paramsOf(compare.RankRequest{}), conflict: conflictPaired, handle: s.rank(false)},
		{method: "POST", pattern: "/api/v1/rank", summary: "rank evaluations and record the Holm comparisons", role: store.TokenWriter, scope: scopeQuery,
			params: paramsOf(compare.RankRequest{}), idempotent: true, conflict: conflictPaired, handle: s.rank(true)},
		{method: "GET", pattern: "/api/v1/diff", summary: "show the users two evaluations differ most on", role: store.TokenReader, scope: scopeQuery,
			params: paramsOf(compare.DiffRequest{}), conflict: conflictPaired, handle: s.diff},
		{method: "GET", pattern: "/api/v1/history", summary: "list recorded comparisons, newest first", role: store.TokenReader, scope: scopeQuery,
			params: paramsOf(compare.HistoryQuery{}), handle: s.history},
		{method: "GET", pattern: "/api/v1/comparisons/{id}", summary: "show one recorded comparison", role: store.TokenReader, scope: scopeComparison, handle: s.getComparison},
		{method: "GET", pattern: "/api/v1/tokens", summary: "list tokens", role: store.TokenAdmin, scope: scopeUnlimited, handle: s.listTokens},
		{method: "POST", pattern: "/api/v1/tokens", summary: "create a token", role: store.TokenAdmin, scope: scopeUnlimited,
			params: []param{{name: "name", kind: "string", doc: "what the token is for", required: true}, {name: "role", kind: "string", doc: "reader, writer or admin", required: true},
				{name: "experiment", kind: "string", doc: "limit the token to this experiment"}},
			created: true, handle: s.createToken},
		{method: "DELETE", pattern: "/api/v1/tokens/{id}", summary: "revoke a token", role: store.TokenAdmin, scope: scopeUnlimited, handle: s.revokeToken},
	}
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request, _ *caller) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": store.Version()})
	return nil
}

func (s *Server) listExperiments(w http.ResponseWriter, r *http.Request, c *caller) error {
	list, err := s.experiments(r, c)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

// experiments lists the experiments the caller may see.
func (s *Server) experiments(r *http.Request, c *caller) ([]store.Experiment, error) {
	list, err := s.store.ListExperiments(r.Context(), c.limited())
	if list == nil {
		list = []store.Experiment{}
	}
	return list, err
}

// newEvaluation reads the run and evaluation a log request names.
func newEvaluation(r *http.Request) (store.NewEvaluation, error) {
	q := &query{v: r.URL.Query()}
	q.need("experiment", "run", "eval_set")
	ev := store.NewEvaluation{
		Experiment: q.str("experiment"), Run: q.str("run"), EvalSet: q.str("eval_set"),
		TargetFingerprint: q.str("target_fingerprint"),
		Tags:              q.strs("tag"),
		LowerIsBetter:     q.strs("lower_is_better"),
		IdempotencyKey:    r.Header.Get("Idempotency-Key"),
		Protocol: store.Protocol{Name: q.str("protocol"), RequiredK: q.int("required_k", 0), Folds: q.int("folds", 0),
			Repeats: q.int("repeats", 0), NTrain: q.int64("n_train"), NTest: q.int64("n_test")},
	}
	if q.err != nil {
		return ev, q.err
	}
	src := runinfo.Sources{Params: q.strs("param"), Meta: q.strs("meta"), GitCommit: q.str("git_commit"), Remote: true}
	if err := src.Apply(&ev); err != nil {
		return ev, badRequest("%v", err)
	}
	return ev, nil
}

// bodyFormat is the scores format of a log request: the format parameter,
// else its Content-Type.
func bodyFormat(r *http.Request) (string, error) {
	if f := r.URL.Query().Get("format"); f != "" {
		if known, _ := scores.KnownFormat(strings.ToLower(f)); !known {
			// Refused before the format names a temporary file.
			return "", &httpError{status: http.StatusUnprocessableEntity, code: "invalid_input",
				msg: fmt.Sprintf("parameter format: %q is not a scores format: csv, tsv, jsonl (ndjson), parquet or npz", f)}
		}
		return f, nil
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "text/csv":
		return "csv", nil
	case "text/tab-separated-values":
		return "tsv", nil
	case "application/x-ndjson", "application/jsonl", "application/x-jsonlines":
		return "jsonl", nil
	case "application/vnd.apache.parquet", "application/x-parquet":
		return "parquet", nil
	case "application/x-npz", "application/zip":
		return "npz", nil
	}
	return "", &httpError{status: http.StatusUnsupportedMediaType, code: "unsupported_media_type",
		msg: fmt.Sprintf("Content-Type %q: send text/csv, text/tab-separated-values, application/x-ndjson, application/vnd.apache.parquet or application/x-npz, or say format=", ct)}
}

// spool writes body to a new temporary file named like name, so that every
// reader, Parquet and NPZ included, reads it as verdict log reads a file:
// memory stays bounded whatever the body's size.
func (s *Server) spool(body io.Reader, ext string) (string, func(), error) {
	f, done, err := s.uploads.create(ext)
	if err != nil {
		return "", nil, err
	}
	// No fsync: the file lives for this request only.
	if _, err := io.Copy(f, body); err != nil {
		done()
		return "", nil, err
	}
	return f.Name(), done, nil
}

// asBody names the uploaded file as the request's body in err's message.
func asBody(err error, path, name string) error {
	if err == nil || !strings.Contains(err.Error(), path) {
		return err
	}
	he := *classify(err)
	he.msg = strings.ReplaceAll(he.msg, path, name)
	return &he
}

func (s *Server) logEvaluation(w http.ResponseWriter, r *http.Request, c *caller) error {
	ev, err := newEvaluation(r)
	if err != nil {
		return err
	}
	format, err := bodyFormat(r)
	if err != nil {
		return err
	}
	body := &bodyReader{r: r.Body}
	d := newRequestDigest(r, body, strings.ToLower(format))
	if ev.IdempotencyKey != "" {
		ev.RequestDigest = d.digest
		// A retry is answered without loading its body again: the body is
		// read through the digest only, to tell a retry from other content.
		logged, err := s.store.FindRetry(r.Context(), ev.Experiment, ev.Run, ev.IdempotencyKey, d.digest)
		if err != nil {
			return body.cause(err)
		}
		if logged != nil {
			if err := body.cause(nil); err != nil {
				return err
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			return report.Logged(w, "json", logged)
		}
	}
	in, tmp, done, err := s.openBody(d, strings.ToLower(format))
	if err != nil {
		return body.cause(err)
	}
	defer done()
	logged, err := in.Log(r.Context(), s.store, ev)
	if err != nil {
		return body.cause(asBody(err, tmp, "body"))
	}
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

// openBody opens a log's body for reading, in bounded memory whatever its
// size. A text format is read as it arrives, as verdict log reads a file,
// and copied to a temporary file on the way, from which the lines of a
// duplicate that the database finds are named. Parquet and NPZ, which are
// read from their end, are written to a temporary file first. Messages name
// the input "body"; those that name tmp, the temporary file, must be
// rewritten so (asBody).
func (s *Server) openBody(body io.Reader, format string) (in *scores.Scores, tmp string, done func(), err error) {
	if known, text := scores.KnownFormat(format); known && text {
		f, remove, err := s.uploads.create("." + format)
		if err != nil {
			return nil, "", nil, err
		}
		reopen := func() (*scores.Scores, error) { return scores.OpenScores(f.Name(), format) }
		in, err := scores.ReadScores(io.TeeReader(body, f), "body", format, reopen)
		if err != nil {
			remove()
			return nil, "", nil, err
		}
		return in, f.Name(), func() { in.Close(); remove() }, nil
	}
	path, remove, err := s.spool(body, "."+format)
	if err != nil {
		return nil, "", nil, err
	}
	if in, err = scores.OpenScores(path, format); err != nil {
		remove()
		return nil, "", nil, asBody(err, path, "body")
	}
	return in, path, func() { in.Close(); remove() }, nil
}

// bodyReader remembers why reading a request's body failed: a body over
// the limit or one that stalled is the client's doing, whatever the reader
// or the store made of the failure (a cut line, a canceled context).
type bodyReader struct {
	r   io.Reader
	err error
}

func (b *bodyReader) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && b.err == nil {
		b.err = err
	}
	return n, err
}

// cause returns the body's failure when it had one, else err.
func (b *bodyReader) cause(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(b.err, &tooBig) || errors.Is(b.err, errReadIdle) {
		return b.err
	}
	return err
}

// evaluateParts are the files of an evaluate request.
var evaluateParts = map[string]string{"items": ".npy", "scores": ".npy", "targets": ".npz", "sample_ids": ".npy"}

func (s *Server) evaluate(w http.ResponseWriter, r *http.Request, c *caller) error {
	q := &query{v: r.URL.Query()}
	metrics, err := evaluate.ParseMetrics(q.strs("metrics"))
	if err != nil {
		return &httpError{status: http.StatusUnprocessableEntity, code: "invalid_input", msg: err.Error()}
	}
	noLog, noValidate := q.bool("no_log"), q.bool("no_validate")
	opts := evaluate.RunOptions{Metrics: metrics}
	if q.err != nil {
		return q.err
	}
	if !noLog {
		if opts.Log, err = newEvaluation(r); err != nil {
			return err
		}
		opts.Store = s.store
	} else if c.limited() != "" && q.str("experiment") != c.limited() {
		return &httpError{status: http.StatusForbidden, code: "forbidden", msg: fmt.Sprintf("this token is limited to experiment %q", c.limited())}
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return badRequest("the body must be multipart/form-data with files items and targets: %v", err)
	}
	files := map[string]string{}
	parts := &partsDigest{query: r.URL.Query().Encode(), parts: map[string][]byte{}}
	if opts.Log.IdempotencyKey != "" {
		opts.Log.RequestDigest = parts.digest
	}
	defer func() {
		for _, p := range files {
			os.Remove(p)
		}
	}()
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return badRequest("the multipart body: %v", err)
		}
		name := part.FormName()
		ext, ok := evaluateParts[name]
		if !ok {
			return badRequest("unknown part %q: the parts are items, scores, targets and sample_ids", name)
		}
		if _, dup := files[name]; dup {
			return badRequest("part %q is given twice", name)
		}
		h, sum := parts.add(name)
		path, done, err := s.spool(io.TeeReader(part, h), ext)
		if err != nil {
			return err
		}
		_ = done // removed with the others, by path
		sum()
		files[name] = path
	}
	if files["items"] == "" || files["targets"] == "" {
		return badRequest("the parts items and targets are required (scores and sample_ids are optional)")
	}
	src, err := evaluate.OpenNumPyRankings(files["items"], files["scores"], files["targets"], files["sample_ids"],
		evaluate.RankingOptions{Width: evaluate.RequiredK(metrics), SkipValidation: noValidate})
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

func (s *Server) listRuns(w http.ResponseWriter, r *http.Request, c *caller) error {
	var rq store.RunQuery
	if err := decode(r, &rq); err != nil {
		return err
	}
	runs, err := s.store.SearchRuns(r.Context(), rq)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return report.Runs(w, "json", runs, false)
}

func (s *Server) listEvaluations(w http.ResponseWriter, r *http.Request, c *caller) error {
	var f store.EvaluationFilter
	if err := decode(r, &f); err != nil {
		return err
	}
	list, err := s.store.ListEvaluations(r.Context(), f)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return report.StoredList(w, list)
}

func (s *Server) getEvaluation(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	e, err := s.store.GetEvaluation(r.Context(), id)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return report.Stored(w, e)
}

func (s *Server) leaderboard(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req compare.LeaderboardRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	version, _, err := s.store.ExperimentVersions(r.Context(), req.Experiment, false)
	if err != nil {
		return err
	}
	body, err := s.answers.get(cacheKey("leaderboard", r.URL.Query(), version), bytesOf(func(buf *bytes.Buffer) error {
		// Computed for whoever asks first, and kept for the others: it
		// must not stop when that request goes away.
		lb, err := compare.NewLeaderboard(context.WithoutCancel(r.Context()), s.store, req.Query())
		if err != nil {
			return err
		}
		return report.Leaderboard(buf, "json", lb)
	}))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(body.([]byte))
	return err
}

func (s *Server) compare(record bool) func(http.ResponseWriter, *http.Request, *caller) error {
	return func(w http.ResponseWriter, r *http.Request, c *caller) error {
		var req compare.Request
		if err := decode(r, &req); err != nil {
			return err
		}
		if _, _, err := req.Options(record); err != nil {
			return err
		}
		return s.recording(w, r, c, record, func(buf *bytes.Buffer) error {
			res, err := req.Run(r.Context(), s.store, s.finder(c), record, report.Verdict)
			if err != nil {
				return err
			}
			s.metrics.compared(record)
			return report.Comparison(buf, "json", res)
		})
	}
}

func (s *Server) rank(record bool) func(http.ResponseWriter, *http.Request, *caller) error {
	return func(w http.ResponseWriter, r *http.Request, c *caller) error {
		var req compare.RankRequest
		if err := decode(r, &req); err != nil {
			return err
		}
		return s.recording(w, r, c, record, func(buf *bytes.Buffer) error {
			res, err := req.Run(r.Context(), s.store, s.finder(c), record, report.RankVerdict)
			if err != nil {
				return err
			}
			return report.Ranking(buf, "json", res)
		})
	}
}

// recording answers a request that records in the history when record is
// set: with an Idempotency-Key, a request sent again gets the first answer
// and records nothing more (replays).
func (s *Server) recording(w http.ResponseWriter, r *http.Request, c *caller, record bool, compute func(*bytes.Buffer) error) error {
	key := r.Header.Get("Idempotency-Key")
	var body []byte
	var err error
	if record && key != "" {
		id := int64(0)
		if c.token != nil {
			id = c.token.ID
		}
		body, err = s.replays.do(fmt.Sprintf("%d %s %s?%s %s", id, r.Method, r.URL.Path, r.URL.Query().Encode(), key), func(buf *bytes.Buffer) error {
			return compute(buf)
		})
	} else {
		var buf bytes.Buffer
		err = compute(&buf)
		body = buf.Bytes()
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(body)
	return err
}

func (s *Server) diff(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req compare.DiffRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	d, err := req.Run(r.Context(), s.store, s.finder(c))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return report.Diff(w, "json", d)
}

func (s *Server) history(w http.ResponseWriter, r *http.Request, c *caller) error {
	var q compare.HistoryQuery
	if err := decode(r, &q); err != nil {
		return err
	}
	f, err := q.Filter(time.Now())
	if err != nil {
		return err
	}
	hist, err := s.historyFor(r.Context(), c, f)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	if q.FDR {
		l, err := compare.Ledger(r.Context(), s.store, f.Experiment)
		if err != nil {
			return err
		}
		return report.HistoryFDR(w, "json", l, hist)
	}
	return report.HistoryEntries(w, "json", hist)
}

func (s *Server) getComparison(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	h, err := compare.GetComparison(r.Context(), s.store, id)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	return report.Recorded(w, "json", h)
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request, c *caller) error {
	list, err := s.store.ListTokens(r.Context())
	if err != nil {
		return err
	}
	if list == nil {
		list = []store.Token{}
	}
	writeJSON(w, http.StatusOK, list)
	return nil
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request, c *caller) error {
	q := &query{v: r.URL.Query()}
	q.need("name", "role")
	if q.err != nil {
		return q.err
	}
	role, err := store.ParseTokenRole(q.str("role"))
	if err != nil {
		return err
	}
	t, secret, err := s.store.CreateToken(r.Context(), q.str("name"), role, q.str("experiment"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, struct {
		*store.Token
		Secret string `json:"token"`
	}{t, secret})
	return nil
}

func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		return &httpError{status: http.StatusNotFound, code: "not_found", msg: fmt.Sprintf("%q is not a token ID", r.PathValue("id"))}
	}
	t, err := s.store.RevokeToken(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}
