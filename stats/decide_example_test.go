package stats_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

// p is below alpha, but the interval reaches zero: no winner.
func ExampleDecide() {
	iv := stats.Interval{Estimate: 0.031, Low: 0, High: 0.062, Confidence: 0.95}
	d := stats.Decide(0.012, 0.05, iv)
	fmt.Printf("distinguishable=%t p<alpha=%t excludes0=%t\n", d.Distinguishable, d.PBelowAlpha, d.ExcludesZero)

	iv.Low = 0.004
	d = stats.Decide(0.012, 0.05, iv)
	fmt.Printf("distinguishable=%t p<alpha=%t excludes0=%t\n", d.Distinguishable, d.PBelowAlpha, d.ExcludesZero)
	// Output:
	// distinguishable=false p<alpha=true excludes0=false
	// distinguishable=true p<alpha=true excludes0=true
}
