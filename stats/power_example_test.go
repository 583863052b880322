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
