package stats_test

import (
	"encoding/json"
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

func ExampleOnlineFDR() {
	// The first eight p-values of onlineFDR's sample.df, in arrival order.
	p := []float64{2.90e-08, 0.06743, 0.01514, 0.08174, 0.00171, 3.60e-05, 0.79149, 0.27201}
	tests, err := stats.OnlineFDR(p, stats.OnlineFDROptions{Method: stats.OnlineLORDPlusPlus})
	if err != nil {
		panic(err)
	}
	for i, t := range tests {
		fmt.Printf("%d  p %.2e  level %.7f  rejected %-5v  wealth %.7f\n", i+1, t.P, t.Level, t.Rejected, t.Wealth)
	}
	// Output:
	// 1  p 2.90e-08  level 0.0002676  rejected true   wealth 0.0497324
	// 2  p 6.74e-02  level 0.0024664  rejected false  wealth 0.0472660
	// 3  p 1.51e-02  level 0.0005733  rejected false  wealth 0.0466927
	// 4  p 8.17e-02  level 0.0004873  rejected false  wealth 0.0462054
	// 5  p 1.71e-03  level 0.0004059  rejected false  wealth 0.0457995
	// 6  p 3.60e-05  level 0.0003447  rejected true   wealth 0.0954548
	// 7  p 7.91e-01  level 0.0029745  rejected false  wealth 0.0924803
	// 8  p 2.72e-01  level 0.0008450  rejected false  wealth 0.0916353
}

func ExampleOnlineFDRState_Next() {
	opts := stats.OnlineFDROptions{} // lond-dep at FDR 0.05
	s, err := stats.NewOnlineFDRState(opts)
	if err != nil {
		panic(err)
	}
	// One run tests two p-values and stores the state...
	for _, p := range []float64{1e-6, 0.3} {
		if _, s, err = s.Next(p, opts); err != nil {
			panic(err)
		}
	}
	stored, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	fmt.Printf("stored: %d tests, rejections %v, wealth %.6f\n", s.Tests, s.Rejections, s.Wealth)

	// ...and a later run picks the stream up where it stopped.
	var resumed stats.OnlineFDRState
	if err := json.Unmarshal(stored, &resumed); err != nil {
		panic(err)
	}
	level, _ := resumed.Level(opts)
	test, next, _ := resumed.Next(1e-4, opts)
	fmt.Printf("level %.6f, rejected %v, rejections %v\n", level, test.Rejected, next.Rejections)
	// Output:
	// stored: 2 tests, rejections [1], wealth 0.096548
	// level 0.000541, rejected true, rejections [1 3]
}
