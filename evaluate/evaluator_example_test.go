package evaluate_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/evaluate"
)

func ExampleEvaluator() {
	metrics, err := evaluate.ParseMetrics([]string{"ndcg@3", "recall@1,3"})
	if err != nil {
		panic(err)
	}
	e, err := evaluate.NewEvaluator(metrics)
	if err != nil {
		panic(err)
	}

	// Three users' top-3 predictions: u1 has 2 relevant items, at ranks 1
	// and 3; u2 has none; u3 has 1, at rank 2.
	b := &evaluate.Batch{
		SampleIDs: []string{"u1", "u2", "u3"},
		Width:     3,
		Hits: []bool{
			true, false, true,
			false, false, false,
			false, true, false,
		},
		Relevant: []int32{2, 0, 1},
	}
	values, err := e.Score(b, nil)
	if err != nil {
		panic(err)
	}
	keys := e.Keys()
	fmt.Println(keys)
	for r, id := range b.SampleIDs {
		fmt.Printf("%s %.4f\n", id, values[r*len(keys):(r+1)*len(keys)])
	}

	s := e.NewSummary()
	s.Add(b, values)
	for j, k := range s.Keys() {
		fmt.Printf("mean %s = %.4f\n", k, s.Mean(j))
	}
	fmt.Printf("n_rows=%d n_scored_rows=%d n_units=%d\n", s.Rows(), s.ScoredRows(), s.Units())
	// Output:
	// [ndcg@3 recall@1 recall@3]
	// u1 [0.9197 0.5000 1.0000]
	// u2 [0.0000 0.0000 0.0000]
	// u3 [0.6309 0.0000 1.0000]
	// mean ndcg@3 = 0.7753
	// mean recall@1 = 0.2500
	// mean recall@3 = 1.0000
	// n_rows=3 n_scored_rows=2 n_units=2
}

func ExampleParseMetrics() {
	metrics, err := evaluate.ParseMetrics([]string{"ndcg@10,20", "map@10", "ndcg@5"})
	if err != nil {
		panic(err)
	}
	for _, m := range metrics {
		fmt.Println(m.Keys(), m.RequiredK())
	}

	_, err = evaluate.ParseMetrics([]string{"ndcg@0"})
	fmt.Println(err)
	// Output:
	// [ndcg@5 ndcg@10 ndcg@20] 20
	// [map@10] 10
	// bad metric "ndcg@0": cutoff "0" is not a whole number from 1 to 1000000
}
