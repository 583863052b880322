package evaluate_test

import (
	"context"
	"fmt"

	"github.com/verdict-ml/verdict/evaluate"
)

// Three users' top-2 movies from a catalogue of 10, and a debug row for u3.
// u1 and u3 share movie 4, and u2 has no targets, so it is not a scored
// user: the top 2 cover movies 4, 7 and 9, 3 of 10; the top 1 covers 4.
func ExampleCatalogueCoverage() {
	ids := []string{"u1", "u2", "u3"}
	ranked := [][]int64{{4, 7}, {1, 2}, {4, 9}}
	relevant := [][]int64{{7}, nil, {9, 3}}
	src, err := evaluate.NewInMemoryRankings(ids, ranked, relevant, 0)
	if err != nil {
		panic(err)
	}
	res, err := evaluate.Run(context.Background(), src, evaluate.RunOptions{
		Metrics:  []evaluate.Metric{evaluate.HitRate(2)},
		WholeSet: []evaluate.WholeSetMetric{evaluate.CatalogueCoverage(1, 10), evaluate.CatalogueCoverage(2, 10)},
		Debug:    evaluate.DebugSelection{SampleIDs: []string{"u3"}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Keys, res.WholeSetKeys)
	for _, key := range []string{"hit_rate@2", "coverage@1", "coverage@2"} {
		fmt.Printf("%s %.2f\n", key, res.Means[key])
	}
	d := res.Debug[0]
	fmt.Println(d.SampleID, d.Items, d.Targets, d.HitRanks, d.Values)
	// Output:
	// [hit_rate@2] [coverage@1 coverage@2]
	// hit_rate@2 1.00
	// coverage@1 0.10
	// coverage@2 0.30
	// u3 [4 9] [9 3] [2] map[hit_rate@2:1]
}
