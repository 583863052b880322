package server

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strings"
	"time"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
)

// The web view: server-rendered pages with inline SVG and CSS, no script.
// A browser signs in once with a token (the sign-in form is the answer to
// any page asked for without a session) and then holds a session cookie.

// webRoutes are the pages.
func (s *Server) webRoutes() []route {
	return []route{
		{method: "GET", pattern: "/{$}", summary: "list experiments", role: store.TokenReader, scope: scopeFiltered, web: true, handle: s.homePage},
		{method: "GET", pattern: "/experiments/{name}", summary: "show an experiment's report", role: store.TokenReader, scope: scopePath, web: true, handle: s.experimentPage},
		{method: "GET", pattern: "/comparisons/{id}", summary: "show one comparison", role: store.TokenReader, scope: scopeComparison, web: true, handle: s.comparisonPage},
		{method: "POST", pattern: "/login", summary: "sign in with a token", role: store.TokenReader, scope: scopeNone, web: true, formToken: true, handle: s.login},
		{method: "POST", pattern: "/logout", summary: "sign out", role: store.TokenReader, scope: scopeNone, web: true, handle: s.logout},
	}
}

const loginCSRFCookie = "verdict_login_csrf"

// authenticateForm checks a sign-in form: the token in its token field,
// and its CSRF field against the cookie set with the form.
func (s *Server) authenticateForm(r *http.Request, _ bool) (*caller, error) {
	cookie, err := r.Cookie(loginCSRFCookie)
	if err != nil || cookie.Value == "" || subtle.ConstantTimeCompare([]byte(cookie.Value), []byte(r.PostFormValue(csrfField))) != 1 {
		return nil, &httpError{status: http.StatusForbidden, code: "forbidden", msg: "the sign-in form is stale: reload the page and sign in again"}
	}
	t, err := s.store.Authenticate(r.Context(), strings.TrimSpace(r.PostFormValue("token")))
	if errors.Is(err, store.ErrUnauthorized) {
		return nil, &httpError{status: http.StatusUnauthorized, code: "unauthorized", msg: "the token is invalid or revoked"}
	}
	if err != nil {
		return nil, err
	}
	return &caller{token: t}, nil
}

// signInPage answers a page asked for without a session: 401, with the
// sign-in form, whose CSRF value is also set as a cookie.
func (s *Server) signInPage(w http.ResponseWriter, r *http.Request, problem string) {
	csrf := randomID()
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: csrf, Path: "/login", HttpOnly: true, Secure: s.cfg.Secure, SameSite: http.SameSiteStrictMode})
	next := r.URL.RequestURI()
	if r.Method != http.MethodGet || r.URL.Path == "/login" {
		next = r.PostFormValue("next")
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	_ = pages.ExecuteTemplate(w, "signin", map[string]any{"CSRF": csrf, "Next": safeNext(next), "Problem": problem})
}

// safeNext keeps a redirect on this server.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	return next
}

func (s *Server) login(w http.ResponseWriter, r *http.Request, c *caller) error {
	s.sessions.start(w, strings.TrimSpace(r.PostFormValue("token")), s.cfg.Secure)
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: "", Path: "/login", MaxAge: -1})
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
	return nil
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request, c *caller) error {
	s.sessions.end(w, c.session, s.cfg.Secure)
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// csrf is the session's CSRF token for forms, "" for a bearer token.
func (c *caller) csrf() string {
	if c.session == nil {
		return ""
	}
	return c.session.csrf
}

func (s *Server) homePage(w http.ResponseWriter, r *http.Request, c *caller) error {
	list, err := s.experiments(r, c)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	return pages.ExecuteTemplate(w, "home", map[string]any{"Experiments": list, "Token": c.token, "CSRF": c.csrf()})
}

func (s *Server) experimentPage(w http.ResponseWriter, r *http.Request, c *caller) error {
	name := r.PathValue("name")
	x, err := compare.Summarize(r.Context(), s.store, compare.ExperimentQuery{Experiment: name, Limit: 20, History: 50, Runs: 100})
	if err != nil {
		return err
	}
	page, err := report.ExperimentPage(x, time.Now(), store.Version())
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	return page.WriteHTML(w)
}

func (s *Server) comparisonPage(w http.ResponseWriter, r *http.Request, c *caller) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	h, err := compare.GetComparison(r.Context(), s.store, id)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	return pages.ExecuteTemplate(w, "comparison", map[string]any{"C": h, "Token": c.token, "CSRF": c.csrf()})
}

var pages = template.Must(template.New("pages").Funcs(template.FuncMap{
	"num": func(p *float64) string {
		if p == nil {
			return "–"
		}
		return fmt.Sprintf("%.4g", *p)
	},
}).Parse(`
{{define "head"}}<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>verdict{{if .}}: {{.}}{{end}}</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;padding:0 1rem;color:#222}
table{border-collapse:collapse}td,th{padding:.25rem .75rem;border-bottom:1px solid #ddd;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}header{display:flex;justify-content:space-between;align-items:baseline}
form.inline{display:inline}.problem{color:#b00}
</style></head><body>{{end}}
{{define "bar"}}<header><a href="/">verdict</a>{{if .Token}}<span>{{.Token.Name}} ({{.Token.Role}}{{if .Token.Experiment}}, {{.Token.Experiment}} only{{end}})
{{if .CSRF}}<form class="inline" method="post" action="/logout"><input type="hidden" name="csrf" value="{{.CSRF}}"><button>sign out</button></form>{{end}}</span>{{end}}</header>{{end}}
{{define "signin"}}{{template "head" "sign in"}}
<h1>Sign in</h1>
{{if .Problem}}<p class="problem">{{.Problem}}</p>{{end}}
<form method="post" action="/login">
<input type="hidden" name="csrf" value="{{.CSRF}}"><input type="hidden" name="next" value="{{.Next}}">
<label>Token <input type="password" name="token" autocomplete="current-password" size="60" autofocus></label>
<button type="submit">Sign in</button>
</form><p>Make a token with <code>verdict token create --name NAME --role reader</code>.</p></body></html>{{end}}
{{define "home"}}{{template "head" "experiments"}}{{template "bar" .}}
<h1>Experiments</h1>
{{if .Experiments}}<table><thead><tr><th>experiment</th><th>runs</th><th>evaluations</th><th>last logged</th></tr></thead><tbody>
{{range .Experiments}}<tr><td><a href="/experiments/{{.Name}}">{{.Name}}</a></td><td class="n">{{.Runs}}</td><td class="n">{{.Evaluations}}</td><td>{{if .LastLogged}}{{.LastLogged.Format "2006-01-02 15:04"}}{{end}}</td></tr>
{{end}}</tbody></table>{{else}}<p>No experiments yet: log one with <code>verdict log</code> or the Python client.</p>{{end}}
</body></html>{{end}}
{{define "comparison"}}{{template "head" "comparison"}}{{template "bar" .}}
{{with .C}}<h1>Comparison {{.ID}}</h1>
<p><a href="/experiments/{{.Experiment}}">{{.Experiment}}</a>, {{.EvalSet}}, {{.Metric}}, {{.Method}}, recorded {{.CreatedAt.Format "2006-01-02 15:04:05 MST"}}</p>
<p><strong>{{.Verdict}}</strong></p>
<table><tbody>
<tr><th>baseline</th><td>{{.BaselineRun}} (evaluation {{.BaselineID}})</td><td class="n">{{num .BaselineMean}}</td></tr>
<tr><th>candidate</th><td>{{.CandidateRun}} (evaluation {{.CandidateID}})</td><td class="n">{{num .CandidateMean}}</td></tr>
<tr><th>difference (baseline − candidate)</th><td></td><td class="n">{{num .Difference}} [{{num .Low}}, {{num .High}}]</td></tr>
<tr><th>units</th><td></td><td class="n">{{.N}}</td></tr>
</tbody></table>{{end}}
</body></html>{{end}}
`))
