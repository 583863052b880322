package stats_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

func ExampleDeLong() {
	labels := []float64{1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 1}
	left := []float64{0.9, 0.3, 0.8, 0.6, 0.4, 0.2, 0.7, 0.5, 0.1, 0.65, 0.35, 0.3}
	right := []float64{0.7, 0.4, 0.6, 0.5, 0.5, 0.3, 0.4, 0.6, 0.2, 0.55, 0.3, 0.45}
	r, err := stats.DeLong(labels, left, right, stats.DeLongOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("AUC %.4f vs %.4f: diff=%.4f se=%.4f z=%.4f p=%.4f CI [%.4f, %.4f]\n",
		r.AUCLeft, r.AUCRight, r.Diff, r.SE, r.Z, r.PValue, r.CILow, r.CIHigh)
	// Output:
	// AUC 0.9028 vs 0.7917: diff=0.1111 se=0.1433 z=0.7756 p=0.4380 CI [-0.1697, 0.3919]
}
