package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"
)

// The reference numbers below are onlineFDR's (the R/Bioconductor package
// of Robertson et al., github.com/dsrobertson/onlineFDR), taken from its
// documentation and unit tests as stored at the commits named; R is not
// needed to run these tests.
const (
	// onlineDocRelTol: the documented levels are printed to 7–10
	// significant digits, so they agree with exact ones to within 5e-7
	// relative.
	onlineDocRelTol = 1e-6
	// onlineChainRelTol: OnlineFDR and a chain of Next calls differ only
	// by rounding (lord-dep's Next divides to recover W(τ)).
	onlineChainRelTol = 1e-12
)

// onlineSampleP is sample.df$pval of onlineFDR's examples (R/LORD.R,
// R/LOND.R, reference/LORD.md, docs/reference/LOND.md), in the order of
// the data frame, which is the order random = FALSE tests them in.
var onlineSampleP = []float64{
	2.90e-08, 0.06743, 0.01514, 0.08174, 0.00171,
	3.60e-05, 0.79149, 0.27201, 0.28295, 7.59e-08,
	0.69274, 0.30443, 0.00136, 0.72342, 0.54757,
}

// onlineSampleSeededP is sample.df$pval in the order set.seed(1) and
// onlineFDR's within-date shuffle put it in, as the seeded examples print
// it (pval column of `set.seed(1); LORD(sample.df, version='dep')` and of
// `set.seed(1); LOND(sample.df)`).
var onlineSampleSeededP = []float64{
	2.90e-08, 0.06743, 0.01514, 0.08174, 0.00171,
	0.27201, 3.60e-05, 0.79149, 7.59e-08, 0.28295,
	0.69274, 0.72342, 0.30443, 0.54757, 0.00136,
}

// onlineLONDSampleLevels is the alphai column of `LOND(sample.df,
// random=FALSE)` in onlineFDR's docs/reference/LOND.md, Examples (commit
// 1d89c48f1a5c046dc150c06b1688bdf8ad72607d); it rejects tests 1, 6 and 10.
var onlineLONDSampleLevels = []float64{
	0.0026758385, 0.0011638206, 0.0009912499, 0.0008243606, 0.0006988870,
	0.0006045900, 0.0007979166, 0.0007117838, 0.0006421423, 0.0005847378,
	0.0007155186, 0.0006610273, 0.0006141682, 0.0005734509, 0.0005377472,
}

func TestOnlineFDRReference(t *testing.T) {
	t.Parallel()
	// lond-dep: onlineFDR documents no levels for LOND(dep = TRUE). Its
	// R/LOND.R (commit 605816dcfe28094316a7178d5c81fdd2d952f1cd, the
	// `if (dep)` block) divides betai by cumsum(1/seq_len(N)) and nothing
	// else, so where the decisions agree its levels are LOND's divided by
	// H(t). On sample.df they do (tests 1, 6, 10: each p is below LOND's
	// level over H(t), and every other p above LOND's level).
	londDep := make([]float64, len(onlineLONDSampleLevels))
	for i, l := range onlineLONDSampleLevels {
		londDep[i] = l / harmonicNumber(i+1)
	}
	tests := []struct {
		name   string
		opts   OnlineFDROptions
		p      []float64
		levels []float64
		reject []int
	}{
		{
			// reference/LORD.md, Examples, `LORD(sample.df, random=FALSE)`
			// (commit 7417eb66f720d944a149436cfdcd9ced8c6008c5).
			name: "lord++ sample.df",
			opts: OnlineFDROptions{Method: OnlineLORDPlusPlus},
			p:    onlineSampleP,
			levels: []float64{
				0.0002675839, 0.0024664457, 0.0005732818, 0.0004872805, 0.0004059066,
				0.0003447286, 0.0029745013, 0.0008450114, 0.0007305648, 0.0006243143,
				0.0032185913, 0.0010617227, 0.0009256825, 0.0008019657, 0.0007059610,
			},
			reject: []int{1, 6, 10},
		},
		{
			// reference/LORD.md, Examples, `set.seed(1); LORD(sample.df,
			// alpha=0.1, w0=0.05)` (commit 7417eb66…), in its printed order.
			name: "lord++ alpha 0.1 w0 0.05 seeded sample.df",
			opts: OnlineFDROptions{Method: OnlineLORDPlusPlus, Alpha: 0.1, W0: 0.05},
			p:    onlineSampleSeededP,
			levels: []float64{
				0.0026758385, 0.0032577488, 0.0010775352, 0.0009078052, 0.0007616238,
				0.0006517385, 0.0005682672, 0.0058549106, 0.0016151293, 0.0067518870,
				0.0023619734, 0.0020342733, 0.0017477495, 0.0015277362, 0.0013569121,
			},
			reject: []int{1, 7, 9},
		},
		{
			// reference/LORD.md, Examples, `set.seed(1); LORD(sample.df,
			// version='dep')` (commit 7417eb66…), in its printed order. Its
			// first level, 2.091542e-03 = 0.005·0.139307/log(2)³, shows ξ
			// without the factor α/b0 of older sources.
			name: "lord-dep seeded sample.df",
			opts: OnlineFDROptions{Method: OnlineLORDDep},
			p:    onlineSampleSeededP,
			levels: []float64{
				2.091542e-03, 1.002025e-02, 1.677763e-03, 6.262659e-04, 3.201787e-04,
				1.933725e-04, 1.293954e-04, 1.548152e-04, 1.166482e-04, 1.422614e-04,
				1.145119e-04, 9.432408e-05, 7.916885e-05, 6.749313e-05, 5.830055e-05,
			},
			reject: []int{1, 7, 9},
		},
		{
			// docs/reference/LOND.md, Examples, `LOND(sample.df,
			// random=FALSE)` (commit 1d89c48f…).
			name:   "lond sample.df",
			opts:   OnlineFDROptions{Method: OnlineLOND},
			p:      onlineSampleP,
			levels: onlineLONDSampleLevels,
			reject: []int{1, 6, 10},
		},
		{
			// docs/reference/LOND.md, Examples, `set.seed(1);
			// LOND(sample.df)` (commit 1d89c48f…), in its printed order.
			name: "lond seeded sample.df",
			opts: OnlineFDROptions{Method: OnlineLOND},
			p:    onlineSampleSeededP,
			levels: []float64{
				0.0026758385, 0.0011638206, 0.0009912499, 0.0008243606, 0.0006988870,
				0.0006045900, 0.0005319444, 0.0007117838, 0.0006421423, 0.0007796504,
				0.0007155186, 0.0006610273, 0.0006141682, 0.0005734509, 0.0005377472,
			},
			reject: []int{1, 7, 9},
		},
		{
			// docs/reference/LOND.md, Examples, `set.seed(1);
			// LOND(sample.df, alpha=0.1)` (commit 1d89c48f…), in its printed
			// order.
			name: "lond alpha 0.1 seeded sample.df",
			opts: OnlineFDROptions{Method: OnlineLOND, Alpha: 0.1},
			p:    onlineSampleSeededP,
			levels: []float64{
				0.005351677, 0.002327641, 0.001982500, 0.001648721, 0.001397774,
				0.001209180, 0.001063889, 0.001423568, 0.001284285, 0.001559301,
				0.001431037, 0.001322055, 0.001228336, 0.001146902, 0.001075494,
			},
			reject: []int{1, 7, 9},
		},
		{
			// The vignette, articles/onlineFDR.md, "Using onlineFDR
			// Exploratively": `set.seed(1); LOND_results <- LOND(sample.df)`
			// on the vignette's own sample.df (commit
			// 602966b76fb6602f4bd449af9000721a6371a7e0), in its printed order;
			// the last test is rejected.
			name: "lond vignette",
			opts: OnlineFDROptions{Method: OnlineLOND},
			p: []float64{
				2.90e-14, 1.43e-03, 6.514e-02, 1.74e-03, 1.71e-03,
				0.27201, 3.61e-05, 0.79149, 7.59e-08, 0.28295,
				0.69274, 0.72342, 0.30443, 0.54757, 4.87e-04,
			},
			levels: []float64{
				0.0026758385, 0.0011638206, 0.0009912499, 0.0008243606, 0.0006988870,
				0.0006045900, 0.0005319444, 0.0007117838, 0.0006421423, 0.0007796504,
				0.0007155186, 0.0006610273, 0.0006141682, 0.0005734509, 0.0005377472,
			},
			reject: []int{1, 7, 9, 15},
		},
		{
			// Derived above from docs/reference/LOND.md and R/LOND.R.
			name:   "lond-dep sample.df",
			opts:   OnlineFDROptions{Method: OnlineLONDDep},
			p:      onlineSampleP,
			levels: londDep,
			reject: []int{1, 6, 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := OnlineFDR(tt.p, tt.opts)
			require.NoError(t, err)
			require.Len(t, got, len(tt.levels))
			var reject []int
			for i, g := range got {
				require.Truef(t, scalar.EqualWithinRel(g.Level, tt.levels[i], onlineDocRelTol),
					"test %d: level %.10g, want %.10g", i+1, g.Level, tt.levels[i])
				require.Equal(t, tt.p[i], g.P)
				if g.Rejected {
					reject = append(reject, i+1)
				}
			}
			require.Equal(t, tt.reject, reject)
		})
	}
}

// TestOnlineFDRRejectionsReference checks the decisions onlineFDR's unit
// tests expect.
func TestOnlineFDRRejectionsReference(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		method string
		p      []float64
		want   []bool
	}{
		// tests/testthat/test_LOND.R (commit
		// b4bf9337c1a213fbac83d92a6f7e510a59bbb9a4): line 36,
		// LOND(test.df1)$R == 1 with test.df1$pval = 1e-04; line 32, the
		// same with dep = TRUE; line 37, LOND(test.df2, random=FALSE)$R ==
		// c(1,0,1) and line 38, with dep=TRUE, c(1,0,0), test.df2$pval =
		// c(1e-07, 0.1, 6e-04) (line 10).
		{name: "test_LOND.R:36", method: OnlineLOND, p: []float64{1e-04}, want: []bool{true}},
		{name: "test_LOND.R:32", method: OnlineLONDDep, p: []float64{1e-04}, want: []bool{true}},
		{name: "test_LOND.R:37", method: OnlineLOND, p: []float64{1e-07, 0.1, 6e-04}, want: []bool{true, false, true}},
		{name: "test_LOND.R:38", method: OnlineLONDDep, p: []float64{1e-07, 0.1, 6e-04}, want: []bool{true, false, false}},
		// tests/testthat/test_LORD.R (commit
		// 56a15a5bfda7c8686a13c5dcd7177e81f3ce8bdc): line 42,
		// LORD(test.df3)$R == 1 with test.df3$pval = 1e-04; line 43,
		// version='++', and line 47, version='dep', both c(1,0,1) on
		// test.df4$pval = c(1e-07, 0.1, 0.00055) (line 18).
		{name: "test_LORD.R:42", method: OnlineLORDPlusPlus, p: []float64{1e-04}, want: []bool{true}},
		{name: "test_LORD.R:43", method: OnlineLORDPlusPlus, p: []float64{1e-07, 0.1, 0.00055}, want: []bool{true, false, true}},
		{name: "test_LORD.R:47", method: OnlineLORDDep, p: []float64{1e-07, 0.1, 0.00055}, want: []bool{true, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := OnlineFDR(tt.p, OnlineFDROptions{Method: tt.method})
			require.NoError(t, err)
			rejected := make([]bool, len(got))
			for i, g := range got {
				rejected[i] = g.Rejected
			}
			require.Equal(t, tt.want, rejected)
		})
	}
}

// onlineStream is a seeded stream of n p-values: uniform nulls and, with
// probability 0.2, a one-sided z test's p-value at effect 3.
func onlineStream(seed uint64, n int) []float64 {
	rng := rand.New(rand.NewPCG(seed, 17))
	ps := make([]float64, n)
	for i := range ps {
		if rng.Float64() < 0.2 {
			ps[i] = oneSidedZP(rng.NormFloat64() + 3)
		} else {
			ps[i] = rng.Float64()
		}
	}
	return ps
}

// oneSidedZP is the p-value of z in a one-sided z test, 1 − Φ(z).
func oneSidedZP(z float64) float64 {
	return 0.5 * math.Erfc(z/math.Sqrt2)
}

// TestOnlineFDRNextMatchesOnlineFDR checks that a chain of Next calls,
// with the state stored as JSON between calls, gives what OnlineFDR gives,
// that Level announces each level, and that Next leaves its receiver
// alone.
func TestOnlineFDRNextMatchesOnlineFDR(t *testing.T) {
	t.Parallel()
	ps := onlineStream(1, 600)
	for _, method := range OnlineFDRMethods() {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			opts := OnlineFDROptions{Method: method, Alpha: 0.1}
			want, err := OnlineFDR(ps, opts)
			require.NoError(t, err)
			s, err := NewOnlineFDRState(opts)
			require.NoError(t, err)
			for i, p := range ps {
				b, err := json.Marshal(s)
				require.NoError(t, err)
				var stored OnlineFDRState
				require.NoError(t, json.Unmarshal(b, &stored))

				level, err := stored.Level(opts)
				require.NoError(t, err)
				before := fmt.Sprint(stored)
				got, next, err := stored.Next(p, opts)
				require.NoError(t, err)
				require.Equal(t, before, fmt.Sprint(stored), "Next changed its receiver")

				w := want[i]
				require.Equal(t, w.Rejected, got.Rejected, "test %d", i+1)
				require.Equal(t, level, got.Level, "test %d: Level and Next differ", i+1)
				for _, c := range [][2]float64{{w.Level, got.Level}, {w.WealthBefore, got.WealthBefore}, {w.Wealth, got.Wealth}} {
					require.Truef(t, scalar.EqualWithinRel(c[1], c[0], onlineChainRelTol), "test %d: got %.17g, want %.17g", i+1, c[1], c[0])
				}
				require.Equal(t, i+1, next.Tests)
				require.Equal(t, got.Wealth, next.Wealth)
				s = next
			}
			var reject []int
			for i, w := range want {
				if w.Rejected {
					reject = append(reject, i+1)
				}
			}
			require.Equal(t, reject, s.Rejections)
			require.NotEmpty(t, reject, "the stream should hold discoveries")
		})
	}
}

// TestOnlineFDRWealth checks the wealth's bookkeeping, as OnlineFDRState
// documents it, and that it stays non-negative.
func TestOnlineFDRWealth(t *testing.T) {
	t.Parallel()
	const tol = 1e-15
	ps := onlineStream(2, 2000)
	for _, method := range OnlineFDRMethods() {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			const alpha, w0 = 0.05, 0.005
			opts := OnlineFDROptions{Method: method}
			s, err := NewOnlineFDRState(opts)
			require.NoError(t, err)
			lond := method == OnlineLOND || method == OnlineLONDDep
			if lond {
				require.Equal(t, alpha, s.Wealth)
			} else {
				require.Equal(t, w0, s.Wealth)
			}
			got, err := OnlineFDR(ps, opts)
			require.NoError(t, err)
			wealth, spent, d := s.Wealth, 0.0, 0
			for i, g := range got {
				require.Equal(t, wealth, g.WealthBefore, "test %d", i+1)
				earned := 0.0
				if g.Rejected {
					switch {
					case lond:
						earned = alpha
					case method == OnlineLORDPlusPlus && d == 0:
						earned = alpha - w0
					case method == OnlineLORDPlusPlus:
						earned = alpha
					default:
						earned = alpha - w0
					}
					d++
				}
				require.InDelta(t, wealth-g.Level+earned, g.Wealth, tol, "test %d", i+1)
				require.GreaterOrEqual(t, g.Wealth, 0.0, "test %d", i+1)
				spent += g.Level
				if lond {
					require.InEpsilon(t, alpha*float64(d+1)-spent, g.Wealth, 1e-12, "test %d", i+1)
				}
				wealth = g.Wealth
			}
			require.Positive(t, d)
		})
	}
}

func TestOnlineFDRDefaults(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{OnlineLONDDep, OnlineLORDDep, OnlineLOND, OnlineLORDPlusPlus}, OnlineFDRMethods())
	ps := onlineStream(3, 300)
	def, err := OnlineFDR(ps, OnlineFDROptions{})
	require.NoError(t, err)
	explicit, err := OnlineFDR(ps, OnlineFDROptions{Method: OnlineLONDDep, Alpha: 0.05, W0: 0.005})
	require.NoError(t, err)
	require.Equal(t, explicit, def)
	lord, err := OnlineFDR(ps, OnlineFDROptions{Method: OnlineLORDDep, Alpha: 0.2})
	require.NoError(t, err)
	lordW0, err := OnlineFDR(ps, OnlineFDROptions{Method: OnlineLORDDep, Alpha: 0.2, W0: 0.02})
	require.NoError(t, err)
	require.Equal(t, lordW0, lord)

	none, err := OnlineFDR(nil, OnlineFDROptions{})
	require.NoError(t, err)
	require.Empty(t, none)

	s, err := NewOnlineFDRState(OnlineFDROptions{})
	require.NoError(t, err)
	b, err := json.Marshal(s)
	require.NoError(t, err)
	require.JSONEq(t, `{"tests": 0, "rejections": [], "wealth": 0.05}`, string(b))
}

func TestOnlineFDRErrors(t *testing.T) {
	t.Parallel()
	good, _, err := OnlineFDRState{Rejections: []int{}, Wealth: 0.005}.Next(0.5, OnlineFDROptions{Method: OnlineLORDPlusPlus})
	require.NoError(t, err)
	require.False(t, good.Rejected)
	tests := []struct {
		name  string
		opts  OnlineFDROptions
		p     float64
		state OnlineFDRState
		also  error
	}{
		{name: "unknown method", opts: OnlineFDROptions{Method: "lord3"}, p: 0.5},
		{name: "method case", opts: OnlineFDROptions{Method: "LOND"}, p: 0.5},
		{name: "alpha 1", opts: OnlineFDROptions{Alpha: 1}, p: 0.5},
		{name: "alpha negative", opts: OnlineFDROptions{Alpha: -0.05}, p: 0.5},
		{name: "alpha NaN", opts: OnlineFDROptions{Alpha: math.NaN()}, p: 0.5},
		{name: "w0 negative", opts: OnlineFDROptions{Method: OnlineLORDDep, W0: -0.001}, p: 0.5},
		{name: "w0 alpha", opts: OnlineFDROptions{Method: OnlineLORDDep, W0: 0.05}, p: 0.5},
		{name: "w0 above alpha", opts: OnlineFDROptions{Method: OnlineLORDPlusPlus, Alpha: 0.1, W0: 0.2}, p: 0.5},
		{name: "w0 NaN", opts: OnlineFDROptions{Method: OnlineLORDPlusPlus, W0: math.NaN()}, p: 0.5},
		{name: "w0 checked for lond too", opts: OnlineFDROptions{Method: OnlineLOND, W0: 0.5}, p: 0.5},
		{name: "p NaN", p: math.NaN(), also: ErrNotFinite},
		{name: "p negative", p: -1e-9},
		{name: "p above 1", p: 1.5},
		{name: "p +Inf", p: math.Inf(1), also: ErrNotFinite},
		{name: "negative tests", p: 0.5, state: OnlineFDRState{Tests: -1}},
		{name: "rejection after tests", p: 0.5, state: OnlineFDRState{Tests: 2, Rejections: []int{3}}},
		{name: "rejection 0", p: 0.5, state: OnlineFDRState{Tests: 2, Rejections: []int{0}}},
		{name: "rejections out of order", p: 0.5, state: OnlineFDRState{Tests: 5, Rejections: []int{4, 2}}},
		{name: "rejection repeated", p: 0.5, state: OnlineFDRState{Tests: 5, Rejections: []int{2, 2}}},
		{name: "wealth NaN", p: 0.5, state: OnlineFDRState{Tests: 1, Wealth: math.NaN()}},
		{name: "wealth Inf", p: 0.5, state: OnlineFDRState{Tests: 1, Wealth: math.Inf(1)}},
		{name: "wealth negative", p: 0.5, state: OnlineFDRState{Tests: 1, Wealth: -0.01}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			state := tt.state
			if state.Rejections == nil && state.Tests == 0 && state.Wealth == 0 {
				state.Wealth = 0.05
			}
			_, _, err := state.Next(tt.p, tt.opts)
			require.ErrorIs(t, err, ErrBadParameter)
			if tt.also != nil {
				require.ErrorIs(t, err, tt.also)
			}
			if math.IsNaN(tt.p) || tt.p < 0 || tt.p > 1 {
				_, err := OnlineFDR([]float64{0.5, tt.p}, tt.opts)
				require.ErrorIs(t, err, ErrBadParameter)
				require.ErrorContains(t, err, "ps[1]")
				return
			}
			_, err = state.Level(tt.opts)
			require.ErrorIs(t, err, ErrBadParameter)
			if tt.state.Tests == 0 && tt.state.Rejections == nil {
				_, err = OnlineFDR([]float64{0.5}, tt.opts)
				require.ErrorIs(t, err, ErrBadParameter)
				_, err = NewOnlineFDRState(tt.opts)
				require.ErrorIs(t, err, ErrBadParameter)
			}
		})
	}
}

// TestOnlineFDRHarmonic checks H(n) on both sides of the switch from
// summing to the asymptotic expansion, and that lond-dep's run and Next
// agree across it.
func TestOnlineFDRHarmonic(t *testing.T) {
	t.Parallel()
	require.Equal(t, 0.0, harmonicNumber(0))
	require.Equal(t, 1.0, harmonicNumber(1))
	require.Equal(t, 1.5, harmonicNumber(2))
	sum := 0.0
	for k := 1; k <= harmonicSumMax+10; k++ {
		sum += 1 / float64(k)
		if k >= harmonicSumMax-10 {
			require.InEpsilon(t, sum, harmonicNumber(k), 1e-14, "H(%d)", k)
		}
	}
	// mpmath 1.3 at 30 digits: harmonic(70000) = 11.7334733287731649562…,
	// harmonic(10**9) = 21.3004815023479440166….
	require.InEpsilon(t, 11.733473328773165, harmonicNumber(70_000), 1e-15)
	require.InEpsilon(t, 21.300481502347944, harmonicNumber(1_000_000_000), 1e-15)

	opts := OnlineFDROptions{Method: OnlineLONDDep}
	s := OnlineFDRState{Tests: harmonicSumMax - 2, Rejections: []int{}, Wealth: 0.05}
	r := newOnlineFDRRun(onlineFDRParamsForTest(t, opts), s)
	for range 4 {
		level, err := r.state.Level(opts)
		require.NoError(t, err)
		require.InEpsilon(t, level, r.level(), 1e-14)
		require.InEpsilon(t, harmonicNumber(r.state.Tests+1), r.nextHarmonic(), 1e-15)
		r.step(0.5)
	}
}

// onlineFDRParamsForTest checks opts for a test.
func onlineFDRParamsForTest(t *testing.T, opts OnlineFDROptions) onlineFDRParams {
	t.Helper()
	p, err := opts.params()
	require.NoError(t, err)
	return p
}

// TestOnlineFDRSimulation runs each procedure over many simulated streams
// and requires its realised FDR, E[V/max(R, 1)], to be at most α plus three
// Monte Carlo standard errors. It logs each one's power, the mean share of
// true effects rejected, beside testing every hypothesis at a fixed α.
func TestOnlineFDRSimulation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation: skipped with -short")
	}
	t.Parallel()
	const (
		streams = 10_000
		tests   = 200
		effects = 20 // 10 % of the tests
		effect  = 3.0
		alpha   = 0.05
		seed    = 20180419
	)
	methods := append(OnlineFDRMethods(), "fixed alpha")
	fdp := make([][]float64, len(methods))
	power := make([][]float64, len(methods))
	for m := range methods {
		fdp[m] = make([]float64, streams)
		power[m] = make([]float64, streams)
	}
	// Each stream draws from its own seeded source, so the results do not
	// depend on how the streams are shared among goroutines.
	runStream := func(i int) {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		isEffect := make([]bool, tests)
		for _, j := range rng.Perm(tests)[:effects] {
			isEffect[j] = true
		}
		ps := make([]float64, tests)
		for j := range ps {
			if isEffect[j] {
				ps[j] = oneSidedZP(rng.NormFloat64() + effect)
			} else {
				ps[j] = rng.Float64()
			}
		}
		for m, method := range methods {
			rejected := make([]bool, tests)
			if method == "fixed alpha" {
				for j, p := range ps {
					rejected[j] = p <= alpha
				}
			} else {
				res, err := OnlineFDR(ps, OnlineFDROptions{Method: method, Alpha: alpha})
				if err != nil {
					panic(err)
				}
				for j, r := range res {
					rejected[j] = r.Rejected
				}
			}
			var v, r, tp int
			for j, rej := range rejected {
				if !rej {
					continue
				}
				r++
				if isEffect[j] {
					tp++
				} else {
					v++
				}
			}
			fdp[m][i] = float64(v) / float64(max(r, 1))
			power[m][i] = float64(tp) / effects
		}
	}
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < streams; i += workers {
				runStream(i)
			}
		})
	}
	wg.Wait()

	t.Logf("%d streams of %d tests, %d true effects each (one-sided z, effect %g), alpha %g", streams, tests, effects, effect, alpha)
	t.Logf("%-12s %8s %8s %8s", "method", "FDR", "s.e.", "power")
	for m, method := range methods {
		fdr, se := meanAndSE(fdp[m])
		pw, _ := meanAndSE(power[m])
		t.Logf("%-12s %8.4f %8.4f %8.4f", method, fdr, se, pw)
		if method == "fixed alpha" {
			require.Greater(t, fdr, alpha, "fixed-alpha testing should not control the FDR here")
			continue
		}
		require.LessOrEqualf(t, fdr, alpha+3*se, "%s: realised FDR %.4f above alpha %g + 3 s.e. %.4f", method, fdr, alpha, se)
		require.Positive(t, pw, "%s: no power", method)
	}
}

// meanAndSE is the mean of x and its standard error, s/√n.
func meanAndSE(x []float64) (mean, se float64) {
	for _, v := range x {
		mean += v
	}
	n := float64(len(x))
	mean /= n
	ss := 0.0
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}
