package stats_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-ml/verdict/stats"
)

// resampleExactTol bounds the error of values that should come out exact but for a
// few roundings of float64 arithmetic.
const resampleExactTol = 1e-12

// mcSigmas is how many Monte Carlo standard errors a resampled quantity may
// stray from its reference before a test fails. The tests are seeded, so a
// pass is reproducible; 4.5 σ keeps the chance that a correct
// implementation fails under 10⁻⁵ per check.
const mcSigmas = 4.5

// referenceResamples is the number of replicates of the reference
// bootstraps: with 200,000 their own quantiles are 10 times tighter than
// those of the 2000 resamples under test.
const referenceResamples = 200_000

// clusterRows are paired rows with their units: unit u has a shared
// effect, so rows of a unit move together.
type clusterRows struct {
	left, right []float64
	units       []string
}

// skewedSample returns n draws from a lognormal distribution with σ = 1,
// strongly skewed to the right.
func skewedSample(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = math.Exp(rng.NormFloat64())
	}
	return x
}

// clustered returns rows of nUnits units with 1 to 5 rows each, left and
// right sharing a unit effect of scale spread.
func clustered(rng *rand.Rand, nUnits int, spread float64) clusterRows {
	var c clusterRows
	for u := range nUnits {
		effect := spread * rng.NormFloat64()
		for range 1 + rng.IntN(5) {
			base := rng.Float64()
			c.left = append(c.left, base+effect+0.05+0.1*rng.NormFloat64())
			c.right = append(c.right, base+0.1*rng.NormFloat64())
			c.units = append(c.units, "unit "+strconv.Itoa(u))
		}
	}
	return c
}

// referenceBootstrap is a plain, independent bootstrap of the row-weighted
// mean of x over units (nil: one row a unit): per replicate it draws
// n_units units with math/rand/v2's PCG, one index at a time. It returns
// the sorted replicate means and, for BCa, the jackknife acceleration
// computed by leaving out each unit and recomputing the mean from scratch.
func referenceBootstrap(x []float64, units []string, B int, seed uint64) (sorted []float64, accel float64) {
	var groups [][]float64
	index := map[string]int{}
	for i, v := range x {
		key := "row " + strconv.Itoa(i)
		if units != nil {
			key = units[i]
		}
		j, ok := index[key]
		if !ok {
			j = len(groups)
			index[key] = j
			groups = append(groups, nil)
		}
		groups[j] = append(groups[j], v)
	}
	rng := rand.New(rand.NewPCG(seed, 99))
	sorted = make([]float64, B)
	for b := range sorted {
		var sum, rows float64
		for range groups {
			for _, v := range groups[rng.IntN(len(groups))] {
				sum += v
				rows++
			}
		}
		sorted[b] = sum / rows
	}
	slices.Sort(sorted)

	jack := make([]float64, len(groups))
	for u := range groups {
		var sum, rows float64
		for w, g := range groups {
			if w != u {
				for _, v := range g {
					sum += v
					rows++
				}
			}
		}
		jack[u] = sum / rows
	}
	var mean float64
	for _, t := range jack {
		mean += t / float64(len(jack))
	}
	var num, den float64
	for _, t := range jack {
		num += math.Pow(mean-t, 3)
		den += math.Pow(mean-t, 2)
	}
	return sorted, num / (6 * math.Pow(den, 1.5))
}

// referenceLevels returns the quantile levels of a c interval from the
// reference replicates: the percentile levels, or BCa's from z₀ and a.
func referenceLevels(sorted []float64, est, accel, c float64, method stats.IntervalMethod) (lo, hi float64) {
	lo, hi = (1-c)/2, (1+c)/2
	if method != stats.BCa {
		return lo, hi
	}
	var below float64
	for _, m := range sorted {
		switch {
		case m < est:
			below++
		case m == est:
			below += 0.5
		}
	}
	z0 := distuv.UnitNormal.Quantile(below / float64(len(sorted)))
	level := func(q float64) float64 {
		z := z0 + distuv.UnitNormal.Quantile(q)
		return distuv.UnitNormal.CDF(z0 + z/(1-accel*z))
	}
	return level(lo), level(hi)
}

// requireAtLevel checks that bound sits at quantile level q of a
// distribution given by its CDF to within the Monte Carlo error of the
// q-quantile of B draws and of the reference, sigmaRef (in levels): the
// mass strictly below bound must not exceed q, nor the mass at or below it
// fall short of q, by more than mcSigmas standard errors. Working in levels
// rather than values keeps the check fair for discrete distributions.
func requireAtLevel(t *testing.T, name string, bound, q float64, B int, sigmaRef float64, below, atOrBelow func(float64) float64) {
	t.Helper()
	tol := mcSigmas * math.Hypot(math.Sqrt(q*(1-q)/float64(B)), sigmaRef)
	require.LessOrEqual(t, below(bound), q+tol, "%s %g: too much mass below it for level %g", name, bound, q)
	require.GreaterOrEqual(t, atOrBelow(bound), q-tol, "%s %g: too little mass at or below it for level %g", name, bound, q)
}

// empiricalCDFs returns the strict and non-strict empirical CDFs of sorted.
func empiricalCDFs(sorted []float64) (below, atOrBelow func(float64) float64) {
	n := float64(len(sorted))
	below = func(x float64) float64 {
		i, _ := slices.BinarySearch(sorted, x)
		return float64(i) / n
	}
	atOrBelow = func(x float64) float64 {
		i, found := slices.BinarySearch(sorted, x)
		for found && i < len(sorted) && sorted[i] == x {
			i++
		}
		return float64(i) / n
	}
	return below, atOrBelow
}

// TestBootstrapAgreesWithReference checks percentile and BCa bounds, one
// sample, paired and clustered, against referenceBootstrap with 200,000
// replicates: each bound must sit at its quantile level of the reference
// distribution to within Monte Carlo error.
func TestBootstrapAgreesWithReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	skewed := skewedSample(rng, 15)
	normalL, normalR := make([]float64, 60), make([]float64, 60)
	for i := range normalL {
		normalL[i] = rng.Float64()
		normalR[i] = normalL[i] - 0.05 + 0.2*rng.NormFloat64()
	}
	clusters := clustered(rng, 25, 0.3)
	tests := []struct {
		name  string
		left  []float64
		right []float64 // nil: one-sample Bootstrap of left
		units []string
		conf  float64
	}{
		{name: "skewed one sample", left: skewed, conf: 0.95},
		{name: "skewed one sample, 90 %", left: skewed, conf: 0.90},
		{name: "paired normal", left: normalL, right: normalR, conf: 0.95},
		{name: "paired clusters", left: clusters.left, right: clusters.right, units: clusters.units, conf: 0.95},
	}
	for _, tt := range tests {
		for _, method := range []stats.IntervalMethod{stats.Percentile, stats.BCa} {
			t.Run(tt.name+"/"+string(method), func(t *testing.T) {
				t.Parallel()
				opts := stats.BootstrapOptions{Confidence: tt.conf, Seed: 7, Method: method}
				x := tt.left
				var got stats.BootstrapResult
				var err error
				if tt.right == nil {
					got, err = stats.Bootstrap(tt.left, opts)
				} else {
					got, err = stats.PairedBootstrap(tt.left, tt.right, tt.units, opts)
					x = make([]float64, len(tt.left))
					for i := range x {
						x[i] = tt.left[i] - tt.right[i]
					}
				}
				require.NoError(t, err)
				var mean float64
				for _, v := range x {
					mean += v / float64(len(x))
				}
				require.True(t, scalar.EqualWithinAbsOrRel(got.Estimate, mean, resampleExactTol, resampleExactTol), "estimate %g, want mean %g", got.Estimate, mean)

				sorted, accel := referenceBootstrap(x, tt.units, referenceResamples, 11)
				lo, hi := referenceLevels(sorted, mean, accel, tt.conf, method)
				// BCa's levels move with z₀, itself estimated from the
				// replicates: about 0.003 in level for B = 2000 near the
				// 2.5 % tail (δlevel ≈ 2·φ(z)·δz₀, δz₀ ≈ 0.5/(φ(z₀)·√B)).
				sigmaLevel := 0.0
				if method == stats.BCa {
					sigmaLevel = 0.003
				}
				below, atOrBelow := empiricalCDFs(sorted)
				requireAtLevel(t, "ci_low", got.Low, lo, got.Resamples, sigmaLevel, below, atOrBelow)
				requireAtLevel(t, "ci_high", got.High, hi, got.Resamples, sigmaLevel, below, atOrBelow)
			})
		}
	}
}

// TestBootstrapExactBinomial checks the percentile bounds against an exact
// reference on samples past one resampling block: the bootstrap sum of n
// values in {0, 1}, k of them ones, is Binomial(n, k/n). The clustered case
// gives every unit 3 rows, all 0 or all 1, so that its row-weighted mean is
// Binomial(units, k/units)/units as well. The ones come first, so that
// the blocks the resampling draws from differ as much as they can.
func TestBootstrapExactBinomial(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		nUnits int
		rows   int // rows per unit; 1: no units
		pOne   float64
	}{
		{name: "5000 rows", nUnits: 5000, rows: 1, pOne: 0.3},
		{name: "20011 rows, 99 %", nUnits: 20011, rows: 1, pOne: 0.02},
		{name: "3000 units of 3 rows", nUnits: 3000, rows: 3, pOne: 0.6},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rng := rand.New(rand.NewPCG(3, uint64(i)))
			var left, right []float64
			var units []string
			ones := 0
			for range tt.nUnits {
				if rng.Float64() < tt.pOne {
					ones++
				}
			}
			for u := range tt.nUnits {
				v := 0.0
				if u < ones {
					v = 1
				}
				for range tt.rows {
					left = append(left, v)
					right = append(right, 0)
					if tt.rows > 1 {
						units = append(units, strconv.Itoa(u))
					}
				}
			}
			conf := 0.95
			if tt.nUnits == 20011 {
				conf = 0.99
			}
			got, err := stats.PairedBootstrap(left, right, units, stats.BootstrapOptions{Confidence: conf, Seed: 5})
			require.NoError(t, err)
			sum := distuv.Binomial{N: float64(tt.nUnits), P: float64(ones) / float64(tt.nUnits)}
			n := float64(tt.nUnits)
			// The bounds interpolate between means k/n; snap to the grid
			// before asking the CDF, so that rounding cannot move a bound
			// across a grid point.
			below := func(m float64) float64 {
				k := m * n
				if r := math.Round(k); math.Abs(k-r) < 1e-6 {
					return sum.CDF(r - 1)
				}
				return sum.CDF(math.Floor(k))
			}
			atOrBelow := func(m float64) float64 {
				k := m * n
				if r := math.Round(k); math.Abs(k-r) < 1e-6 {
					return sum.CDF(r)
				}
				return sum.CDF(math.Floor(k))
			}
			requireAtLevel(t, "ci_low", got.Low, (1-conf)/2, got.Resamples, 0, below, atOrBelow)
			requireAtLevel(t, "ci_high", got.High, (1+conf)/2, got.Resamples, 0, below, atOrBelow)
		})
	}
}

func TestBootstrapZeroWidth(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		values []float64
		want   float64
	}{
		{name: "one value", values: []float64{0.37}, want: 0.37},
		{name: "all equal", values: []float64{0.1, 0.1, 0.1, 0.1}, want: 0.1},
		{name: "one zero", values: []float64{0}, want: 0},
	}
	for _, tt := range tests {
		for _, method := range []stats.IntervalMethod{stats.Percentile, stats.BCa} {
			t.Run(tt.name+"/"+string(method), func(t *testing.T) {
				t.Parallel()
				got, err := stats.Bootstrap(tt.values, stats.BootstrapOptions{Method: method})
				require.NoError(t, err)
				require.Equal(t, stats.BootstrapResult{
					Estimate: tt.want, Low: tt.want, High: tt.want,
					Confidence: 0.95, Resamples: 2000, Seed: 0,
				}, got, "a zero-width interval exactly at the value")
			})
		}
	}

	t.Run("one unit", func(t *testing.T) {
		t.Parallel()
		got, err := stats.PairedBootstrap([]float64{1, 0.5, 0}, []float64{0, 0, 0}, []string{"u", "u", "u"}, stats.BootstrapOptions{})
		require.NoError(t, err)
		require.InDelta(t, 0.5, got.Estimate, resampleExactTol)
		require.Equal(t, got.Estimate, got.Low)
		require.Equal(t, got.Estimate, got.High)
	})
}

// TestBootstrapBCaSkewed checks that on a right-skewed sample BCa moves
// both bounds up from the percentile ones, as the acceleration
// Σ(x − x̄)³ / (6 (Σ(x − x̄)²)^{3/2}) > 0 says it should: the percentile
// interval of a right-skewed mean is too far left (Efron and Tibshirani
// 1993, §14.3). Agreement with a reference BCa is in
// TestBootstrapAgreesWithReference.
func TestBootstrapBCaSkewed(t *testing.T) {
	t.Parallel()
	x := skewedSample(rand.New(rand.NewPCG(8, 8)), 25)
	perc, err := stats.Bootstrap(x, stats.BootstrapOptions{Seed: 3})
	require.NoError(t, err)
	bca, err := stats.Bootstrap(x, stats.BootstrapOptions{Seed: 3, Method: stats.BCa})
	require.NoError(t, err)
	require.Equal(t, perc.Estimate, bca.Estimate)
	require.Greater(t, bca.Low, perc.Low)
	require.Greater(t, bca.High, perc.High)
	require.Greater(t, bca.High-bca.Low, perc.High-perc.Low, "BCa stretches the long right tail")
}

// TestPairedBootstrapUnits checks what resampling units changes: nothing
// when every unit is one row, and a wider interval when rows of a unit
// share an effect (a row bootstrap treats them as independent).
func TestPairedBootstrapUnits(t *testing.T) {
	t.Parallel()
	c := clustered(rand.New(rand.NewPCG(5, 6)), 200, 0.5)
	rows, err := stats.PairedBootstrap(c.left, c.right, nil, stats.BootstrapOptions{})
	require.NoError(t, err)
	clusters, err := stats.PairedBootstrap(c.left, c.right, c.units, stats.BootstrapOptions{})
	require.NoError(t, err)
	require.InDelta(t, rows.Estimate, clusters.Estimate, resampleExactTol, "the same row-weighted mean")
	require.Greater(t, clusters.High-clusters.Low, 1.3*(rows.High-rows.Low))

	ids := make([]string, len(c.left))
	for i := range ids {
		ids[i] = "row " + strconv.Itoa(i)
	}
	own, err := stats.PairedBootstrap(c.left, c.right, ids, stats.BootstrapOptions{})
	require.NoError(t, err)
	require.Equal(t, rows, own, "one row a unit is the row bootstrap, bit for bit")
}

func TestBootstrapErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		left, right []float64
		units       []string
		opts        stats.BootstrapOptions
		want        error
	}{
		{name: "empty", left: []float64{}, right: []float64{}, want: stats.ErrTooFew},
		{name: "NaN", left: []float64{1, math.NaN()}, right: []float64{0, 0}, want: stats.ErrNotFinite},
		{name: "Inf", left: []float64{1, 2}, right: []float64{math.Inf(-1), 0}, want: stats.ErrNotFinite},
		{name: "difference overflows", left: []float64{1e308}, right: []float64{-1e308}, want: stats.ErrNotFinite},
		{name: "lengths", left: []float64{1, 2}, right: []float64{1}, want: stats.ErrLengths},
		{name: "units length", left: []float64{1, 2}, right: []float64{1, 2}, units: []string{"a"}, want: stats.ErrLengths},
		{name: "confidence 1", left: []float64{1}, right: []float64{0}, opts: stats.BootstrapOptions{Confidence: 1}, want: stats.ErrBadParameter},
		{name: "negative confidence", left: []float64{1}, right: []float64{0}, opts: stats.BootstrapOptions{Confidence: -0.5}, want: stats.ErrBadParameter},
		{name: "negative resamples", left: []float64{1}, right: []float64{0}, opts: stats.BootstrapOptions{Resamples: -1}, want: stats.ErrBadParameter},
		{name: "unknown method", left: []float64{1}, right: []float64{0}, opts: stats.BootstrapOptions{Method: "studentized"}, want: stats.ErrBadParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := stats.PairedBootstrap(tt.left, tt.right, tt.units, tt.opts)
			require.ErrorIs(t, err, tt.want)
		})
	}
	_, err := stats.Bootstrap(nil, stats.BootstrapOptions{})
	require.ErrorIs(t, err, stats.ErrTooFew)
	_, err = stats.Bootstrap([]float64{0, math.NaN()}, stats.BootstrapOptions{})
	require.ErrorIs(t, err, stats.ErrNotFinite)
	require.ErrorContains(t, err, "values[1] is NaN")
}

func TestBootstrapResultJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(stats.BootstrapResult{Estimate: 0.5, Low: 0.25, High: 0.75, Confidence: 0.95, Resamples: 2000, Seed: 3})
	require.NoError(t, err)
	require.JSONEq(t, `{"estimate":0.5,"ci_low":0.25,"ci_high":0.75,"confidence":0.95,"resamples":2000,"seed":3}`, string(b))
}
