package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
)

// The agreement study asks, size by size, how far apart two answers to the
// same question are: `compare --method t`, the paired t interval and test
// of the exact sums (stats.PairedSummary.PairedT, which a distributed
// database computes where the values are), and the default of `compare`,
// the multinomial percentile bootstrap's interval (stats.PairedBootstrapUnits)
// with the random sign-flip test (stats.RandomizationUnits), B =
// stats.DefaultResamples, on the same data set. For each replication it
// records both intervals' coverage, both decisions, whether the decisions
// differ, and the gap between the intervals: the larger of the two bounds'
// distances, over the t interval's width.
//
// The shapes are one row a unit, the case a database can reduce to sums:
// the per-user study's 0/1 values, ndcg-like values (60 % zeros), the
// leave-one-out ndcg@10 with its heavy ties, and log-normal values, whose
// few heavy users carry much of the mean. Draws (several rows a unit) are
// left out: the default's row-weighted mean and the t of per-user means
// estimate different things (see "Per-user metrics").

// The methods of the agreement study.
const (
	aT               = iota // the t interval alone
	aBoot                   // the bootstrap's interval alone
	aTDefault               // compare --method t: t test and t interval
	aBootDefault            // compare's default: sign flips and bootstrap interval
	aDecisionsDiffer        // the two decisions differ (a "rejection" when they do)
	aMethods
)

var agreeMethods = [aMethods]method{
	aT:               {name: "t", label: "paired t interval of the exact sums alone"},
	aBoot:            {name: "bootstrap", label: "multinomial bootstrap percentile interval alone"},
	aTDefault:        {name: "t-decision", label: "paired t test + t interval (compare --method t)"},
	aBootDefault:     {name: "default-decision", label: "random sign flips + bootstrap interval (compare default)"},
	aDecisionsDiffer: {name: "differ", label: "the two decisions differ"},
}

// agreeShapes are the agreement study's shapes: one row a unit.
func agreeShapes() []userShape {
	var shapes []userShape
	for _, s := range userShapes() {
		if !s.clustered {
			shapes = append(shapes, s)
		}
	}
	for _, s := range poissonShapes() {
		if s.name == "lognormal" {
			shapes = append(shapes, s)
		}
	}
	return shapes
}

// agreeConfig is one cell of the agreement study.
type agreeConfig struct {
	shape userShape
	fam   family
	n     int
	// gaps receives, at index rep, the intervals' gap over the t
	// interval's width (NaN when that is 0).
	gaps []float64
}

func (c agreeConfig) key() string {
	return fmt.Sprintf("agree/%s/%s/rho=%g/n=%d", c.shape.name, c.fam, figureRho, c.n)
}

// replicate draws one pair of evaluations and answers it both ways, with
// the replication's index as the bootstrap's and the sign flips' seed.
func (c agreeConfig) replicate(rep int, rng *rand.Rand, out []outcome) float64 {
	s := c.shape.draw(rng, c.n, figureRho, c.fam)
	units := stats.PairedUnits{LeftSum: s.left, RightSum: s.right}
	seed := uint64(rep)
	sum := must(stats.SummarizePairs(s.left, s.right))
	t := must(sum.PairedT(stats.PairedTOptions{Confidence: confidence}))
	b := must(stats.PairedBootstrapUnits(units, stats.BootstrapOptions{Seed: seed}))
	rf := must(stats.RandomizationUnits(units, stats.RandomizationOptions{Seed: seed}))
	tIv := stats.Interval{Estimate: t.MeanDiff, Low: t.CILow, High: t.CIHigh, Confidence: confidence}
	bIv := stats.Interval{Estimate: b.Estimate, Low: b.Low, High: b.High, Confidence: b.Confidence}
	interval(&out[aT], tIv, s.truth)
	interval(&out[aBoot], bIv, s.truth)
	decide(&out[aTDefault], t.PValue, tIv, s.truth)
	decide(&out[aBootDefault], rf.PValue, bIv, s.truth)
	out[aDecisionsDiffer] = outcome{ran: true, reject: out[aTDefault].reject != out[aBootDefault].reject}
	if rep < len(c.gaps) {
		c.gaps[rep] = math.NaN()
		if w := t.CIHigh - t.CILow; w > 0 {
			c.gaps[rep] = max(math.Abs(t.CILow-b.Low), math.Abs(t.CIHigh-b.High)) / w
		}
	}
	return 0
}

// agreeConfigs lists the agreement study's grid, with room for reps[n]
// gaps in each cell.
func agreeConfigs(sizes []int, reps map[int]int) []agreeConfig {
	var cfgs []agreeConfig
	for _, s := range agreeShapes() {
		for _, f := range poissonFamilies {
			for _, n := range sizes {
				cfgs = append(cfgs, agreeConfig{shape: s, fam: f, n: n, gaps: make([]float64, reps[n])})
			}
		}
	}
	return cfgs
}

// agreeCell returns the agreement study's cell and its result.
func (s *study) agreeCell(shape string, f family, n int) (agreeConfig, cellResult) {
	i := slices.IndexFunc(s.agrees, func(c agreeConfig) bool { return c.shape.name == shape && c.fam == f && c.n == n })
	return s.agrees[i], s.agreeRes[i]
}

// agreeFigures adds the agreement study's figures: the gap between the
// intervals by n, and how often the decisions differ.
func (s *study) agreeFigures(add func(string, CalibrationChart)) {
	if len(s.agrees) == 0 {
		return
	}
	gap := CalibrationChart{Title: "Gap between the t and the bootstrap interval, same data set",
		XLabel: "paired units (n), one row each, ρ = " + rhoText(figureRho),
		YLabel: "gap, in % of the t interval's width (median, 5–95 %)"}
	differ := chart(power, "Decisions of the t and of the default that differ",
		"paired units (n), one row each, ρ = "+rhoText(figureRho), nil)
	differ.YLabel = "share of data sets where one decides and the other does not"
	for _, shape := range agreeShapes() {
		for _, f := range poissonFamilies {
			g := CalibrationSeries{Name: shape.name + ", " + f.String()}
			d := CalibrationSeries{Name: shape.name + ", " + f.String()}
			for _, n := range s.plan.agreeSizes {
				c, r := s.agreeCell(shape.name, f, n)
				med, lo, hi := widthRatios(c.gaps)
				if !math.IsNaN(med) {
					g.Points = append(g.Points, CalibrationPoint{N: float64(n), Rate: med, Low: lo, High: hi})
				}
				d.Points = append(d.Points, point(n, r.tallies[aDecisionsDiffer], power))
			}
			if len(g.Points) > 0 {
				gap.Series = append(gap.Series, g)
			}
			differ.Series = append(differ.Series, d)
		}
	}
	add("agree-gap.svg", gap)
	add("agree-decisions.svg", differ)
	trials := map[int]int{}
	for _, n := range s.plan.agreeSizes {
		_, r := s.agreeCell("ndcg", lift, n)
		trials[n] = r.tallies[aT].intervals
	}
	cov := chart(coverageKind, "Coverage of a 10 % lift: t and bootstrap intervals",
		"paired units (n), one row each, ρ = "+rhoText(figureRho), trials)
	for _, shape := range agreeShapes() {
		for _, m := range []int{aT, aBoot} {
			ser := CalibrationSeries{Name: agreeMethods[m].name + ", " + shape.name}
			for _, n := range s.plan.agreeSizes {
				_, r := s.agreeCell(shape.name, lift, n)
				ser.Points = append(ser.Points, point(n, r.tallies[m], coverageKind))
			}
			cov.Series = append(cov.Series, ser)
		}
	}
	cut(&cov, coverageKind)
	add("agree-coverage.svg", cov)
}

// agreeMarkdown writes the agreement study's tables, adding the
// configurations it flags to flags.
func (s *study) agreeMarkdown(w io.Writer, flags *[]string) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("### The t and the bootstrap by n\n\n")
	p("Replications per cell: %s; B = %s, ρ = %s. † marks a rate outside the 99 %% binomial band of a calibrated method (the band row).\n\n",
		repsText(s.plan.agreeReps), report.Thousands(stats.DefaultResamples), rhoText(figureRho))
	shapes, sizes := agreeShapes(), s.plan.agreeSizes
	bandRow := func(lead []string, target float64) []string {
		row := lead
		for _, n := range sizes {
			row = append(row, bandText(s.plan.agreeReps[n], target))
		}
		return row
	}
	cellText := func(r rate, flagged, outside bool) string {
		t := pct(r, flagged)
		if outside {
			t += " †"
		}
		return t
	}
	g := func(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) }

	p("<a id=\"agree-gap\"></a>Gap between the two intervals on the same data set (`agree-gap`): the larger distance between their bounds, in %% of the t interval's width; median [5 %%, 95 %%] of the replications.\n\n")
	t := report.Table{Header: append([]string{"values", "truth"}, sizeHeader("n", sizes)...)}
	for _, shape := range shapes {
		for _, f := range poissonFamilies {
			row := []string{shape.name, f.String()}
			for _, n := range sizes {
				c, _ := s.agreeCell(shape.name, f, n)
				med, lo, hi := widthRatios(c.gaps)
				row = append(row, g(med)+" ["+g(lo)+", "+g(hi)+"]")
			}
			t.Add(row...)
		}
	}
	if err := t.Markdown(w); err != nil {
		return err
	}

	p("\n<a id=\"agree-coverage\"></a>Coverage of the 95 %% interval (`agree-coverage`):\n\n")
	t = report.Table{Header: append([]string{"interval", "values", "truth"}, sizeHeader("n", sizes)...)}
	for _, m := range []int{aT, aBoot} {
		for _, shape := range shapes {
			for _, f := range poissonFamilies {
				row := []string{agreeMethods[m].label, shape.name, f.String()}
				for _, n := range sizes {
					_, res := s.agreeCell(shape.name, f, n)
					tl := res.tallies[m]
					r := tl.coverage()
					under := r.undercovers()
					if under {
						*flags = append(*flags, fmt.Sprintf("- coverage: %s; %s, %s; n = %s: %s", agreeMethods[m].label, shape.name, f, report.Thousands(int64(n)), pct(r, false)))
					}
					row = append(row, cellText(r, under, outOfBand(tl.covered, tl.intervals, confidence)))
				}
				t.Add(row...)
			}
		}
	}
	t.Add(bandRow([]string{"99 % band of a calibrated interval", "", ""}, confidence)...)
	if err := t.Markdown(w); err != nil {
		return err
	}

	p("\n<a id=\"agree-decisions\"></a>Rejections of a true null (`same`), power against the 10 %% lift (`lift`), and the share of data sets where the two decisions differ (`agree-decisions`):\n\n")
	t = report.Table{Header: append([]string{"method", "values", "truth"}, sizeHeader("n", sizes)...)}
	for _, m := range []int{aTDefault, aBootDefault, aDecisionsDiffer} {
		for _, shape := range shapes {
			for _, f := range poissonFamilies {
				row := []string{agreeMethods[m].label, shape.name, f.String()}
				for _, n := range sizes {
					_, res := s.agreeCell(shape.name, f, n)
					tl := res.tallies[m]
					r := tl.rejection()
					lib := m != aDecisionsDiffer && f == sameNull && r.liberal()
					if lib {
						*flags = append(*flags, fmt.Sprintf("- type I: %s; %s; n = %s: %s", agreeMethods[m].label, shape.name, report.Thousands(int64(n)), pct(r, false)))
					}
					outside := m != aDecisionsDiffer && f == sameNull && outOfBand(tl.rejected, tl.trials, alpha)
					row = append(row, cellText(r, lib, outside))
				}
				t.Add(row...)
			}
		}
	}
	t.Add(bandRow([]string{"99 % band of a calibrated test", "", ""}, alpha)...)
	if err := t.Markdown(w); err != nil {
		return err
	}
	p("\n")
	return nil
}
