package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
)

// The Friedman study ranks rankRuns runs over n users (the blocks), as
// `verdict rank` and `verdict stats friedman` do. Each user's values come
// from a Gaussian copula as in the per-user study: the latents of the runs
// are z_j = √ρ·c + √(1 − ρ)·e_j, standard normal with pairwise correlation
// ρ, and run j's value is Q_j(Φ(z_j)). The first run is the one that
// differs: under the same null every run draws from the shape's baseline;
// under the mean null the first run draws from the shape's other shape
// with the same mean; under the lift it has the 10 % lift. The first run
// is also the control of `verdict stats friedman`'s Holm tests.
const rankRuns = 3

// The methods of the Friedman study. Holm and Nemenyi count a rejection
// when any of their comparisons rejects: the family-wise error.
const (
	rImanDavenport = iota // rank, stats friedman: the omnibus test
	rFriedmanChi2         // its χ² p-value
	rHolmFirst            // Holm against the first run (stats friedman)
	rHolmBest             // Holm against the best-ranked run (rank)
	rNemenyi              // a pair of runs farther apart than the CD
	rMethods
)

var rankMethods = [rMethods]method{
	rImanDavenport: {name: "iman-davenport", label: "Iman–Davenport F (rank; stats friedman)"},
	rFriedmanChi2:  {name: "friedman-chi2", label: "Friedman χ² p alone (stats friedman)"},
	rHolmFirst:     {name: "holm-first", label: "Holm against a fixed control, any rejection (stats friedman; rank --control)"},
	rHolmBest:      {name: "holm-best", label: "Holm against the best-ranked run, any rejection (rank default)"},
	rNemenyi:       {name: "nemenyi", label: "Nemenyi critical difference, any pair (rank)"},
}

var rankShort = [rMethods]string{
	rImanDavenport: "Iman–Davenport F",
	rFriedmanChi2:  "Friedman χ²",
	rHolmFirst:     "Holm, fixed control",
	rHolmBest:      "Holm, best run as control (rank default)",
	rNemenyi:       "Nemenyi CD",
}

// rankConfig is one cell of the Friedman study.
type rankConfig struct {
	shape userShape
	fam   family
	rho   float64
	n     int
}

func (c rankConfig) key() string {
	return fmt.Sprintf("friedman/%s/%s/rho=%g/n=%d", c.shape.name, c.fam, c.rho, c.n)
}

// runs returns the marginals of the runs under the cell's family.
func (c rankConfig) runs() [rankRuns]marginal {
	var m [rankRuns]marginal
	for j := range m {
		m[j] = c.shape.base
	}
	switch c.fam {
	case meanNull:
		m[0] = c.shape.alt
	case lift:
		m[0] = c.shape.lifted
	}
	return m
}

// replicate simulates the runs' values on n users and runs Friedman as
// `verdict rank` runs it: once to find the best-ranked run, then with it
// as the control; and once with the first run as the control, as
// `verdict stats friedman` does by default. It returns the share of users
// on whom every run scores alike (blocks that are entirely tied).
func (c rankConfig) replicate(_ int, rng *rand.Rand, out []outcome) float64 {
	m := c.runs()
	a, b := math.Sqrt(c.rho), math.Sqrt(1-c.rho)
	blocks := make([][]float64, c.n)
	tied := 0
	for u := range blocks {
		row := make([]float64, rankRuns)
		common := rng.NormFloat64()
		for j := range row {
			row[j] = stored(m[j].quantile(stdNormalCDF(a*common + b*rng.NormFloat64())))
		}
		if row[0] == row[1] && row[1] == row[2] {
			tied++
		}
		blocks[u] = row
	}
	names := make([]string, rankRuns)
	for j := range names {
		names[j] = strconv.Itoa(j + 1)
	}
	first := must(stats.Friedman(blocks, stats.FriedmanOptions{Names: names}))
	out[rImanDavenport] = outcome{ran: true, reject: first.ImanDavenportP < alpha}
	out[rFriedmanChi2] = outcome{ran: true, reject: first.PValue < alpha}
	out[rHolmFirst] = outcome{ran: true, reject: anyHolm(first)}
	nemenyi := false
	for i := range rankRuns {
		for j := i + 1; j < rankRuns; j++ {
			if math.Abs(first.AvgRanks[i]-first.AvgRanks[j]) > first.CD {
				nemenyi = true
			}
		}
	}
	out[rNemenyi] = outcome{ran: true, reject: nemenyi}
	best := 0
	for j, r := range first.AvgRanks {
		if r < first.AvgRanks[best] {
			best = j
		}
	}
	holm := first
	if best != 0 {
		holm = must(stats.Friedman(blocks, stats.FriedmanOptions{Names: names, Control: names[best]}))
	}
	out[rHolmBest] = outcome{ran: true, reject: anyHolm(holm)}
	return float64(tied) / float64(c.n)
}

// anyHolm reports whether any of Friedman's Holm comparisons rejects.
func anyHolm(r stats.FriedmanResult) bool {
	for _, h := range r.Holm {
		if h.Rejected {
			return true
		}
	}
	return false
}

// rankShapes are the per-user shapes the Friedman study reuses: those with
// one value per user.
func rankShapes() []userShape {
	var out []userShape
	for _, s := range userShapes() {
		if !s.clustered {
			out = append(out, s)
		}
	}
	return out
}

// rankConfigs lists the Friedman study's grid.
func rankConfigs(rhos []float64, sizes []int) []rankConfig {
	var cfgs []rankConfig
	for _, s := range rankShapes() {
		for _, f := range s.families() {
			for _, rho := range rhos {
				for _, n := range sizes {
					cfgs = append(cfgs, rankConfig{shape: s, fam: f, rho: rho, n: n})
				}
			}
		}
	}
	return cfgs
}

// rankChart is the Friedman study's figure of shape under family f at
// figureRho.
func (s *study) rankChart(shape userShape, f family, k kind) CalibrationChart {
	trials := map[int]int{}
	for _, n := range s.plan.rankSizes {
		trials[n] = s.rankResult(shape.name, f, figureRho, n).tallies[rImanDavenport].trials
	}
	title := map[kind]string{typeI: "Type I error of ranking three runs", power: "Power against a 10 % lift of one run of three"}[k]
	switch f {
	case meanNull:
		title += ", equal means, one run shaped differently"
	case sameNull:
		title += ", all runs alike"
	}
	ch := chart(k, title, "users (blocks, n): "+shape.title+", ρ = "+rhoText(figureRho), trials)
	for m := range rMethods {
		ser := CalibrationSeries{Name: rankShort[m]}
		for _, n := range s.plan.rankSizes {
			ser.Points = append(ser.Points, point(n, s.rankResult(shape.name, f, figureRho, n).tallies[m], k))
		}
		ch.Series = append(ch.Series, ser)
	}
	cut(&ch, k)
	return ch
}

// rankFigures lists the Friedman study's figures by file name.
func (s *study) rankFigures(add func(string, CalibrationChart)) {
	if len(s.ranks) == 0 {
		return
	}
	for _, shape := range rankShapes() {
		for _, f := range shape.families() {
			if f == lift {
				add(figureName(power, "friedman-"+shape.name), s.rankChart(shape, f, power))
				continue
			}
			add(figureName(typeI, "friedman-"+shape.name+"-"+f.String()), s.rankChart(shape, f, typeI))
		}
	}
}

// rankMarkdown writes the Friedman study's tables, adding the
// configurations it flags to flags.
func (s *study) rankMarkdown(w io.Writer, flags *[]string) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("### Friedman and its post-hoc tests\n\n")
	for _, shape := range rankShapes() {
		p("#### %s, three runs\n\n", shape.title)
		for _, f := range shape.families() {
			k, title := typeI, "Type I error, all runs alike"
			switch f {
			case meanNull:
				title = "Type I error of a comparison of means, equal means, one run shaped differently"
			case lift:
				k, title = power, "Power against a 10 % lift of one run"
			}
			p("<a id=\"friedman-%s-%s\"></a>%s (`friedman-%s-%s`):\n\n", shape.name, f, title, shape.name, f)
			t := report.Table{Header: append([]string{"method", "ρ"}, sizeHeader("n", s.plan.rankSizes)...)}
			rateRows(&t, flags, "type I", rankMethods[:], upTo(rMethods), nil, "friedman "+shape.name+", "+f.String(), s.plan.rhos, s.plan.rankSizes,
				func(m int, rho float64, n int) rate {
					return s.rankResult(shape.name, f, rho, n).tallies[m].rejection()
				}, typeIMark(k))
			if err := t.Markdown(w); err != nil {
				return err
			}
			p("\n")
		}
		p("<a id=\"friedman-%s-tied\"></a>Share of users on whom all three runs score alike (entirely tied blocks), mean over the replications (`friedman-%s-tied`):\n\n", shape.name, shape.name)
		t := report.Table{Header: append([]string{"truth", "ρ"}, sizeHeader("n", s.plan.rankSizes)...)}
		for _, f := range shape.families() {
			for _, rho := range s.plan.rhos {
				row := []string{f.String(), rhoText(rho)}
				for _, n := range s.plan.rankSizes {
					row = append(row, strconv.FormatFloat(100*s.rankResult(shape.name, f, rho, n).mean, 'f', 0, 64)+" %")
				}
				t.Add(row...)
			}
		}
		if err := t.Markdown(w); err != nil {
			return err
		}
		p("\n")
	}
	return nil
}
