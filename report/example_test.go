package report_test

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"

	"github.com/verdict-ml/verdict/report"
)

func ExampleInterval() {
	// A mean and a difference with their 95% intervals, as tables print them.
	fmt.Println(report.Interval(0.41234, 0.39811, 0.42679, false))
	fmt.Println(report.Interval(0.0123, -0.0012, 0.025, true))
	// Output:
	// 0.412 [0.398, 0.427]
	// +0.0123 [-0.0012, +0.0250]
}

func ExampleNums() {
	// A column shares its decimals, so the numbers align on the point.
	for _, s := range report.Nums([]float64{0.27869, 0.02356, 0}, false) {
		fmt.Printf("%8s\n", s)
	}
	// Output:
	//   0.2787
	//   0.0236
	//   0.0000
}

func ExampleP() {
	fmt.Println(report.P(0.0562), report.P(0.00002))
	fmt.Println(report.PText(0.0562), report.PText(0.00002))
	// Output:
	// 0.056 <0.001
	// p = 0.056 p < 0.001
}

func ExamplePValue() {
	// Tested against alpha 0.05: 0.0499 keeps the digit that shows it is
	// below alpha, where three decimals would round it to 0.050.
	for _, p := range []float64{0.0341, 0.0499, 0.0501, 0.0004} {
		fmt.Printf("%-7s %s\n", report.PValue(p, 0.05), report.PValueText(p, 0.05))
	}
	// Output:
	// 0.034   p = 0.034
	// 0.0499  p = 0.0499
	// 0.050   p = 0.050
	// <0.001  p < 0.001
}

func ExampleThousands() {
	fmt.Println(report.Thousands(1234567), report.Thousands(610))
	// Output:
	// 1,234,567 610
}

func ExampleCount() {
	// A sample-size estimate is an order of magnitude: two figures.
	fmt.Printf("about %s units\n", report.Count(25682))
	fmt.Printf("about %s units\n", report.Count(512345))
	// Output:
	// about 26,000 units
	// about 510,000 units
}

func ExampleTable_Markdown() {
	t := report.Table{Header: []string{"RUN", "NDCG@10"}, Right: map[int]bool{1: true}}
	t.Add("item-knn", "0.0563")
	t.Add("popularity", "0.0474")
	if err := t.Markdown(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// | RUN | NDCG@10 |
	// |---|---:|
	// | item-knn | 0.0563 |
	// | popularity | 0.0474 |
}

func ExampleTable_Render() {
	t := report.Table{Header: []string{"RUN", "NDCG@10", "UNITS"}, Right: map[int]bool{1: true, 2: true}}
	t.Add("item-knn", "0.0563", "610")
	t.Add("recent-popularity", "0.0348", "610")
	if err := t.Render(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// RUN                NDCG@10  UNITS
	// item-knn            0.0563    610
	// recent-popularity   0.0348    610
}

func ExampleWriteJSON() {
	type interval struct {
		Estimate float64 `json:"estimate"`
		Low      float64 `json:"low"`
		High     float64 `json:"high"`
	}
	type result struct {
		Metric     string    `json:"metric"`
		Difference interval  `json:"difference"`
		Ranks      []float64 `json:"avg_ranks"`
		Notes      []string  `json:"notes,omitempty"`
	}
	res := result{Metric: "ndcg@10", Difference: interval{0.0123, -0.0007, math.NaN()}, Ranks: []float64{1.5, 2.5}}
	if err := report.WriteJSON(os.Stdout, res); err != nil {
		panic(err)
	}
	// Output:
	// {
	//   "metric": "ndcg@10",
	//   "difference": {
	//     "estimate": 0.0123,
	//     "low": -0.0007,
	//     "high": null
	//   },
	//   "avg_ranks": [1.5, 2.5]
	// }
}

func ExampleWriteFields() {
	type result struct {
		Statistic float64  `json:"statistic"`
		PValue    float64  `json:"p_value"`
		DF        int      `json:"df"`
		Z         *float64 `json:"z"`
	}
	if err := report.WriteFields(os.Stdout, result{Statistic: 2.0451737, PValue: 0.0412, DF: 29}); err != nil {
		panic(err)
	}
	// Output:
	// statistic  2.04517
	// p_value    0.0412
	// df         29
	// z          -
}

func ExampleFieldTable() {
	type interval struct {
		Low  float64 `json:"low"`
		High float64 `json:"high"`
	}
	type result struct {
		Metric     string   `json:"metric"`
		Difference interval `json:"difference"`
	}
	t, err := report.FieldTable(result{Metric: "ndcg@10", Difference: interval{-0.0007, 0.0254}})
	if err != nil {
		panic(err)
	}
	if err := t.Markdown(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// | FIELD | VALUE |
	// |---|---|
	// | metric | ndcg@10 |
	// | difference.low | -0.0007 |
	// | difference.high | 0.0254 |
}

func ExampleCSVInterval() {
	// A difference with its interval, and one whose interval is undefined.
	nan := math.NaN()
	w := csv.NewWriter(os.Stdout)
	_ = w.Write(append([]string{"ndcg@10"}, report.CSVInterval(-0.0329, -0.0454, -0.0206)...))
	_ = w.Write(append([]string{"recall@20"}, report.CSVInterval(0.01, nan, nan)...))
	w.Flush()
	// Output:
	// ndcg@10,-0.0329,-0.0454,-0.0206
	// recall@20,0.01,,
}
