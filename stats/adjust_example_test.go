package stats_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

func ExampleAdjustPValues() {
	// Five metrics compared between the same two runs.
	p := []float64{0.01, 0.04, 0.03, 0.005, 0.2}
	for _, m := range []stats.AdjustMethod{stats.AdjustBonferroni, stats.AdjustHolm, stats.AdjustBH, stats.AdjustBY} {
		r, err := stats.AdjustPValues(p, m)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-10s %.4f\n", m, r.Adjusted)
	}
	// Output:
	// bonferroni [0.0500 0.2000 0.1500 0.0250 1.0000]
	// holm       [0.0400 0.0900 0.0900 0.0250 0.2000]
	// bh         [0.0250 0.0500 0.0500 0.0250 0.2000]
	// by         [0.0571 0.1142 0.1142 0.0571 0.4567]
}
