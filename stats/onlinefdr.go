package stats

import (
	"fmt"
	"math"
	"strings"
)

// Online FDR procedures, by the names the command line uses.
//
// An online procedure tests hypotheses one at a time, in the order they
// arrive, and decides each before seeing the next: the level α_t of test t
// depends only on the decisions before it. It controls the false discovery
// rate FDR(T) = E[V(T)/max(R(T), 1)] at every time T, V being the false and
// R all rejections so far, without knowing how many tests will come. The
// price is power: early levels are far below α, and a procedure only earns
// larger levels by making discoveries.
//
// The four procedures, their default sequences and constants are those of
// the R package onlineFDR (Robertson et al.), with the p-values taken in
// the order given (onlineFDR's random = FALSE). Each rejects test t iff
// p_t ≤ α_t, as onlineFDR does. With t the test's 1-based index and
//
//	γ_t = 0.07720838 · log(max(t, 2)) / (t · exp(√log t))
//
// the sequence of Javanmard and Montanari (2018), equation (31), with
// onlineFDR's constant (Σ_t γ_t < 1), they are:
//
//	lond      α_t = β_t · (D(t−1) + 1),  β_t = α·γ_t
//	lond-dep  α_t = β_t · (D(t−1) + 1),  β_t = α·γ_t / H(t),  H(t) = Σ_{k≤t} 1/k
//	lord++    α_t = w0·γ_t + (α − w0)·γ_{t−τ_1} + α·Σ_{j≥2} γ_{t−τ_j}
//	lord-dep  α_t = ξ_t · W(τ(t)),  ξ_t = 0.139307 / (t · log(max(t, 2))³)
//
// where D(t) is the number of rejections among the first t tests, τ_j the
// index of the j-th rejection (the sum runs over those before t), τ(t) the
// index of the last rejection before t (0 if none) and W(t) the alpha-wealth
// after test t (OnlineFDRState.Wealth).
//
// LOND (Javanmard and Montanari 2018, "Online rules for control of false
// discovery rate and false discovery exceedance", Ann. Statist. 46(2),
// 526–554; levels based on the number of discoveries) controls the FDR for
// independent p-values; lond-dep is onlineFDR's LOND(dep = TRUE), which
// divides β_t by the harmonic number H(t) to control it under arbitrary
// dependence. LORD++ (Ramdas, Yang, Wainwright and Jordan 2017, "Online
// control of the false discovery rate with decaying memory", NeurIPS 30;
// onlineFDR's LORD(version = "++")) spends the initial wealth w0 and what
// each rejection earns along γ, starting afresh at each rejection; it
// controls the FDR for independent p-values (more exactly, nulls
// independent of each other and of the non-nulls). lord-dep is the LORD of
// Javanmard and Montanari (2018) for arbitrarily dependent p-values
// (onlineFDR's LORD(version = "dep")): its wealth starts at w0, pays α_t
// for each test and earns b0 = α − w0 for each rejection,
//
//	W(0) = w0,  W(t) = W(t−1) − α_t + b0·R_t,
//
// and each level is a share ξ_t of the wealth at the last rejection. The
// constant 0.139307 makes Σ_t ξ_t·(1 + log t) = 1 to its six digits,
// onlineFDR's default for the condition of Javanmard and Montanari (2018),
// Example 3.8.
// (onlineFDR's source once multiplied ξ_t by α/b0; its current release
// does not, and its documented output is reproduced only without.)
//
// The dependence-robust variants pay for their guarantee with smaller
// levels. lond-dep is nevertheless the default: it is valid whatever the
// dependence between tests, and evaluations of models on shared data are
// rarely independent.
const (
	OnlineLONDDep      = "lond-dep"
	OnlineLORDDep      = "lord-dep"
	OnlineLOND         = "lond"
	OnlineLORDPlusPlus = "lord++"
)

// OnlineFDRMethods lists them, the default (lond-dep) first.
func OnlineFDRMethods() []string {
	return []string{OnlineLONDDep, OnlineLORDDep, OnlineLOND, OnlineLORDPlusPlus}
}

// OnlineFDROptions configures an online FDR procedure. A stream must be
// tested with the same options throughout: a state does not record them,
// and continuing it under others voids the guarantee. The LOND variants
// have no initial wealth to set but still require W0, if given, to be in
// (0, Alpha), so that a bad value is caught whatever the method.
type OnlineFDROptions struct {
	// Method is one of OnlineFDRMethods; "" means OnlineLONDDep.
	Method string `req:"method" default:"lond-dep" arg:"PROCEDURE" help:"the online FDR procedure"`
	// Alpha is the target FDR; 0 means 0.05.
	Alpha float64 `req:"alpha" default:"0.05" arg:"A" help:"the target FDR"`
	// W0 is the initial wealth of the LORD variants; 0 means Alpha/10.
	W0 float64 `req:"w0" arg:"W" help:"the initial wealth of lord-dep and lord++ (default: alpha/10)"`
}

// Choices lists the procedures, the default first.
func (OnlineFDROptions) Choices() map[string][]string {
	return map[string][]string{"method": OnlineFDRMethods()}
}

// OnlineFDRTest is one test of a stream.
type OnlineFDRTest struct {
	P float64 `json:"p"`
	// Level is the level the test was held to: rejected iff P <= Level,
	// onlineFDR's convention.
	Level        float64 `json:"level"`
	Rejected     bool    `json:"rejected"`
	WealthBefore float64 `json:"wealth_before"`
	Wealth       float64 `json:"wealth"` // the alpha-wealth after the test
}

// OnlineFDRState is a procedure's state after some tests: everything the
// next level depends on. It is a plain value, JSON-serialisable, to be
// stored between runs.
//
// Wealth is the alpha-wealth W(t) after the tests so far, W(0) being the
// initial wealth. Every test pays its level, W(t) = W(t−1) − α_t + e_t·R_t,
// and a rejection earns e_t:
//
//	lond, lond-dep  W(0) = α,   e_t = α
//	lord++          W(0) = w0,  e_t = α − w0 for the first rejection, α after
//	lord-dep        W(0) = w0,  e_t = b0 = α − w0
//
// For lord-dep this is onlineFDR's W(t), the wealth the levels are shares
// of. For lord++ it is the wealth of Ramdas et al. (2017) (generalized alpha
// investing with their rewards); the levels spend it along γ and it stays
// non-negative because Σ γ_t < 1. onlineFDR reports no wealth for LOND; here
// it is the slack α·(D(t) + 1) − Σ_{s≤t} α_s in the bound that LOND's levels
// always satisfy because Σ β_s ≤ α.
type OnlineFDRState struct {
	Tests      int     `json:"tests"`      // tests so far
	Rejections []int   `json:"rejections"` // 1-based indices of the rejected tests
	Wealth     float64 `json:"wealth"`     // current alpha-wealth (see above)
}

// onlineFDRParams are OnlineFDROptions checked, with their defaults filled
// in.
type onlineFDRParams struct {
	method string
	alpha  float64
	w0     float64
}

// params checks o and fills in its defaults. It returns ErrBadParameter for
// an unknown method, Alpha outside (0, 1), or W0 outside (0, Alpha).
func (o OnlineFDROptions) params() (onlineFDRParams, error) {
	p := onlineFDRParams{method: o.Method, alpha: o.Alpha, w0: o.W0}
	if p.method == "" {
		p.method = OnlineLONDDep
	}
	switch p.method {
	case OnlineLONDDep, OnlineLORDDep, OnlineLOND, OnlineLORDPlusPlus:
	default:
		return onlineFDRParams{}, fmt.Errorf("%w: online FDR method must be %s, got %q",
			ErrBadParameter, strings.Join(OnlineFDRMethods(), ", "), o.Method)
	}
	if p.alpha == 0 {
		p.alpha = 0.05
	}
	if !(p.alpha > 0 && p.alpha < 1) {
		return onlineFDRParams{}, fmt.Errorf("%w: alpha = %g is not in (0, 1)", ErrBadParameter, o.Alpha)
	}
	if p.w0 == 0 {
		p.w0 = p.alpha / 10
	}
	if !(p.w0 > 0 && p.w0 < p.alpha) {
		return onlineFDRParams{}, fmt.Errorf("%w: w0 = %g is not in (0, alpha = %g)", ErrBadParameter, o.W0, p.alpha)
	}
	return p, nil
}

// initialWealth is W(0).
func (p onlineFDRParams) initialWealth() float64 {
	if p.method == OnlineLOND || p.method == OnlineLONDDep {
		return p.alpha
	}
	return p.w0
}

// NewOnlineFDRState is the state before any test. It returns ErrBadParameter
// for bad options.
func NewOnlineFDRState(opts OnlineFDROptions) (OnlineFDRState, error) {
	p, err := opts.params()
	if err != nil {
		return OnlineFDRState{}, err
	}
	return OnlineFDRState{Rejections: []int{}, Wealth: p.initialWealth()}, nil
}

// Level is the level the next test will be held to. It returns
// ErrBadParameter for bad options or a state no procedure can reach
// (negative counts, rejections out of order or out of range, a wealth that
// is negative or not finite).
func (s OnlineFDRState) Level(opts OnlineFDROptions) (float64, error) {
	p, err := opts.params()
	if err != nil {
		return 0, err
	}
	if err := s.check(); err != nil {
		return 0, err
	}
	r := newOnlineFDRRun(p, s)
	return r.level(), nil
}

// Next tests p and returns the test and the new state (s is not modified).
// It returns ErrBadParameter for a p outside [0, 1] (and, for NaN or ±Inf,
// also ErrNotFinite), bad options or a bad state (see Level).
func (s OnlineFDRState) Next(p float64, opts OnlineFDROptions) (OnlineFDRTest, OnlineFDRState, error) {
	if err := checkOnlineP(p); err != nil {
		return OnlineFDRTest{}, OnlineFDRState{}, err
	}
	params, err := opts.params()
	if err != nil {
		return OnlineFDRTest{}, OnlineFDRState{}, err
	}
	if err := s.check(); err != nil {
		return OnlineFDRTest{}, OnlineFDRState{}, err
	}
	rej := make([]int, len(s.Rejections), len(s.Rejections)+1)
	copy(rej, s.Rejections)
	s.Rejections = rej
	r := newOnlineFDRRun(params, s)
	test := r.step(p)
	return test, r.state, nil
}

// OnlineFDR runs the procedure over ps in arrival order: ps[i] is test
// i + 1. No p-values give no tests. It returns ErrBadParameter for bad
// options or a p-value outside [0, 1], naming its index (and, for NaN or
// ±Inf, also ErrNotFinite).
//
// It gives what a chain of Next calls from NewOnlineFDRState gives, up to
// rounding in the last bits for lord-dep, whose Next recovers the wealth at
// the last rejection from the current one.
func OnlineFDR(ps []float64, opts OnlineFDROptions) ([]OnlineFDRTest, error) {
	params, err := opts.params()
	if err != nil {
		return nil, err
	}
	for i, p := range ps {
		if err := checkOnlineP(p); err != nil {
			return nil, fmt.Errorf("ps[%d]: %w", i, err)
		}
	}
	r := newOnlineFDRRun(params, OnlineFDRState{Wealth: params.initialWealth()})
	out := make([]OnlineFDRTest, len(ps))
	for i, p := range ps {
		out[i] = r.step(p)
	}
	return out, nil
}

// checkOnlineP returns an error unless p is a probability.
func checkOnlineP(p float64) error {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return fmt.Errorf("%w: %w: p = %g", ErrBadParameter, ErrNotFinite, p)
	}
	if p < 0 || p > 1 {
		return fmt.Errorf("%w: p = %g is not a probability in [0, 1]", ErrBadParameter, p)
	}
	return nil
}

// check returns ErrBadParameter for a state no procedure can reach.
func (s OnlineFDRState) check() error {
	if s.Tests < 0 {
		return fmt.Errorf("%w: online FDR state has %d tests", ErrBadParameter, s.Tests)
	}
	prev := 0
	for i, r := range s.Rejections {
		if r <= prev || r > s.Tests {
			return fmt.Errorf("%w: online FDR state's rejections[%d] = %d is not after %d and at most the %d tests",
				ErrBadParameter, i, r, prev, s.Tests)
		}
		prev = r
	}
	if math.IsNaN(s.Wealth) || math.IsInf(s.Wealth, 0) || s.Wealth < 0 {
		return fmt.Errorf("%w: online FDR state's wealth = %g is not a finite non-negative number", ErrBadParameter, s.Wealth)
	}
	return nil
}

// onlineFDRRun steps a procedure through tests. Beyond the state it keeps
// what the next level needs and the state only implies: H(Tests) for
// lond-dep, W(τ) for lord-dep.
type onlineFDRRun struct {
	params onlineFDRParams
	state  OnlineFDRState
	// harmonic is H(state.Tests), for lond-dep.
	harmonic float64
	// lastRejectionWealth is W(τ), the wealth just after the last rejection
	// (w0 before any), for lord-dep.
	lastRejectionWealth float64
}

// newOnlineFDRRun starts a run from a checked state. For lord-dep it
// recovers W(τ) from W(t): with no rejection between τ and t the wealth
// only paid ξ_s·W(τ) at each s, so W(t) = W(τ)·(1 − Σ_{τ<s≤t} ξ_s), and the
// divisor is at least 1 − Σ_{s≥2} ξ_s > 0.7.
func newOnlineFDRRun(p onlineFDRParams, s OnlineFDRState) *onlineFDRRun {
	r := &onlineFDRRun{params: p, state: s}
	switch p.method {
	case OnlineLONDDep:
		r.harmonic = harmonicNumber(s.Tests)
	case OnlineLORDDep:
		r.lastRejectionWealth = p.w0
		if n := len(s.Rejections); n > 0 {
			tau := s.Rejections[n-1]
			spent := 0.0
			for t := tau + 1; t <= s.Tests; t++ {
				spent += lordDepXi(t)
			}
			r.lastRejectionWealth = s.Wealth / (1 - spent)
		}
	}
	return r
}

// level is α_t for the next test, t = state.Tests + 1.
func (r *onlineFDRRun) level() float64 {
	t := r.state.Tests + 1
	p := r.params
	rej := r.state.Rejections
	switch p.method {
	case OnlineLOND:
		return p.alpha * onlineGamma(t) * float64(len(rej)+1)
	case OnlineLONDDep:
		return p.alpha * onlineGamma(t) / r.nextHarmonic() * float64(len(rej)+1)
	case OnlineLORDPlusPlus:
		level := p.w0 * onlineGamma(t)
		if len(rej) > 0 {
			later := 0.0
			for _, tau := range rej[1:] {
				later += onlineGamma(t - tau)
			}
			level += (p.alpha-p.w0)*onlineGamma(t-rej[0]) + p.alpha*later
		}
		return level
	case OnlineLORDDep:
		return lordDepXi(t) * r.lastRejectionWealth
	}
	panic("stats: unknown online FDR method " + p.method)
}

// step tests p and advances the run.
func (r *onlineFDRRun) step(p float64) OnlineFDRTest {
	level := r.level()
	t := r.state.Tests + 1
	test := OnlineFDRTest{P: p, Level: level, Rejected: p <= level, WealthBefore: r.state.Wealth}
	wealth := r.state.Wealth - level
	if test.Rejected {
		switch r.params.method {
		case OnlineLORDPlusPlus:
			if len(r.state.Rejections) == 0 {
				wealth += r.params.alpha - r.params.w0
			} else {
				wealth += r.params.alpha
			}
		case OnlineLORDDep:
			wealth += r.params.alpha - r.params.w0
			r.lastRejectionWealth = wealth
		default:
			wealth += r.params.alpha
		}
		r.state.Rejections = append(r.state.Rejections, t)
	}
	if r.params.method == OnlineLONDDep {
		r.harmonic = r.nextHarmonic()
	}
	r.state.Tests = t
	r.state.Wealth = wealth
	test.Wealth = wealth
	return test
}

// nextHarmonic is H(state.Tests + 1), computed as harmonicNumber would.
func (r *onlineFDRRun) nextHarmonic() float64 {
	t := r.state.Tests + 1
	if t <= harmonicSumMax {
		return r.harmonic + 1/float64(t)
	}
	return harmonicNumber(t)
}

// onlineGamma is γ_t of LOND and LORD++, onlineFDR's default (Javanmard and
// Montanari 2018, equation (31)).
func onlineGamma(t int) float64 {
	x := float64(t)
	return 0.07720838 * math.Log(math.Max(x, 2)) / (x * math.Exp(math.Sqrt(math.Log(x))))
}

// lordDepXi is ξ_t of lord-dep, onlineFDR's default for LORD(version =
// "dep").
func lordDepXi(t int) float64 {
	x := float64(t)
	return 0.139307 / (x * math.Pow(math.Log(math.Max(x, 2)), 3))
}

// harmonicSumMax is the largest n whose harmonic number is summed term by
// term, as onlineFDR's cumsum(1/seq_len(N)) does; beyond it the asymptotic
// expansion is exact to double precision and costs O(1).
const harmonicSumMax = 1 << 16

// harmonicNumber is H(n) = Σ_{k≤n} 1/k, 0 for n = 0.
func harmonicNumber(n int) float64 {
	if n <= harmonicSumMax {
		h := 0.0
		for k := 1; k <= n; k++ {
			h += 1 / float64(k)
		}
		return h
	}
	// H(n) = log n + γ + 1/(2n) − 1/(12n²) + 1/(120n⁴) − …; the next term,
	// 1/(252n⁶), is below 1e-30 here.
	x := float64(n)
	x2 := x * x
	return math.Log(x) + eulerGamma + 1/(2*x) - 1/(12*x2) + 1/(120*x2*x2)
}

// eulerGamma is the Euler–Mascheroni constant.
const eulerGamma = 0.57721566490153286060651209008240243
