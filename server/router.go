package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-ml/verdict/store"
)

// A route declares what it needs of the caller, and the router enforces it
// before the handler runs, for every route the same way: deny by default.
// A route that declares no role, or no way to find the experiment it
// touches, makes New fail; only a route marked public (GET /healthz) takes
// requests without a token.
type route struct {
	method, pattern string
	summary         string
	role            store.TokenRole // the least role that may call it
	public          bool            // no token needed; only /healthz
	scope           scope           // how the experiment a request touches is found
	params          []param         // query parameters, for the OpenAPI description
	body            string          // what the body holds, for the OpenAPI description; "" for none
	bodyTypes       []string        // its media types, for the OpenAPI description
	parts           []param         // the parts of a multipart/form-data body
	idempotent      bool            // it honours an Idempotency-Key header
	created         bool            // it answers 201 Created when it stores something new
	conflict        string          // when it answers 409 Conflict, for the OpenAPI description; "" for never
	web             bool            // an HTML page: errors are pages, and it signs in with the session cookie
	formToken       bool            // the token comes in the form (signing in), with the sign-in form's CSRF cookie
	handle          func(w http.ResponseWriter, r *http.Request, c *caller) error
}

// param is a query parameter of a route.
type param struct {
	name, kind, doc  string // kind: string, integer, number, boolean
	repeat, required bool
	enum             []string // the values it may take; nil for any
	def              string   // its default, as text; "" for none
}

// scope finds the experiment a request touches, so that a token limited to
// one experiment can be held to it. all means the request may touch every
// experiment: only unlimited tokens may then proceed, unless the handler
// itself limits what it returns (filtered).
type scope struct {
	name     string
	find     func(ctx context.Context, s *Server, r *http.Request) (experiment string, all bool, err error)
	filtered bool // the handler returns only the caller's experiment when the token is limited
}

var (
	// scopeQuery: the experiment parameter names it; a request without
	// one touches every experiment.
	scopeQuery = scope{name: "experiment parameter", find: func(_ context.Context, _ *Server, r *http.Request) (string, bool, error) {
		e := r.URL.Query().Get("experiment")
		return e, e == "", nil
	}}
	// scopeIDs: the experiment parameter names it, or, without one, the
	// evaluation IDs the request names (baseline, candidate, run) do, when
	// they are all of one experiment; a request without either touches
	// every experiment.
	scopeIDs = scope{name: "experiment parameter, or the evaluations' experiment", find: func(ctx context.Context, s *Server, r *http.Request) (string, bool, error) {
		q := r.URL.Query()
		if e := q.Get("experiment"); e != "" {
			return e, false, nil
		}
		exp := ""
		for _, name := range []string{"baseline", "candidate", "run"} {
			for _, v := range q[name] {
				id, err := strconv.ParseInt(v, 10, 64)
				if err != nil || id <= 0 {
					return "", true, nil
				}
				e, err := s.store.GetEvaluation(ctx, id)
				if err != nil {
					return "", false, err
				}
				if exp != "" && e.Experiment != exp {
					return "", true, nil
				}
				exp = e.Experiment
			}
		}
		return exp, exp == "", nil
	}}
	// scopeFiltered: the handler limits its answer to the token's
	// experiment, as a list of experiments does.
	scopeFiltered = scope{name: "filtered", filtered: true, find: func(context.Context, *Server, *http.Request) (string, bool, error) {
		return "", true, nil
	}}
	// scopePath: the path's {name} is the experiment.
	scopePath = scope{name: "path", find: func(_ context.Context, _ *Server, r *http.Request) (string, bool, error) {
		return r.PathValue("name"), false, nil
	}}
	// scopeEvaluation: the path's {id} is an evaluation, of some experiment.
	scopeEvaluation = scope{name: "evaluation", find: func(ctx context.Context, s *Server, r *http.Request) (string, bool, error) {
		id, err := pathID(r)
		if err != nil {
			return "", false, err
		}
		e, err := s.store.GetEvaluation(ctx, id)
		if err != nil {
			return "", false, err
		}
		return e.Experiment, false, nil
	}}
	// scopeComparison: the path's {id} is a recorded comparison, of its
	// baseline's experiment; one whose candidate is of another experiment
	// touches both, and only an unlimited token may see it.
	scopeComparison = scope{name: "comparison", find: func(ctx context.Context, s *Server, r *http.Request) (string, bool, error) {
		id, err := pathID(r)
		if err != nil {
			return "", false, err
		}
		h, err := s.store.GetComparison(ctx, id)
		if err != nil {
			return "", false, err
		}
		same, err := s.sameExperiment(ctx, h, map[int64]string{})
		if err != nil {
			return "", false, err
		}
		return h.Experiment, !same, nil
	}}
	// scopeNone: the request touches no experiment's data (the API's
	// description, signing out).
	scopeNone = scope{name: "none", find: func(context.Context, *Server, *http.Request) (string, bool, error) {
		return "", false, nil
	}}
	// scopeUnlimited: only a token limited to no experiment may call it.
	scopeUnlimited = scope{name: "unlimited", find: func(context.Context, *Server, *http.Request) (string, bool, error) {
		return "", true, nil
	}}
)

// caller is who sent a request, once the router has let it through.
type caller struct {
	token   *store.Token // nil on a public route
	session *session     // the browser's session, when it signed in with the cookie
}

// limited returns the experiment the caller's token is limited to, or "".
func (c *caller) limited() string {
	if c == nil || c.token == nil {
		return ""
	}
	return c.token.Experiment
}

func pathID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, &httpError{status: http.StatusNotFound, code: "not_found", msg: fmt.Sprintf("%q is not an ID", r.PathValue("id"))}
	}
	return id, nil
}

// checkRoutes refuses a route table with a route that declares no role or
// no scope, or a public route other than GET /healthz.
func checkRoutes(routes []route) error {
	seen := map[string]bool{}
	for _, rt := range routes {
		key := rt.method + " " + rt.pattern
		switch {
		case seen[key]:
			return fmt.Errorf("server: route %s is declared twice", key)
		case rt.handle == nil:
			return fmt.Errorf("server: route %s has no handler", key)
		case rt.public && key != "GET /healthz":
			return fmt.Errorf("server: route %s is public; only GET /healthz may be", key)
		case rt.public:
		case rt.role != store.TokenReader && rt.role != store.TokenWriter && rt.role != store.TokenAdmin:
			return fmt.Errorf("server: route %s declares no role, so it would not be protected", key)
		case rt.scope.find == nil:
			return fmt.Errorf("server: route %s declares no scope, so a token limited to one experiment could not be held to it", key)
		}
		seen[key] = true
	}
	return nil
}

// serve is the handler of route rt: it authenticates, authorises, finds the
// experiment and holds a limited token to it, then runs the route.
func (s *Server) serve(rt route) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := newRecorder(w)
		c, err := s.authorize(rt, r)
		if err == nil {
			err = checkText(r)
		}
		if err == nil {
			body := &countingReader{ReadCloser: http.MaxBytesReader(rec, r.Body, s.cfg.MaxBody)}
			r.Body = body
			err = rt.handle(rec, r, c)
			if err == nil && rt.body != "" {
				s.metrics.ingest(body.n)
			}
		}
		if err != nil {
			s.fail(rec, r, rt, err)
		}
		s.logRequest(r, rec, c, rt.method+" "+rt.pattern)
	})
}

// authorize returns the caller of r, or the error that refuses it.
func (s *Server) authorize(rt route, r *http.Request) (*caller, error) {
	if rt.public {
		return &caller{}, nil
	}
	authenticate := s.authenticate
	if rt.formToken {
		authenticate = s.authenticateForm
	}
	c, err := authenticate(r, rt.web)
	if err != nil {
		return nil, err
	}
	if !c.token.Role.Allows(rt.role) {
		return c, &httpError{status: http.StatusForbidden, code: "forbidden",
			msg: fmt.Sprintf("this %s token may not %s: it needs a %s token", c.token.Role, rt.summary, rt.role)}
	}
	exp := c.token.Experiment
	if exp == "" {
		return c, nil
	}
	touched, all, err := rt.scope.find(r.Context(), s, r)
	if err != nil {
		return c, err
	}
	switch {
	case all && rt.scope.filtered:
	case all && (rt.scope.name == scopeQuery.name || rt.scope.name == scopeIDs.name):
		return c, &httpError{status: http.StatusForbidden, code: "forbidden",
			msg: fmt.Sprintf("this token is limited to experiment %q: name it (experiment=%s)", exp, exp)}
	case all:
		return c, &httpError{status: http.StatusForbidden, code: "forbidden",
			msg: fmt.Sprintf("this token is limited to experiment %q", exp)}
	case touched != "" && touched != exp:
		return c, &httpError{status: http.StatusForbidden, code: "forbidden",
			msg: fmt.Sprintf("this token is limited to experiment %q", exp)}
	}
	return c, nil
}

// authenticate finds the token of r: an Authorization: Bearer header, or for
// pages and reads, the session cookie of a browser that signed in.
func (s *Server) authenticate(r *http.Request, web bool) (*caller, error) {
	unauthorized := &httpError{status: http.StatusUnauthorized, code: "unauthorized",
		msg: "a token is required: send Authorization: Bearer <token>"}
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, presented, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return nil, s.authFailed(r, unauthorized)
		}
		t, err := s.store.Authenticate(r.Context(), strings.TrimSpace(presented))
		if errors.Is(err, store.ErrUnauthorized) {
			unauthorized.msg = "the token is invalid or revoked"
			return nil, s.authFailed(r, unauthorized)
		}
		if err != nil {
			return nil, err
		}
		return &caller{token: t}, nil
	}
	// A session cookie signs in pages, and reads of the API from them. It
	// never authorises a change but through a form with the session's
	// CSRF token.
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	if _, err := r.Cookie(sessionCookie); err != nil || !(web || read) {
		return nil, unauthorized
	}
	sess, t, err := s.sessionOf(r)
	if errors.Is(err, store.ErrUnauthorized) {
		unauthorized.msg = "the session has ended (signed out, expired, or its token revoked): sign in again"
		return nil, unauthorized
	}
	if err != nil {
		return nil, err
	}
	if !read && !sess.checkCSRF(r) {
		return nil, &httpError{status: http.StatusForbidden, code: "forbidden", msg: "the form's CSRF token is missing or wrong: reload the page"}
	}
	return &caller{token: t, session: sess}, nil
}

// recorder remembers the status and size of a response, and when its
// request began, for the log and the metrics.
type recorder struct {
	http.ResponseWriter
	status  int
	bytes   int64
	written bool
	start   time.Time
}

func newRecorder(w http.ResponseWriter) *recorder {
	return &recorder{ResponseWriter: w, status: http.StatusOK, start: time.Now()}
}

func (r *recorder) WriteHeader(status int) {
	if !r.written {
		r.status, r.written = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.written = true
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
