package report

import (
	"errors"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/store"
)

// Hrefs says where a page's names and IDs link to, on a server that has a
// page for each. A nil func links nothing: a report written to a file has
// no Hrefs, so that it links nowhere outside itself.
type Hrefs struct {
	Experiment func(name string) string // an experiment's report
	Comparison func(id int64) string    // a recorded comparison
	Evaluation func(id int64) string    // an evaluation
}

func (h Hrefs) experiment(name string) string {
	if h.Experiment == nil {
		return ""
	}
	return h.Experiment(name)
}

func (h Hrefs) comparison(id int64) string {
	if h.Comparison == nil {
		return ""
	}
	return h.Comparison(id)
}

func (h Hrefs) evaluation(id int64) string {
	if h.Evaluation == nil {
		return ""
	}
	return h.Evaluation(id)
}

// linkColumn links each row's cell in the column headed header to
// href(row); a table without that column is left alone.
func linkColumn(t *Table, header string, href func(row int) string) {
	col := slices.Index(t.Header, header)
	if col < 0 {
		return
	}
	for r := range t.Rows {
		t.setLink(r, col, href(r))
	}
}

// ExperimentPage is the HTML report of an experiment: for every evaluation
// set and metric a leaderboard, its forest plot, a critical-difference
// diagram of the runs ranked user by user (with three runs or more) and the
// values over time; the recent comparison history with each verdict; and
// the runs with their params and tags. version names the software.
//
// With hrefs (at most one), each comparison of the history links to its
// page, and each run of a leaderboard or of the history to the evaluation
// it stands for there. Without, the page has no link but to its own
// sections.
func ExperimentPage(x *compare.Experiment, generated time.Time, version string, hrefs ...Hrefs) (*Page, error) {
	var links Hrefs
	if len(hrefs) > 0 {
		links = hrefs[0]
	}
	o := x.Options
	boards := Section{ID: "leaderboards", Heading: "Leaderboards"}
	boards.Parts = append(boards.Parts, Part{Text: fmt.Sprintf(
		"Each run's newest evaluation, ranked by its mean (best first, for the metric's direction), with a %g%% bootstrap interval (%d resamples, seed %d). "+
			"Differences are the best run minus each run, paired user by user; p-values come from a sign-flip randomisation test "+
			"and are Holm-adjusted across the rows; * marks a difference distinguishable at alpha %g. "+
			"The critical-difference diagram ranks the runs within each user (Friedman); runs joined by a bar are closer than the Nemenyi critical difference.",
		100*o.Confidence, o.Resamples, o.Seed, o.Alpha)})
	for i, lb := range x.Leaderboards {
		sec, err := leaderboardSection(lb, i+1, links)
		if err != nil {
			return nil, err
		}
		boards.Subsections = append(boards.Subsections, sec)
	}
	sections := []Section{boards}
	if len(x.GroupBoards) > 0 {
		groups := Section{ID: "configurations", Heading: "Configurations"}
		groups.Parts = append(groups.Parts, Part{Text: fmt.Sprintf(
			"The groups of runs, each a configuration trained with several seeds, ranked by the mean of their runs' newest evaluations over the users they all share. "+
				"Each mean has a %g%% interval, and each difference to the best group its test, from a two-level bootstrap of runs and users (%d resamples, seed %d), "+
				"which counts the seeds' variance with the users'; p-values are Holm-adjusted across the rows; * marks a difference distinguishable at alpha %g.",
			100*o.Confidence, o.Resamples, o.Seed, o.Alpha)})
		for i, lb := range x.GroupBoards {
			sec, err := leaderboardSection(lb, i+1, links)
			if err != nil {
				return nil, err
			}
			sec.ID = fmt.Sprintf("configurations-%d", i+1)
			groups.Subsections = append(groups.Subsections, sec)
		}
		sections = append(sections, groups)
	}
	history := Section{ID: "history", Heading: "Comparison history"}
	if len(x.History) == 0 {
		history.Parts = []Part{{Text: "No comparison of this experiment has been recorded yet: 'verdict compare' records one."}}
	} else {
		t := HistoryTable(x.History, true)
		linkColumn(t, "ID", func(r int) string { return links.comparison(x.History[r].ID) })
		linkColumn(t, "BASELINE", func(r int) string { return links.evaluation(x.History[r].BaselineID) })
		linkColumn(t, "CANDIDATE", func(r int) string { return links.evaluation(x.History[r].CandidateID) })
		history.Parts = []Part{
			{Text: fmt.Sprintf("The %d newest comparisons recorded for this experiment, newest first. Differences are baseline minus candidate.", len(x.History))},
			{Table: t},
		}
	}
	intro := fmt.Sprintf("%d runs with %d evaluations, newest first.", x.TotalRuns, x.Evaluations)
	if len(x.Runs) < x.TotalRuns {
		intro = fmt.Sprintf("%d runs with %d evaluations; the newest %d (verdict runs -e %s --limit 0 lists them all).", x.TotalRuns, x.Evaluations, len(x.Runs), x.Name)
	}
	runs := Section{ID: "runs", Heading: "Runs", Parts: []Part{{Text: intro}, {Table: RunsTable(x.Runs)}}}
	return &Page{
		Title: "verdict report: " + x.Name,
		Subtitle: fmt.Sprintf("%d runs, %d evaluations, %d evaluation sets; generated %s by verdict %s",
			x.TotalRuns, x.Evaluations, len(x.EvalSets), generated.Local().Format("2006-01-02 15:04 MST"), version),
		Sections: append(sections, history, runs),
	}, nil
}

// leaderboardSection is one evaluation set and metric of the report.
func leaderboardSection(lb *compare.Leaderboard, n int, links Hrefs) (Section, error) {
	sec := Section{ID: fmt.Sprintf("leaderboard-%d", n), Heading: fmt.Sprintf("%s on %s", lb.Metric, lb.EvalSet)}
	notes := LeaderboardNotes(lb)
	if lb.LowerIsBetter {
		notes = append([]string{"lower is better"}, notes...)
	}
	for i, n := range notes {
		notes[i] = strings.ToUpper(n[:1]) + n[1:] + "."
	}
	t := LeaderboardTable(lb)
	linkColumn(t, "RUN", func(r int) string { return links.evaluation(lb.Rows[r].EvaluationID) })
	sec.Parts = append(sec.Parts, Part{Table: t, Caption: strings.Join(notes, " ")})
	if len(lb.Rows) > 1 {
		fig, err := LeaderboardForest(lb)
		switch {
		case errors.Is(err, ErrNothingToPlot): // the other runs have aggregates only
		case err != nil:
			return sec, err
		default:
			sec.Parts = append(sec.Parts, Part{Figure: fig})
		}
	}
	if lb.Ranking != nil {
		fig, err := RankingCD(lb.Ranking, fmt.Sprintf("%s on %s", lb.Metric, lb.EvalSet))
		if err != nil {
			return sec, err
		}
		sec.Parts = append(sec.Parts, Part{Figure: fig})
	}
	points := make([]compare.ValuePoint, len(lb.Rows))
	for i, r := range lb.Rows {
		points[i] = compare.ValuePoint{Run: r.Run, LoggedAt: r.LoggedAt, Mean: r.Mean}
	}
	slices.SortStableFunc(points, func(a, b compare.ValuePoint) int { return a.LoggedAt.Compare(b.LoggedAt) })
	fig, err := ValuesOverTime(fmt.Sprintf("%s on %s: each run's newest evaluation, by the time it was logged", lb.Metric, lb.EvalSet),
		lb.Metric, lb.Options.Confidence, points)
	if err != nil {
		return sec, err
	}
	sec.Parts = append(sec.Parts, Part{Figure: fig})
	return sec, nil
}

// ExperimentsPage lists experiments: each one's runs, evaluations and when
// it was last logged to, its name linking to its report.
func ExperimentsPage(list []store.Experiment, hrefs Hrefs) *Page {
	sec := Section{ID: "experiments", Heading: "Experiments"}
	if len(list) == 0 {
		sec.Parts = []Part{{Text: "No experiments yet: log one with 'verdict log' or the Python client."}}
	} else {
		t := &Table{Header: []string{"EXPERIMENT", "RUNS", "EVALUATIONS", "LAST LOGGED"}, Right: map[int]bool{1: true, 2: true}}
		for _, x := range list {
			last := "-"
			if x.LastLogged != nil {
				last = x.LastLogged.Local().Format("2006-01-02 15:04")
			}
			t.Add(x.Name, Thousands(x.Runs), Thousands(x.Evaluations), last)
			t.Link(0, hrefs.experiment(x.Name))
			t.Mark(0, Strong)
		}
		sec.Parts = []Part{{Table: t, Caption: "Each experiment's name opens its report: leaderboards, plots, the comparison history and the runs."}}
	}
	return &Page{Title: "verdict: experiments", Subtitle: plural(len(list), "experiment"), Sections: []Section{sec}}
}

// verdictParagraph sets a verdict sentence apart from the text around it.
var verdictParagraph = template.Must(template.New("verdict").Parse(`<p class="verdict">{{.}}</p>`))

// ComparisonPage is one recorded comparison: its verdict sentence, both
// sides with their means, the difference with its interval, the p-value it
// was decided with, the test and the number of units, and where and when it
// was recorded. With hrefs, the experiment links to its report and each
// side to its evaluation.
func ComparisonPage(h *store.HistoryEntry, hrefs Hrefs) (*Page, error) {
	verdict := Section{ID: "verdict", Heading: "Verdict", Parts: []Part{{Text: "No verdict sentence was recorded with this comparison."}}}
	if h.Verdict != "" {
		var sentence strings.Builder
		if err := verdictParagraph.Execute(&sentence, h.Verdict); err != nil {
			return nil, err
		}
		verdict.Parts = []Part{{HTML: template.HTML(sentence.String())}}
	}

	mean := func(m *float64) string {
		if m == nil {
			return "-"
		}
		return Num(*m)
	}
	sides := &Table{Header: []string{"SIDE", "RUN", "EVALUATION", "MEAN"}, Right: map[int]bool{2: true, 3: true}}
	for _, s := range []struct {
		side, run string
		id        int64
		mean      *float64
	}{{"baseline", h.BaselineRun, h.BaselineID, h.BaselineMean}, {"candidate", h.CandidateRun, h.CandidateID, h.CandidateMean}} {
		sides.Add(s.side, s.run, strconv.FormatInt(s.id, 10), mean(s.mean))
		sides.Link(2, hrefs.evaluation(s.id))
		if h.Winner == s.side {
			sides.Mark(1, Good)
		}
	}
	winner := "none"
	switch h.Winner {
	case "baseline":
		winner = "baseline (" + h.BaselineRun + ")"
	case "candidate":
		winner = "candidate (" + h.CandidateRun + ")"
	}
	p, pNote := "-", "p-value"
	if pp := decidedP(*h); pp != nil {
		p = PValue(*pp, 0)
	}
	if h.PAdjusted != nil && h.Adjustment != "" {
		pNote = "p-value, " + adjustmentName(h.Adjustment) + "-adjusted"
	}
	test := &Table{Header: []string{"DIFFERENCE [CI]", "P", "METHOD", "UNITS", "WINNER"}, Right: map[int]bool{0: true, 1: true, 3: true}}
	test.Add(intervalText(h.Difference, h.Low, h.High), p, h.Method, Thousands(h.N), winner)
	if h.Winner == "" {
		test.Mark(4, Dim)
	} else {
		test.Mark(4, Strong)
	}
	direction := "higher is better"
	if h.LowerIsBetter {
		direction = "lower is better"
	}
	result := Section{ID: "result", Heading: "Result", Parts: []Part{
		{Table: sides, Caption: fmt.Sprintf("Each side's mean of %s, as the comparison computed it; %s.", h.Metric, direction)},
		{Table: test, Caption: fmt.Sprintf("The difference is baseline minus candidate, with its confidence interval; P is the %s the winner was decided with.", pNote)},
	}}

	details := &Table{Header: []string{"FIELD", "VALUE"}}
	details.Add("experiment", h.Experiment)
	details.Link(1, hrefs.experiment(h.Experiment))
	details.Add("evaluation set", h.EvalSet)
	details.Add("metric", h.Metric+" ("+direction+")")
	details.Add("recorded", h.CreatedAt.Local().Format("2006-01-02 15:04:05 MST"))
	details.Add("seed", strconv.FormatInt(h.Seed, 10))
	details.Add("resamples", Thousands(h.Resamples))
	if h.NRequired != nil {
		details.Add("units for 80% power", "about "+Count(float64(*h.NRequired))+" (an order of magnitude, from the observed variance)")
	}
	details.Add("software", "verdict "+h.SoftwareVersion)
	recorded := Section{ID: "recorded", Heading: "Recorded", Parts: []Part{{Table: details}}}

	return &Page{
		Title: fmt.Sprintf("verdict: comparison %d", h.ID),
		Subtitle: fmt.Sprintf("%s against %s on %s (%s), experiment %s; recorded %s",
			h.CandidateRun, h.BaselineRun, h.Metric, h.EvalSet, h.Experiment, h.CreatedAt.Local().Format("2006-01-02 15:04 MST")),
		Sections: []Section{verdict, result, recorded},
	}, nil
}
