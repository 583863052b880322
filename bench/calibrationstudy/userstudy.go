package main

import (
	"fmt"
	"math/rand/v2"

	"github.com/verdict-ml/verdict/stats"
)

// alpha is the level every test is run at, and confidence the level of
// every interval: verdict's defaults.
const (
	alpha      = stats.DefaultAlpha
	confidence = stats.DefaultConfidence
)

// The methods that cost a second bootstrap per data set (BCa, and the row
// bootstrap that ignores units) run on the first slowReps replications of
// a cell only, and not at all past maxSlowN users: at 10,000 users they
// would double the study's run time, and there the percentile and BCa
// intervals agree.
const (
	maxSlowN = 1000
	slowReps = 1000
)

// The methods of the per-user study, in the order of the tables. Each is
// what a user gets from a command; the name says which.
const (
	uDefault           = iota // compare's default
	uRandomization            // its p-value alone
	uBootstrap                // its interval alone
	uBCa                      // the BCa interval
	uT                        // paired t
	uWilcoxon                 // compare --method wilcoxon
	uWilcoxonP                // its p-value alone
	uMcNemar                  // compare --method mcnemar
	uMcNemarP                 // its p-value alone
	uTRows                    // paired t on rows, units ignored
	uRandomizationRows        // sign-flip test on rows, units ignored
	uBootstrapRows            // bootstrap interval on rows, units ignored
	uMethods
)

// userMethods names the per-user methods.
var userMethods = [uMethods]method{
	uDefault:           {name: "default", label: "bootstrap interval + randomization (compare default)"},
	uRandomization:     {name: "randomization", label: "randomization p alone (stats randomization)"},
	uBootstrap:         {name: "bootstrap", label: "bootstrap percentile interval alone (stats paired-bootstrap)"},
	uBCa:               {name: "bca", label: "BCa interval alone (stats paired-bootstrap --ci bca)"},
	uT:                 {name: "t", label: "paired t (compare --method t)"},
	uWilcoxon:          {name: "wilcoxon", label: "Wilcoxon + bootstrap interval (compare --method wilcoxon)"},
	uWilcoxonP:         {name: "wilcoxon-p", label: "Wilcoxon p alone (stats wilcoxon)"},
	uMcNemar:           {name: "mcnemar", label: "McNemar + bootstrap interval (compare --method mcnemar)"},
	uMcNemarP:          {name: "mcnemar-p", label: "McNemar p alone (stats mcnemar)"},
	uTRows:             {name: "t-rows", label: "paired t on rows, units ignored (stats paired-t)"},
	uRandomizationRows: {name: "randomization-rows", label: "randomization on rows, units ignored (stats randomization)"},
	uBootstrapRows:     {name: "bootstrap-rows", label: "bootstrap interval on rows, units ignored (stats paired-bootstrap)"},
}

// userConfig is one cell of the per-user study.
type userConfig struct {
	shape userShape
	fam   family
	rho   float64
	n     int
	// defaultsOnly runs compare's default alone (and its two halves),
	// for the reduced study of the tests; the data are the same.
	defaultsOnly bool
}

func (c userConfig) key() string {
	return fmt.Sprintf("user/%s/%s/rho=%g/n=%d", c.shape.name, c.fam, c.rho, c.n)
}

// replicate simulates one pair of evaluations and runs every method that
// applies to it, as verdict runs it: resampling with verdict's default
// B = 2000 and seed 0, as `verdict compare` does unless told otherwise.
func (c userConfig) replicate(rep int, rng *rand.Rand, out []outcome) (zeroShare float64) {
	s := c.shape.draw(rng, c.n, c.rho, c.fam)
	units := stats.PairedUnits{LeftSum: s.left, RightSum: s.right, Rows: s.rows}
	// Per-unit means: what compare's t, Wilcoxon and McNemar take.
	left, right := s.left, s.right
	if s.rows != nil {
		left, right = make([]float64, c.n), make([]float64, c.n)
		for u, m := range s.rows {
			left[u], right[u] = s.left[u]/float64(m), s.right[u]/float64(m)
		}
	}
	zeros := 0
	for i := range left {
		if left[i] == right[i] {
			zeros++
		}
	}

	boot := must(stats.PairedBootstrapUnits(units, stats.BootstrapOptions{}))
	bootIv := stats.Interval{Estimate: boot.Estimate, Low: boot.Low, High: boot.High, Confidence: boot.Confidence}
	perm := must(stats.RandomizationUnits(units, stats.RandomizationOptions{}))
	decide(&out[uDefault], perm.PValue, bootIv, s.truth)
	out[uRandomization] = outcome{ran: true, reject: perm.PValue < alpha}
	interval(&out[uBootstrap], bootIv, s.truth)
	share := float64(zeros) / float64(c.n)
	if c.defaultsOnly {
		return share
	}

	slow := c.n <= maxSlowN && rep < slowReps
	if slow {
		bca := must(stats.PairedBootstrapUnits(units, stats.BootstrapOptions{Method: stats.BCa}))
		interval(&out[uBCa], stats.Interval{Low: bca.Low, High: bca.High}, s.truth)
	}

	t := must(stats.PairedT(left, right, stats.PairedTOptions{}))
	decide(&out[uT], t.PValue, stats.Interval{Low: t.CILow, High: t.CIHigh}, s.truth)

	w := must(stats.Wilcoxon(left, right, stats.WilcoxonOptions{}))
	decide(&out[uWilcoxon], w.PValue, bootIv, s.truth)
	out[uWilcoxonP] = outcome{ran: true, reject: w.PValue < alpha}

	if c.shape.binary {
		m := must(stats.McNemar(left, right, stats.McNemarOptions{}))
		decide(&out[uMcNemar], m.PValue, bootIv, s.truth)
		out[uMcNemarP] = outcome{ran: true, reject: m.PValue < alpha}
	}

	if s.rows != nil {
		rt := must(stats.PairedT(s.rowLeft, s.rowRight, stats.PairedTOptions{}))
		decide(&out[uTRows], rt.PValue, stats.Interval{Low: rt.CILow, High: rt.CIHigh}, s.truth)
		rp := must(stats.Randomization(s.rowLeft, s.rowRight, nil, stats.RandomizationOptions{}))
		out[uRandomizationRows] = outcome{ran: true, reject: rp.PValue < alpha}
		if slow {
			rb := must(stats.PairedBootstrap(s.rowLeft, s.rowRight, nil, stats.BootstrapOptions{}))
			interval(&out[uBootstrapRows], stats.Interval{Low: rb.Low, High: rb.High}, s.truth)
		}
	}
	return share
}

// decide records a test's decision by verdict's rule (p < alpha and an
// interval that excludes zero), and whether its interval covers truth.
func decide(o *outcome, p float64, iv stats.Interval, truth float64) {
	*o = outcome{ran: true, reject: stats.Decide(p, alpha, iv).Distinguishable, hasInterval: true,
		covered: iv.Low <= truth && truth <= iv.High}
}

// interval records an interval alone: it rejects when it excludes zero.
func interval(o *outcome, iv stats.Interval, truth float64) {
	*o = outcome{ran: true, reject: stats.Decide(0, alpha, iv).Distinguishable, hasInterval: true,
		covered: iv.Low <= truth && truth <= iv.High}
}

// must returns v, and panics on an error: the study's data are valid by
// construction, so an error is a bug in the study or in verdict.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// userConfigs lists the per-user study's grid.
func userConfigs(shapes []userShape, rhos []float64, sizes []int) []userConfig {
	var cfgs []userConfig
	for _, s := range shapes {
		for _, f := range s.families() {
			for _, rho := range rhos {
				for _, n := range sizes {
					cfgs = append(cfgs, userConfig{shape: s, fam: f, rho: rho, n: n})
				}
			}
		}
	}
	return cfgs
}
