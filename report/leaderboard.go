package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/compare"
)

// Leaderboard writes a leaderboard in format: the ranked runs as a table
// with notes under it (table, markdown), one row per run with every number
// (csv), or the whole leaderboard (json).
func Leaderboard(w io.Writer, format string, lb *compare.Leaderboard) error {
	switch format {
	case "json":
		return WriteJSON(w, lb)
	case "csv":
		return leaderboardCSV(lb).CSV(w)
	}
	if lb.ByGroup {
		fmt.Fprintf(w, "%s on %s (%s), by group: each the mean of its runs; differences are %s minus each group, by a two-level bootstrap of runs and users, Holm-adjusted; * distinguishable\n\n",
			Printable(lb.Metric), Printable(lb.EvalSet), lb.Direction, Printable(lb.Reference))
	} else if lb.Reference == "" {
		fmt.Fprintf(w, "%s on %s (%s); no run has per-unit values of it, so runs are ranked by their means alone, without intervals or tests\n\n",
			Printable(lb.Metric), Printable(lb.EvalSet), lb.Direction)
	} else {
		fmt.Fprintf(w, "%s on %s (%s); differences are %s minus each run, Holm-adjusted; * distinguishable\n\n",
			Printable(lb.Metric), Printable(lb.EvalSet), lb.Direction, Printable(lb.Reference))
	}
	if err := LeaderboardTable(lb).Write(w, format); err != nil {
		return err
	}
	for _, n := range LeaderboardNotes(lb) {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	return nil
}

// LeaderboardTable is the ranked runs as a table. A run distinguishably
// better than the reference is marked good, one distinguishably worse bad.
func LeaderboardTable(lb *compare.Leaderboard) *Table {
	t := &Table{Header: []string{"RANK", "RUN", strings.ToUpper(lb.Metric) + " [CI]", "UNITS", "DIFFERENCE [CI]", "P ADJ", "", "LOGGED"},
		Right: map[int]bool{0: true, 2: true, 3: true, 4: true, 5: true}}
	if lb.ByGroup {
		t.Header[1] = "GROUP"
		t.Header = append(t.Header, "RUNS", "RUN SD", "P(RUN BEATS REF)")
		t.Right[8], t.Right[9], t.Right[10] = true, true, true
	}
	for _, r := range lb.Rows {
		diff, padj, mark := "(reference)", "", ""
		switch {
		case r.AggregatesOnly:
			diff = "(aggregates only: not paired)"
		case !r.IsReference():
			diff = Interval(r.Difference.Estimate, r.Difference.Low, r.Difference.High, true)
			padj = PValue(*r.PAdjusted, lb.Options.Alpha)
			if r.Distinguishable {
				mark = "*"
			}
		}
		cells := []string{strconv.Itoa(r.Rank), r.Run, rowMean(&r),
			strconv.FormatInt(r.Units, 10), diff, padj, mark, r.LoggedAt.Local().Format("2006-01-02 15:04")}
		if s := r.Seeds; lb.ByGroup && s != nil {
			beats := "-"
			if s.PRunBeatsReference != nil {
				beats = strconv.FormatFloat(*s.PRunBeatsReference, 'f', 3, 64)
			}
			cells = append(cells, strconv.Itoa(len(s.Runs)), Num(s.RunSD), beats)
		}
		t.Add(cells...)
		switch {
		case r.AggregatesOnly:
			t.Mark(4, Dim)
		case r.IsReference():
			t.Mark(1, Strong)
		case r.Better == compare.Candidate:
			t.Mark(4, Good)
		case r.Better == compare.Baseline:
			t.Mark(4, Bad)
		default:
			t.Mark(4, Dim)
		}
	}
	return t
}

// LeaderboardNotes says what the table does not: runs not shown, the runs
// that cannot be told apart from the reference, and runs scored against
// other targets.
func LeaderboardNotes(lb *compare.Leaderboard) []string {
	var notes []string
	switch hidden := lb.Runs - len(lb.Rows); {
	case lb.ByGroup:
		if hidden := lb.Groups - len(lb.Rows); hidden > 0 {
			notes = append(notes, fmt.Sprintf("%s more ranked below these (--limit 0 shows every group)", plural(hidden, "group")))
		}
		if lb.Ungrouped > 0 {
			notes = append(notes, fmt.Sprintf("%s of no group not ranked (runs join a group when logged with --group)", plural(lb.Ungrouped, "run")))
		}
		notes = append(notes, "RUN SD is the spread of a group's run means; P(RUN BEATS REF) the share of pairs of runs in which the group's run beats the reference's")
	case hidden > 0:
		notes = append(notes, fmt.Sprintf("%s more ranked below these (--limit 0 shows every run)", plural(hidden, "run")))
	}
	compared, meanOnly := 0, []string(nil)
	for _, r := range lb.Rows {
		switch {
		case r.AggregatesOnly:
			meanOnly = append(meanOnly, r.Run)
		case r.Difference != nil:
			compared++
		}
	}
	switch {
	case compared == 0:
	case len(lb.Group) == 0 && lb.ByGroup:
		notes = append(notes, fmt.Sprintf("every group shown differs distinguishably from %s", Printable(lb.Reference)))
	case len(lb.Group) == 0:
		notes = append(notes, fmt.Sprintf("every run shown differs distinguishably from %s", Printable(lb.Reference)))
	default:
		notes = append(notes, fmt.Sprintf("cannot be told apart from %s: %s", Printable(lb.Reference), Printable(strings.Join(lb.Group, ", "))))
	}
	if a := lb.Auto; a != nil {
		notes = append(notes, fmt.Sprintf("intervals and p-values by the t, from exact sums: chosen because every run shown has at least %s units of one row each (the fewest %s), from where it and the bootstrap decide alike (docs/calibration.md); a number of resamples bootstraps instead",
			Thousands(a.MinUnits), Thousands(a.Units)))
	}
	if len(meanOnly) > 0 && lb.Reference != "" {
		notes = append(notes, fmt.Sprintf("ranked by the mean alone, without per-unit values to pair (aggregates only): %s", Printable(strings.Join(meanOnly, ", "))))
	}
	if len(lb.Separate) > 0 {
		var other []string
		for _, r := range lb.Separate {
			other = append(other, fmt.Sprintf("%s: %s, %d units, logged %s", Printable(r.Run), rowMean(&r),
				r.Units, r.LoggedAt.Local().Format("2006-01-02 15:04")))
		}
		notes = append(notes, "scored against other targets (not ranked with the above): "+strings.Join(other, "; "))
	}
	return notes
}

// rowMean is a leaderboard row's mean with its interval, or the mean alone
// for a run logged with its aggregates only.
func rowMean(r *compare.LeaderboardRow) string {
	if r.AggregatesOnly {
		return Num(r.Mean.Estimate) + " (aggregates only)"
	}
	return Interval(r.Mean.Estimate, r.Mean.Low, r.Mean.High, false)
}

func leaderboardCSV(lb *compare.Leaderboard) *Table {
	t := &Table{Header: []string{"rank", "run", "evaluation_id", "metric", "mean", "mean_ci_low", "mean_ci_high", "confidence", "n_units",
		"difference_to_reference", "difference_low", "difference_high", "p_value", "p_adjusted", "distinguishable", "same_group_as_reference", "logged_at"}}
	if lb.ByGroup {
		t.Header[1] = "group"
		t.Header = append(t.Header, "n_runs", "run_sd", "p_run_beats_reference")
	}
	for _, r := range lb.Rows {
		row := []string{strconv.Itoa(r.Rank), r.Run, strconv.FormatInt(r.EvaluationID, 10), lb.Metric}
		row = append(row, CSVInterval(r.Mean.Estimate, r.Mean.Low, r.Mean.High)...)
		row = append(row, CSVNum(r.Mean.Confidence), strconv.FormatInt(r.Units, 10))
		if d := r.Difference; d != nil {
			row = append(row, CSVInterval(d.Estimate, d.Low, d.High)...)
		} else {
			row = append(row, "", "", "")
		}
		row = append(row, CSVPtr(r.PValue), CSVPtr(r.PAdjusted), strconv.FormatBool(r.Distinguishable), strconv.FormatBool(r.SameGroup), CSVTime(r.LoggedAt))
		if s := r.Seeds; lb.ByGroup && s != nil {
			row = append(row, strconv.Itoa(len(s.Runs)), CSVNum(s.RunSD), CSVPtr(s.PRunBeatsReference))
		}
		t.Add(row...)
	}
	return t
}

// ErrNothingToPlot is returned by a plot that has no data to draw.
var ErrNothingToPlot = fmt.Errorf("%w: nothing to draw", ErrPlotInput)

// LeaderboardForest is the leaderboard's forest plot: the reference minus
// each run, as in the table, green where the run is distinguishably
// better, red where it is worse.
func LeaderboardForest(lb *compare.Leaderboard) (*Figure, error) {
	var rows []ForestRow
	for _, r := range lb.Rows {
		if r.Difference == nil {
			continue
		}
		d := r.Difference
		rows = append(rows, ForestRow{Label: r.Run, Estimate: d.Estimate, Low: d.Low, High: d.High, Distinguishable: r.Distinguishable,
			Better: r.Better == compare.Candidate, Worse: r.Better == compare.Baseline})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%w: the leaderboard has one run, so no difference", ErrNothingToPlot)
	}
	return Forest(fmt.Sprintf("%s on %s: %s minus each run", lb.Metric, lb.EvalSet, lb.Reference),
		fmt.Sprintf("difference in %s, %g%% CI (filled: distinguishable after Holm; green: better than %s, red: worse)",
			lb.Metric, 100*lb.Rows[0].Mean.Confidence, lb.Reference), rows)
}

// plural is "1 run" or "3 runs", with thousands separators.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Thousands(int64(n)) + " " + noun + "s"
}
