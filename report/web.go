package report

import (
	"errors"
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
)

// The parts of a served page that a report written to a file has no use
// for: a comparison computed on request, the users two evaluations
// differ most on, and a run's own page.

// VerdictSection is a comparison's verdict: one sentence per metric, each
// set apart as the page's verdict.
func VerdictSection(c *compare.Comparison) (Section, error) {
	sec := Section{ID: "verdict", Heading: "Verdict"}
	for _, r := range c.Metrics {
		sentence := r.Verdict
		if sentence == "" {
			sentence = Verdict(c, r)
		}
		var b strings.Builder
		if err := verdictParagraph.Execute(&b, sentence); err != nil {
			return sec, err
		}
		sec.Parts = append(sec.Parts, Part{HTML: template.HTML(b.String())})
	}
	return sec, nil
}

// ComparisonSections are a comparison computed on request: its verdict
// sentences, the table of every metric and its forest plot. Each metric
// it recorded links to its page through hrefs.
func ComparisonSections(c *compare.Comparison, hrefs Hrefs) ([]Section, error) {
	verdict, err := VerdictSection(c)
	if err != nil {
		return nil, err
	}
	t := comparisonTable(c)
	result := Section{ID: "result", Heading: "Result", Parts: []Part{{Table: t,
		Caption: "Differences are baseline minus candidate, with their confidence intervals; BETTER/WORSE/SAME counts the users for whom the candidate is better, worse or the same."}}}
	if recorded := recordedIDs(c); len(recorded) > 0 {
		rt := &Table{Header: []string{"METRIC", "RECORDED AS"}}
		for _, r := range c.Metrics {
			if r.ComparisonID == nil {
				continue
			}
			rt.Add(r.Metric, "comparison "+strconv.FormatInt(*r.ComparisonID, 10))
			rt.Link(1, hrefs.comparison(*r.ComparisonID))
		}
		result.Parts = append(result.Parts, Part{Table: rt, Caption: "The comparison is in the experiment's history."})
	}
	if fig, err := ComparisonForest(c); err == nil {
		result.Parts = append(result.Parts, Part{Figure: fig})
	} else if !errors.Is(err, ErrPlotInput) {
		return nil, err
	}
	return []Section{verdict, result}, nil
}

// recordedIDs are the history IDs the comparison recorded.
func recordedIDs(c *compare.Comparison) []int64 {
	var ids []int64
	for _, r := range c.Metrics {
		if r.ComparisonID != nil {
			ids = append(ids, *r.ComparisonID)
		}
	}
	return ids
}

// DiffSections are the per-user differences of two evaluations on one
// metric, as verdict diff lists them: a histogram of every paired user's
// difference, the counts and quantiles, and the users the candidate did
// worst on and best on. worst and best are the same diff listed both ways
// (compare.DiffQuery.Best).
func DiffSections(worst, best *compare.DiffResult) ([]Section, error) {
	d := worst
	sec := Section{ID: "differences", Heading: "Per-user differences in " + d.Metric}
	sec.Parts = append(sec.Parts, Part{Text: fmt.Sprintf(
		"%s: evaluation %d (%s, baseline) against %d (%s, candidate), %s; difference = baseline − candidate (%s).",
		d.Metric, d.BaseEval.ID, d.Baseline, d.CandEval.ID, d.Candidate, plural(d.Units, "paired user"), d.Direction)})
	fig, err := DiffHistogram(d)
	switch {
	case errors.Is(err, ErrPlotInput):
	case err != nil:
		return nil, err
	default:
		sec.Parts = append(sec.Parts, Part{Figure: fig})
	}
	q := Nums(d.Quantiles, true)
	sec.Parts = append(sec.Parts, Part{Text: fmt.Sprintf(
		"The candidate is better for %s, worse for %s, the same for %s. Difference quantiles: min %s, 5%% %s, 25%% %s, median %s, 75%% %s, 95%% %s, max %s.",
		plural(d.CandidateBetter, "user"), Thousands(int64(d.CandidateWorse)), Thousands(int64(d.Same)), q[0], q[1], q[2], q[3], q[4], q[5], q[6])})
	moved := Section{ID: "moved", Heading: "Users who moved most"}
	for _, side := range []struct {
		id, heading string
		d           *compare.DiffResult
	}{{"worst", "Where the candidate did worst", worst}, {"best", "Where the candidate did best", best}} {
		if side.d == nil {
			continue
		}
		sub := Section{ID: side.id, Heading: side.heading, Parts: []Part{{Table: diffTable(side.d), Caption: diffShare(side.d)}}}
		moved.Subsections = append(moved.Subsections, sub)
	}
	return []Section{sec, moved}, nil
}

// diffTable lists a diff's users: their values and difference, for the
// command line's diff (Diff) and the web view's comparison pages.
func diffTable(d *compare.DiffResult) *Table {
	t := &Table{Header: []string{"SAMPLE ID", "BASELINE", "CANDIDATE", "DIFFERENCE"}, Right: map[int]bool{1: true, 2: true, 3: true}}
	n := len(d.Top)
	var vals, diffs []float64
	for _, r := range d.Top {
		vals = append(vals, r.Baseline)
		diffs = append(diffs, r.Difference)
	}
	for _, r := range d.Top {
		vals = append(vals, r.Candidate)
	}
	valText, diffText := Nums(vals, false), Nums(diffs, true)
	for i, r := range d.Top {
		t.Add(r.SampleID, valText[i], valText[n+i], diffText[i])
		t.Mark(3, map[bool]Style{true: Good, false: Bad}[d.Best])
	}
	return t
}

// diffShare says how much of the total difference the listed users make.
func diffShare(d *compare.DiffResult) string {
	these := fmt.Sprintf("These %d users account", len(d.Top))
	if len(d.Top) == 1 {
		these = "This user accounts"
	}
	if d.Share != nil {
		return fmt.Sprintf("%s for %s of the total difference %s (%.0f%%).", these, Signed(d.TopDifference), Signed(d.TotalDifference), 100**d.Share)
	}
	return fmt.Sprintf("%s for %s; the total difference %s is too close to zero (gains and losses cancel) for a share to mean anything.",
		these, Signed(d.TopDifference), Signed(d.TotalDifference))
}

// RunSections are a run's page: its params, tags and commit, then its
// evaluations, newest first, each with its means. A step, when an
// evaluation has one, is told by steps (nil: none has).
func RunSections(run *store.Run, evals []store.Evaluation, steps func(e *store.Evaluation) string, hrefs Hrefs) []Section {
	about := &Table{Header: []string{"FIELD", "VALUE"}}
	about.Add("experiment", run.Experiment)
	about.Link(1, hrefs.experiment(run.Experiment))
	about.Add("run", run.Name)
	about.Mark(1, Strong)
	if run.GitCommit != "" {
		about.Add("git commit", run.GitCommit)
	}
	about.Add("created", run.CreatedAt.Local().Format("2006-01-02 15:04:05 MST"))
	about.Add("evaluations", Thousands(run.Evaluations))
	params := &Table{Header: []string{"PARAM", "VALUE"}}
	for _, k := range slices.Sorted(maps.Keys(run.Params)) {
		params.Add(k, paramText(run.Params[k]))
	}
	info := Section{ID: "run", Heading: "Run", Parts: []Part{{Table: about}}}
	if len(params.Rows) > 0 {
		info.Parts = append(info.Parts, Part{Table: params, Caption: "The run's params."})
	} else {
		info.Parts = append(info.Parts, Part{Text: "The run has no params."})
	}
	if len(run.Tags) > 0 {
		info.Parts = append(info.Parts, Part{Text: "Tags: " + strings.Join(run.Tags, ", ") + "."})
	} else {
		info.Parts = append(info.Parts, Part{Text: "The run has no tags."})
	}

	es := Section{ID: "evaluations", Heading: "Evaluations"}
	if len(evals) == 0 {
		es.Parts = []Part{{Text: "The run has no evaluation yet."}}
		return []Section{info, es}
	}
	metrics := map[string]bool{}
	for _, e := range evals {
		for k := range e.Aggregates {
			metrics[k] = true
		}
	}
	names := slices.Sorted(maps.Keys(metrics))
	header := []string{"ID", "EVALUATION SET"}
	if steps != nil {
		header = append(header, "STEP")
	}
	header = append(header, "LOGGED", "UNITS")
	first := len(header)
	t := &Table{Header: append(header, names...), Right: map[int]bool{0: true}}
	t.Right[first-1] = true
	for i := range names {
		t.Right[first+i] = true
	}
	for i := range evals {
		e := &evals[i]
		row := []string{strconv.FormatInt(e.ID, 10), e.EvalSet}
		if steps != nil {
			row = append(row, steps(e))
		}
		row = append(row, e.CreatedAt.Local().Format("2006-01-02 15:04:05"), Thousands(e.Units))
		for _, m := range names {
			if v, ok := e.Aggregates[m]; ok {
				row = append(row, Num(v))
			} else {
				row = append(row, "-")
			}
		}
		t.Add(row...)
		t.Link(0, hrefs.evaluation(e.ID))
	}
	es.Parts = []Part{{Table: t, Caption: "Each evaluation's mean of every metric, newest first; the ID opens the evaluation's JSON."}}
	return []Section{info, es}
}

// paramText is a param's value as text.
func paramText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}
