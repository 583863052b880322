package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/report"
)

// The classifier-metrics study runs the stratified paired bootstrap that
// `verdict compare` uses by default on predictions for every binary metric
// other than roc_auc. It reuses the AUC study's two classifiers (score
// s + σ·η, the two models' η correlated with ρ) and turns a score into a
// probability with one fixed map, the posterior of a model of noise σ = 1:
//
//	p = 1 / (1 + exp(−(log(π/(1 − π)) + (μ·score − μ²/2) / 2)))
//
// with π = classPositives and μ = classSignal. A model of σ = 1 is then
// calibrated, and one of σ = 0.8 (the lift) ranks better but is slightly
// underconfident. Under the null both models have σ = 1, so they are
// exchangeable and every metric's true difference is 0 (equal AUCs alone
// would not give equal log losses). Under the lift the true differences
// are the metrics' population values, computed once by simulation
// (metricTruths).
var metricNames = [mMethods]string{
	mAP:      "average_precision",
	mLogLoss: "log_loss",
	mBrier:   "brier",
	mF1:      "f1",
	mECE:     "ece",
}

// The methods of the classifier-metrics study: the bootstrap of each
// metric, deciding by p < α and an interval that excludes zero.
const (
	mAP = iota
	mLogLoss
	mBrier
	mF1
	mECE
	mMethods
)

var metricMethods = [mMethods]method{
	mAP:      {name: "average_precision", label: "average precision, stratified bootstrap (compare default)"},
	mLogLoss: {name: "log_loss", label: "log loss, stratified bootstrap (compare default)"},
	mBrier:   {name: "brier", label: "Brier score, stratified bootstrap (compare default)"},
	mF1:      {name: "f1", label: "F1 at 0.5, stratified bootstrap (compare default)"},
	mECE:     {name: "ece", label: "ECE, 10 bins, stratified bootstrap (compare default)"},
}

var metricShort = [mMethods]string{mAP: "average precision", mLogLoss: "log loss", mBrier: "Brier", mF1: "F1 at 0.5", mECE: "ECE"}

// probability is the fixed map from a score to a probability.
func probability(score float64) float64 {
	logit := math.Log(classPositives/(1-classPositives)) + (classSignal*score-classSignal*classSignal/2)/2
	return 1 / (1 + math.Exp(-logit))
}

// metricTruthN is the number of samples metricTruths simulates.
const metricTruthN = 4_000_000

var (
	truthOnce sync.Once
	truths    [mMethods]float64
)

// metricTruths returns the true difference left − right of each metric
// under the lift: the metrics of a model of noise classLiftNoise minus
// those of a model of noise 1, each on metricTruthN samples. The two
// models share the samples, labels and noise (η), so that the error of
// the difference is far smaller than that of each metric, and the
// coupling does not change the difference of the marginal metrics. The
// random stream is seeded, so the truths are the same on every run.
func metricTruths() [mMethods]float64 {
	truthOnce.Do(func() {
		rng := rand.New(rand.NewPCG(seedOf("metrics/truth"), 0))
		labels := make([]int8, metricTruthN)
		left, right := make([]float64, metricTruthN), make([]float64, metricTruthN)
		for i := range labels {
			if rng.Float64() < classPositives {
				labels[i] = 1
			}
			s := classSignal*float64(labels[i]) + rng.NormFloat64()
			eta := rng.NormFloat64()
			left[i], right[i] = probability(s+classLiftNoise*eta), probability(s+eta)
		}
		opts := classify.DefaultOptions()
		for m, name := range metricNames {
			metric := must(classify.ParseMetric(name))
			l := must(metric.Binary(labels, left, opts))
			r := must(metric.Binary(labels, right, opts))
			truths[m] = l - r
		}
	})
	return truths
}

// metricConfig is one cell of the classifier-metrics study.
type metricConfig struct {
	fam family
	rho float64
	n   int
}

func (c metricConfig) key() string { return fmt.Sprintf("metrics/%s/rho=%g/n=%d", c.fam, c.rho, c.n) }

// replicate draws two classifiers' probabilities on n samples and runs the
// stratified bootstrap of each metric with verdict's default options.
func (c metricConfig) replicate(_ int, rng *rand.Rand, out []outcome) float64 {
	sl, sr := classNoise(c.fam)
	labels, left, right := drawClassifiers(rng, c.n, c.rho, sl, sr)
	for i := range left {
		left[i], right[i] = probability(left[i]), probability(right[i])
	}
	var truth [mMethods]float64
	if c.fam == lift {
		truth = metricTruths()
	}
	for m, name := range metricNames {
		b := must(classify.PairedBootstrap(name, labels, left, right, classify.DefaultBootstrapOptions()))
		decide(&out[m], b.PValue, b.Interval(), truth[m])
	}
	return 0
}

// metricConfigs lists the classifier-metrics study's grid.
func metricConfigs(rhos []float64, sizes []int) []metricConfig {
	var cfgs []metricConfig
	for _, f := range []family{sameNull, lift} {
		for _, rho := range rhos {
			for _, n := range sizes {
				cfgs = append(cfgs, metricConfig{fam: f, rho: rho, n: n})
			}
		}
	}
	return cfgs
}

// metricChart is the classifier-metrics study's figure at figureRho.
func (s *study) metricChart(k kind) CalibrationChart {
	f := sameNull
	if k != typeI {
		f = lift
	}
	trials := map[int]int{}
	for _, n := range s.plan.metricSizes {
		trials[n] = s.metricResult(f, figureRho, n).tallies[mAP].trials
	}
	what := map[kind]string{typeI: "Type I error", power: "Power against the lift (σ 0.8 against 1)", coverageKind: "Coverage of the true difference"}[k]
	ch := chart(k, what+" of the stratified bootstrap of classifier metrics", "samples (n): 20 % positives, ρ = "+rhoText(figureRho), trials)
	for m := range mMethods {
		ser := CalibrationSeries{Name: metricShort[m]}
		for _, n := range s.plan.metricSizes {
			ser.Points = append(ser.Points, point(n, s.metricResult(f, figureRho, n).tallies[m], k))
		}
		ch.Series = append(ch.Series, ser)
	}
	cut(&ch, k)
	return ch
}

// metricFigures lists the classifier-metrics study's figures.
func (s *study) metricFigures(add func(string, CalibrationChart)) {
	if len(s.metrics) == 0 {
		return
	}
	for _, k := range []kind{typeI, power, coverageKind} {
		add(figureName(k, "metrics"), s.metricChart(k))
	}
}

// metricMarkdown writes the classifier-metrics study's tables, adding the
// configurations it flags to flags.
func (s *study) metricMarkdown(w io.Writer, flags *[]string) error {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("### Classifier metrics other than AUC\n\n")
	tr := metricTruths()
	p("<a id=\"metrics-truth\"></a>True differences left − right under the lift (`metrics-truth`), from %s simulated samples:\n\n", report.Thousands(metricTruthN))
	t := report.Table{Header: []string{"metric", "true difference"}}
	for m := range mMethods {
		t.Add(metricNames[m], strconv.FormatFloat(tr[m], 'f', 4, 64))
	}
	if err := t.Markdown(w); err != nil {
		return err
	}
	p("\n")
	for _, f := range []family{sameNull, lift} {
		title, k := "Type I error, exchangeable models", typeI
		if f == lift {
			title, k = "Power against the lift", power
		}
		p("<a id=\"metrics-%s\"></a>%s (`metrics-%s`):\n\n", f, title, f)
		t := report.Table{Header: append([]string{"method", "ρ"}, sizeHeader("n", s.plan.metricSizes)...)}
		rateRows(&t, flags, "type I", metricMethods[:], upTo(mMethods), nil, "", s.plan.rhos, s.plan.metricSizes,
			func(m int, rho float64, n int) rate { return s.metricResult(f, rho, n).tallies[m].rejection() }, typeIMark(k))
		if err := t.Markdown(w); err != nil {
			return err
		}
		p("\n")
	}
	p("<a id=\"metrics-coverage\"></a>Coverage of the 95 %% interval of the true difference (`metrics-coverage`):\n\n")
	t = report.Table{Header: append([]string{"interval", "truth", "ρ"}, sizeHeader("n", s.plan.metricSizes)...)}
	for _, f := range []family{sameNull, lift} {
		rateRows(&t, flags, "coverage", metricMethods[:], upTo(mMethods), []string{f.String()}, f.String(), s.plan.rhos, s.plan.metricSizes,
			func(m int, rho float64, n int) rate { return s.metricResult(f, rho, n).tallies[m].coverage() }, rate.undercovers)
	}
	if err := t.Markdown(w); err != nil {
		return err
	}
	p("\n")
	return nil
}
