package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/verdict-ml/verdict/stats"
)

// The learners of the cross-validation study. A data set has N rows of
// 2·foldFeatures standard normal features x and a target
//
//	y = x_A·β_A + x_B·β_B + ε,  ε ~ N(0, 1)
//
// where x_A are the first foldFeatures features and x_B the others.
// Learner A is least squares (no intercept) on x_A alone, learner B on
// x_B alone, and a fold's score is the mean squared error on its test
// rows. For A the features it does not see act as noise independent of
// x_A, of variance σ_A² = 1 + |β_B|², so its expected test error after
// training on n rows is σ_A²·(n − 1)/(n − q − 1) (q = foldFeatures; the
// mean of an inverse Wishart matrix), and likewise for B. The expected
// difference of the two, A − B, is therefore known exactly:
//
//	Δ(n) = (|β_B|² − |β_A|²)·(n − 1)/(n − q − 1)
//
// Under the null |β_A|² = |β_B|², the learners are mirror images and
// Δ = 0 for every training size. Trained on overlapping training sets,
// their fold scores are correlated, which is what the naive paired t
// ignores (Dietterich 1998; Nadeau and Bengio 2003).
const foldFeatures = 20

// foldSignal returns |β_A|² and |β_B|² of a family: 0.5 each under the
// null; under the lift, A sees features worth 0.6 and B 0.4, so that A's
// expected error is lower than B's by 0.2·(n − 1)/(n − q − 1), about 13 %.
func foldSignal(f family) (a, b float64) {
	if f == lift {
		return 0.6, 0.4
	}
	return 0.5, 0.5
}

// foldTruth is Δ(nTrain), the expected difference of the fold scores
// A − B.
func foldTruth(f family, nTrain int) float64 {
	a, b := foldSignal(f)
	q := float64(foldFeatures)
	n := float64(nTrain)
	return (b - a) * (n - 1) / (n - q - 1)
}

// The methods of the cross-validation study.
const (
	fCorrected10 = iota
	fT10
	fDefault10
	fWilcoxon10
	fBayes10
	fCorrected100
	fT100
	fDefault100
	fFiveByTwo
	fFiveByTwoP
	fCorrected5x2
	fT5x2
	fMethods
)

var foldMethods = [fMethods]method{
	fCorrected10:  {name: "corrected-t-10", label: "corrected resampled t, 10-fold (compare default for kfold)"},
	fT10:          {name: "t-10", label: "paired t, 10-fold (compare --method t)"},
	fDefault10:    {name: "bootstrap-10", label: "bootstrap + randomization, 10-fold (compare --method bootstrap)"},
	fWilcoxon10:   {name: "wilcoxon-10", label: "Wilcoxon + bootstrap interval, 10-fold (compare --method wilcoxon)"},
	fBayes10:      {name: "bayes-10", label: "Bayesian correlated t, 10-fold, posterior > 0.975 (stats bayes-t)"},
	fCorrected100: {name: "corrected-t-10x10", label: "corrected resampled t, 10×10-fold (compare default for repeated_kfold)"},
	fT100:         {name: "t-10x10", label: "paired t, 10×10-fold (compare --method t)"},
	fDefault100:   {name: "bootstrap-10x10", label: "bootstrap + randomization, 10×10-fold (compare --method bootstrap)"},
	fFiveByTwo:    {name: "5x2", label: "5×2cv t + bootstrap interval (compare default for 5x2)"},
	fFiveByTwoP:   {name: "5x2-p", label: "5×2cv t p alone (stats five-by-two)"},
	fCorrected5x2: {name: "corrected-t-5x2", label: "corrected resampled t on the 5×2 folds (stats corrected-t)"},
	fT5x2:         {name: "t-5x2", label: "paired t on the 5×2 folds (compare --method t)"},
}

// foldConfig is one cell of the cross-validation study: data sets of n
// rows.
type foldConfig struct {
	fam family
	n   int
	// fiveByTwoOnly stops after the 5×2 tests, for the reduced study of
	// the tests; the data sets and 5×2 splits are the same.
	fiveByTwoOnly bool
}

func (c foldConfig) key() string { return fmt.Sprintf("folds/%s/n=%d", c.fam, c.n) }

// replicate draws a data set, cross-validates both learners 5×2-fold and
// 10×10-fold (the first repetition is the 10-fold run), and runs the fold
// tests.
func (c foldConfig) replicate(_ int, rng *rand.Rand, out []outcome) float64 {
	const p = 2 * foldFeatures
	a2, b2 := foldSignal(c.fam)
	ba, bb := math.Sqrt(a2/foldFeatures), math.Sqrt(b2/foldFeatures)
	x := make([]float64, c.n*p)
	y := make([]float64, c.n)
	for i := range c.n {
		row := x[i*p : (i+1)*p]
		y[i] = rng.NormFloat64()
		for j := range row {
			row[j] = rng.NormFloat64()
			if j < foldFeatures {
				y[i] += ba * row[j]
			} else {
				y[i] += bb * row[j]
			}
		}
	}
	perm := make([]int, c.n)
	for i := range perm {
		perm[i] = i
	}
	// repeat cross-validates r times k-fold, each time on a fresh shuffle,
	// and returns the fold errors, repetition-major.
	repeat := func(r, k int) (mseA, mseB []float64) {
		for range r {
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			a, b := crossValidate(x, y, perm, k)
			mseA, mseB = append(mseA, a...), append(mseB, b...)
		}
		return mseA, mseB
	}

	corrected := func(o *outcome, l, r []float64, opts stats.CorrectedTOptions, truth float64) {
		ct := must(stats.CorrectedResampledT(l, r, opts))
		decide(o, ct.PValue, stats.TInterval(ct.MeanDiff, ct.T, ct.DF, confidence), truth)
	}
	naive := func(o *outcome, l, r []float64, truth float64) {
		t := must(stats.PairedT(l, r, stats.PairedTOptions{}))
		decide(o, t.PValue, stats.Interval{Low: t.CILow, High: t.CIHigh}, truth)
	}
	// bootInterval is compare's interval for the fold units: the
	// bootstrap of the folds' differences.
	bootInterval := func(l, r []float64) stats.Interval {
		b := must(stats.PairedBootstrap(l, r, nil, stats.BootstrapOptions{}))
		return stats.Interval{Low: b.Low, High: b.High}
	}
	resampled := func(o *outcome, l, r []float64, truth float64) stats.Interval {
		iv := bootInterval(l, r)
		perm := must(stats.Randomization(l, r, nil, stats.RandomizationOptions{}))
		decide(o, perm.PValue, iv, truth)
		return iv
	}

	mseA5x2, mseB5x2 := repeat(5, 2)
	truth5x2 := foldTruth(c.fam, c.n/2)
	half := stats.CorrectedTOptions{NTrain: c.n / 2, NTest: c.n / 2}
	diffs := make([]float64, 10)
	for i := range diffs {
		diffs[i] = mseA5x2[i] - mseB5x2[i]
	}
	f := must(stats.FiveByTwoCVT(diffs))
	decide(&out[fFiveByTwo], f.PValue, bootInterval(mseA5x2, mseB5x2), truth5x2)
	out[fFiveByTwoP] = outcome{ran: true, reject: f.PValue < alpha}
	if c.fiveByTwoOnly {
		return 0
	}
	corrected(&out[fCorrected5x2], mseA5x2, mseB5x2, half, truth5x2)
	naive(&out[fT5x2], mseA5x2, mseB5x2, truth5x2)

	mseA100, mseB100 := repeat(10, 10)
	mseA10, mseB10 := mseA100[:10], mseB100[:10]
	truth10 := foldTruth(c.fam, c.n-c.n/10)
	kfold := stats.CorrectedTOptions{NTrain: c.n - c.n/10, NTest: c.n / 10}
	corrected(&out[fCorrected10], mseA10, mseB10, kfold, truth10)
	naive(&out[fT10], mseA10, mseB10, truth10)
	iv10 := resampled(&out[fDefault10], mseA10, mseB10, truth10)
	w := must(stats.Wilcoxon(mseA10, mseB10, stats.WilcoxonOptions{}))
	decide(&out[fWilcoxon10], w.PValue, iv10, truth10)
	bayes := must(stats.BayesCorrelatedT(mseA10, mseB10, stats.BayesOptions{NTrain: kfold.NTrain, NTest: kfold.NTest}))
	out[fBayes10] = outcome{ran: true, reject: bayes.PLeftBetter > 1-alpha/2 || bayes.PRightBetter > 1-alpha/2}

	corrected(&out[fCorrected100], mseA100, mseB100, kfold, truth10)
	naive(&out[fT100], mseA100, mseB100, truth10)
	resampled(&out[fDefault100], mseA100, mseB100, truth10)
	return 0
}

// crossValidate runs k-fold cross-validation of both learners with the
// folds cut from perm in order, and returns each fold's test error of A
// and of B. Each learner's normal equations are summed per fold once;
// training on all folds but f subtracts fold f's sums from the total.
func crossValidate(x, y []float64, perm []int, k int) (mseA, mseB []float64) {
	const q, p = foldFeatures, 2 * foldFeatures
	n := len(y)
	type sums struct {
		xx [2][q * q]float64
		xy [2][q]float64
	}
	fold := make([]sums, k)
	var total sums
	bounds := func(f int) (int, int) { return f * n / k, (f + 1) * n / k }
	for f := range k {
		lo, hi := bounds(f)
		s := &fold[f]
		for _, i := range perm[lo:hi] {
			row := x[i*p : (i+1)*p]
			for l := range 2 {
				xs := row[l*q : (l+1)*q]
				for a := range q {
					s.xy[l][a] += xs[a] * y[i]
					for b := range q {
						s.xx[l][a*q+b] += xs[a] * xs[b]
					}
				}
			}
		}
		for l := range 2 {
			for j := range total.xx[l] {
				total.xx[l][j] += s.xx[l][j]
			}
			for j := range total.xy[l] {
				total.xy[l][j] += s.xy[l][j]
			}
		}
	}
	mseA, mseB = make([]float64, k), make([]float64, k)
	for f := range k {
		lo, hi := bounds(f)
		for l := range 2 {
			var xx [q * q]float64
			var xy [q]float64
			for j := range xx {
				xx[j] = total.xx[l][j] - fold[f].xx[l][j]
			}
			for j := range xy {
				xy[j] = total.xy[l][j] - fold[f].xy[l][j]
			}
			beta := solveSPD(xx, xy)
			var sse float64
			for _, i := range perm[lo:hi] {
				xs := x[i*p+l*q : i*p+(l+1)*q]
				pred := 0.0
				for a := range q {
					pred += xs[a] * beta[a]
				}
				sse += (y[i] - pred) * (y[i] - pred)
			}
			if l == 0 {
				mseA[f] = sse / float64(hi-lo)
			} else {
				mseB[f] = sse / float64(hi-lo)
			}
		}
	}
	return mseA, mseB
}

// solveSPD solves a·β = b for a symmetric positive definite q×q matrix a
// (row-major) by Cholesky decomposition.
func solveSPD(a [foldFeatures * foldFeatures]float64, b [foldFeatures]float64) [foldFeatures]float64 {
	const q = foldFeatures
	var l [q * q]float64
	for i := range q {
		for j := 0; j <= i; j++ {
			s := a[i*q+j]
			for k := range j {
				s -= l[i*q+k] * l[j*q+k]
			}
			if i == j {
				if s <= 0 {
					panic("calibrationstudy: normal equations not positive definite")
				}
				l[i*q+i] = math.Sqrt(s)
			} else {
				l[i*q+j] = s / l[j*q+j]
			}
		}
	}
	var z, beta [q]float64
	for i := range q {
		s := b[i]
		for k := range i {
			s -= l[i*q+k] * z[k]
		}
		z[i] = s / l[i*q+i]
	}
	for i := q - 1; i >= 0; i-- {
		s := z[i]
		for k := i + 1; k < q; k++ {
			s -= l[k*q+i] * beta[k]
		}
		beta[i] = s / l[i*q+i]
	}
	return beta
}

// foldConfigs lists the cross-validation study's grid.
func foldConfigs(sizes []int) []foldConfig {
	var cfgs []foldConfig
	for _, f := range []family{sameNull, lift} {
		for _, n := range sizes {
			cfgs = append(cfgs, foldConfig{fam: f, n: n})
		}
	}
	return cfgs
}
