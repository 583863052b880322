package classify

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"
)

// TestBootstrapStatisticWrittenOut checks every metric's replicate
// statistic against the metric's own function on the replicate written
// out, each sample repeated as often as it was drawn: exactly for the
// ranking and threshold metrics, whose sums are integers, and within
// 1e-10 for the others, whose replicate sums are plain (see
// meanStatistic). Draws come from all samples at once, which the
// statistics must handle whatever the layout; some replicates of the rare
// positives draw none, where the ranking metrics are NaN.
func TestBootstrapStatisticWrittenOut(t *testing.T) {
	t.Parallel()
	const summedTol = 1e-10
	tests := []struct {
		name       string
		n          int
		prevalence float64
		grid       int
	}{
		{name: "continuous", n: 1500, prevalence: 0.3},
		{name: "ties", n: 1500, prevalence: 0.4, grid: 10},
		{name: "rare positives", n: 400, prevalence: 0.005, grid: 1000},
		{name: "two samples", n: 2, prevalence: 0.5, grid: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(tt.n), 5))
			labels, left, right := pairedSample(r, tt.n, tt.prevalence, tt.grid)
			labels[0], labels[1] = 1, 0 // both classes, as the ranking metrics need
			opts := DefaultBootstrapOptions()
			opts.Threshold, opts.Bins = 0.45, 7
			for _, m := range Metrics() {
				if m.Binary == nil {
					continue
				}
				for _, stratified := range []bool{true, false} {
					opts.Unstratified = !stratified
					plan, err := planBootstrap(m.Name, labels, left, right, opts)
					require.NoError(t, err, m.Name)
					stat := plan.statistic()
					counts := make([]int32, tt.n)
					drawn := make([]int8, tt.n)
					drawnLeft, drawnRight := make([]float64, tt.n), make([]float64, tt.n)
					for rep := range 30 {
						clear(counts)
						for i := range tt.n {
							k := r.IntN(tt.n) // a layout position
							counts[k]++
							j := plan.layout.perm[k]
							drawn[i], drawnLeft[i], drawnRight[i] = labels[j], left[j], right[j]
						}
						if rep == 0 {
							for k := range counts {
								counts[k] = 1 // the sample itself, in layout order
							}
							for k, j := range plan.layout.perm {
								drawn[k], drawnLeft[k], drawnRight[k] = labels[j], left[j], right[j]
							}
						}
						gotLeft, gotRight := stat(counts)
						for _, side := range []struct {
							got    float64
							scores []float64
						}{{gotLeft, drawnLeft}, {gotRight, drawnRight}} {
							want, err := m.Binary(drawn, side.scores, opts.Options)
							if err != nil {
								require.ErrorIs(t, err, ErrSingleClass, m.Name)
								require.True(t, math.IsNaN(side.got), "%s: %v on one class", m.Name, side.got)
								continue
							}
							tol := 0.0
							if m.NeedsProbabilities {
								tol = summedTol
							}
							require.Truef(t, scalar.EqualWithinAbsOrRel(want, side.got, tol, tol),
								"%s stratified=%v replicate %d: statistic %.17g, written out %.17g", m.Name, stratified, rep, side.got, want)
						}
					}
				}
			}
		})
	}
}

// pairedSample returns seeded labels and two models' probabilities, each
// the logistic of the label plus its own noise; with grid > 0 they are
// rounded to multiples of 1/grid, which makes many ties.
func pairedSample(r *rand.Rand, n int, prevalence float64, grid int) (labels []int8, left, right []float64) {
	labels = make([]int8, n)
	left, right = make([]float64, n), make([]float64, n)
	for i := range n {
		if r.Float64() < prevalence {
			labels[i] = 1
		}
		for _, p := range []*float64{&left[i], &right[i]} {
			*p = 1 / (1 + math.Exp(-(float64(labels[i]) + r.NormFloat64())))
			if grid > 0 {
				*p = math.Round(*p*float64(grid)) / float64(grid)
			}
		}
	}
	return labels, left, right
}
