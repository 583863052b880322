package server

import (
	"net/url"
	"strconv"
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
	return n
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
	if err != nil && q.err == nil {
		q.err = badRequest("parameter %s: %q is not a number", name, s)
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
