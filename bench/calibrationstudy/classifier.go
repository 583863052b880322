package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/stats"
)

// The classifier study compares two binary classifiers' ROC AUC. A sample
// is positive with probability classPositives (labels are redrawn until
// there are at least 2 of each class, as DeLong needs), and has a latent
// signal s = classSignal·y + e, e ~ N(0, 1). Each model sees the signal
// through noise of its own: score = s + σ·η, where the two models' η are
// correlated with the study's ρ. Positives' scores are then
// N(classSignal, 1 + σ²) and negatives' N(0, 1 + σ²), so a model's AUC
// is exactly Φ(classSignal / √(2(1 + σ²))): 0.773 for σ = 1. Under the
// null both models have σ = 1; under the lift the left one has
// σ = classLiftNoise, an AUC higher by about 0.02.
const (
	classPositives = 0.2
	classSignal    = 1.5
	classLiftNoise = 0.8
)

// classNoise returns the noise σ of the left and right models.
func classNoise(f family) (left, right float64) {
	if f == lift {
		return classLiftNoise, 1
	}
	return 1, 1
}

// classAUC is a model's true AUC at noise σ.
func classAUC(sigma float64) float64 {
	return stdNormalCDF(classSignal / math.Sqrt(2*(1+sigma*sigma)))
}

// The methods of the classifier study.
const (
	cDeLong = iota
	cBootstrap
	cMethods
)

var classMethods = [cMethods]method{
	cDeLong:    {name: "delong", label: "DeLong (compare default for roc_auc)"},
	cBootstrap: {name: "stratified-bootstrap", label: "stratified bootstrap (compare --method bootstrap; stats paired-bootstrap --metric auc)"},
}

// classConfig is one cell of the classifier study.
type classConfig struct {
	fam family
	rho float64
	n   int
	// defaultsOnly runs DeLong alone, the default for roc_auc.
	defaultsOnly bool
}

func (c classConfig) key() string { return fmt.Sprintf("auc/%s/rho=%g/n=%d", c.fam, c.rho, c.n) }

func (c classConfig) replicate(_ int, rng *rand.Rand, out []outcome) float64 {
	sl, sr := classNoise(c.fam)
	labels, left, right := drawClassifiers(rng, c.n, c.rho, sl, sr)
	y := make([]float64, c.n)
	for i, l := range labels {
		y[i] = float64(l)
	}
	truth := classAUC(sl) - classAUC(sr)

	d := must(stats.DeLong(y, left, right, stats.DeLongOptions{}))
	decide(&out[cDeLong], d.PValue, stats.Interval{Low: d.CILow, High: d.CIHigh}, truth)
	if c.defaultsOnly {
		return 0
	}
	b := must(classify.PairedBootstrap("roc_auc", labels, left, right, classify.DefaultBootstrapOptions()))
	decide(&out[cBootstrap], b.PValue, b.Interval(), truth)
	return 0
}

// drawClassifiers draws n samples' labels (redrawn until there are at
// least 2 of each class) and the scores of two models of noise sl and sr
// whose noises are correlated with rho.
func drawClassifiers(rng *rand.Rand, n int, rho, sl, sr float64) (labels []int8, left, right []float64) {
	labels = make([]int8, n)
	for {
		pos := 0
		for i := range labels {
			labels[i] = 0
			if rng.Float64() < classPositives {
				labels[i] = 1
				pos++
			}
		}
		if pos >= 2 && n-pos >= 2 {
			break
		}
	}
	left, right = make([]float64, n), make([]float64, n)
	for i := range labels {
		s := classSignal*float64(labels[i]) + rng.NormFloat64()
		el, er := correlatedNormals(rng, rho)
		left[i], right[i] = s+sl*el, s+sr*er
	}
	return labels, left, right
}

// classConfigs lists the classifier study's grid.
func classConfigs(rhos []float64, sizes []int) []classConfig {
	var cfgs []classConfig
	for _, f := range []family{sameNull, lift} {
		for _, rho := range rhos {
			for _, n := range sizes {
				cfgs = append(cfgs, classConfig{fam: f, rho: rho, n: n})
			}
		}
	}
	return cfgs
}
