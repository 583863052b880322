package classify_test

import (
	"math/rand/v2"
	"testing"

	"github.com/verdict-ml/verdict/classify"
)

// benchN is the size of the benchmarks: a million predictions, the size a
// bootstrap of an AUC has to handle thousands of times.
const benchN = 1_000_000

func BenchmarkOrder(b *testing.B) {
	_, scores := sample(31, benchN, 0.3, 0)
	b.ResetTimer()
	for b.Loop() {
		classify.Order(scores)
	}
}

func BenchmarkROCAUC(b *testing.B) {
	labels, scores := sample(31, benchN, 0.3, 0)
	b.ResetTimer()
	for b.Loop() {
		if _, err := classify.ROCAUC(labels, scores); err != nil {
			b.Fatal(err)
		}
	}
}

// resampleWeights returns the counts of one bootstrap replicate.
func resampleWeights(n int) []int32 {
	r := rand.New(rand.NewPCG(32, 1))
	w := make([]int32, n)
	for range n {
		w[r.IntN(n)]++
	}
	return w
}

func BenchmarkAUCWeighted(b *testing.B) {
	labels, scores := sample(31, benchN, 0.3, 0)
	order := classify.Order(scores)
	weights := resampleWeights(benchN)
	b.ResetTimer()
	for b.Loop() {
		classify.AUCWeighted(order, labels, scores, weights)
	}
}

// BenchmarkAUCWeightedSorted is AUCWeighted on labels, scores and weights
// already in score order (a nil order), which reads memory in sequence.
func BenchmarkAUCWeightedSorted(b *testing.B) {
	labels, scores := sample(31, benchN, 0.3, 0)
	order := classify.Order(scores)
	sortedLabels := make([]int8, benchN)
	sortedScores := make([]float64, benchN)
	for i, j := range order {
		sortedLabels[i], sortedScores[i] = labels[j], scores[j]
	}
	weights := resampleWeights(benchN)
	b.ResetTimer()
	for b.Loop() {
		classify.AUCWeighted(nil, sortedLabels, sortedScores, weights)
	}
}

func BenchmarkAveragePrecisionWeighted(b *testing.B) {
	labels, scores := sample(31, benchN, 0.3, 0)
	order := classify.Order(scores)
	weights := resampleWeights(benchN)
	b.ResetTimer()
	for b.Loop() {
		classify.AveragePrecisionWeighted(order, labels, scores, weights)
	}
}
