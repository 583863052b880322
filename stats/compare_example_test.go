package stats_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

// A real winner: on 20 queries, bm25 finds what dense misses 16 times and
// never the other way round.
func ExampleCompare_distinguishable() {
	bm25, dense := map[string]float64{}, map[string]float64{}
	for i := range 20 {
		q := fmt.Sprintf("q%02d", i)
		bm25[q] = 1
		dense[q] = 0
		if i%5 == 0 {
			dense[q] = 1
		}
	}
	c, err := stats.Compare(bm25, dense, stats.CompareOptions{LeftName: "bm25", RightName: "dense", Metric: "recall@5"})
	if err != nil {
		panic(err)
	}
	fmt.Printf("distinguishable=%t winner=%s p=%.4f CI=[%.3f, %.3f]\n",
		c.Distinguishable, c.Winner, c.PValue, c.Difference.Low, c.Difference.High)
	fmt.Println(c.Verdict)
	// Output:
	// distinguishable=true winner=left p=0.0005 CI=[0.600, 0.950]
	// bm25 beats dense on recall@5 by 0.800 (95% CI 0.600 to 0.950, p = 0.0005, n = 20): the interval excludes zero and p is below alpha 0.05. bm25 scores higher on 16 units, lower on 0 and the same on 4.
}

// A 25-point gap on 8 queries is no winner: q9, scored on one side only,
// is left out, and the rest cannot tell the two apart.
func ExampleCompare_indistinguishable() {
	bm25 := map[string]float64{"q1": 1, "q2": 1, "q3": 0, "q4": 1, "q5": 0.5, "q6": 1, "q7": 0, "q8": 1, "q9": 0}
	dense := map[string]float64{"q1": 0, "q2": 1, "q3": 0, "q4": 1, "q5": 0, "q6": 1, "q7": 0, "q8": 0.5}
	c, err := stats.Compare(bm25, dense, stats.CompareOptions{LeftName: "bm25", RightName: "dense", Metric: "recall@5"})
	if err != nil {
		panic(err)
	}
	fmt.Printf("n=%d means=%.4f/%.4f distinguishable=%t winner=%q n_required=%d\n",
		c.N, c.LeftMean, c.RightMean, c.Distinguishable, c.Winner, *c.NRequired)
	fmt.Println(c.Verdict)
	// Output:
	// n=8 means=0.6875/0.4375 distinguishable=false winner="" n_required=63
	// bm25 and dense are not distinguishable on recall@5 (n = 8): the gap of +0.250 (bm25 − dense) has a 95% CI of 0.000 to +0.500, which includes zero, and p = 0.248 is not below alpha 0.05. Detecting a gap this size with 80% power would take about 63 units (a worst-case, unpaired estimate: an order of magnitude, not a count).
}

func ExampleBootstrap() {
	scores := []float64{1, 0.5, 0, 1, 1, 0.5}
	perc, err := stats.Bootstrap(scores, stats.BootstrapOptions{})
	if err != nil {
		panic(err)
	}
	bca, err := stats.Bootstrap(scores, stats.BootstrapOptions{Method: stats.BCa})
	if err != nil {
		panic(err)
	}
	one, err := stats.Bootstrap([]float64{0.4}, stats.BootstrapOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("percentile %.3f [%.3f, %.3f]\n", perc.Estimate, perc.Low, perc.High)
	fmt.Printf("BCa        %.3f [%.3f, %.3f]\n", bca.Estimate, bca.Low, bca.High)
	fmt.Printf("one value  %.3f [%.3f, %.3f]\n", one.Estimate, one.Low, one.High)
	// Output:
	// percentile 0.667 [0.333, 0.917]
	// BCa        0.667 [0.333, 0.917]
	// one value  0.400 [0.400, 0.400]
}

// Two evaluation draws per user: the rows of a user are resampled, and
// their signs flipped, together.
func ExamplePairedBootstrap() {
	left := []float64{0.9, 0.8, 0.4, 0.5, 0.7, 0.6, 0.3, 0.2, 0.8, 0.9}
	right := []float64{0.6, 0.7, 0.4, 0.3, 0.5, 0.6, 0.3, 0.1, 0.5, 0.6}
	users := []string{"ann", "ann", "bob", "bob", "cat", "cat", "dan", "dan", "eve", "eve"}
	ci, err := stats.PairedBootstrap(left, right, users, stats.BootstrapOptions{Seed: 1})
	if err != nil {
		panic(err)
	}
	p, err := stats.Randomization(left, right, users, stats.RandomizationOptions{Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("difference %.3f, 95%% CI [%.3f, %.3f], p = %.3f\n", ci.Estimate, ci.Low, ci.High, p.PValue)
	// Output:
	// difference 0.150, 95% CI [0.080, 0.230], p = 0.065
}

func ExampleRandomization() {
	left := []float64{1, 1, 0, 1}
	right := []float64{0, 1, 0, 0.5}
	p, err := stats.Randomization(left, right, nil, stats.RandomizationOptions{})
	if err != nil {
		panic(err)
	}
	same, err := stats.Randomization(left, left, nil, stats.RandomizationOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("p = %.3f after %d sign flips; identical scores: p = %.0f\n", p.PValue, p.Permutations, same.PValue)
	// Output:
	// p = 0.510 after 2000 sign flips; identical scores: p = 1
}
