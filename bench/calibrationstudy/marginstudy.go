package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
)

// The margin study: the type I error of compare's margin decisions at the
// margin's boundary, where the candidate is truly worse by exactly Δ. There
// "non-inferior" (H0: worse by Δ or more) and "inferior" (H0: worse by Δ or
// less) are both false claims, and each should be made in at most α of
// the replications: the one-sided tests at α that decide them. The
// methods are compare's default bootstrap (compare.Scores, the bounds from
// its replicates' quantiles) and the paired t (stats.PairedT and
// stats.TOST, as compare's margin test calls them), on ndcg-like values
// and on 0/1 per-sample correctness (a classifier's accuracy).

// marginDelta is the study's margin Δ, in the metric's units.
const marginDelta = 0.02

// The margin study's methods.
const (
	mgBootNonInferior = iota // bootstrap: non-inferior, equivalent or superior claimed
	mgBootInferior           // bootstrap: inferior claimed
	mgTNonInferior           // paired t: the same
	mgTInferior
	mgMethods
)

var marginMethods = [mgMethods]method{
	{"bootstrap, non-inferior", "compare --margin Δ (bootstrap): non_inferior, equivalent or superior"},
	{"bootstrap, inferior", "compare --margin Δ (bootstrap): inferior"},
	{"t, non-inferior", "compare --method t --margin Δ: non_inferior, equivalent or superior"},
	{"t, inferior", "compare --method t --margin Δ: inferior"},
}

// marginShape is how the per-user values of a margin cell are drawn.
type marginShape string

const (
	// marginNDCG: ndcg-like values, zero for a third of the users and
	// uniform on (0, 1] for the others, from correlated latent normals;
	// the candidate's values are the same law less Δ.
	marginNDCG marginShape = "ndcg"
	// marginHit: 0/1 correctness, the baseline right with probability
	// 0.7 and the candidate with 0.7 − Δ, correlated through latent
	// normals.
	marginHit marginShape = "hit"
)

// marginConfig is one cell of the margin study.
type marginConfig struct {
	shape marginShape
	rho   float64
	n     int
	// lower draws the metric as lower-is-better: the values negated, so
	// that the candidate is worse by Δ by being higher.
	lower bool
}

func (c marginConfig) key() string {
	dir := "higher"
	if c.lower {
		dir = "lower"
	}
	return fmt.Sprintf("margin/%s/%s/rho=%g/n=%d", c.shape, dir, c.rho, c.n)
}

// draw returns the baseline's and the candidate's values: the candidate
// worse by exactly Δ in expectation, for the direction.
func (c marginConfig) draw(rng *rand.Rand) (base, cand []float64) {
	base, cand = make([]float64, c.n), make([]float64, c.n)
	s := math.Sqrt(1 - c.rho*c.rho)
	hitB, hitC := distuv.UnitNormal.Quantile(0.7), distuv.UnitNormal.Quantile(0.7-marginDelta)
	for i := range base {
		z1 := rng.NormFloat64()
		z2 := c.rho*z1 + s*rng.NormFloat64()
		switch c.shape {
		case marginHit:
			base[i], cand[i] = indicator(z1 < hitB), indicator(z2 < hitC)
		default:
			base[i], cand[i] = ndcgLike(z1), ndcgLike(z2)-marginDelta
		}
		if c.lower {
			base[i], cand[i] = -base[i], -cand[i]
		}
	}
	return base, cand
}

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ndcgLike maps a standard normal to 0 with probability 1/3, else to a
// uniform value on (0, 1].
func ndcgLike(z float64) float64 {
	u := distuv.UnitNormal.CDF(z)
	if u < 1.0/3 {
		return 0
	}
	return (u - 1.0/3) * 1.5
}

func (c marginConfig) replicate(_ int, rng *rand.Rand, out []outcome) float64 {
	base, cand := c.draw(rng)
	dir := compare.HigherIsBetter
	if c.lower {
		dir = compare.LowerIsBetter
	}
	ids := sampleIDs(c.n)
	b, k := map[string]float64{}, map[string]float64{}
	for i, id := range ids {
		b[id], k[id] = base[i], cand[i]
	}
	delta := marginDelta
	res, err := compare.Scores(context.Background(), "m", dir, compare.Named{Scores: b}, compare.Named{Scores: k}, compare.Options{Margin: &delta})
	if err == nil {
		d := res.Metrics[0].MarginDecision
		out[mgBootNonInferior] = outcome{ran: true, reject: d == compare.MarginNonInferior || d == compare.MarginEquivalent || d == compare.MarginSuperior}
		out[mgBootInferior] = outcome{ran: true, reject: d == compare.MarginInferior}
	}
	t, err := stats.PairedT(base, cand, stats.PairedTOptions{})
	if err != nil {
		return 0
	}
	worse := t.MeanDiff // baseline − candidate: worse for higher-is-better
	if c.lower {
		worse = -worse
	}
	eq, err1 := stats.TOST(worse, t.SE, t.DF, -marginDelta, marginDelta)
	inf, err2 := stats.TOST(worse, t.SE, t.DF, marginDelta, math.Inf(1))
	if err1 == nil && err2 == nil {
		superior := t.PValue < alpha && worse < 0
		out[mgTNonInferior] = outcome{ran: true, reject: superior || eq.PHigh < alpha}
		out[mgTInferior] = outcome{ran: true, reject: !superior && inf.PLow < alpha}
	}
	return 0
}

// marginConfigs are the margin study's cells.
func marginConfigs(sizes []int) []marginConfig {
	var out []marginConfig
	for _, shape := range []marginShape{marginNDCG, marginHit} {
		for _, n := range sizes {
			out = append(out, marginConfig{shape: shape, rho: 0.5, n: n})
		}
	}
	// The direction: the ndcg-like values as a loss.
	for _, n := range sizes {
		out = append(out, marginConfig{shape: marginNDCG, rho: 0.5, n: n, lower: true})
	}
	return out
}

// marginMarkdown writes the margin study's table: each claim's rate at the
// boundary, with the binomial band a calibrated one-sided test at α keeps.
func (s *study) marginMarkdown(w io.Writer, flags *[]string) error {
	if len(s.margins) == 0 {
		return nil
	}
	fmt.Fprintf(w, "<a id=\"margin\"></a>Type I error at the margin's boundary (`margin`): the candidate worse by exactly Δ = %g, ρ = 0.5; a claim of non-inferiority or of inferiority is then false, and a one-sided test at α makes it in at most 5 %% of the data sets (exactly 5 %% for the inferiority test and a continuous statistic).\n\n", marginDelta)
	t := report.Table{Header: []string{"values", "direction", "n", "method", "rate", "replications"}}
	for i, c := range s.margins {
		res := s.marginRes[i]
		dir := "higher is better"
		if c.lower {
			dir = "lower is better"
		}
		for m := range mgMethods {
			r := res.tallies[m].rejection()
			flagged := r.liberal()
			if flagged {
				*flags = append(*flags, fmt.Sprintf("%s at the margin's boundary, %s values (%s), n = %d: %.1f %%", marginMethods[m].name, c.shape, dir, c.n, 100*r.est))
			}
			t.Rows = append(t.Rows, []string{string(c.shape), dir, report.Thousands(int64(c.n)), marginMethods[m].name,
				pct(r, flagged), report.Thousands(int64(r.n))})
		}
	}
	if err := t.Markdown(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

// short names a margin cell's values and direction in the figure's
// legend.
func (c marginConfig) short() string {
	switch {
	case c.lower:
		return "ndcg-like loss"
	case c.shape == marginHit:
		return "0/1 correctness"
	}
	return "ndcg-like"
}

// marginFigures adds the margin study's figures, one for each claim
// (non-inferior, inferior): its rate at the boundary against the number of
// users, one series for each method and kind of values.
func (s *study) marginFigures(add func(string, CalibrationChart)) {
	if len(s.margins) == 0 {
		return
	}
	trials := map[int]int{}
	for i, c := range s.margins {
		trials[c.n] = s.marginRes[i].tallies[mgBootNonInferior].trials
	}
	for _, claim := range []struct {
		name, title string
		methods     []int
	}{
		{"noninferior", "non-inferior", []int{mgBootNonInferior, mgTNonInferior}},
		{"inferior", "inferior", []int{mgBootInferior, mgTInferior}},
	} {
		ch := chart(typeI, fmt.Sprintf("Type I error of \"%s\" at the margin's boundary (worse by exactly Δ = %g)", claim.title, marginDelta),
			"users (n), ρ = 0.5", trials)
		for _, m := range claim.methods {
			ch.Series = append(ch.Series, s.marginSeries(m)...)
		}
		cut(&ch, typeI)
		add(figureName(typeI, "margin-"+claim.name), ch)
	}
}

// marginSeries are method m's rates, one series for each kind of values.
func (s *study) marginSeries(m int) []CalibrationSeries {
	var out []CalibrationSeries
	for _, c := range s.margins {
		if c.n != s.plan.marginSizes[0] {
			continue
		}
		ser := CalibrationSeries{Name: strings.Split(marginMethods[m].name, ",")[0] + ", " + c.short()}
		for j, d := range s.margins {
			if d.shape == c.shape && d.lower == c.lower {
				ser.Points = append(ser.Points, point(d.n, s.marginRes[j].tallies[m], typeI))
			}
		}
		out = append(out, ser)
	}
	return out
}
