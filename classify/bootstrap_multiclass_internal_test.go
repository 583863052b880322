package classify

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/stats"
)

// TestMulticlassStatisticWrittenOut checks every multi-class metric's
// replicate statistic against the metric's own function on the replicate
// written out, each sample repeated counts[k] times: exactly for accuracy,
// the F1s and macro ROC AUC, whose sums are integers, and within 1e-12 for
// log loss, whose replicate sum is plain where MulticlassLogLoss's is
// compensated (about n rounding errors of the largest term, near 1e-14
// here). The counts are bootstrap draws from all samples, whatever the
// layout, and counts of 0 to 3 a sample with any total; both can lack a
// class, where macro ROC AUC must be NaN.
func TestMulticlassStatisticWrittenOut(t *testing.T) {
	t.Parallel()
	const logLossTol = 1e-12
	tests := []struct {
		name string
		n, k int
		// pool > 0 draws each model's rows from pool rows of small
		// integer weights: many tied scores, and tied argmaxes.
		pool int
		// rare leaves the last class a single sample.
		rare bool
	}{
		{name: "continuous", n: 300, k: 4},
		{name: "ties", n: 300, k: 3, pool: 5},
		{name: "rare class", n: 60, k: 5, rare: true},
		{name: "many classes", n: 200, k: 12, pool: 20},
		{name: "two samples", n: 2, k: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(tt.n), uint64(tt.k)))
			labels, left, right := multiclassSample(r, tt.n, tt.k, tt.pool)
			if tt.rare {
				for i := tt.k; i < tt.n; i++ {
					if int(labels[i]) == tt.k-1 {
						labels[i] = 0
					}
				}
			}
			for _, m := range Metrics() {
				if m.Multiclass == nil {
					continue
				}
				for _, stratified := range []bool{true, false} {
					opts := DefaultBootstrapOptions()
					opts.Unstratified = !stratified
					plan, err := planMulticlassBootstrap(m.Name, labels, left, right, tt.k, opts)
					require.NoError(t, err, m.Name)
					stat := plan.statistic()
					counts := make([]int32, tt.n)
					for rep := range 40 {
						clear(counts)
						switch {
						case rep == 0: // the sample itself
							for pos := range counts {
								counts[pos] = 1
							}
						case rep%2 == 1: // a bootstrap replicate of all samples
							for range tt.n {
								counts[r.IntN(tt.n)]++
							}
						default: // any counts
							for pos := range counts {
								counts[pos] = int32(r.IntN(4))
							}
							counts[r.IntN(tt.n)]++ // at least one sample
						}
						var drawn []int32
						var drawnLeft, drawnRight []float64
						for pos, c := range counts {
							i := int(plan.layout.perm[pos])
							for range c {
								drawn = append(drawn, labels[i])
								drawnLeft = append(drawnLeft, left[i*tt.k:(i+1)*tt.k]...)
								drawnRight = append(drawnRight, right[i*tt.k:(i+1)*tt.k]...)
							}
						}
						gotLeft, gotRight := stat(counts)
						for _, side := range []struct {
							got   float64
							probs []float64
						}{{gotLeft, drawnLeft}, {gotRight, drawnRight}} {
							want, err := m.Multiclass(drawn, side.probs, tt.k, opts.Options)
							if err != nil {
								require.ErrorIs(t, err, ErrSingleClass, m.Name)
								require.True(t, math.IsNaN(side.got), "%s: %v on a replicate lacking a class", m.Name, side.got)
								continue
							}
							tol := 0.0
							if m.Name == "log_loss" {
								tol = logLossTol
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

// TestMulticlassStratifiedKeepsClasses runs stats.PairedBootstrapCounts
// on the plan's strata with a statistic that counts the classes each
// replicate drew: stratified, every replicate has the sample's number of
// each class; unstratified, almost none has.
func TestMulticlassStratifiedKeepsClasses(t *testing.T) {
	t.Parallel()
	const n, k, B = 500, 4, 300
	r := rand.New(rand.NewPCG(21, 1))
	labels, left, right := multiclassSample(r, n, k, 0)
	for i := range labels {
		if labels[i] == 3 && r.Float64() < 0.8 {
			labels[i] = 1 // a small class, for unequal strata
		}
	}
	sizes := make([]int, k)
	for _, l := range labels {
		sizes[l]++
	}
	for _, stratified := range []bool{true, false} {
		opts := DefaultBootstrapOptions()
		opts.Resamples, opts.Unstratified = B, !stratified
		plan, err := planMulticlassBootstrap("macro_f1", labels, left, right, k, opts)
		require.NoError(t, err)
		if stratified {
			require.Equal(t, sizes, plan.layout.strata)
			for pos := 1; pos < n; pos++ {
				require.LessOrEqual(t, labels[plan.layout.perm[pos-1]], labels[plan.layout.perm[pos]], "classes in order")
			}
		} else {
			require.Equal(t, []int{n}, plan.layout.strata)
		}
		var kept, changed atomic.Int64
		newStatistic := func() stats.CountStatistic {
			stat := plan.statistic()
			drawn := make([]int, k)
			return func(counts []int32) (float64, float64) {
				clear(drawn)
				for pos, c := range counts {
					drawn[labels[plan.layout.perm[pos]]] += int(c)
				}
				if slices.Equal(drawn, sizes) {
					kept.Add(1)
				} else {
					changed.Add(1)
				}
				return stat(counts)
			}
		}
		_, err = stats.PairedBootstrapCounts(plan.layout.strata, newStatistic, opts.BootstrapOptions)
		require.NoError(t, err)
		// The sample itself is one more call, with every count 1.
		if stratified {
			require.Equal(t, [2]int64{B + 1, 0}, [2]int64{kept.Load(), changed.Load()})
		} else {
			require.Greater(t, changed.Load(), int64(B*9/10))
		}
	}
}

// multiclassSample returns n seeded labels, every class among the first k
// (n ≥ k), and two models' probability rows, each the softmax of the
// label's indicator plus N(0, 1) noise a class. With pool > 0 each model's
// rows are instead drawn from pool rows of integer weights 1 to 3,
// normalised: many samples then share a score, and many rows tie at their
// maximum.
func multiclassSample(r *rand.Rand, n, k, pool int) (labels []int32, left, right []float64) {
	labels = make([]int32, n)
	left, right = make([]float64, n*k), make([]float64, n*k)
	rows := make([][]float64, pool)
	for j := range rows {
		rows[j] = make([]float64, k)
		var sum float64
		for c := range rows[j] {
			rows[j][c] = float64(1 + r.IntN(3))
			sum += rows[j][c]
		}
		for c := range rows[j] {
			rows[j][c] /= sum
		}
	}
	for i := range n {
		labels[i] = int32(r.IntN(k))
		if i < k {
			labels[i] = int32(i)
		}
		for _, probs := range [][]float64{left, right} {
			row := probs[i*k : (i+1)*k]
			if pool > 0 {
				copy(row, rows[r.IntN(pool)])
				continue
			}
			var sum float64
			for c := range row {
				z := r.NormFloat64()
				if c == int(labels[i]) {
					z++
				}
				row[c] = math.Exp(z)
				sum += row[c]
			}
			for c := range row {
				row[c] /= sum
			}
		}
	}
	return labels, left, right
}
