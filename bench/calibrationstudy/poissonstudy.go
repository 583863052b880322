package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
)

// The Poisson study compares the two ways `verdict compare` resamples
// paired units of one row each. The multinomial bootstrap
// (stats.PairedBootstrapUnits) and the random sign-flip test
// (stats.RandomizationUnits) are what it runs on one server, and below
// compare.PoissonMinUnits units anywhere. The Poisson bootstrap and the
// hashed sign-flip test (stats.HashedReplicates, PoissonBootstrap and
// FlipPValue), whose weights and signs come from a hash of the sample ID,
// the replicate and the seed, are what it runs on a distributed database
// from 1,000 units on. Both run with B = stats.DefaultResamples on the
// same data set, named "user-0000000" onwards, with the replication's
// index as the seed of all four, so that every data set draws its own
// weights and signs.
//
// The data are the per-user study's ndcg-like values and a skewed
// continuous one (log-normal), at ρ = figureRho, under the same null and
// the 10 % lift: the true difference is 0 or the marginals' exact means'
// difference.

// The methods of the Poisson study.
const (
	pPoisson            = iota // the Poisson bootstrap's interval alone
	pMultinomial               // the multinomial bootstrap's interval alone
	pHashedFlip                // the hashed sign-flip test's p alone
	pRandomFlip                // the random sign-flip test's p alone
	pPoissonDefault            // compare --resampling poisson
	pMultinomialDefault        // compare --resampling multinomial
	pMethods
)

var poissonMethods = [pMethods]method{
	pPoisson:            {name: "poisson", label: "Poisson bootstrap percentile interval (stats.HashedReplicates, PoissonBootstrap)"},
	pMultinomial:        {name: "multinomial", label: "multinomial bootstrap percentile interval (stats.PairedBootstrapUnits)"},
	pHashedFlip:         {name: "hashed-flip", label: "hashed sign-flip p alone (Replicates.FlipPValue)"},
	pRandomFlip:         {name: "random-flip", label: "random sign-flip p alone (stats.RandomizationUnits)"},
	pPoissonDefault:     {name: "poisson-default", label: "hashed sign flips + Poisson interval (compare --resampling poisson)"},
	pMultinomialDefault: {name: "multinomial-default", label: "random sign flips + multinomial interval (compare --resampling multinomial)"},
}

var poissonShort = [pMethods]string{
	pPoisson:     "Poisson bootstrap",
	pMultinomial: "multinomial bootstrap",
}

// logNormal is a skewed continuous metric, scale·exp(σ·z) for a standard
// normal z: a per-user session length, say. Its mean is scale·exp(σ²/2),
// and its skewness 6.2 at σ = 1.
type logNormal struct{ sigma, scale float64 }

func (l logNormal) quantile(u float64) float64 {
	// Φ(z) rounds to 1 from z ≈ 8.3 on; keep the quantile finite there.
	u = min(max(u, math.SmallestNonzeroFloat64), math.Nextafter(1, 0))
	return l.scale * math.Exp(l.sigma*distuv.UnitNormal.Quantile(u))
}

func (l logNormal) mean() float64 { return l.scale * math.Exp(l.sigma*l.sigma/2) }

// poissonShapes are the shapes of the Poisson study: the per-user study's
// ndcg-like values, and log-normal values with the left side 10 % higher
// under the lift.
func poissonShapes() []userShape {
	var shapes []userShape
	for _, s := range userShapes() {
		if s.name == "ndcg" {
			shapes = append(shapes, s)
		}
	}
	return append(shapes, userShape{name: "lognormal", title: "skewed continuous values (log-normal, σ = 1)",
		base: logNormal{sigma: 1, scale: 1}, lifted: logNormal{sigma: 1, scale: 1.1}})
}

// poissonFamilies are the truths the Poisson study simulates.
var poissonFamilies = []family{sameNull, lift}

// poissonConfig is one cell of the Poisson study.
type poissonConfig struct {
	shape userShape
	fam   family
	n     int
	// ratios receives, at index rep, the Poisson interval's width over
	// the multinomial one's (NaN when the latter is 0); it has one entry
	// per replication and each replication writes its own.
	ratios []float64
}

func (c poissonConfig) key() string {
	return fmt.Sprintf("poisson/%s/%s/rho=%g/n=%d", c.shape.name, c.fam, figureRho, c.n)
}

// sampleIDs names n units as verdict's sample IDs look: user-0000000
// onwards.
func sampleIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("user-%07d", i)
	}
	return ids
}

// replicate draws one pair of evaluations and runs both resamplings on
// it, with B = stats.DefaultResamples and the replication's index as the
// seed.
func (c poissonConfig) replicate(rep int, rng *rand.Rand, out []outcome) float64 {
	s := c.shape.draw(rng, c.n, figureRho, c.fam)
	units := stats.PairedUnits{LeftSum: s.left, RightSum: s.right}
	seed := uint64(rep)
	reps := must(stats.HashedReplicates(context.Background(), sampleIDs(c.n), units, stats.DefaultResamples, seed))
	pb := must(reps.PoissonBootstrap(confidence))
	mb := must(stats.PairedBootstrapUnits(units, stats.BootstrapOptions{Seed: seed}))
	rf := must(stats.RandomizationUnits(units, stats.RandomizationOptions{Seed: seed}))
	hp := reps.FlipPValue()
	pIv := stats.Interval{Estimate: pb.Estimate, Low: pb.Low, High: pb.High, Confidence: pb.Confidence}
	mIv := stats.Interval{Estimate: mb.Estimate, Low: mb.Low, High: mb.High, Confidence: mb.Confidence}
	interval(&out[pPoisson], pIv, s.truth)
	interval(&out[pMultinomial], mIv, s.truth)
	out[pHashedFlip] = outcome{ran: true, reject: hp < alpha}
	out[pRandomFlip] = outcome{ran: true, reject: rf.PValue < alpha}
	decide(&out[pPoissonDefault], hp, pIv, s.truth)
	decide(&out[pMultinomialDefault], rf.PValue, mIv, s.truth)
	if rep < len(c.ratios) {
		c.ratios[rep] = math.NaN()
		if w := mb.High - mb.Low; w > 0 {
			c.ratios[rep] = (pb.High - pb.Low) / w
		}
	}
	return 0
}

// poissonConfigs lists the Poisson study's grid, with room for reps[n]
// width ratios in each cell.
func poissonConfigs(sizes []int, reps map[int]int) []poissonConfig {
	var cfgs []poissonConfig
	for _, s := range poissonShapes() {
		for _, f := range poissonFamilies {
			for _, n := range sizes {
				cfgs = append(cfgs, poissonConfig{shape: s, fam: f, n: n, ratios: make([]float64, reps[n])})
			}
		}
	}
	return cfgs
}

// poissonCell returns the Poisson study's cell and its result.
func (s *study) poissonCell(shape string, f family, n int) (poissonConfig, cellResult) {
	i := slices.IndexFunc(s.poissons, func(c poissonConfig) bool { return c.shape.name == shape && c.fam == f && c.n == n })
	return s.poissons[i], s.poissonRes[i]
}

// widthRatios returns the median and the 5 % and 95 % quantiles of a
// cell's width ratios, leaving out the NaNs of zero-width multinomial
// intervals.
func widthRatios(ratios []float64) (median, p5, p95 float64) {
	var r []float64
	for _, v := range ratios {
		if !math.IsNaN(v) {
			r = append(r, v)
		}
	}
	if len(r) == 0 {
		return nan(), nan(), nan()
	}
	slices.Sort(r)
	q := func(p float64) float64 { return quantileSorted(r, p) }
	return q(0.5), q(0.05), q(0.95)
}

// quantileSorted is the p-quantile of sorted x, interpolated linearly
// between order statistics as numpy's default is.
func quantileSorted(x []float64, p float64) float64 {
	h := float64(len(x)-1) * p
	lo := int(math.Floor(h))
	if lo+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
}

// poissonFigures adds the Poisson study's figure: the coverage of both
// bootstraps' intervals of the lift.
func (s *study) poissonFigures(add func(string, CalibrationChart)) {
	if len(s.poissons) == 0 {
		return
	}
	trials := map[int]int{}
	for _, n := range s.plan.poissonSizes {
		_, r := s.poissonCell("ndcg", lift, n)
		trials[n] = r.tallies[pPoisson].intervals
	}
	ch := chart(coverageKind, "Coverage of a 10 % lift: Poisson and multinomial bootstrap",
		"paired units (n), one row each, ρ = "+rhoText(figureRho), trials)
	for _, shape := range poissonShapes() {
		for _, m := range []int{pPoisson, pMultinomial} {
			ser := CalibrationSeries{Name: poissonShort[m] + ", " + shape.name}
			for _, n := range s.plan.poissonSizes {
				_, r := s.poissonCell(shape.name, lift, n)
				ser.Points = append(ser.Points, point(n, r.tallies[m], coverageKind))
			}
			ch.Series = append(ch.Series, ser)
		}
	}
	cut(&ch, coverageKind)
	add("poisson-coverage.svg", ch)
}

// outOfBand reports whether k of n lies outside the 99 % binomial band of
// a rate of exactly p.
func outOfBand(k, n int, p float64) bool {
	lo, hi := binomialBand(n, p, 0.99)
	return k < lo || k > hi
}

// bandText is the 99 % binomial band of a rate p in n trials, in percent.
func bandText(n int, p float64) string {
	lo, hi := binomialBand(n, p, 0.99)
	f := func(k int) string { return strconv.FormatFloat(100*float64(k)/float64(n), 'f', 1, 64) }
	return "[" + f(lo) + ", " + f(hi) + "]"
}

// poissonMarkdown writes the Poisson study's tables, adding the
// configurations it flags to flags.
func (s *study) poissonMarkdown(w io.Writer, flags *[]string) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("### The Poisson bootstrap\n\n")
	p("Replications per cell: %s; B = %s, ρ = %s. † marks a rate outside the 99 %% binomial band of a calibrated method (the band row).\n\n",
		repsText(s.plan.poissonReps), report.Thousands(stats.DefaultResamples), rhoText(figureRho))
	shapes := poissonShapes()
	sizes := s.plan.poissonSizes
	bandRow := func(lead []string, target float64) []string {
		row := lead
		for _, n := range sizes {
			row = append(row, bandText(s.plan.poissonReps[n], target))
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

	p("<a id=\"poisson-coverage\"></a>Coverage of the 95 %% interval (`poisson-coverage`): the true difference is 0 under `same` and 10 %% of the mean under `lift`.\n\n")
	t := report.Table{Header: append([]string{"interval", "values", "truth"}, sizeHeader("n", sizes)...)}
	for _, m := range []int{pPoisson, pMultinomial} {
		for _, shape := range shapes {
			for _, f := range poissonFamilies {
				row := []string{poissonMethods[m].label, shape.name, f.String()}
				for _, n := range sizes {
					_, res := s.poissonCell(shape.name, f, n)
					tl := res.tallies[m]
					r := tl.coverage()
					under := r.undercovers()
					if under {
						*flags = append(*flags, fmt.Sprintf("- coverage: %s; %s, %s; n = %s: %s", poissonMethods[m].label, shape.name, f, report.Thousands(int64(n)), pct(r, false)))
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

	p("\n<a id=\"poisson-width\"></a>Width of the Poisson interval over the multinomial one's on the same data set (`poisson-width`): median [5 %%, 95 %%] of the replications.\n\n")
	t = report.Table{Header: append([]string{"values", "truth"}, sizeHeader("n", sizes)...)}
	for _, shape := range shapes {
		for _, f := range poissonFamilies {
			row := []string{shape.name, f.String()}
			for _, n := range sizes {
				c, _ := s.poissonCell(shape.name, f, n)
				med, lo, hi := widthRatios(c.ratios)
				g := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
				row = append(row, g(med)+" ["+g(lo)+", "+g(hi)+"]")
			}
			t.Add(row...)
		}
	}
	if err := t.Markdown(w); err != nil {
		return err
	}

	p("\n<a id=\"poisson-same\"></a>Type I error, both sides alike (`poisson-same`):\n\n")
	t = report.Table{Header: append([]string{"method", "values"}, sizeHeader("n", sizes)...)}
	for _, m := range []int{pHashedFlip, pRandomFlip, pPoissonDefault, pMultinomialDefault, pPoisson, pMultinomial} {
		for _, shape := range shapes {
			row := []string{poissonMethods[m].label, shape.name}
			for _, n := range sizes {
				_, res := s.poissonCell(shape.name, sameNull, n)
				tl := res.tallies[m]
				r := tl.rejection()
				lib := r.liberal()
				if lib {
					*flags = append(*flags, fmt.Sprintf("- type I: %s; %s; n = %s: %s", poissonMethods[m].label, shape.name, report.Thousands(int64(n)), pct(r, false)))
				}
				row = append(row, cellText(r, lib, outOfBand(tl.rejected, tl.trials, alpha)))
			}
			t.Add(row...)
		}
	}
	t.Add(bandRow([]string{"99 % band of a calibrated test", ""}, alpha)...)
	if err := t.Markdown(w); err != nil {
		return err
	}

	p("\n<a id=\"poisson-lift\"></a>Power against the 10 %% lift (`poisson-lift`):\n\n")
	t = report.Table{Header: append([]string{"method", "values"}, sizeHeader("n", sizes)...)}
	for _, m := range []int{pPoissonDefault, pMultinomialDefault} {
		for _, shape := range shapes {
			row := []string{poissonMethods[m].label, shape.name}
			for _, n := range sizes {
				_, res := s.poissonCell(shape.name, lift, n)
				row = append(row, pct(res.tallies[m].rejection(), false))
			}
			t.Add(row...)
		}
	}
	if err := t.Markdown(w); err != nil {
		return err
	}
	p("\n")
	return nil
}
