package compare_test

import (
	"context"
	"fmt"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
)

// A real winner: on 20 queries, bm25 finds what dense misses 16 times and
// never the other way round.
func ExampleScores_distinguishable() {
	bm25, dense := map[string]float64{}, map[string]float64{}
	for i := range 20 {
		q := fmt.Sprintf("q%02d", i)
		bm25[q] = 1
		dense[q] = 0
		if i%5 == 0 {
			dense[q] = 1
		}
	}
	c, err := compare.Scores(context.Background(), "recall@5", compare.HigherIsBetter, compare.Named{Name: "bm25", Scores: bm25}, compare.Named{Name: "dense", Scores: dense},
		compare.Options{Sentence: report.Verdict})
	if err != nil {
		panic(err)
	}
	r := c.Metrics[0]
	fmt.Printf("distinguishable=%t winner=%s p=%.4f CI=[%.3f, %.3f]\n",
		r.Distinguishable, r.Winner, r.PValue, r.Difference.Low, r.Difference.High)
	fmt.Println(r.Verdict)
	// Output:
	// distinguishable=true winner=baseline p=0.0005 CI=[0.600, 0.950]
	// bm25 beats dense on recall@5 by 0.800 (95% CI 0.600 to 0.950, p < 0.001, n = 20): the interval excludes zero and p is below alpha 0.05. bm25 is better for 16 units, worse for 0 and the same for 4.
}

// A 25-point gap on 8 queries is no winner: q9, scored on one side only,
// is left out, and the rest cannot tell the two apart. The hint sizes the
// sample from the variance of the 8 differences (1, 0, 0, 0, 0.5, 0, 0,
// 0.5), 1/7: (1.960 + 0.842)²·(1/7)/0.25² = 17.9, so 18.
func ExampleScores_indistinguishable() {
	bm25 := map[string]float64{"q1": 1, "q2": 1, "q3": 0, "q4": 1, "q5": 0.5, "q6": 1, "q7": 0, "q8": 1, "q9": 0}
	dense := map[string]float64{"q1": 0, "q2": 1, "q3": 0, "q4": 1, "q5": 0, "q6": 1, "q7": 0, "q8": 0.5}
	c, err := compare.Scores(context.Background(), "recall@5", compare.HigherIsBetter, compare.Named{Name: "bm25", Scores: bm25}, compare.Named{Name: "dense", Scores: dense},
		compare.Options{Sentence: report.Verdict})
	if err != nil {
		panic(err)
	}
	r := c.Metrics[0]
	fmt.Printf("n=%d means=%.4f/%.4f distinguishable=%t winner=%q n_required=%d\n",
		r.N, r.BaselineMean, r.CandidateMean, r.Distinguishable, r.Winner, *r.NRequired)
	fmt.Println(r.Verdict)
	// Output:
	// n=8 means=0.6875/0.4375 distinguishable=false winner="" n_required=18
	// bm25 and dense are not distinguishable on recall@5 (n = 8): the difference bm25 − dense is +0.250, with a 95% CI of 0.000 to +0.500, which includes zero, and p = 0.248 is not below alpha 0.05. Detecting a gap this size with 80% power would take about 18 units (from the observed variance of the paired differences: an order of magnitude, not a count).
}
