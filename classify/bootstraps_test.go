package classify_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/classify"
)

// TestPairedBootstrapsOfIsEachMetricAlone checks that bootstrapping
// several metrics at once, with shared draws, gives each metric's own
// result bit for bit, errors included: binary metrics (ranking and mean
// and threshold ones, whose layouts differ), with and without strata, a
// log loss refused for scores outside [0, 1], and multi-class metrics.
func TestPairedBootstrapsOfIsEachMetricAlone(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	const n = 3000
	labels := make([]int32, n)
	left, right := make([]float64, n), make([]float64, n)
	for i := range labels {
		if r.Float64() < 0.1 {
			labels[i] = 1
		}
		// Rounded to two digits, so that scores tie.
		left[i] = float64(int((0.3*float64(labels[i])+0.7*r.Float64())*100)) / 100
		right[i] = float64(int((0.2*float64(labels[i])+0.8*r.Float64())*100)) / 100
	}
	logits := make([]float64, n)
	for i, p := range left {
		logits[i] = 4*p - 2 // not probabilities: log loss is refused
	}
	check := func(t *testing.T, metrics []string, labels []int32, left, right []float64, k int, opts classify.BootstrapOptions) {
		t.Helper()
		got, errs := classify.PairedBootstrapsOf(metrics, labels, left, right, k, opts)
		require.Len(t, got, len(metrics))
		for i, m := range metrics {
			want, err := classify.PairedBootstrapOf(m, labels, left, right, k, opts)
			if err != nil {
				require.EqualError(t, errs[i], err.Error(), m)
				continue
			}
			require.NoError(t, errs[i], m)
			require.Equal(t, want, got[i], m)
		}
	}
	binary := []string{"roc_auc", "log_loss", "average_precision", "brier", "accuracy", "f1", "ece"}
	for _, unstratified := range []bool{false, true} {
		opts := classify.DefaultBootstrapOptions()
		opts.Resamples, opts.Seed, opts.Unstratified = 300, 11, unstratified
		check(t, binary, labels, left, right, 1, opts)
		check(t, binary, labels, logits, right, 1, opts)
	}
	ml, pl, pr := multiclassPair(r, 1500, 3, 0.8)
	opts := classify.DefaultBootstrapOptions()
	opts.Resamples = 200
	check(t, multiclassMetrics(), ml, pl, pr, 3, opts)
}
