package stats_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/stats"
)

func ExampleFriedman() {
	// ndcg@10 of three recommenders (columns) on six datasets (rows).
	scores := [][]float64{
		{0.31, 0.35, 0.29},
		{0.42, 0.47, 0.40},
		{0.25, 0.26, 0.27},
		{0.38, 0.44, 0.36},
		{0.51, 0.55, 0.49},
		{0.33, 0.39, 0.30},
	}
	r, err := stats.Friedman(scores, stats.FriedmanOptions{Names: []string{"popularity", "item-knn", "recency"}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("avg ranks %.3f\n", r.AvgRanks)
	fmt.Printf("chi2=%.4f df=%d p=%.4f\n", r.Chi2, r.DF, r.PValue)
	fmt.Printf("Iman-Davenport F=%.4f p=%.4f\n", r.ImanDavenportF, r.ImanDavenportP)
	fmt.Printf("Nemenyi CD=%.4f\n", r.CD)
	for _, h := range r.Holm {
		fmt.Printf("%s vs %s: z=%+.4f p=%.4f adjusted=%.4f rejected=%t\n", h.Name, r.Names[0], h.Z, h.PValue, h.PAdjusted, h.Rejected)
	}
	// Output:
	// avg ranks [2.167 1.167 2.667]
	// chi2=7.0000 df=2 p=0.0302
	// Iman-Davenport F=7.0000 p=0.0126
	// Nemenyi CD=1.3531
	// item-knn vs popularity: z=+1.7321 p=0.0833 adjusted=0.1665 rejected=false
	// recency vs popularity: z=-0.8660 p=0.3865 adjusted=0.3865 rejected=false
}
