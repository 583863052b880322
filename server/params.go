package server

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// query reads a request's query parameters, keeping the first problem.
type query struct {
	v   url.Values
	err error
}

func (q *query) str(name string) string { return q.v.Get(name) }

func (q *query) strs(name string) []string { return q.v[name] }

func (q *query) int(name string, def int) int {
	s := q.v.Get(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil && q.err == nil {
		q.err = badRequest("parameter %s: %q is not an integer", name, s)
	}
	q.nonNegative(name, int64(n))
	return n
}

// nonNegative records a negative count: every integer parameter of the API
// is a count or a size.
func (q *query) nonNegative(name string, n int64) {
	if n < 0 && q.err == nil {
		q.err = &httpError{status: http.StatusUnprocessableEntity, code: "invalid_input", msg: fmt.Sprintf("parameter %s: %d is negative", name, n)}
	}
}

func (q *query) int64(name string) int64 {
	s := q.v.Get(name)
	if s == "" {
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil && q.err == nil {
		q.err = badRequest("parameter %s: %q is not an integer", name, s)
	}
	q.nonNegative(name, n)
	return n
}

func (q *query) uint64(name string) uint64 {
	s := q.v.Get(name)
	if s == "" {
		return 0
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil && q.err == nil {
		q.err = badRequest("parameter %s: %q is not a non-negative integer", name, s)
	}
	return n
}

func (q *query) float(name string, def float64) float64 {
	s := q.v.Get(name)
	if s == "" {
		return def
	}
	f, err := strconv.ParseFloat(s, 64)
	if (err != nil || math.IsNaN(f) || math.IsInf(f, 0)) && q.err == nil {
		q.err = badRequest("parameter %s: %q is not a finite number", name, s)
	}
	return f
}

func (q *query) bool(name string) bool {
	s := q.v.Get(name)
	if s == "" {
		return false
	}
	b, err := strconv.ParseBool(s)
	if err != nil && q.err == nil {
		q.err = badRequest("parameter %s: %q is not true or false", name, s)
	}
	return b
}

func (q *query) has(name string) bool { _, ok := q.v[name]; return ok }

// need records a missing required parameter.
func (q *query) need(names ...string) {
	for _, n := range names {
		if q.v.Get(n) == "" && q.err == nil {
			q.err = badRequest("parameter %s is required", n)
		}
	}
}

func (q *query) errorf(format string, args ...any) {
	if q.err == nil {
		q.err = badRequest(format, args...)
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
