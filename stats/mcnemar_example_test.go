package stats_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

func ExampleMcNemarCounts() {
	// Left answers 3 questions right that right gets wrong, right answers
	// 12 that left gets wrong: b + c = 15 < 50, so the exact binomial test.
	r, err := stats.McNemarCounts(3, 12, stats.McNemarOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("b=%d c=%d statistic=%g p=%.4f mode=%s\n", r.B, r.C, r.Statistic, r.PValue, r.Mode)
	// Output:
	// b=3 c=12 statistic=3 p=0.0352 mode=exact
}

func ExampleMcNemar() {
	// Correctness (1 = right) of two classifiers on ten samples.
	left := []float64{1, 1, 0, 1, 1, 0, 1, 1, 1, 0}
	right := []float64{0, 1, 0, 0, 1, 0, 0, 1, 0, 1}
	r, err := stats.McNemar(left, right, stats.McNemarOptions{Mode: stats.McNemarChi2})
	if err != nil {
		panic(err)
	}
	fmt.Printf("b=%d c=%d chi2=%.4f p=%.4f\n", r.B, r.C, r.Statistic, r.PValue)
	// Output:
	// b=4 c=1 chi2=0.8000 p=0.3711
}
