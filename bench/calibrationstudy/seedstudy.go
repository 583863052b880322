package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
)

// The seeds study: two configurations of equal quality, each trained with
// R seeds, every run scored on the same users. A run's value for a user is
// the user's effect (SD seedUserSD, shared by every run of both
// configurations), plus the run's seed effect (SD s, one draw a run), plus
// noise (SD seedNoiseSD). The configurations differ by nothing but their
// seeds, so a test that names a winner is wrong. The methods are the
// two-level bootstrap of runs and users that `verdict compare --groups`
// runs (stats.SeedBootstrap, decided by stats.Decide and seed 0), and
// compare's default (compare.Scores: bootstrap interval + randomization,
// B = 2000, seed 0) on the first run of each configuration, which counts
// the users' noise and not the seeds'.

// The seeds study's effects: the users' and the noise's standard
// deviations.
const (
	seedUserSD  = 0.1
	seedNoiseSD = 0.05
)

// The seeds study's methods.
const (
	sdTwoLevel = iota // stats.SeedBootstrap over every run
	sdUserOnly        // compare's default on one run of each configuration
	sdMethods
)

var seedMethods = [sdMethods]method{
	sdTwoLevel: {name: "two-level", label: "two-level bootstrap of runs and users (compare --groups, stats.SeedBootstrap)"},
	sdUserOnly: {name: "user-only", label: "bootstrap interval + randomization on one run of each (compare default)"},
}

var seedShort = [sdMethods]string{
	sdTwoLevel: "two-level bootstrap (--groups)",
	sdUserOnly: "compare default, one run each",
}

// seedConfig is one cell of the seeds study: the seed effect's standard
// deviation, the runs of each configuration and the users.
type seedConfig struct {
	sd   float64
	runs int
	n    int
}

func (c seedConfig) key() string {
	return fmt.Sprintf("seeds/sd=%g/runs=%d/n=%d", c.sd, c.runs, c.n)
}

// draw returns the two configurations' values, runs × users, on the same
// users.
func (c seedConfig) draw(rng *rand.Rand) (a, b [][]float64) {
	users := make([]float64, c.n)
	for u := range users {
		users[u] = seedUserSD * rng.NormFloat64()
	}
	config := func() [][]float64 {
		x := make([][]float64, c.runs)
		for j := range x {
			seed := c.sd * rng.NormFloat64()
			x[j] = make([]float64, c.n)
			for u := range x[j] {
				x[j][u] = users[u] + seed + seedNoiseSD*rng.NormFloat64()
			}
		}
		return x
	}
	a = config()
	return a, config()
}

// replicate draws one pair of configurations and tests them both ways; the
// true difference is zero.
func (c seedConfig) replicate(_ int, rng *rand.Rand, out []outcome) float64 {
	a, b := c.draw(rng)
	res := must(stats.SeedBootstrap(a, b, stats.SeedOptions{}))
	decide(&out[sdTwoLevel], res.PValue, stats.Interval{Low: res.CILow, High: res.CIHigh}, 0)
	base, cand := map[string]float64{}, map[string]float64{}
	for i, id := range sampleIDs(c.n) {
		base[id], cand[id] = a[0][i], b[0][i]
	}
	def := must(compare.Scores(context.Background(), "m", compare.HigherIsBetter, compare.Named{Scores: base}, compare.Named{Scores: cand}, compare.Options{}))
	m := def.Metrics[0]
	decide(&out[sdUserOnly], m.PAdjusted, m.Difference, 0)
	return 0
}

// cost is a replication's relative time: the two-level bootstrap adds
// 2·R·n values a replicate, compare's default two resamplings of n.
func (c seedConfig) cost() float64 { return float64(c.n * (2*c.runs + 2)) }

// seedConfigs are the seeds study's cells.
func seedConfigs(sds []float64, runs, sizes []int) []seedConfig {
	var out []seedConfig
	for _, n := range sizes {
		for _, r := range runs {
			for _, sd := range sds {
				out = append(out, seedConfig{sd: sd, runs: r, n: n})
			}
		}
	}
	return out
}

func (s *study) seedResult(sd float64, runs, n int) cellResult {
	return s.seedRes[slices.IndexFunc(s.seeds, func(c seedConfig) bool { return c.sd == sd && c.runs == runs && c.n == n })]
}

// seedFigures adds the seeds study's figure: each method's type I error
// against the seed effect's standard deviation. The x axis is a log
// axis, so the cells without a seed effect are in the table alone.
func (s *study) seedFigures(add func(string, CalibrationChart)) {
	if len(s.seeds) == 0 {
		return
	}
	var sds []float64
	for _, sd := range s.plan.seedSDs {
		if sd > 0 {
			sds = append(sds, sd)
		}
	}
	ch := chart(typeI, "Type I error of two configurations of equal quality, trained with several seeds",
		fmt.Sprintf("standard deviation of the seed effect (users' SD %g, noise's %g)", seedUserSD, seedNoiseSD), nil)
	for _, sd := range sds {
		ch.Band = append(ch.Band, bandAt(sd, s.plan.seedReps, alpha))
	}
	series := func(name string, m, runs, n int) {
		ser := CalibrationSeries{Name: name}
		for _, sd := range sds {
			p := point(0, s.seedResult(sd, runs, n).tallies[m], typeI)
			p.N = sd
			ser.Points = append(ser.Points, p)
		}
		ch.Series = append(ch.Series, ser)
	}
	for _, n := range s.plan.seedSizes {
		for _, r := range s.plan.seedRuns {
			series(fmt.Sprintf("%s, R = %d, n = %s", seedShort[sdTwoLevel], r, report.Thousands(int64(n))), sdTwoLevel, r, n)
		}
	}
	for _, n := range s.plan.seedSizes {
		series(fmt.Sprintf("%s, n = %s", seedShort[sdUserOnly], report.Thousands(int64(n))), sdUserOnly, s.plan.seedRuns[0], n)
	}
	cut(&ch, typeI)
	add(figureName(typeI, "seeds"), ch)
}

// seedMarkdown writes the seeds study's table: both methods' type I error
// and the two-level interval's coverage in each cell, adding the liberal
// rates and short coverage to flags.
func (s *study) seedMarkdown(w io.Writer, flags *[]string) error {
	fmt.Fprintf(w, "<a id=\"seeds-same\"></a>Two configurations of equal quality trained with R seeds each (`seeds-same`): value = user effect (SD %g) + seed effect (SD s) + noise (SD %g), the same users for both; type I error at α = 5 %% and the coverage of the two-level 95 %% interval of the true difference 0. The user-only test is compare's default on the first run of each configuration.\n\n", seedUserSD, seedNoiseSD)
	t := report.Table{Header: []string{"seed SD s", "runs R", "n", seedMethods[sdTwoLevel].name + " type I", seedMethods[sdUserOnly].name + " type I", "two-level coverage", "replications"}}
	for i, c := range s.seeds {
		res := s.seedRes[i]
		where := fmt.Sprintf("seed SD %g, R = %d, n = %s", c.sd, c.runs, report.Thousands(int64(c.n)))
		row := []string{rhoText(c.sd), fmt.Sprint(c.runs), report.Thousands(int64(c.n))}
		for m := range sdMethods {
			r := res.tallies[m].rejection()
			lib := r.liberal()
			if lib {
				*flags = append(*flags, fmt.Sprintf("- type I: %s; %s: %s", seedMethods[m].label, where, pct(r, false)))
			}
			row = append(row, pct(r, lib))
		}
		cov := res.tallies[sdTwoLevel].coverage()
		under := cov.undercovers()
		if under {
			*flags = append(*flags, fmt.Sprintf("- coverage: %s; %s: %s", seedMethods[sdTwoLevel].label, where, pct(cov, false)))
		}
		row = append(row, pct(cov, under), report.Thousands(int64(res.tallies[sdTwoLevel].trials)))
		t.Add(row...)
	}
	if err := t.Markdown(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}
