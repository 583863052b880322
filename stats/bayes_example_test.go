package stats_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

func ExampleBayesCorrelatedTDiffs() {
	// 10-fold differences; differences within ±0.005 count as equivalent.
	d := []float64{0.012, 0.02, 0.004, 0.015, 0.009, 0.011, 0.018, 0.007, 0.013, 0.01}
	r, err := stats.BayesCorrelatedTDiffs(d, stats.BayesOptions{NTrain: 900, NTest: 100, Rope: 0.005})
	if err != nil {
		panic(err)
	}
	fmt.Printf("posterior t(df=%d, loc=%.4f, scale=%.4f)\n", r.DF, r.Loc, r.Scale)
	fmt.Printf("P(left better)=%.4f P(equivalent)=%.4f P(right better)=%.4f\n", r.PLeftBetter, r.PEquivalent, r.PRightBetter)
	// Output:
	// posterior t(df=9, loc=0.0119, scale=0.0022)
	// P(left better)=0.9935 P(equivalent)=0.0065 P(right better)=0.0000
}

func ExampleBayesResult_Decide() {
	// 10-fold differences whose fold sizes were not recorded: ρ = 1/10.
	d := []float64{0.012, 0.02, 0.004, 0.015, 0.009, 0.011, 0.018, 0.007, 0.013, 0.01}
	rho, err := stats.KFoldRho(10)
	if err != nil {
		panic(err)
	}
	r, err := stats.BayesCorrelatedTDiffs(d, stats.BayesOptions{Rho: rho, Rope: 0.005})
	if err != nil {
		panic(err)
	}
	fmt.Printf("P(left better)=%.4f: %s at %g, %s at 0.995\n", r.PLeftBetter, r.Decision, r.DecideAt, r.Decide(0.995))
	// Output:
	// P(left better)=0.9935: left_better at 0.95, undecided at 0.995
}
