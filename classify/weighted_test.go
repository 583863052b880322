package classify_test

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/classify"
)

// weightedTol is the agreement required between a weighted metric and the
// plain metric on the sample written out: 1e-12, absolute or relative. The
// AUC and AP sums are exact integers, so they agree exactly; the log loss
// adds its terms in another order.
const weightedTol = 1e-12

// sample returns seeded binary labels and probabilities with some signal;
// with grid > 0 the probabilities are rounded to multiples of 1/grid, which
// makes many ties.
func sample(seed uint64, n int, prevalence float64, grid int) ([]int8, []float64) {
	r := rand.New(rand.NewPCG(seed, 1))
	labels := make([]int8, n)
	scores := make([]float64, n)
	for i := range n {
		if r.Float64() < prevalence {
			labels[i] = 1
		}
		z := float64(labels[i]) + r.NormFloat64()
		p := 1 / (1 + math.Exp(-z))
		if grid > 0 {
			p = math.Round(p*float64(grid)) / float64(grid)
		}
		scores[i] = p
	}
	return labels, scores
}

// weightedMetric is a weighted function under test with the plain metric it
// must agree with.
type weightedMetric struct {
	name     string
	plain    func([]int8, []float64) (float64, error)
	weighted func(order []int32, labels []int8, scores []float64, weights []int32) float64
}

var weightedMetrics = []weightedMetric{
	{name: "AUC", plain: classify.ROCAUC, weighted: classify.AUCWeighted},
	{name: "AP", plain: classify.AveragePrecision, weighted: classify.AveragePrecisionWeighted},
	{name: "log loss", plain: classify.LogLoss, weighted: func(_ []int32, l []int8, s []float64, w []int32) float64 {
		return classify.LogLossWeighted(l, s, w)
	}},
}

func requireWeightedClose(t *testing.T, want, got float64, what string) {
	t.Helper()
	require.Truef(t, scalar.EqualWithinAbsOrRel(got, want, weightedTol, weightedTol),
		"%s: weighted %.17g, written out %.17g", what, got, want)
}

func TestWeightedAllOnes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		seed uint64
		n    int
		grid int
	}{
		{name: "continuous", seed: 1, n: 3000},
		{name: "ties", seed: 2, n: 3000, grid: 20},
		{name: "two samples", seed: 3, n: 2, grid: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			labels, scores := sample(tt.seed, tt.n, 0.3, tt.grid)
			labels[0], labels[1] = 0, 1
			order := classify.Order(scores)
			ones := make([]int32, tt.n)
			for i := range ones {
				ones[i] = 1
			}
			for _, m := range weightedMetrics {
				want, err := m.plain(labels, scores)
				require.NoError(t, err)
				requireWeightedClose(t, want, m.weighted(order, labels, scores, ones), m.name+", weights 1")
				requireWeightedClose(t, want, m.weighted(order, labels, scores, nil), m.name+", nil weights")
			}
		})
	}
}

func TestWeightedResample(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		seed       uint64
		n          int
		prevalence float64
		grid       int
	}{
		{name: "continuous", seed: 11, n: 2000, prevalence: 0.3},
		{name: "ties", seed: 12, n: 2000, prevalence: 0.4, grid: 10},
		{name: "rare positives", seed: 13, n: 5000, prevalence: 0.02, grid: 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			labels, scores := sample(tt.seed, tt.n, tt.prevalence, tt.grid)
			order := classify.Order(scores)
			r := rand.New(rand.NewPCG(tt.seed, 2))
			weights := make([]int32, tt.n)
			drawnLabels := make([]int8, tt.n)
			drawnScores := make([]float64, tt.n)
			for range 20 {
				clear(weights)
				for i := range tt.n {
					j := r.IntN(tt.n)
					weights[j]++
					drawnLabels[i], drawnScores[i] = labels[j], scores[j]
				}
				for _, m := range weightedMetrics {
					want, err := m.plain(drawnLabels, drawnScores)
					require.NoError(t, err)
					requireWeightedClose(t, want, m.weighted(order, labels, scores, weights), m.name)
				}
			}
		})
	}
}

// TestWeightedSorted checks that a nil order reads samples already in
// ascending score order.
func TestWeightedSorted(t *testing.T) {
	t.Parallel()
	labels, scores := sample(21, 1000, 0.3, 50)
	order := classify.Order(scores)
	require.True(t, slices.IsSortedFunc(order, func(a, b int32) int {
		return cmp.Compare(scores[a], scores[b])
	}))
	sortedLabels := make([]int8, len(order))
	sortedScores := make([]float64, len(order))
	for i, j := range order {
		sortedLabels[i], sortedScores[i] = labels[j], scores[j]
	}
	for _, m := range weightedMetrics {
		want, err := m.plain(labels, scores)
		require.NoError(t, err)
		requireWeightedClose(t, want, m.weighted(nil, sortedLabels, sortedScores, nil), m.name)
	}
}

func TestWeightedUndefined(t *testing.T) {
	t.Parallel()
	labels := []int8{0, 1, 0, 1}
	scores := []float64{0.1, 0.2, 0.3, 0.4}
	order := classify.Order(scores)
	onlyNegatives := []int32{2, 0, 1, 0}
	onlyPositives := []int32{0, 3, 0, 1}
	none := []int32{0, 0, 0, 0}
	require.True(t, math.IsNaN(classify.AUCWeighted(order, labels, scores, onlyNegatives)))
	require.True(t, math.IsNaN(classify.AUCWeighted(order, labels, scores, onlyPositives)))
	require.True(t, math.IsNaN(classify.AveragePrecisionWeighted(order, labels, scores, onlyNegatives)))
	require.Equal(t, 1.0, classify.AveragePrecisionWeighted(order, labels, scores, onlyPositives))
	require.True(t, math.IsNaN(classify.LogLossWeighted(labels, scores, none)))
}

func TestWeightedPanics(t *testing.T) {
	t.Parallel()
	labels := []int8{0, 1, 0}
	scores := []float64{0.1, 0.2, 0.3}
	order := classify.Order(scores)
	require.PanicsWithValue(t, "classify: labels, scores, order and weights differ in length", func() {
		classify.AUCWeighted(order, labels, scores, []int32{1, 1})
	})
	require.PanicsWithValue(t, "classify: labels, scores, order and weights differ in length", func() {
		classify.AveragePrecisionWeighted(order[:2], labels, scores, nil)
	})
	require.PanicsWithValue(t, "classify: negative weight", func() {
		classify.AUCWeighted(order, labels, scores, []int32{1, -1, 1})
	})
	require.PanicsWithValue(t, "classify: labels, probabilities and weights differ in length", func() {
		classify.LogLossWeighted(labels, scores[:2], nil)
	})
}
