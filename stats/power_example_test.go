package stats_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

func ExampleSampleSize() {
	// How many users before a gap of 0.25 in a 0/1 metric shows?
	r, err := stats.SampleSize(stats.SampleSizeOptions{Delta: 0.25})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.N)
	// Output:
	// 63
}

func ExampleMinimumDetectableDifference() {
	// MovieLens latest-small has 610 users.
	r, err := stats.MinimumDetectableDifference(stats.MDEOptions{N: 610})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%.4f\n", r.MDE)
	// Output:
	// 0.0802
}

// With the variance of the paired differences observed on the data, here
// 0.09 (say, DifferenceVariance's), a gap of 0.03 takes 785 units at alpha
// 0.05 and 80 % power, (1.960 + 0.842)² · 0.09 / 0.03² = 784.9 rounded up;
// the default worst case, ½, would ask for 4361.
func ExampleSampleSize_variance() {
	r, err := stats.SampleSize(stats.SampleSizeOptions{Delta: 0.03, Variance: 0.09})
	if err != nil {
		panic(err)
	}
	worst, err := stats.SampleSize(stats.SampleSizeOptions{Delta: 0.03})
	if err != nil {
		panic(err)
	}
	fmt.Println(r.N, len(r.Notes))
	fmt.Println(worst.N, worst.Notes[0].Code)
	// Output:
	// 785 0
	// 4361 worst-case-variance
}
