package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/store"
)

// The pages to work in: an experiment's runs, searchable, sortable and
// paged, from which two are picked and compared; a comparison computed on
// request, which a writer may record; a run's own page. They are forms and
// links, with no script.

// runsPageLimit is how many runs the runs table shows at first; "show
// more" doubles it.
const runsPageLimit = 50

func runsHref(experiment string) string {
	return "/experiments/" + url.PathEscape(experiment) + "/runs"
}

func runHref(experiment, run string) string {
	return runsHref(experiment) + "/" + url.PathEscape(run)
}

func compareHref(experiment string) string {
	return "/experiments/" + url.PathEscape(experiment) + "/compare"
}

// runsView is what the runs table shows.
type runsView struct {
	Experiment string
	Filter     string
	OrderBy    string
	EvalSet    string
	Limit      int
	Problem    string // the filter's or the order's error, as the parser says it
	Runs       []runRow
	Metrics    []string
	Columns    []runColumn
	More       string // the link to twice as many runs; "" when all are shown
	Total      string // what is shown, in words
	Action     string // the filter form's action
	Compare    string // the comparison form's action
}

// runColumn is a sortable column of the runs table.
type runColumn struct {
	Heading, Href, Arrow string
	Num                  bool
}

// runRow is one run of the runs table.
type runRow struct {
	Name, Href string
	Metrics    []string
	Evals      string
	Created    string
	Params     string
	Tags       string
}

// runsQuery reads the runs table's parameters: those of a run search,
// with limit 50 unless given.
func runsQuery(experiment string, q url.Values) (store.RunQuery, error) {
	v := request.Values{}
	for k, vs := range q {
		v[k] = vs
	}
	v["experiment"] = []string{experiment}
	var rq store.RunQuery
	if err := request.Decode(v, &rq); err != nil {
		return rq, err
	}
	if q.Get("limit") == "" {
		rq.Limit = runsPageLimit
	}
	return rq, nil
}

// runsSection is the runs table of an experiment, with its search form
// and the form that compares two of its runs.
func (s *Server) runsSection(ctx context.Context, c *caller, experiment string, q url.Values) (report.Section, error) {
	sec := report.Section{ID: "runs", Heading: "Runs"}
	rq, err := runsQuery(experiment, q)
	if err != nil {
		return sec, err
	}
	view := runsView{Experiment: experiment, Filter: rq.Filter, OrderBy: rq.OrderBy, EvalSet: rq.EvalSet, Limit: rq.Limit,
		Action: runsHref(experiment), Compare: compareHref(experiment)}
	ask := rq
	if ask.Limit > 0 {
		ask.Limit++ // one more tells whether there are more
	}
	runs, err := s.store.SearchRuns(ctx, ask)
	switch {
	case errors.Is(err, store.ErrBadFilter):
		view.Problem = err.Error()
		runs = nil
	case err != nil:
		return sec, err
	}
	if rq.Limit > 0 && len(runs) > rq.Limit {
		runs = runs[:rq.Limit]
		more := url.Values{"limit": {strconv.Itoa(2 * rq.Limit)}}
		for k, v := range map[string]string{"filter": rq.Filter, "order_by": rq.OrderBy, "eval_set": rq.EvalSet} {
			if v != "" {
				more.Set(k, v)
			}
		}
		view.More = runsHref(experiment) + "?" + more.Encode()
		view.Total = fmt.Sprintf("The first %d runs that match.", len(runs))
	} else {
		view.Total = fmt.Sprintf("%d runs match.", len(runs))
		if len(runs) == 1 {
			view.Total = "1 run matches."
		}
	}
	means, err := s.runMeans(ctx, experiment, rq.EvalSet, runs)
	if err != nil {
		return sec, err
	}
	names := map[string]bool{}
	for _, m := range means {
		for k := range m {
			names[k] = true
		}
	}
	view.Metrics = slices.Sorted(maps.Keys(names))

	// Each heading sorts by its column: a metric best-first (descending)
	// on the first click, the other way on the next.
	sortLink := func(heading, key string, desc, num bool) runColumn {
		col := runColumn{Heading: heading, Num: num}
		next := key
		if desc {
			next += " desc"
		}
		cur := strings.ToLower(strings.Join(strings.Fields(rq.OrderBy), " "))
		switch cur {
		case key, key + " asc":
			col.Arrow = "▲"
			next = key + " desc"
		case key + " desc":
			col.Arrow = "▼"
			next = key + " asc"
		}
		v := url.Values{"order_by": {next}}
		if rq.Filter != "" {
			v.Set("filter", rq.Filter)
		}
		if rq.EvalSet != "" {
			v.Set("eval_set", rq.EvalSet)
		}
		if q.Get("limit") != "" {
			v.Set("limit", q.Get("limit"))
		}
		col.Href = runsHref(experiment) + "?" + v.Encode()
		return col
	}
	view.Columns = append(view.Columns, sortLink("RUN", "run", false, false))
	for _, m := range view.Metrics {
		view.Columns = append(view.Columns, sortLink(m, "metrics."+m, true, true))
	}
	view.Columns = append(view.Columns, runColumn{Heading: "EVALUATIONS", Num: true}, sortLink("CREATED", "created", true, false),
		runColumn{Heading: "PARAMS"}, runColumn{Heading: "TAGS"})

	for i, r := range runs {
		row := runRow{Name: r.Name, Href: runHref(experiment, r.Name), Evals: report.Thousands(r.Evaluations),
			Created: r.CreatedAt.Local().Format("2006-01-02 15:04"), Tags: strings.Join(r.Tags, ", ")}
		var params []string
		for _, k := range slices.Sorted(maps.Keys(r.Params)) {
			params = append(params, k+"="+paramValue(r.Params[k]))
		}
		row.Params = strings.Join(params, ", ")
		for _, m := range view.Metrics {
			if v, ok := means[i][m]; ok {
				row.Metrics = append(row.Metrics, report.Num(v))
			} else {
				row.Metrics = append(row.Metrics, "-")
			}
		}
		view.Runs = append(view.Runs, row)
	}
	var b strings.Builder
	if err := runsTable.Execute(&b, view); err != nil {
		return sec, err
	}
	sec.Parts = []report.Part{{HTML: template.HTML(b.String())}}
	return sec, nil
}

// paramValue is a param's value as the filter language writes it.
func paramValue(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

var runsTable = template.Must(template.New("runs").Parse(`<form class="work" method="get" action="{{.Action}}">
<label for="filter">Filter</label>
<input type="text" id="filter" name="filter" value="{{.Filter}}" size="60" placeholder="params.lr &lt; 0.01 AND tags.team = 'x'">
{{with .OrderBy}}<input type="hidden" name="order_by" value="{{.}}">{{end}}{{with .EvalSet}}<input type="hidden" name="eval_set" value="{{.}}">{{end}}
<button type="submit">Search</button>
{{if or .Filter .OrderBy}}<a href="{{.Action}}">clear</a>{{end}}
</form>
{{with .Problem}}<p class="problem" id="filter-problem">{{.}}</p>
{{end}}<p class="caption">{{.Total}} Filter with params.NAME, tags.NAME, metrics.NAME, run, created and git_commit (for example <code>params.lr &lt; 0.01 AND tags.nightly = 'true'</code>); a column's heading sorts by it. Metrics are each run's newest evaluation's means. Pick a baseline and a candidate to compare them.</p>
<form class="work" method="get" action="{{.Compare}}">
<div class="table-wrap"><table id="runs-table">
<thead><tr><th>BASELINE</th><th>CANDIDATE</th>{{range .Columns}}<th{{if .Num}} class="num"{{end}}>{{if .Href}}<a href="{{.Href}}">{{.Heading}}</a>{{with .Arrow}} {{.}}{{end}}{{else}}{{.Heading}}{{end}}</th>{{end}}</tr></thead>
<tbody>{{range $i, $r := .Runs}}
<tr><td><input type="radio" name="baseline" value="{{$r.Name}}" aria-label="baseline {{$r.Name}}"></td><td><input type="radio" name="candidate" value="{{$r.Name}}" aria-label="candidate {{$r.Name}}"></td><td class="strong run"><a href="{{$r.Href}}">{{$r.Name}}</a></td>{{range $r.Metrics}}<td class="num metric">{{.}}</td>{{end}}<td class="num">{{$r.Evals}}</td><td>{{$r.Created}}</td><td class="wrap">{{$r.Params}}</td><td class="wrap">{{$r.Tags}}</td></tr>{{end}}
</tbody></table></div>
{{with .EvalSet}}<input type="hidden" name="eval_set" value="{{.}}">{{end}}
{{if .Runs}}<button type="submit" id="compare-runs">Compare baseline with candidate</button>{{end}}
</form>
{{with .More}}<p><a id="show-more" href="{{.}}">Show more runs</a></p>
{{end}}`))

// runMeans are each run's newest evaluation's means (on evalSet, or on
// any set), in the order of runs, as the run search reads them.
func (s *Server) runMeans(_ context.Context, _, _ string, runs []store.Run) ([]map[string]float64, error) {
	out := make([]map[string]float64, len(runs))
	for i, r := range runs {
		out[i] = r.Metrics
	}
	return out, nil
}

func (s *Server) runsPage(w http.ResponseWriter, r *http.Request, c *caller) error {
	name := r.PathValue("name")
	if _, _, err := s.store.ExperimentVersions(r.Context(), name, false); err != nil {
		return err
	}
	sec, err := s.runsSection(r.Context(), c, name, r.URL.Query())
	if err != nil {
		return err
	}
	p := &report.Page{Title: "verdict: runs of " + name, Subtitle: "Search, sort and compare the experiment's runs.", Sections: []report.Section{sec}}
	return s.writePage(w, c, p, report.Link{Text: "Experiment " + name, Href: pageHrefs.Experiment(name)})
}

func (s *Server) runPage(w http.ResponseWriter, r *http.Request, c *caller) error {
	name, runName := r.PathValue("name"), r.PathValue("run")
	run, err := s.store.GetRun(r.Context(), name, runName)
	if err != nil {
		return err
	}
	evals, err := s.store.ListEvaluations(r.Context(), store.EvaluationFilter{Experiment: name, Run: runName})
	if err != nil {
		return err
	}
	var steps func(*store.Evaluation) string
	if hasSteps(evals) {
		steps = stepOf
	}
	secs := report.RunSections(run, evals, steps, pageHrefs)
	curves, ok, err := s.runCurves(r.Context(), name, runName, evals)
	if err != nil {
		return err
	}
	if ok {
		secs = append(secs, curves)
	}
	if len(evals) > 1 {
		// Two steps of the run are RUN@STEP when every evaluation has
		// one, on one evaluation set; otherwise evaluations by ID.
		byStep := true
		for _, e := range evals {
			byStep = byStep && e.Step != nil && e.EvalSet == evals[0].EvalSet
		}
		var b strings.Builder
		type option struct{ Value, Text string }
		var opts []option
		for _, e := range evals {
			o := option{Value: strconv.FormatInt(e.ID, 10),
				Text: fmt.Sprintf("evaluation %d on %s, %s", e.ID, e.EvalSet, e.CreatedAt.Local().Format("2006-01-02 15:04:05"))}
			if e.Step != nil {
				o.Text = fmt.Sprintf("step %d: %s", *e.Step, o.Text)
			}
			if byStep {
				o.Value = fmt.Sprintf("%s@%d", runName, *e.Step)
			}
			opts = append(opts, o)
		}
		// Steps are listed by step, the first the baseline; evaluations
		// newest first, the oldest the baseline.
		base, cand := opts[len(opts)-1].Value, opts[0].Value
		if byStep {
			slices.SortStableFunc(opts, func(a, b option) int { return compareSteps(a.Value, b.Value) })
			base, cand = opts[0].Value, opts[len(opts)-1].Value
		}
		err := evalPicker.Execute(&b, map[string]any{"Action": compareHref(name), "Options": opts, "ByID": !byStep,
			"Baseline": base, "Candidate": cand})
		if err != nil {
			return err
		}
		secs = append(secs, report.Section{ID: "compare", Heading: "Compare two evaluations", Parts: []report.Part{{HTML: template.HTML(b.String())}}})
	}
	p := &report.Page{Title: "verdict: run " + runName, Subtitle: fmt.Sprintf("Run %s of experiment %s.", runName, name), Sections: secs}
	return s.writePage(w, c, p, report.Link{Text: "Experiment " + name, Href: pageHrefs.Experiment(name)},
		report.Link{Text: "Runs", Href: runsHref(name)})
}

// compareSteps orders RUN@STEP values by step.
func compareSteps(a, b string) int {
	step := func(v string) int64 {
		n, _ := strconv.ParseInt(v[strings.LastIndexByte(v, '@')+1:], 10, 64)
		return n
	}
	return cmp.Compare(step(a), step(b))
}

var evalPicker = template.Must(template.New("evals").Parse(`<form class="work" method="get" action="{{.Action}}">
{{if .ByID}}<input type="hidden" name="by" value="evaluation">
{{end}}<label for="baseline">Baseline</label> <select id="baseline" name="baseline">{{range .Options}}<option value="{{.Value}}"{{if eq .Value $.Baseline}} selected{{end}}>{{.Text}}</option>{{end}}</select>
<label for="candidate">Candidate</label> <select id="candidate" name="candidate">{{range .Options}}<option value="{{.Value}}"{{if eq .Value $.Candidate}} selected{{end}}>{{.Text}}</option>{{end}}</select>
<button type="submit">Compare</button>
</form>`))

// compareValues are the comparison a form asks for, as compare.Request
// reads it: runs of the path's experiment, or with by=evaluation,
// evaluations by ID, which the finder holds to that experiment.
func (s *Server) compareRequest(c *caller, experiment string, form url.Values) (compare.Request, compare.Finder, url.Values, error) {
	v := request.Values{}
	kept := url.Values{}
	for k, vs := range form {
		if k == csrfField || k == "by" {
			continue
		}
		for _, x := range append([]string{k}, vs...) {
			if !utf8.ValidString(x) || strings.ContainsRune(x, 0) {
				return compare.Request{}, nil, nil, badRequest("the form's %s holds a NUL byte or is not UTF-8", k)
			}
		}
		v[k] = vs
		kept[k] = vs
	}
	byID := form.Get("by") == "evaluation"
	if byID {
		kept.Set("by", "evaluation")
		delete(v, "experiment")
	} else {
		v["experiment"] = []string{experiment}
		delete(kept, "experiment")
	}
	var req compare.Request
	if err := request.Decode(v, &req); err != nil {
		return req, nil, kept, err
	}
	find := s.finder(c)
	held := func(ctx context.Context, st *store.Store, exp, evalSet, arg string) (*store.Evaluation, error) {
		e, err := find(ctx, st, exp, evalSet, arg)
		if err != nil {
			return nil, err
		}
		if e.Experiment != experiment {
			return nil, &httpError{status: http.StatusNotFound, code: "not_found", msg: fmt.Sprintf("evaluation %d is not of experiment %q", e.ID, experiment)}
		}
		return e, nil
	}
	return req, held, kept, nil
}

// comparePage compares two runs (or evaluations) without recording it.
func (s *Server) comparePage(w http.ResponseWriter, r *http.Request, c *caller) error {
	name := r.PathValue("name")
	q := r.URL.Query()
	links := []report.Link{{Text: "Experiment " + name, Href: pageHrefs.Experiment(name)}, {Text: "Runs", Href: runsHref(name)}}
	req, find, kept, err := s.compareRequest(c, name, q)
	var res *compare.Comparison
	if err == nil {
		res, err = req.Run(r.Context(), s.store, find, false, report.Verdict)
	}
	if err != nil {
		return s.compareProblem(w, r, c, name, err, links)
	}
	s.metrics.compared(false)
	secs, err := s.comparisonSections(r.Context(), res, find)
	if err != nil {
		return err
	}
	// A comparison of groups is not recorded: it offers no button to.
	if c.token.Role.Allows(store.TokenWriter) && c.csrf() != "" && !req.Groups {
		var b strings.Builder
		type field struct{ Name, Value string }
		var fields []field
		for _, k := range slices.Sorted(maps.Keys(kept)) {
			for _, v := range kept[k] {
				fields = append(fields, field{k, v})
			}
		}
		if err := recordForm.Execute(&b, map[string]any{"Action": compareHref(name), "Fields": fields, "CSRF": c.csrf()}); err != nil {
			return err
		}
		secs[0].Parts = append(secs[0].Parts, report.Part{HTML: template.HTML(b.String())})
	}
	p := &report.Page{Title: fmt.Sprintf("verdict: %s against %s", res.Candidate, res.Baseline),
		Subtitle: fmt.Sprintf("%s (candidate) against %s (baseline), experiment %s; computed now, not recorded.", res.Candidate, res.Baseline, name),
		Sections: secs}
	return s.writePage(w, c, p, links...)
}

var recordForm = template.Must(template.New("record").Parse(`<form class="work" method="post" action="{{.Action}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">{{range .Fields}}<input type="hidden" name="{{.Name}}" value="{{.Value}}">{{end}}
<button type="submit" id="record">Record this comparison in the history</button>
</form>`))

// compareProblem answers a comparison that cannot be made with the
// problem and a form to pick two runs again.
func (s *Server) compareProblem(w http.ResponseWriter, r *http.Request, c *caller, experiment string, problem error, links []report.Link) error {
	he := classify(problem)
	if he.status >= 500 || he.status == http.StatusUnauthorized || he.status == http.StatusForbidden {
		return problem
	}
	runs, err := s.store.SearchRuns(r.Context(), store.RunQuery{Experiment: experiment, OrderBy: "run"})
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		if _, _, err := s.store.ExperimentVersions(r.Context(), experiment, false); err != nil {
			return err
		}
	}
	var names []string
	for _, run := range runs {
		names = append(names, run.Name)
	}
	var b strings.Builder
	err = runPicker.Execute(&b, map[string]any{"Action": compareHref(experiment), "Problem": he.msg, "Runs": names,
		"Baseline": r.FormValue("baseline"), "Candidate": r.FormValue("candidate")})
	if err != nil {
		return err
	}
	p := &report.Page{Title: "verdict: compare runs of " + experiment, Subtitle: "Pick a baseline and a candidate.",
		Sections: []report.Section{{ID: "compare", Heading: "Compare two runs", Parts: []report.Part{{HTML: template.HTML(b.String())}}}}}
	return s.writePageStatus(w, c, he.status, p, links...)
}

var runPicker = template.Must(template.New("pick").Parse(`{{with .Problem}}<p class="problem" id="compare-problem">{{.}}</p>
{{end}}<form class="work" method="get" action="{{.Action}}">
<label for="baseline">Baseline</label> <select id="baseline" name="baseline">{{range .Runs}}<option{{if eq . $.Baseline}} selected{{end}}>{{.}}</option>{{end}}</select>
<label for="candidate">Candidate</label> <select id="candidate" name="candidate">{{range .Runs}}<option{{if eq . $.Candidate}} selected{{end}}>{{.}}</option>{{end}}</select>
<button type="submit">Compare</button>
</form>`))

// recordCompare compares two runs and records the comparison, then shows
// the first metric's recorded comparison.
func (s *Server) recordCompare(w http.ResponseWriter, r *http.Request, c *caller) error {
	name := r.PathValue("name")
	if err := r.ParseForm(); err != nil {
		return badRequest("the form does not parse: %v", err)
	}
	req, find, _, err := s.compareRequest(c, name, r.PostForm)
	if err != nil {
		return err
	}
	res, err := req.Run(r.Context(), s.store, find, true, report.Verdict)
	if err != nil {
		return err
	}
	s.metrics.compared(true)
	for _, m := range res.Metrics {
		if m.ComparisonID != nil {
			http.Redirect(w, r, pageHrefs.Comparison(*m.ComparisonID), http.StatusSeeOther)
			return nil
		}
	}
	http.Redirect(w, r, pageHrefs.Experiment(name)+"#history", http.StatusSeeOther)
	return nil
}

// comparisonSections are a computed comparison's sections, then for each
// metric of users, the users who moved most.
func (s *Server) comparisonSections(ctx context.Context, res *compare.Comparison, find compare.Finder) ([]report.Section, error) {
	secs, err := report.ComparisonSections(res, pageHrefs)
	if err != nil {
		return nil, err
	}
	if res.BaselineEval == nil || res.CandidateEval == nil {
		return secs, nil
	}
	for i, m := range res.Metrics {
		if m.DeLong != nil || m.Bootstrap != nil {
			continue // a metric of the whole set: no user moves
		}
		diff, err := s.diffSections(ctx, res.BaselineEval, res.CandidateEval, m.Metric)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			for j := range diff {
				suffixIDs(&diff[j], fmt.Sprintf("-%d", i+1))
			}
		}
		secs = append(secs, diff...)
	}
	return secs, nil
}

// suffixIDs keeps the anchors of a section and its subsections unique.
func suffixIDs(sec *report.Section, suffix string) {
	sec.ID += suffix
	for i := range sec.Subsections {
		sec.Subsections[i].ID += suffix
	}
}

// diffMovers is how many users each way a page lists.
const diffMovers = 10

// diffSections are the per-user differences of two evaluations on
// metric, listed both ways; a pair with nothing to pair says why.
func (s *Server) diffSections(ctx context.Context, base, cand *store.Evaluation, metric string) ([]report.Section, error) {
	worst, err := compare.Diff(ctx, s.store, base, cand, compare.DiffQuery{Metric: metric, N: diffMovers, AllowDifferentTargets: true, Pairs: true})
	if err == nil {
		var best *compare.DiffResult
		best, err = compare.Diff(ctx, s.store, base, cand, compare.DiffQuery{Metric: metric, N: diffMovers, Best: true, AllowDifferentTargets: true})
		if err == nil {
			return report.DiffSections(worst, best)
		}
	}
	if he := classify(err); he.status >= 500 {
		return nil, err
	}
	return []report.Section{{ID: "differences", Heading: "Per-user differences in " + metric,
		Parts: []report.Part{{Text: "No per-user differences to show: " + classify(err).msg}}}}, nil
}
