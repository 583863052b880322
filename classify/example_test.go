package classify_test

import (
	"fmt"

	"github.com/verdict-ml/verdict/classify"
)

func ExampleROCAUC() {
	// Positives score 0.35, 0.8 and 0.4; negatives 0.1, 0.4 and 0.4. Of the
	// 9 pairs, the positive wins 5 and ties 2 (the 0.4s), so
	// AUC = (5 + 2·½) / 9.
	labels := []int8{0, 0, 1, 1, 0, 1}
	scores := []float64{0.1, 0.4, 0.35, 0.8, 0.4, 0.4}
	auc, err := classify.ROCAUC(labels, scores)
	if err != nil {
		panic(err)
	}
	fmt.Printf("AUC %.4f\n", auc)
	// Output:
	// AUC 0.6667
}

func ExampleAveragePrecision() {
	// From the top: 0.8 (a positive) has precision 1; the three 0.4s, one
	// positive, form one threshold with precision 2/4; 0.35 (a positive)
	// has precision 3/5. Each adds a third of the recall:
	// AP = (1 + 0.5 + 0.6) / 3.
	labels := []int8{0, 0, 1, 1, 0, 1}
	scores := []float64{0.1, 0.4, 0.35, 0.8, 0.4, 0.4}
	ap, err := classify.AveragePrecision(labels, scores)
	if err != nil {
		panic(err)
	}
	fmt.Printf("AP %.4f\n", ap)
	// Output:
	// AP 0.7000
}

func ExampleAUCWeighted() {
	labels := []int8{0, 0, 1, 1, 0, 1}
	scores := []float64{0.1, 0.4, 0.35, 0.8, 0.4, 0.4}
	order := classify.Order(scores) // once, outside the resampling loop
	// A bootstrap replicate drew sample 0 twice, samples 2, 3 and 4 once
	// and sample 5 twice: the positives 0.35, 0.8, 0.4, 0.4 against the
	// negatives 0.1, 0.1, 0.4.
	weights := []int32{2, 0, 1, 1, 1, 2}
	fmt.Printf("AUC %.4f\n", classify.AUCWeighted(order, labels, scores, weights))
	// Output:
	// AUC 0.8333
}

func ExampleECE() {
	// Bins of width 0.1: 0.1 and 0.15 fall in [0.1, 0.2), 0.8 and 0.85 in
	// [0.8, 0.9), 0.9 and 1.0 in the last bin [0.9, 1.0]. The gaps are
	// |0 − 0.125|, |1 − 0.825| and |0.5 − 0.95|, each over a third of the
	// samples.
	labels := []int8{0, 0, 1, 1, 1, 0}
	probs := []float64{0.1, 0.15, 0.8, 0.85, 0.9, 1.0}
	ece, err := classify.ECE(labels, probs, classify.DefaultBins)
	if err != nil {
		panic(err)
	}
	fmt.Printf("ECE %.4f\n", ece)
	// Output:
	// ECE 0.2500
}

func ExampleConfusionAt() {
	// A score equal to the threshold predicts positive.
	labels := []int8{1, 0, 1, 0}
	scores := []float64{0.5, 0.5, 0.2, 0.1}
	c, err := classify.ConfusionAt(labels, scores, 0.5)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v precision=%.2f recall=%.2f f1=%.2f\n", c, c.Precision(), c.Recall(), c.F1())
	// Output:
	// {TP:1 FP:1 TN:1 FN:1} precision=0.50 recall=0.50 f1=0.50
}

func ExampleParseMetric() {
	m, err := classify.ParseMetric("brier")
	if err != nil {
		panic(err)
	}
	v, err := m.Binary([]int8{1, 0}, []float64{0.8, 0.4}, classify.DefaultOptions())
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s = %.2f, lower is better: %v\n", m.Name, v, m.LowerIsBetter)
	// Output:
	// brier = 0.10, lower is better: true
}
