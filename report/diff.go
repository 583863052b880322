package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/verdict-ml/verdict/compare"
)

// Diff writes the units that moved most between two evaluations in format:
// a table of the listed units with counts, quantiles and their share of
// the total under it (table, markdown), the listed units (csv), or the
// whole result (json). Differences are baseline − candidate.
func Diff(w io.Writer, format string, d *compare.DiffResult) error {
	switch format {
	case "json":
		return WriteJSON(w, d)
	case "csv":
		t := Table{Header: []string{"sample_id", "baseline", "candidate", "difference"}}
		for _, r := range d.Top {
			t.Add(r.SampleID, CSVNum(r.Baseline), CSVNum(r.Candidate), CSVNum(r.Difference))
		}
		return t.CSV(w)
	}
	n, t := len(d.Top), diffTable(d)
	what := "did worst"
	if d.Best {
		what = "did best"
	}
	fmt.Fprintf(w, "%s (%s): evaluation %d (%s, baseline) against %d (%s, candidate), %s; difference = baseline − candidate\n\n",
		Printable(d.Metric), d.Direction, d.BaseEval.ID, Printable(d.Baseline), d.CandEval.ID, Printable(d.Candidate), plural(d.Units, "paired user"))
	if n == 1 {
		fmt.Fprintf(w, "the user for whom the candidate %s:\n", what)
	} else {
		fmt.Fprintf(w, "the %d users for whom the candidate %s:\n", n, what)
	}
	if err := t.Write(w, format); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nthe candidate is better for %s, worse for %s, the same for %s\n",
		plural(d.CandidateBetter, "user"), Thousands(int64(d.CandidateWorse)), Thousands(int64(d.Same)))
	q := make([]any, len(d.Quantiles))
	for i, v := range Nums(d.Quantiles, true) {
		q[i] = v
	}
	fmt.Fprintf(w, "difference quantiles: min %s, 5%% %s, 25%% %s, median %s, 75%% %s, 95%% %s, max %s\n", q...)
	these := fmt.Sprintf("these %d users account", n)
	if n == 1 {
		these = "this user accounts"
	}
	if d.Share != nil {
		fmt.Fprintf(w, "%s for %s of the total difference %s (%.0f%%)\n", these, Signed(d.TopDifference), Signed(d.TotalDifference), 100**d.Share)
	} else {
		fmt.Fprintf(w, "%s for %s; the total difference %s is too close to zero (gains and losses cancel) for a share to mean anything\n",
			these, Signed(d.TopDifference), Signed(d.TotalDifference))
	}
	return nil
}

// DiffPairs writes every pair of a diff as CSV: sample_id, baseline,
// candidate, difference, numbers in full.
func DiffPairs(w io.Writer, d *compare.DiffResult) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"sample_id", "baseline", "candidate", "difference"})
	for _, r := range d.All {
		_ = cw.Write([]string{r.SampleID, strconv.FormatFloat(r.Baseline, 'g', -1, 64), strconv.FormatFloat(r.Candidate, 'g', -1, 64),
			strconv.FormatFloat(r.Difference, 'g', -1, 64)})
	}
	cw.Flush()
	return cw.Error()
}

// DiffHistogram is a histogram of a diff's per-user differences.
func DiffHistogram(d *compare.DiffResult) (*Figure, error) {
	diffs := make([]float64, len(d.All))
	for i, r := range d.All {
		diffs[i] = r.Difference
	}
	return Histogram(fmt.Sprintf("%s: %s minus %s, %d users", d.Metric, d.Baseline, d.Candidate, len(diffs)),
		fmt.Sprintf("difference in %s (baseline − candidate)", d.Metric), diffs)
}
