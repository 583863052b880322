package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/verdict-ml/verdict/compare"
)

// ExperimentPage is the HTML report of an experiment: for every evaluation
// set and metric a leaderboard, its forest plot, a critical-difference
// diagram of the runs ranked user by user (with three runs or more) and the
// values over time; the recent comparison history with each verdict; and
// the runs with their params and tags. version names the software.
func ExperimentPage(x *compare.Experiment, generated time.Time, version string) (*Page, error) {
	o := x.Options
	boards := Section{ID: "leaderboards", Heading: "Leaderboards"}
	boards.Parts = append(boards.Parts, Part{Text: fmt.Sprintf(
		"Each run's newest evaluation, ranked by its mean (best first, for the metric's direction), with a %g%% bootstrap interval (%d resamples, seed %d). "+
			"Differences are the best run minus each run, paired user by user; p-values come from a sign-flip randomisation test "+
			"and are Holm-adjusted across the rows; * marks a difference distinguishable at alpha %g. "+
			"The critical-difference diagram ranks the runs within each user (Friedman); runs joined by a bar are closer than the Nemenyi critical difference.",
		100*o.Confidence, o.Resamples, o.Seed, o.Alpha)})
	for i, lb := range x.Leaderboards {
		sec, err := leaderboardSection(lb, i+1)
		if err != nil {
			return nil, err
		}
		boards.Subsections = append(boards.Subsections, sec)
	}
	history := Section{ID: "history", Heading: "Comparison history"}
	if len(x.History) == 0 {
		history.Parts = []Part{{Text: "No comparison of this experiment has been recorded yet: 'verdict compare' records one."}}
	} else {
		history.Parts = []Part{
			{Text: fmt.Sprintf("The %d newest comparisons recorded for this experiment, newest first. Differences are baseline minus candidate.", len(x.History))},
			{Table: HistoryTable(x.History, true)},
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
		Sections: []Section{boards, history, runs},
	}, nil
}

// leaderboardSection is one evaluation set and metric of the report.
func leaderboardSection(lb *compare.Leaderboard, n int) (Section, error) {
	sec := Section{ID: fmt.Sprintf("leaderboard-%d", n), Heading: fmt.Sprintf("%s on %s", lb.Metric, lb.EvalSet)}
	notes := LeaderboardNotes(lb)
	if lb.LowerIsBetter {
		notes = append([]string{"lower is better"}, notes...)
	}
	for i, n := range notes {
		notes[i] = strings.ToUpper(n[:1]) + n[1:] + "."
	}
	sec.Parts = append(sec.Parts, Part{Table: LeaderboardTable(lb), Caption: strings.Join(notes, " ")})
	if len(lb.Rows) > 1 {
		fig, err := LeaderboardForest(lb)
		if err != nil {
			return sec, err
		}
		sec.Parts = append(sec.Parts, Part{Figure: fig})
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
