package stats_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

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
