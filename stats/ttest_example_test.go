package stats_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

// The differences are 1, 0, 0, 0, 0.5, 0, 0, 0.5: mean 1/4 and variance
// 1/7, so t = (1/4)/√(1/56) = √3.5 = 1.8708 on 7 degrees of freedom.
// scipy 1.10's ttest_rel gives that t, p = 0.1036 and the interval
// [-0.0660, 0.5660]; testdata/reference/paired_t.json holds them to full
// precision as the case "ExamplePairedT", which TestPairedTReference
// checks.
func ExamplePairedT() {
	// recall@5 of two configurations on the same eight questions.
	bm25 := []float64{1, 1, 0, 1, 0.5, 1, 0, 1}
	dense := []float64{0, 1, 0, 1, 0, 1, 0, 0.5}
	r, err := stats.PairedT(bm25, dense, stats.PairedTOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("n=%d diff=%.4f t=%.4f df=%d p=%.4f CI [%.4f, %.4f]\n",
		r.N, r.MeanDiff, r.T, r.DF, r.PValue, r.CILow, r.CIHigh)
	// Output:
	// n=8 diff=0.2500 t=1.8708 df=7 p=0.1036 CI [-0.0660, 0.5660]
}

// Nadeau and Bengio's t is mean / √((1/J + n_test/n_train)·s²) with J = 10
// folds: 0.0119 / √((1/10 + 100/900)·s²) = 5.325, and p = 2·t.sf(5.325, 9)
// = 0.0005 with scipy 1.10. testdata/reference/corrected_t.json holds them
// to full precision as the case "ExampleCorrectedResampledTDiffs", which
// TestCorrectedResampledTReference checks.
func ExampleCorrectedResampledTDiffs() {
	// Per-fold differences of 10-fold cross-validation on 1000 rows.
	d := []float64{0.012, 0.02, 0.004, 0.015, 0.009, 0.011, 0.018, 0.007, 0.013, 0.01}
	r, err := stats.CorrectedResampledTDiffs(d, stats.CorrectedTOptions{NTrain: 900, NTest: 100})
	if err != nil {
		panic(err)
	}
	fmt.Printf("t=%.3f df=%d p=%.4f\n", r.T, r.DF, r.PValue)
	// Output:
	// t=5.325 df=9 p=0.0005
}

// The corrected resampled t reports no interval; TInterval rebuilds it from
// the mean, t and df, with the t statistic's inflated variance. (scipy 1.10:
// mean ± t.ppf(0.975, 9)·√((1/10 + 100/900)·s²) = 0.0117 ± 0.00894;
// testdata/reference/t_interval.json holds the bounds to full precision as
// the case "ExampleTInterval", which TestTIntervalReference checks.)
func ExampleTInterval() {
	diffs := []float64{0.012, 0.025, -0.004, 0.018, 0.009, 0.021, 0.003, 0.015, 0.011, 0.007}
	r, err := stats.CorrectedResampledTDiffs(diffs, stats.CorrectedTOptions{NTrain: 900, NTest: 100})
	if err != nil {
		panic(err)
	}
	iv := stats.TInterval(r.MeanDiff, r.T, r.DF, 0.95)
	fmt.Printf("%.4f [%.4f, %.4f] at %g%%\n", iv.Estimate, iv.Low, iv.High, 100*iv.Confidence)
	// Output:
	// 0.0117 [0.0028, 0.0206] at 95%
}
