package classify_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/stats"
)

// latentPair returns n samples whose labels come from a latent signal z,
// P(y = 1) = logistic(2z − shift), and two models that see z through
// independent N(0, 1) noise, the right one scaled by rightSignal. With
// rightSignal 1 the two models have the same true ROC AUC (and the same
// distribution of everything else): a null pair. Scores are
// probabilities, the logistic of z plus noise.
func latentPair(r *rand.Rand, n int, shift, rightSignal float64) (labels []int8, left, right []float64) {
	labels = make([]int8, n)
	left, right = make([]float64, n), make([]float64, n)
	for i := range n {
		z := r.NormFloat64()
		if r.Float64() < logistic(2*z-shift) {
			labels[i] = 1
		}
		left[i] = logistic(z + r.NormFloat64())
		right[i] = logistic(rightSignal*z + r.NormFloat64())
	}
	return labels, left, right
}

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// binaryMetrics returns the names of the metrics with a binary form.
func binaryMetrics() []string {
	var names []string
	for _, m := range classify.Metrics() {
		if m.Binary != nil {
			names = append(names, m.Name)
		}
	}
	return names
}

// TestPairedBootstrapEstimates checks that the point estimates are the
// metric's own values, bit for bit, and what the result says about the
// sample and the options.
func TestPairedBootstrapEstimates(t *testing.T) {
	t.Parallel()
	labels, left, right := latentPair(rand.New(rand.NewPCG(1, 1)), 3000, 1, 0.7)
	opts := classify.DefaultBootstrapOptions()
	opts.Resamples, opts.Seed, opts.Threshold, opts.Bins = 200, 5, 0.4, 15
	positives := 0
	for _, l := range labels {
		positives += int(l)
	}
	for _, name := range binaryMetrics() {
		m, err := classify.ParseMetric(name)
		require.NoError(t, err)
		wantLeft, err := m.Binary(labels, left, opts.Options)
		require.NoError(t, err)
		wantRight, err := m.Binary(labels, right, opts.Options)
		require.NoError(t, err)

		res, err := classify.PairedBootstrap(name, labels, left, right, opts)
		require.NoError(t, err, name)
		require.Equal(t, name, res.Metric)
		require.Equal(t, m.LowerIsBetter, res.LowerIsBetter, name)
		require.Equal(t, [3]float64{wantLeft, wantRight, wantLeft - wantRight}, [3]float64{res.Left, res.Right, res.Difference}, name)
		require.True(t, res.Stratified)
		require.Equal(t, [2]int{3000, positives}, [2]int{res.N, res.Positives})
		require.Equal(t, [2]int{200, 0}, [2]int{res.Resamples, res.Undefined})
		require.Equal(t, uint64(5), res.Seed)
		require.Equal(t, 0.95, res.Confidence)
		require.LessOrEqual(t, res.Low, res.High, name)
		require.Greater(t, res.SE, 0.0, name)
		require.True(t, res.PValue >= 2.0/201 && res.PValue <= 1, "%s: p = %v", name, res.PValue)
		switch name {
		case "accuracy", "precision", "recall", "f1":
			require.Equal(t, 0.4, *res.Threshold)
			require.Nil(t, res.Bins)
		case "ece":
			require.Equal(t, 15, *res.Bins)
			require.Nil(t, res.Threshold)
		default:
			require.Nil(t, res.Threshold)
			require.Nil(t, res.Bins)
		}
	}
}

// TestPairedBootstrapSameModel compares a model with itself: every
// replicate difference is 0, so the interval is [0, 0], the SE 0 and p = 1.
func TestPairedBootstrapSameModel(t *testing.T) {
	t.Parallel()
	labels, left, _ := latentPair(rand.New(rand.NewPCG(2, 1)), 500, 1, 1)
	opts := classify.DefaultBootstrapOptions()
	opts.Resamples = 300
	for _, name := range binaryMetrics() {
		res, err := classify.PairedBootstrap(name, labels, left, left, opts)
		require.NoError(t, err, name)
		require.Equal(t, [5]float64{0, 0, 0, 0, 1}, [5]float64{res.Difference, res.Low, res.High, res.SE, res.PValue}, name)
	}
}

// TestPairedBootstrapClearWinner gives the right model the labels
// themselves (up to a little noise) and the left one noise: every
// replicate has the right model ahead, so p takes its least value,
// 2/(B + 1), and the interval lies below zero (above, for the losses).
func TestPairedBootstrapClearWinner(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 1))
	n := 2000
	labels := make([]int8, n)
	left, right := make([]float64, n), make([]float64, n)
	for i := range n {
		if r.Float64() < 0.3 {
			labels[i] = 1
		}
		left[i] = r.Float64()
		right[i] = 0.1 + 0.8*float64(labels[i]) + 0.05*r.Float64()
	}
	opts := classify.DefaultBootstrapOptions()
	opts.Resamples = 999
	for _, name := range binaryMetrics() {
		res, err := classify.PairedBootstrap(name, labels, left, right, opts)
		require.NoError(t, err, name)
		require.InDelta(t, 2.0/1000, res.PValue, 1e-15, name)
		if res.LowerIsBetter {
			require.Greater(t, res.Low, 0.0, name)
		} else {
			require.Less(t, res.High, 0.0, name)
		}
	}
}

// TestPairedBootstrapUndefined draws all samples together from 40 with one
// positive: a replicate misses it with probability (39/40)⁴⁰ ≈ 0.363,
// which leaves the AUC and AP undefined there. Those replicates are
// counted and left out. Stratified, none is.
func TestPairedBootstrapUndefined(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 1))
	n, B := 40, 2000
	labels := make([]int8, n)
	left, right := make([]float64, n), make([]float64, n)
	labels[7] = 1
	for i := range n {
		left[i], right[i] = r.Float64(), r.Float64()
	}
	for _, name := range []string{"roc_auc", "average_precision"} {
		opts := classify.DefaultBootstrapOptions()
		opts.Resamples, opts.Unstratified = B, true
		res, err := classify.PairedBootstrap(name, labels, left, right, opts)
		require.NoError(t, err, name)
		require.False(t, res.Stratified)
		p := math.Pow(39.0/40, 40)
		require.InDelta(t, p*float64(B), float64(res.Undefined), 4.5*math.Sqrt(float64(B)*p*(1-p)), name)

		opts.Unstratified = false
		res, err = classify.PairedBootstrap(name, labels, left, right, opts)
		require.NoError(t, err, name)
		require.Zero(t, res.Undefined, name)
	}
}

// TestPairedBootstrapAgreesWithDeLong checks the AUC bootstrap against
// DeLong's test on the same data: the bootstrap standard error estimates
// the same standard deviation as DeLong's, within 10 %, and the two
// intervals nearly coincide.
func TestPairedBootstrapAgreesWithDeLong(t *testing.T) {
	t.Parallel()
	labels, left, right := latentPair(rand.New(rand.NewPCG(6, 1)), 4000, 1, 0.8)
	y := make([]float64, len(labels))
	for i, l := range labels {
		y[i] = float64(l)
	}
	dl, err := stats.DeLong(y, left, right, stats.DeLongOptions{})
	require.NoError(t, err)
	for _, unstratified := range []bool{false, true} {
		opts := classify.DefaultBootstrapOptions()
		opts.Unstratified, opts.Resamples = unstratified, 4000
		res, err := classify.PairedBootstrap("roc_auc", labels, left, right, opts)
		require.NoError(t, err)
		require.InDelta(t, dl.Diff, res.Difference, 1e-12)
		// The SE of B = 4000 replicates is within about 2.5 % of the
		// bootstrap's own; DeLong's is another estimate of the same.
		require.InEpsilon(t, dl.SE, res.SE, 0.10, "unstratified %v", unstratified)
		require.InDelta(t, dl.CILow, res.Low, 0.25*dl.SE)
		require.InDelta(t, dl.CIHigh, res.High, 0.25*dl.SE)
	}
}

func TestPairedBootstrapErrors(t *testing.T) {
	t.Parallel()
	labels := []int8{0, 1, 0, 1}
	left := []float64{0.1, 0.8, 0.3, 0.6}
	right := []float64{0.2, 0.7, 0.4, 0.5}
	opts := classify.DefaultBootstrapOptions()
	tests := []struct {
		name        string
		metric      string
		labels      []int8
		left, right []float64
		opts        func(*classify.BootstrapOptions)
		want        error
		message     string
	}{
		{name: "unknown metric", metric: "gini", want: classify.ErrUnknownMetric, message: `"gini"`},
		{name: "multi-class metric", metric: "macro_f1", want: classify.ErrUnknownMetric, message: "multi-class"},
		{name: "lengths", metric: "roc_auc", right: right[:3], want: classify.ErrLengths, message: "4 labels, 4 left scores, 3 right scores"},
		{name: "empty", metric: "log_loss", labels: []int8{}, left: []float64{}, right: []float64{}, want: classify.ErrEmpty},
		{name: "label", metric: "roc_auc", labels: []int8{0, 1, 2, 1}, want: classify.ErrLabel, message: "labels[2] is 2"},
		{name: "NaN left", metric: "roc_auc", left: []float64{0.1, math.NaN(), 0.3, 0.6}, want: classify.ErrNotFinite, message: "left value is not finite: scores[1] is NaN"},
		{name: "Inf right", metric: "brier", right: []float64{0.1, 0.2, math.Inf(1), 0.6}, want: classify.ErrNotFinite, message: "right value is not finite: scores[2]"},
		{name: "not a probability", metric: "log_loss", right: []float64{0.1, 1.5, 0.3, 0.6}, want: classify.ErrNotProbability, message: "right value is not a probability"},
		{name: "single class AUC", metric: "roc_auc", labels: []int8{1, 1, 1, 1}, want: classify.ErrSingleClass},
		{name: "single class AP", metric: "average_precision", labels: []int8{0, 0, 0, 0}, want: classify.ErrSingleClass},
		{name: "threshold", metric: "f1", opts: func(o *classify.BootstrapOptions) { o.Threshold = math.NaN() }, want: classify.ErrBadParameter},
		{name: "bins", metric: "ece", opts: func(o *classify.BootstrapOptions) { o.Bins = 0 }, want: classify.ErrBadParameter},
		{name: "BCa", metric: "roc_auc", opts: func(o *classify.BootstrapOptions) { o.Method = stats.BCa }, want: classify.ErrBadParameter, message: "percentile intervals only, not bca"},
		{name: "resamples", metric: "roc_auc", opts: func(o *classify.BootstrapOptions) { o.Resamples = stats.MaxResamples + 1 }, want: stats.ErrBadParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			l, a, b, o := labels, left, right, opts
			if tt.labels != nil {
				l = tt.labels
			}
			if tt.left != nil {
				a = tt.left
			}
			if tt.right != nil {
				b = tt.right
			}
			if tt.opts != nil {
				tt.opts(&o)
			}
			_, err := classify.PairedBootstrap(tt.metric, l, a, b, o)
			require.ErrorIs(t, err, tt.want)
			require.ErrorContains(t, err, tt.message)
		})
	}
	// Log loss, Brier, ECE and the threshold metrics are defined on one
	// class; stratified, the bootstrap then draws from that class alone.
	res, err := classify.PairedBootstrap("log_loss", []int8{1, 1, 1}, []float64{0.9, 0.8, 0.7}, []float64{0.6, 0.9, 0.9}, opts)
	require.NoError(t, err)
	require.Equal(t, 3, res.Positives)
}

// TestPairedBootstrapReproducible gives the same results bit for bit on
// one core and on two, for a ranking metric, a mean and a threshold
// metric, with enough samples to resample in parallel. Not parallel
// itself: it sets GOMAXPROCS.
func TestPairedBootstrapReproducible(t *testing.T) {
	labels, left, right := latentPair(rand.New(rand.NewPCG(7, 1)), 20_000, 2, 0.9)
	run := func(procs int) []classify.BootstrapResult {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var out []classify.BootstrapResult
		for _, name := range []string{"roc_auc", "average_precision", "log_loss", "f1", "ece"} {
			for _, unstratified := range []bool{false, true} {
				opts := classify.DefaultBootstrapOptions()
				opts.Resamples, opts.Seed, opts.Unstratified = 300, 11, unstratified
				res, err := classify.PairedBootstrap(name, labels, left, right, opts)
				require.NoError(t, err)
				out = append(out, res)
			}
		}
		return out
	}
	one := run(1)
	require.Equal(t, one, run(2))
	require.Equal(t, one, run(2), "and again")
}

func TestPairedBootstrapCancelled(t *testing.T) {
	t.Parallel()
	labels, left, right := latentPair(rand.New(rand.NewPCG(8, 1)), 200_000, 3, 1)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	opts := classify.DefaultBootstrapOptions()
	opts.Context = ctx
	_, err := classify.PairedBootstrap("roc_auc", labels, left, right, opts)
	require.ErrorIs(t, err, context.Canceled)
}

// TestPairedBootstrapCalibration simulates null pairs, two models with the
// same true AUC (latentPair with rightSignal 1), and runs a stratified
// bootstrap of the AUC difference on each: the share of p < 0.05 must lie
// in the central 99.9 % range of a Binomial(pairs, 0.05), and the share
// of 95 % intervals that cover the true difference 0 in that of a
// Binomial(pairs, 0.95). docs/classifiers.md records the rates.
func TestPairedBootstrapCalibration(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 1000 bootstraps")
	}
	t.Parallel()
	const pairs, n, B = 1000, 400, 500
	type outcome struct{ rejected, covered bool }
	outcomes := make([]outcome, pairs)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < pairs; i += workers {
				r := rand.New(rand.NewPCG(uint64(i), 99))
				labels, left, right := latentPair(r, n, 1, 1)
				opts := classify.DefaultBootstrapOptions()
				opts.Resamples, opts.Seed = B, uint64(i)
				res, err := classify.PairedBootstrap("roc_auc", labels, left, right, opts)
				if err != nil {
					panic(err)
				}
				outcomes[i] = outcome{rejected: res.PValue < 0.05, covered: res.Low <= 0 && 0 <= res.High}
			}
		})
	}
	wg.Wait()
	var rejected, covered int
	for _, o := range outcomes {
		if o.rejected {
			rejected++
		}
		if o.covered {
			covered++
		}
	}
	rejLow, rejHigh := binomialBand(pairs, 0.05, 0.999)
	covLow, covHigh := binomialBand(pairs, 0.95, 0.999)
	t.Logf("%d null pairs, n = %d, B = %d: p < 0.05 in %d (band %d–%d), 95%% interval covers 0 in %d (band %d–%d)",
		pairs, n, B, rejected, rejLow, rejHigh, covered, covLow, covHigh)
	require.True(t, rejected >= rejLow && rejected <= rejHigh, "rejections %d outside %d–%d", rejected, rejLow, rejHigh)
	require.True(t, covered >= covLow && covered <= covHigh, "coverage %d outside %d–%d", covered, covLow, covHigh)
}

// binomialBand returns the central range [low, high] of a Binomial(n, p)
// holding at least level of its mass: P(X < low) and P(X > high) are each
// at most (1 − level)/2.
func binomialBand(n int, p, level float64) (low, high int) {
	d := distuv.Binomial{N: float64(n), P: p}
	tail := (1 - level) / 2
	for low = 0; d.CDF(float64(low)) <= tail; low++ {
	}
	for high = n; 1-d.CDF(float64(high-1)) <= tail; high-- {
	}
	return low, high
}

func ExamplePairedBootstrap() {
	// Ten samples, four positive. The candidate (right) ranks every
	// positive above every negative; the baseline (left) does not.
	labels := []int8{0, 0, 1, 0, 1, 0, 1, 0, 1, 0}
	baseline := []float64{0.2, 0.5, 0.6, 0.3, 0.4, 0.7, 0.9, 0.1, 0.55, 0.35}
	candidate := []float64{0.1, 0.3, 0.8, 0.2, 0.7, 0.4, 0.9, 0.1, 0.6, 0.3}
	opts := classify.DefaultBootstrapOptions()
	opts.Seed = 1
	res, err := classify.PairedBootstrap("roc_auc", labels, baseline, candidate, opts)
	if err != nil {
		panic(err)
	}
	fmt.Printf("AUC %.3f vs %.3f: difference %.3f, 95%% CI [%.3f, %.3f], SE %.3f, p = %.3f (B = %d)\n",
		res.Left, res.Right, res.Difference, res.Low, res.High, res.SE, res.PValue, res.Resamples)
	// Output:
	// AUC 0.833 vs 1.000: difference -0.167, 95% CI [-0.500, 0.000], SE 0.136, p = 0.348 (B = 2000)
}
