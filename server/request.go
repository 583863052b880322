package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/store"
)

// A route's query parameters are the fields of the request it takes, read
// with request.Decode as the command line reads its flags: the same names,
// defaults, checks and messages (package request).

// paramsOf are the query parameters of the request req, for the OpenAPI
// description.
func paramsOf(req any) []param {
	var ps []param
	for _, f := range request.Fields(req) {
		ps = append(ps, param{name: f.Name, kind: string(f.Kind), doc: f.Help, repeat: f.Repeat, required: f.Required,
			enum: f.Choices, def: f.Default})
	}
	return ps
}

// decode fills the request dst from r's query parameters.
func decode(r *http.Request, dst any) error {
	return request.Decode(r.URL.Query(), dst)
}

// finder finds the evaluations a request names, holding a limited token to
// its experiment.
func (s *Server) finder(c *caller) compare.Finder {
	return func(ctx context.Context, st *store.Store, experiment, evalSet, arg string) (*store.Evaluation, error) {
		e, err := compare.Resolve(ctx, st, experiment, evalSet, arg)
		if err != nil {
			return nil, err
		}
		if lim := c.limited(); lim != "" && e.Experiment != lim {
			return nil, &httpError{status: http.StatusForbidden, code: "forbidden", msg: fmt.Sprintf("this token is limited to experiment %q", lim)}
		}
		return e, nil
	}
}

// checkText refuses a request whose query, path or Idempotency-Key holds a
// NUL byte or text that is not UTF-8: no name can hold one, and the
// database refuses them.
func checkText(r *http.Request) error {
	bad := func(s string) bool { return !utf8.ValidString(s) || strings.ContainsRune(s, 0) }
	if bad(r.URL.Path) {
		return badRequest("the path holds a NUL byte or is not UTF-8")
	}
	if bad(r.Header.Get("Idempotency-Key")) {
		return badRequest("header Idempotency-Key holds a NUL byte or is not UTF-8")
	}
	for name, vs := range r.URL.Query() {
		if bad(name) {
			return badRequest("a parameter's name holds a NUL byte or is not UTF-8")
		}
		for _, v := range vs {
			if bad(v) {
				return badRequest("parameter %s holds a NUL byte or is not UTF-8", name)
			}
		}
	}
	return nil
}
