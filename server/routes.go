package server

import (
	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
)

// The API's answers are the JSON of the command line's --format json, made
// by the same report functions from the same compare calls.

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
			params:    paramsOf(scores.LogRequest{}),
			body:      "the per-unit scores, in any format verdict log reads (gzip allowed), or with predictions=true a classifier's predictions; or a multipart/form-data body with the part scores and the part labels (sample_id,label, recorded with the evaluation set). Header Idempotency-Key makes a retry return the first evaluation",
			bodyTypes: []string{"text/csv", "text/tab-separated-values", "application/x-ndjson", "application/vnd.apache.parquet", "application/x-npz", "multipart/form-data"},
			parts: []param{{name: "scores", required: true, doc: "the file to log: per-unit scores, or with predictions=true a classifier's predictions; its format is input_format, else the part's Content-Type, else its file name's extension"},
				{name: "labels", doc: "CSV of sample_id,label (0/1), recorded with the evaluation set (for method=delong); not with predictions"}},
			idempotent: true, created: true, conflict: conflictLogged, handle: s.logEvaluation},
		{method: "POST", pattern: "/api/v1/evaluate", summary: "compute ranking metrics and log them", role: store.TokenWriter, scope: scopeQuery,
			params:    paramsOf(evaluate.Request{}),
			body:      "files items, targets and optional scores and sample_ids (NumPy, as verdict evaluate --items ...)",
			bodyTypes: []string{"multipart/form-data"},
			parts: []param{{name: "items", doc: "NumPy n x K predicted item indices, best first"},
				{name: "targets", doc: "the targets: a scipy.sparse CSR .npz with items, or a sample_id,item table (CSV or Parquet, by its file name) with predictions"},
				{name: "scores", doc: "NumPy scores of the predictions (validation only)"}, {name: "sample_ids", doc: "NumPy sample IDs, one per row"},
				{name: "trec_run", doc: "TREC run (qid Q0 docno rank score tag), with trec_qrels"}, {name: "trec_qrels", doc: "TREC qrels (qid iter docno rel)"},
				{name: "predictions", doc: "long-table predictions sample_id,item,rank or sample_id,item,score (CSV or Parquet, by its file name), with targets"}},
			idempotent: true, created: true, conflict: conflictLogged, handle: s.evaluate},
		{method: "GET", pattern: "/api/v1/runs", summary: "list runs", role: store.TokenReader, scope: scopeQuery,
			params: paramsOf(store.RunQuery{}), handle: s.listRuns},
		{method: "GET", pattern: "/api/v1/evaluations", summary: "list evaluations, newest first", role: store.TokenReader, scope: scopeQuery,
			params: paramsOf(store.EvaluationFilter{}), handle: s.listEvaluations},
		{method: "GET", pattern: "/api/v1/evaluations/{id}", summary: "show one evaluation", role: store.TokenReader, scope: scopeEvaluation,
			params: paramsOf(store.EvaluationView{}), handle: s.getEvaluation},
		{method: "GET", pattern: "/api/v1/leaderboard", summary: "rank runs by a metric", role: store.TokenReader, scope: scopeQuery,
			params: paramsOf(compare.LeaderboardRequest{}), conflict: conflictPaired, handle: s.leaderboard},
		{method: "GET", pattern: "/api/v1/curve", summary: "a training curve: a metric's mean with its interval at each step of runs", role: store.TokenReader, scope: scopeQuery, params: paramsOf(compare.CurveRequest{}), handle: s.curve},
		{method: "GET", pattern: "/api/v1/compare", summary: "compare two evaluations without recording it", role: store.TokenReader, scope: scopeIDs,
			params: paramsOf(compare.Request{}), conflict: conflictPaired, handle: s.compare(false)},
		{method: "POST", pattern: "/api/v1/compare", summary: "compare two evaluations and record it in the history", role: store.TokenWriter, scope: scopeIDs,
			params: paramsOf(compare.Request{}), idempotent: true, conflict: conflictPaired, handle: s.compare(true)},
		{method: "GET", pattern: "/api/v1/rank", summary: "rank evaluations user by user without recording it", role: store.TokenReader, scope: scopeIDs,
			params: paramsOf(compare.RankRequest{}), conflict: conflictPaired, handle: s.rank(false)},
		{method: "POST", pattern: "/api/v1/rank", summary: "rank evaluations and record the Holm comparisons", role: store.TokenWriter, scope: scopeIDs,
			params: paramsOf(compare.RankRequest{}), idempotent: true, conflict: conflictPaired, handle: s.rank(true)},
		{method: "GET", pattern: "/api/v1/diff", summary: "show the users two evaluations differ most on", role: store.TokenReader, scope: scopeIDs,
			params: paramsOf(compare.DiffRequest{}), conflict: conflictPaired, handle: s.diff},
		{method: "GET", pattern: "/api/v1/history", summary: "list recorded comparisons, newest first", role: store.TokenReader, scope: scopeQuery,
			params: paramsOf(compare.HistoryQuery{}), handle: s.history},
		{method: "GET", pattern: "/api/v1/comparisons/{id}", summary: "show one recorded comparison", role: store.TokenReader, scope: scopeComparison, handle: s.getComparison},
		{method: "GET", pattern: "/api/v1/tokens", summary: "list tokens", role: store.TokenAdmin, scope: scopeUnlimited, handle: s.listTokens},
		{method: "POST", pattern: "/api/v1/tokens", summary: "create a token", role: store.TokenAdmin, scope: scopeUnlimited,
			params:  paramsOf(store.NewToken{}),
			created: true, handle: s.createToken},
		{method: "DELETE", pattern: "/api/v1/tokens/{id}", summary: "revoke a token", role: store.TokenAdmin, scope: scopeUnlimited, handle: s.revokeToken},
	}
}
