package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/stats"
)

// Verdict says one metric of a comparison in a sentence that can be pasted
// into a pull request: the winner and the loser by name, the metric, the
// winner's lead with its interval, the p-value the decision used and n, as
// in "item-knn beats popularity on ndcg@10 by 0.021 (95% CI 0.010 to 0.032,
// p = 0.003, n = 610)". The lead is positive in the metric's better
// direction, so a lower-is-better metric reads the same way and says so.
//
// When the difference is not distinguishable, the sentence says which half
// of the rule failed (the interval includes zero, p is not below alpha, or
// both), and what it would take: the units a gap of the observed size would
// need, from the observed variance of the paired differences, or that no
// number of units separates equal means.
//
// Its signature is compare.Options.Sentence's, so that the sentence a
// front end prints is the one the history records.
func Verdict(c *compare.Comparison, r *compare.MetricResult) string {
	named := *r
	named.Metric, named.Baseline, named.Candidate = Printable(r.Metric), Printable(r.Baseline), Printable(r.Candidate)
	r = &named
	var b strings.Builder
	on := ""
	if r.Metric != "" {
		on = " on " + r.Metric
	}
	level := strconv.FormatFloat(100*r.Difference.Confidence, 'g', 6, 64) + "%"
	p := PValueText(r.PAdjusted, r.Alpha)
	alpha := fmt.Sprintf("alpha %g", r.Alpha)
	if f := r.FDR; f != nil {
		alpha = fmt.Sprintf("its online FDR level %s (%s, test %s of the experiment's history at FDR %g)",
			Num(f.Level), f.Method, Thousands(int64(f.Test)), f.Alpha)
	}
	if r.Adjustment != "" {
		p += fmt.Sprintf(" after %s adjustment across %d metrics", adjustmentName(r.Adjustment), r.AdjustedN)
	}
	direction := ""
	if r.LowerIsBetter {
		direction = "lower is better; "
	}
	if r.Distinguishable {
		g := r.Gap()
		dec := verdictDecimals(g.Estimate, g.Low, g.High)
		fmt.Fprintf(&b, "%s beats %s%s by %s (%s%s CI %s to %s, %s, n = %s): the interval excludes zero and p is below %s.",
			r.Name(r.Winner), r.Name(r.Loser()), on, verdictNumber(g.Estimate, dec, false), direction, level,
			verdictNumber(g.Low, dec, false), verdictNumber(g.High, dec, false), p, Thousands(int64(r.N)), alpha)
		writeMethod(&b, r)
		if r.DeLong == nil && r.Bootstrap == nil {
			better, worse := r.CandidateBetter, r.CandidateWorse
			if r.Winner == compare.Baseline {
				better, worse = worse, better
			}
			fmt.Fprintf(&b, " %s is better for %s, worse for %s and the same for %s.",
				r.Name(r.Winner), plural(better, "unit"), Thousands(int64(worse)), Thousands(int64(r.Same)))
		}
		writeMargin(&b, r, on)
		return b.String()
	}
	d := r.Difference
	dec := verdictDecimals(d.Estimate, d.Low, d.High)
	fmt.Fprintf(&b, "%s and %s are not distinguishable%s (%sn = %s): the difference %s − %s is %s, with a %s CI of %s to %s, ",
		r.Baseline, r.Candidate, on, direction, Thousands(int64(r.N)), r.Baseline, r.Candidate, verdictNumber(d.Estimate, dec, true), level,
		verdictNumber(d.Low, dec, true), verdictNumber(d.High, dec, true))
	switch {
	case r.IntervalExcludesZero: // then p failed
		fmt.Fprintf(&b, "which excludes zero, but %s is not below %s.", p, alpha)
	case r.PBelowAlpha:
		fmt.Fprintf(&b, "which includes zero, although %s is below %s.", p, alpha)
	default:
		fmt.Fprintf(&b, "which includes zero, and %s is not below %s.", p, alpha)
	}
	writeMethod(&b, r)
	b.WriteString(HintText(r))
	writeMargin(&b, r, on)
	return b.String()
}

// writeMargin says what the comparison shows against the metric's
// practical margin, with the one-sided bounds it was decided from, as in
// "cand is non-inferior to base on ndcg@10: it is worse by at most 0.0012
// (95% one-sided bound), within the margin 0.005".
func writeMargin(b *strings.Builder, r *compare.MetricResult, on string) {
	t := r.MarginTest
	if t == nil || r.Margin == nil || r.MarginDecision == "" {
		return
	}
	delta, w := *r.Margin, t.Worse
	dec := verdictDecimals(w.Low, w.High, delta)
	num := func(x float64) string { return verdictNumber(x, dec, false) }
	level := strconv.FormatFloat(100*(1-t.Alpha), 'g', 6, 64) + "%"
	margin := strconv.FormatFloat(delta, 'g', -1, 64)
	// at most says the high bound of how much worse the candidate is.
	atMost := "worse by at most " + num(w.High)
	if w.High < 0 {
		atMost = "better by at least " + num(-w.High)
	}
	atLeast := "worse by at least " + num(w.Low)
	if w.Low < 0 {
		atLeast = "better by at most " + num(-w.Low)
	}
	p := func(q *float64) string {
		if q == nil {
			return ""
		}
		return ", " + PValueText(*q, t.Alpha)
	}
	cand, base := r.Candidate, r.Baseline
	switch r.MarginDecision {
	case compare.MarginSuperior:
		fmt.Fprintf(b, " Against the margin %s, %s is superior to %s%s: distinguishably better.", margin, cand, base, on)
	case compare.MarginEquivalent:
		fmt.Fprintf(b, " %s is equivalent to %s%s within the margin ±%s: it is %s and %s (%s one-sided bounds, TOST%s).",
			cand, base, on, margin, atMost, atLeast, level, p(t.PEquivalence))
	case compare.MarginNonInferior:
		fmt.Fprintf(b, " %s is non-inferior to %s%s: it is %s (%s one-sided bound%s), within the margin %s.",
			cand, base, on, atMost, level, p(t.PNonInferior), margin)
	case compare.MarginInferior:
		fmt.Fprintf(b, " %s is inferior to %s%s: it is %s (%s one-sided bound%s), beyond the margin %s.",
			cand, base, on, atLeast, level, p(t.PInferior), margin)
	default:
		fmt.Fprintf(b, " Against the margin %s, %s is neither shown non-inferior to %s%s nor shown worse by more than the margin: it is %s and %s (%s one-sided bounds).",
			margin, cand, base, on, atMost, atLeast, level)
	}
}

// writeMethod adds what the method's own test found, for the tests other
// than the default bootstrap and randomisation.
func writeMethod(b *strings.Builder, r *compare.MetricResult) {
	st := ""
	if s := r.Statistic; s != nil {
		st = fmt.Sprintf("%s = %s", s.Name, Num(s.Value))
		if s.DF != nil {
			st += " (df " + DFText(*s.DF) + ")"
		}
	}
	switch {
	case r.Seeds != nil:
		writeSeeds(b, r, st)
	case r.Wilcoxon != nil:
		w := r.Wilcoxon
		fmt.Fprintf(b, " Wilcoxon signed-rank (%s): W+ = %s, W− = %s; the interval is the paired bootstrap's.", w.Mode, Num(w.WPlus), Num(w.WMinus))
	case r.McNemar != nil:
		m := r.McNemar
		fmt.Fprintf(b, " McNemar (%s): %s right only for %s, %s only for %s; the interval is the paired bootstrap's.",
			m.Mode, plural(m.B, "unit"), r.Baseline, Thousands(int64(m.C)), r.Candidate)
	case r.DeLong != nil:
		d := r.DeLong
		fmt.Fprintf(b, " DeLong: AUC %s (%s) against %s (%s), z = %s.", Num(d.AUCLeft), r.Baseline, Num(d.AUCRight), r.Candidate, Num(d.Z))
	case r.Bootstrap != nil:
		bo := r.Bootstrap
		kind := "Paired bootstrap"
		if bo.Stratified {
			kind = "Stratified paired bootstrap (each class resampled from its own samples)"
		}
		fmt.Fprintf(b, " %s, %s recomputed on %s replicates; p is twice the smaller share of replicate differences at or beyond zero.",
			kind, r.Metric, Thousands(int64(bo.Resamples-bo.Undefined)))
	case r.Method == "paired-t" && (st != "" || r.Auto != nil):
		if st != "" {
			fmt.Fprintf(b, " Paired t: %s.", st)
		}
		if a := r.Auto; a != nil {
			fmt.Fprintf(b, " The paired t was chosen for %s units of one row each: from %s on, it and the bootstrap decide alike (docs/calibration.md); method bootstrap resamples instead.",
				Thousands(a.Units), Thousands(a.MinUnits))
		}
	case r.Method == "corrected-t":
		if r.RhoAssumed {
			fmt.Fprintf(b, " Corrected resampled t (Nadeau & Bengio, %d folds)", r.N)
		} else {
			fmt.Fprintf(b, " Corrected resampled t (Nadeau & Bengio, %d folds, n_train %d, n_test %d)", r.N, r.NTrain, r.NTest)
		}
		if st != "" {
			fmt.Fprintf(b, ": %s", st)
		}
		if r.RhoAssumed {
			k := ""
			if r.K != r.N {
				k = fmt.Sprintf(" (k = %d folds per repetition)", r.K)
			}
			fmt.Fprintf(b, "; ρ = 1/k = %s%s assumed: the fold sizes were not recorded", strconv.FormatFloat(r.Rho, 'g', 4, 64), k)
		}
		b.WriteString(".")
	case strings.HasPrefix(r.Method, "5x2") && len(r.Folds) >= 3:
		fmt.Fprintf(b, " 5x2cv paired t (Dietterich; folds in sample ID order %s, ...)", strings.Join(r.Folds[:3], ", "))
		if st != "" {
			fmt.Fprintf(b, ": %s", st)
		}
		b.WriteString("; the interval is the paired bootstrap's.")
	}
	if y := r.Bayes; y != nil {
		fmt.Fprintf(b, " Bayesian correlated t with a ROPE of %g: P(%s better) = %.3f, P(equivalent) = %.3f, P(%s better) = %.3f.",
			y.Rope, r.Baseline, y.PBaselineBetter, y.PEquivalent, r.Candidate, y.PCandidateBetter)
		decided := map[compare.BayesDecision]string{compare.BayesBaselineBetter: r.Baseline + " better",
			compare.BayesCandidateBetter: r.Candidate + " better", compare.BayesEquivalent: "practically equivalent"}[y.Decision]
		if decided == "" {
			fmt.Fprintf(b, " With a ROPE of %g, the posterior is undecided: no probability exceeds %g.", y.Rope, y.DecideAt)
		} else {
			fmt.Fprintf(b, " With a ROPE of %g, the posterior decides: %s (P = %s > %g).", y.Rope, decided, aboveText(y.P(), y.DecideAt), y.DecideAt)
		}
	}
}

// aboveText formats a probability p above the threshold at with three
// decimals, and more where three would print it at or below at.
func aboveText(p, at float64) string {
	d := 3
	for ; d < 17; d++ {
		if v, _ := strconv.ParseFloat(strconv.FormatFloat(p, 'f', d, 64), 64); v > at {
			break
		}
	}
	return strconv.FormatFloat(p, 'f', d, 64)
}

// RankVerdict says one of a ranking's Holm comparisons, of the control with
// another run, in a sentence. Its signature is compare.RankQuery.Sentence's.
func RankVerdict(r *compare.Ranking, h stats.HolmComparison) string {
	rank := map[string]float64{}
	for _, run := range r.Runs {
		rank[Printable(run.Name)] = run.AvgRank
	}
	named := *r
	named.Metric, named.Control, h.Name = Printable(r.Metric), Printable(r.Control), Printable(h.Name)
	r = &named
	p := "Holm " + PValueText(h.PAdjusted, r.Alpha)
	if !h.Rejected {
		return fmt.Sprintf("%s and %s are not distinguishable on %s by rank (%s, n = %s)", r.Control, h.Name, r.Metric, p, plural(r.Units, "unit"))
	}
	better, worse := r.Control, h.Name
	if rank[h.Name] < rank[r.Control] {
		better, worse = h.Name, r.Control
	}
	return fmt.Sprintf("%s ranks better than %s on %s (average ranks %.3f and %.3f, %s, n = %s)",
		better, worse, r.Metric, rank[better], rank[worse], p, plural(r.Units, "unit"))
}

// adjustmentName is an adjustment as a sentence names it.
func adjustmentName(a string) string {
	switch a {
	case "holm":
		return "Holm"
	case "bonferroni":
		return "Bonferroni"
	case "bh":
		return "Benjamini-Hochberg"
	case "by":
		return "Benjamini-Yekutieli"
	}
	return a
}

// verdictDecimals returns the number of decimals that shows the largest of
// xs with at least three significant digits, and at least 3.
func verdictDecimals(xs ...float64) int {
	m := 0.0
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			m = max(m, math.Abs(x))
		}
	}
	if m == 0 {
		return 3
	}
	return min(max(3, 2-int(math.Floor(math.Log10(m)))), 15)
}

// verdictNumber formats x with decimals decimals, and more when that would
// print a nonzero x as zero, so that an interval bound never reads as zero
// on the wrong side. With signed, positive numbers get a plus sign.
func verdictNumber(x float64, decimals int, signed bool) string {
	if x == 0 {
		return strconv.FormatFloat(0, 'f', decimals, 64)
	}
	for decimals < 17 {
		if v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', decimals, 64), 64); v != 0 {
			break
		}
		decimals++
	}
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if signed && x > 0 {
		s = "+" + s
	}
	return s
}

// GateFailure says why metric r fails the comparison's gate, for the exit
// message of a CI job: "the candidate is distinguishably worse on ndcg@10
// (--fail-on regression)".
func GateFailure(r *compare.MetricResult, gate compare.Gate) string {
	switch gate {
	case compare.FailOnRegressionBeyondMargin:
		return fmt.Sprintf("the candidate is shown worse than the baseline by more than the margin %s on %s (--fail-on %s)", marginText(r), r.Metric, gate)
	case compare.FailOnUnprovenNonInferiority:
		return fmt.Sprintf("the candidate is not shown non-inferior within the margin %s on %s: %s (--fail-on %s)", marginText(r), r.Metric, strings.ReplaceAll(string(r.MarginDecision), "_", " "), gate)
	}
	what := map[bool]string{true: "worse", false: "different"}[r.Regression()]
	return fmt.Sprintf("the candidate is distinguishably %s on %s (--fail-on %s)", what, r.Metric, gate)
}

func marginText(r *compare.MetricResult) string {
	if r.Margin == nil {
		return "-"
	}
	return strconv.FormatFloat(*r.Margin, 'g', -1, 64)
}

// writeSeeds says how a comparison of two groups of runs was tested, and
// what the seeds do: how far two runs of one configuration land apart,
// whether that is as much as the gap, and how often a single run of the
// candidate beats one of the baseline.
func writeSeeds(b *strings.Builder, r *compare.MetricResult, st string) {
	s := r.Seeds
	nb, nc := len(s.BaselineRuns), len(s.CandidateRuns)
	fmt.Fprintf(b, " Two-level bootstrap of %s of %s, %s of %s and the users", plural(nb, "run"), r.Baseline, Thousands(int64(nc)), r.Candidate)
	if st != "" {
		fmt.Fprintf(b, ": %s", st)
	}
	b.WriteString(".")
	if nb < 2 || nc < 2 {
		fmt.Fprintf(b, " With one run of %s, nothing measures the seeds' variance: this tests the users alone.", map[bool]string{true: r.Baseline, false: r.Candidate}[nb < 2])
		return
	}
	d := verdictDecimals(s.RunToRun, r.Difference.Estimate)
	num := func(x float64) string { return verdictNumber(x, d, false) }
	// The components as standard deviations, in the metric's units: the
	// seeds' pooled, the users' averaged over the two groups.
	parts := fmt.Sprintf("seed SD %s, user SD %s", num(math.Sqrt(s.SeedVariance)), num(math.Sqrt((s.Baseline.User+s.Candidate.User)/2)))
	if s.SeedNoiseDominates {
		fmt.Fprintf(b, " Seed noise dominates: two runs of one configuration typically differ by %s on these users (%s), as much as the gap of %s or more.",
			num(s.RunToRun), parts, num(math.Abs(r.Difference.Estimate)))
	} else {
		fmt.Fprintf(b, " Two runs of one configuration typically differ by %s on these users (%s), less than the gap of %s.",
			num(s.RunToRun), parts, num(math.Abs(r.Difference.Estimate)))
	}
	fmt.Fprintf(b, " A single run of %s beats a single run of %s in %s%% of the %d pairs of runs.",
		r.Candidate, r.Baseline, strconv.FormatFloat(100*s.PCandidateRunBetter, 'f', 0, 64), nb*nc)
}
