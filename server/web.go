package server

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request"
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
		{method: "GET", pattern: "/experiments/{name}/runs", summary: "search, sort and page an experiment's runs", role: store.TokenReader, scope: scopePath, web: true, handle: s.runsPage},
		{method: "GET", pattern: "/experiments/{name}/runs/{run}", summary: "show one run", role: store.TokenReader, scope: scopePath, web: true, handle: s.runPage},
		{method: "GET", pattern: "/experiments/{name}/compare", summary: "compare two runs without recording it", role: store.TokenReader, scope: scopePath, web: true, handle: s.comparePage},
		{method: "POST", pattern: "/experiments/{name}/compare", summary: "compare two runs and record it in the history", role: store.TokenWriter, scope: scopePath, web: true, handle: s.recordCompare},
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
		return nil, s.authFailed(r, &httpError{status: http.StatusUnauthorized, code: "unauthorized", msg: "the token is invalid or revoked"})
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
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: csrf, Path: "/login", HttpOnly: true, Secure: s.secureCookies(r), SameSite: http.SameSiteStrictMode})
	next := r.URL.RequestURI()
	if r.Method != http.MethodGet || r.URL.Path == "/login" {
		next = r.PostFormValue("next")
	}
	var form strings.Builder
	_ = signInForm.Execute(&form, map[string]any{"CSRF": csrf, "Next": safeNext(next), "Problem": problem})
	p := &report.Page{Title: "verdict: sign in", Subtitle: "Sign in with a token to see the experiments and their reports.",
		Sections: []report.Section{{ID: "sign-in", Heading: "Sign in", Parts: []report.Part{
			{HTML: template.HTML(form.String())},
			{Text: "Make a token with: verdict token create --name NAME --role reader (add --experiment NAME to limit it to one experiment)."},
		}}}}
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		s.cfg.Logger.Error("sign-in page", "error", err.Error())
	}
	setPageHeaders(w)
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write(b.Bytes())
}

var signInForm = template.Must(template.New("signin").Parse(`<form class="signin" method="post" action="/login">
{{with .Problem}}<p class="problem">{{.}}</p>
{{end}}<input type="hidden" name="csrf" value="{{.CSRF}}"><input type="hidden" name="next" value="{{.Next}}">
<label for="token">Token</label>
<input type="password" id="token" name="token" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>`))

// safeNext keeps the redirect after signing in on this server: it returns
// next as http.Redirect will send it (its path cleaned, its query kept) when
// that is a path here, and "/" otherwise. A path here starts with one slash
// followed by neither a slash nor a backslash, before and after cleaning
// and percent-decoding, and holds printable ASCII only, with no backslash
// anywhere: browsers read a backslash as a slash and drop tabs and
// newlines, so that `/\evil.example`, "/<TAB>/evil.example" and
// `/./\evil.example` (which cleaning turns into `/\evil.example`) would each
// send the browser to another host.
func safeNext(next string) string {
	if !localPath(next) {
		return "/"
	}
	p, query, hasQuery := strings.Cut(next, "?")
	cleaned := path.Clean(p)
	if strings.HasSuffix(p, "/") && !strings.HasSuffix(cleaned, "/") {
		cleaned += "/"
	}
	if hasQuery {
		cleaned += "?" + query
	}
	if !localPath(cleaned) {
		return "/"
	}
	return cleaned
}

// localPath reports whether s is a path on this server: see safeNext.
func localPath(s string) bool {
	if len(s) == 0 || s[0] != '/' || len(s) > 1 && (s[1] == '/' || s[1] == '\\') {
		return false
	}
	for i := range len(s) {
		if c := s[i]; c <= ' ' || c >= 0x7f || c == '\\' {
			return false
		}
	}
	p, _, _ := strings.Cut(s, "?")
	decoded, err := url.PathUnescape(p)
	return err == nil && !strings.HasPrefix(decoded, "//") && !strings.HasPrefix(decoded, "/\\")
}

func (s *Server) login(w http.ResponseWriter, r *http.Request, c *caller) error {
	if err := s.startSession(w, r, c.token); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: "", Path: "/login", HttpOnly: true, Secure: s.secureCookies(r),
		SameSite: http.SameSiteStrictMode, MaxAge: -1})
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
	return nil
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request, c *caller) error {
	if err := s.endSession(w, r, c.session); err != nil {
		return err
	}
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

// pageHrefs are where the pages link: the reports of experiments, the
// pages of comparisons, and, for evaluations, which have no page, the
// API's JSON of one, which a signed-in browser may read.
var pageHrefs = report.Hrefs{
	Experiment: func(name string) string { return "/experiments/" + url.PathEscape(name) },
	Comparison: func(id int64) string { return fmt.Sprintf("/comparisons/%d", id) },
	Evaluation: func(id int64) string { return fmt.Sprintf("/api/v1/evaluations/%d", id) },
}

// writePage writes p as a page of the web view: it says who is signed in,
// with a sign-out button, and links to the list of experiments, then to
// links.
func (s *Server) writePage(w http.ResponseWriter, c *caller, p *report.Page, links ...report.Link) error {
	return s.writePageStatus(w, c, http.StatusOK, p, links...)
}

// writePageStatus is writePage answering status.
func (s *Server) writePageStatus(w http.ResponseWriter, c *caller, status int, p *report.Page, links ...report.Link) error {
	var banner strings.Builder
	if err := accountBanner.Execute(&banner, map[string]any{"Token": c.token, "CSRF": c.csrf()}); err != nil {
		return err
	}
	p.Banner = template.HTML(banner.String())
	p.Links = append([]report.Link{{Text: "All experiments", Href: "/"}}, links...)
	var b bytes.Buffer
	if err := p.WriteHTML(&b); err != nil {
		return err
	}
	setPageHeaders(w)
	w.WriteHeader(status)
	_, err := w.Write(b.Bytes())
	return err
}

// setPageHeaders marks a response as a page. The pages run no script and
// load nothing: the policy says so, so that markup slipped into a page
// could neither run nor send anything anywhere.
func setPageHeaders(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "same-origin")
}

// accountBanner is who is signed in, with a sign-out button for a browser's
// session (a bearer token has none to end).
var accountBanner = template.Must(template.New("account").Parse(`{{with .Token}}Signed in as <strong>{{.Name}}</strong> ({{.Role}}{{with .Experiment}}, experiment {{.}} only{{end}}){{end}}
{{- with .CSRF}}<form method="post" action="/logout"><input type="hidden" name="csrf" value="{{.}}"><button type="submit">Sign out</button></form>{{end}}`))

func (s *Server) homePage(w http.ResponseWriter, r *http.Request, c *caller) error {
	list, err := s.experiments(r, c)
	if err != nil {
		return err
	}
	return s.writePage(w, c, report.ExperimentsPage(list, pageHrefs))
}

func (s *Server) experimentPage(w http.ResponseWriter, r *http.Request, c *caller) error {
	name := r.PathValue("name")
	// The summary is a function of the experiment's evaluations and
	// comparisons, which are only ever added to, so it is kept until one
	// is added, and computed once for readers asking at the same time.
	evals, comparisons, err := s.store.ExperimentVersions(r.Context(), name, true)
	if err != nil {
		return err
	}
	// The page shows what verdict report writes by default.
	var req compare.ExperimentRequest
	if err := request.Decode(request.Values{"experiment": {name}}, &req); err != nil {
		return err
	}
	v, err := s.reports.get(fmt.Sprintf("%s\x00%d\x00%d", name, evals, comparisons), func() (any, error) {
		return compare.Summarize(context.WithoutCancel(r.Context()), s.store, req.Query())
	})
	if err != nil {
		return err
	}
	x := v.(*compare.Experiment)
	if lim := c.limited(); lim != "" {
		// The summary is kept for every reader: a limited one gets a copy
		// without the comparisons with other experiments' evaluations.
		own := *x
		if own.History, err = s.within(r.Context(), lim, x.History, map[int64]string{}); err != nil {
			return err
		}
		x = &own
	}
	page, err := report.ExperimentPage(x, x.Generated, store.Version(), pageHrefs)
	if err != nil {
		return err
	}
	// The runs are the table to work in: searchable, sortable, and the
	// place to pick two runs to compare.
	runs, err := s.runsSection(r.Context(), c, name, url.Values{})
	if err != nil {
		return err
	}
	for i := range page.Sections {
		if page.Sections[i].ID == "runs" {
			page.Sections[i].Parts = append(page.Sections[i].Parts[:1:1], runs.Parts...)
		}
	}
	return s.writePage(w, c, page, report.Link{Text: "Search runs", Href: runsHref(name)})
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
	page, err := report.ComparisonPage(h, pageHrefs)
	if err != nil {
		return err
	}
	// The users who moved most, as verdict diff lists them: the
	// evaluations compared, by ID, held to the caller's experiment.
	find := s.finder(c)
	base, err := find(r.Context(), s.store, "", "", strconv.FormatInt(h.BaselineID, 10))
	if err != nil {
		return err
	}
	cand, err := find(r.Context(), s.store, "", "", strconv.FormatInt(h.CandidateID, 10))
	if err != nil {
		return err
	}
	diff, err := s.diffSections(r.Context(), base, cand, h.Metric)
	if err != nil {
		return err
	}
	// After the result, before where it was recorded.
	at := len(page.Sections) - 1
	page.Sections = append(page.Sections[:at], append(diff, page.Sections[at:]...)...)
	return s.writePage(w, c, page, report.Link{Text: "Experiment " + h.Experiment, Href: pageHrefs.Experiment(h.Experiment)},
		report.Link{Text: "Runs", Href: runsHref(h.Experiment)})
}
