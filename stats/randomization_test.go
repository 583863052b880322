package stats_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/verdict-ml/verdict/stats"
)

// exactSignFlipP returns the exact sign-flip p-value of the integer
// differences k, flipping whole groups (group[i] is row i's unit; nil: one
// row a unit): the share of the 2^units sign vectors s with
// |Σ_u s_u K_u| ≥ |Σ_u K_u|, K_u the sum of unit u's k. Integers make the
// ties exact.
func exactSignFlipP(k []int64, group []int) float64 {
	var sums []int64
	if group == nil {
		sums = k
	} else {
		for i, g := range group {
			for len(sums) <= g {
				sums = append(sums, 0)
			}
			sums[g] += k[i]
		}
	}
	var observed int64
	for _, v := range sums {
		observed += v
	}
	observed = max(observed, -observed)
	count := 0
	for mask := range 1 << len(sums) {
		var t int64
		for u, v := range sums {
			if mask>>u&1 == 1 {
				t -= v
			} else {
				t += v
			}
		}
		if max(t, -t) >= observed {
			count++
		}
	}
	return float64(count) / float64(int(1)<<len(sums))
}

// requireMonteCarloP checks a Monte Carlo p-value (count + 1)/(B + 1)
// against the exact p: count is Binomial(B, exact), so p has mean
// (B·exact + 1)/(B + 1) and standard error √(B·exact·(1 − exact))/(B + 1).
func requireMonteCarloP(t *testing.T, got, exact float64, B int) {
	t.Helper()
	b := float64(B)
	mean := (b*exact + 1) / (b + 1)
	se := math.Sqrt(b*exact*(1-exact)) / (b + 1)
	require.InDelta(t, mean, got, mcSigmas*se+resampleExactTol, "Monte Carlo p %g against exact %g", got, exact)
}

// TestRandomizationExactEnumeration checks the randomisation p-value
// against the exact one from all 2ⁿ sign vectors, for n ≤ 16. Differences
// are integers times a step, built as left − right in floating point so
// that sign vectors tied in exact arithmetic can differ by rounding: the
// tolerance in the count must still see them as ties.
func TestRandomizationExactEnumeration(t *testing.T) {
	t.Parallel()
	const B = 20_000
	tests := []struct {
		name  string
		k     []int64
		step  float64
		group []int // unit of each row; nil: one row a unit
	}{
		{name: "small gap, n=5", k: []int64{1, -2, 3, 1, 2}, step: 1},
		{name: "tenths with ties, n=8", k: []int64{1, 2, -3, 4, 3, -2, 1, 0}, step: 0.1},
		{name: "thirds, n=12", k: []int64{1, 1, -1, 2, 0, 3, -2, 1, 1, 2, -1, 1}, step: 1.0 / 3},
		{name: "binary scores, n=16", k: []int64{1, 1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0, 1, 1, -1, 0}, step: 1},
		{name: "clear gap, n=16", k: []int64{3, 5, 2, 4, 6, 1, 3, 2, 5, 4, -1, 3, 2, 4, 6, 2}, step: 0.01},
		{name: "units, 7 of 1 to 3 rows", k: []int64{2, -1, 3, 1, 1, -2, 0, 4, -3, 2, 1, 1}, step: 0.2,
			group: []int{0, 0, 1, 2, 2, 2, 3, 4, 4, 5, 6, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			left, right := make([]float64, len(tt.k)), make([]float64, len(tt.k))
			var units []string
			for i, k := range tt.k {
				right[i] = 0.7 + 0.01*float64(i)
				left[i] = right[i] + float64(k)*tt.step
				if tt.group != nil {
					units = append(units, "unit "+strconv.Itoa(tt.group[i]))
				}
			}
			got, err := stats.Randomization(left, right, units, stats.RandomizationOptions{Permutations: B, Seed: 1})
			require.NoError(t, err)
			require.Equal(t, B, got.Permutations)
			requireMonteCarloP(t, got.PValue, exactSignFlipP(tt.k, tt.group), B)
		})
	}
}

// TestRandomizationExactBinomial checks the p-value past one block of
// sign flips: with every |d_i| = 1, Σ s_i·d_i is 2·Binomial(n, ½) − n
// whatever the signs of d, so the exact p is P(|2X − n| ≥ |Σ d|).
func TestRandomizationExactBinomial(t *testing.T) {
	t.Parallel()
	const n, positives, B = 5003, 2571, 20_000
	left, right := make([]float64, n), make([]float64, n)
	for i := range left {
		if i < positives {
			left[i] = 1
		} else {
			right[i] = 1
		}
	}
	var observed float64
	for i := range left {
		observed += left[i] - right[i]
	}
	require.Equal(t, float64(2*positives-n), observed)
	x := distuv.Binomial{N: n, P: 0.5}
	// |2X − n| ≥ T ⇔ X ≥ (n + T)/2 or X ≤ (n − T)/2.
	exact := x.CDF(math.Floor((n-observed)/2)) + x.Survival(math.Ceil((n+observed)/2)-1)
	got, err := stats.Randomization(left, right, nil, stats.RandomizationOptions{Permutations: B, Seed: 2})
	require.NoError(t, err)
	requireMonteCarloP(t, got.PValue, exact, B)
}

// TestRandomizationNeverZero checks the +1 correction: differences all of
// one sign leave only the two vectors ±1 as extreme as the observed one, a
// chance of 2⁻²⁹ a flip, so no flip is counted and p = 1/(B + 1), not 0.
func TestRandomizationNeverZero(t *testing.T) {
	t.Parallel()
	left, right := make([]float64, 30), make([]float64, 30)
	for i := range left {
		left[i] = 0.5 + 0.01*float64(i)
		right[i] = 0.3
	}
	for _, tt := range []struct{ permutations, B int }{{0, 2000}, {99, 99}, {5000, 5000}} {
		got, err := stats.Randomization(left, right, nil, stats.RandomizationOptions{Permutations: tt.permutations})
		require.NoError(t, err)
		require.Equal(t, tt.B, got.Permutations)
		require.InDelta(t, 1/float64(tt.B+1), got.PValue, resampleExactTol)
		require.Positive(t, got.PValue)
	}
}

// TestRandomizationAllZero checks that differences all zero to within
// rounding give p = 1 exactly, and that one unit gives p = 1 as well.
func TestRandomizationAllZero(t *testing.T) {
	t.Parallel()
	// Variables, not constants: Go folds constant arithmetic exactly.
	tenth, fifth, seventh := 0.1, 0.2, 0.7
	require.NotEqual(t, 0.3, tenth+fifth, "the rounding case needs differences that are not exactly 0")
	tests := []struct {
		name        string
		left, right []float64
		units       []string
	}{
		{name: "identical", left: []float64{0.2, 0.4, 1}, right: []float64{0.2, 0.4, 1}},
		{name: "zeros", left: []float64{0, 0}, right: []float64{0, 0}},
		{name: "rounding", left: []float64{tenth + fifth, 3 * tenth, seventh}, right: []float64{0.3, 0.3, 7 * tenth}},
		{name: "one pair", left: []float64{0.9}, right: []float64{0.1}},
		{name: "one unit", left: []float64{0.9, 0.2, 0.6}, right: []float64{0.1, 0.2, 0.3}, units: []string{"u", "u", "u"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := stats.Randomization(tt.left, tt.right, tt.units, stats.RandomizationOptions{})
			require.NoError(t, err)
			require.Equal(t, 1.0, got.PValue, "exactly 1")
		})
	}
}

func TestRandomizationErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		left, right []float64
		units       []string
		opts        stats.RandomizationOptions
		want        error
	}{
		{name: "empty", left: nil, right: nil, want: stats.ErrTooFew},
		{name: "NaN", left: []float64{math.NaN()}, right: []float64{0}, want: stats.ErrNotFinite},
		{name: "Inf", left: []float64{0}, right: []float64{math.Inf(1)}, want: stats.ErrNotFinite},
		{name: "lengths", left: []float64{1, 2, 3}, right: []float64{1, 2}, want: stats.ErrLengths},
		{name: "units length", left: []float64{1}, right: []float64{2}, units: []string{"a", "b"}, want: stats.ErrLengths},
		{name: "negative permutations", left: []float64{1}, right: []float64{2}, opts: stats.RandomizationOptions{Permutations: -5}, want: stats.ErrBadParameter},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := stats.Randomization(tt.left, tt.right, tt.units, tt.opts)
			require.ErrorIs(t, err, tt.want)
		})
	}
}

func TestRandomizationResultJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(stats.RandomizationResult{Estimate: 0.25, PValue: 0.5, Permutations: 2000})
	require.NoError(t, err)
	require.JSONEq(t, `{"estimate":0.25,"p_value":0.5,"permutations":2000}`, string(b))
}

// TestRandomizationUnitsFlipTogether checks that units change the test:
// with one row a unit it is the row test bit for bit, and with rows of a
// unit sharing an effect the p-value is larger than the rows' (which
// overstates the evidence).
func TestRandomizationUnitsFlipTogether(t *testing.T) {
	t.Parallel()
	c := clustered(rand.New(rand.NewPCG(12, 1)), 40, 0.4)
	rows, err := stats.Randomization(c.left, c.right, nil, stats.RandomizationOptions{})
	require.NoError(t, err)
	units, err := stats.Randomization(c.left, c.right, c.units, stats.RandomizationOptions{})
	require.NoError(t, err)
	require.InDelta(t, rows.Estimate, units.Estimate, resampleExactTol)
	require.Greater(t, units.PValue, rows.PValue)

	ids := make([]string, len(c.left))
	for i := range ids {
		ids[i] = "row " + strconv.Itoa(i)
	}
	own, err := stats.Randomization(c.left, c.right, ids, stats.RandomizationOptions{})
	require.NoError(t, err)
	require.Equal(t, rows, own)
}
