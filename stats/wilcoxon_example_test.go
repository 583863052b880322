package stats_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

func ExampleWilcoxon() {
	// Five folds, the candidate ahead on every one: the exact test cannot
	// go below 2/2^5 = 0.0625.
	candidate := []float64{0.81, 0.82, 0.80, 0.83, 0.79}
	baseline := []float64{0.80, 0.805, 0.77, 0.825, 0.75}
	r, err := stats.Wilcoxon(candidate, baseline, stats.WilcoxonOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("n=%d W+=%g W-=%g p=%.4f mode=%s z=%v\n", r.N, r.WPlus, r.WMinus, r.PValue, r.Mode, r.Z)
	// Output:
	// n=5 W+=15 W-=0 p=0.0625 mode=exact z=<nil>
}

func ExampleWilcoxon_approx() {
	// Per-user scores with ties and zeros: the normal approximation, with
	// Pratt's treatment of zeros and a continuity correction.
	left := []float64{0.5, 1, 0.25, 0.75, 1, 0, 0.5, 1, 0.75, 0.5, 1, 0.25}
	right := []float64{0.25, 1, 0, 0.5, 0.5, 0, 0.5, 0.75, 0.25, 0.75, 0.5, 0}
	r, err := stats.Wilcoxon(left, right, stats.WilcoxonOptions{ZeroMethod: stats.ZeroPratt, Correction: true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("n=%d W+=%g W-=%g z=%.4f p=%.4f mode=%s\n", r.N, r.WPlus, r.WMinus, *r.Z, r.PValue, r.Mode)
	// Output:
	// n=12 W+=65.5 W-=6.5 z=-2.3359 p=0.0195 mode=approx
}
