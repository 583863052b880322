package stats

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Configurations of a model are trained with several seeds: each seed's run
// is evaluated on the same users. Comparing two configurations by one run
// each counts the users' sampling noise but not the training's, and two
// runs of one configuration often differ by as much as the gap being
// celebrated (Bouthillier et al., "Accounting for Variance in Machine
// Learning Benchmarks", MLSys 2021). SeedBootstrap counts both.

// SeedOptions configures SeedBootstrap. The zero value asks for a 95 %
// percentile interval from 2000 replicates with seed 0.
type SeedOptions struct {
	Confidence float64 // in (0, 1); zero means DefaultConfidence
	Resamples  int     // replicates B; zero means DefaultResamples
	Seed       uint64  // the same seed gives the same result, bit for bit
	// Context, when not nil, cancels the resampling.
	Context context.Context
}

// VarianceComponents split a configuration's values, runs × users, into a
// run (seed) effect, a user effect and what is left, as the two-way
// crossed random-effects model y = μ + run + user + e estimates them by
// the analysis of variance of a balanced design (each run scores every
// user once): σ²_run = (MS_run − MS_e)/n, σ²_user = (MS_user − MS_e)/R,
// σ²_e = MS_e, a negative estimate taken as 0. For a balanced design these
// are the REML estimates whenever they are positive.
type VarianceComponents struct {
	Seed     float64 `json:"seed"`
	User     float64 `json:"user"`
	Residual float64 `json:"residual"`
}

// SeedComparison compares configuration A (the baseline) with B (the
// candidate), each a set of runs that scored the same users.
type SeedComparison struct {
	RunsA, RunsB, Users int
	// MeanA and MeanB are the means over every run and user; Difference
	// is MeanA − MeanB, with its interval and two-sided p-value from the
	// two-level bootstrap.
	MeanA, MeanB, Difference float64
	CILow, CIHigh            float64
	Confidence               float64
	PValue                   float64
	Resamples                int
	// SE is the replicates' standard deviation: the difference's standard
	// error, seeds and users counted. DF are the degrees of freedom of
	// its t reference.
	SE, DF float64
	// A and B are each configuration's variance components; Seed pools
	// their seed variances by degrees of freedom.
	A, B VarianceComponents
	Seed float64
	// RunToRun is the standard deviation of the difference between the
	// means of two runs of one configuration over these users,
	// √(2(σ²_run + σ²_e/n)), pooled: how far apart two seeds of one
	// configuration typically land.
	RunToRun float64
	// BBeatsA is the share of pairs of a run of A and a run of B in which
	// B's run has the higher mean over the users, ties counted half.
	BBeatsA float64
}

// SeedBootstrap compares two configurations, a and b, each a matrix of
// runs × users (every run scores the same users, in the same order), by a
// two-level bootstrap: each replicate draws the users with replacement,
// the same users for both configurations, and each configuration's runs
// with replacement, and takes the difference of the two means over the
// drawn runs and users. Runs are drawn with their spread about the
// configuration's mean widened by √(R/(R−1)), so that the replicates'
// variance of a mean of R runs is the unbiased one rather than (R−1)/R of
// it (Davison & Hinkley 1997, §3.3), which matters with the few seeds a
// configuration has.
//
// With a handful of runs the replicates' spread is known well but the
// normal shape is not: the interval is the difference ± the t quantile of
// the replicates' standard error, with the Welch–Satterthwaite degrees of
// freedom of the two configurations' run means, and the p-value is the
// two-sided t test of the difference on those degrees of freedom. With one
// run per configuration nothing measures the seeds: the degrees of freedom
// are the users' (n − 1), and the result is a user-level test.
//
// Each replicate costs (R_a + R_b)·n additions. The same inputs, options
// and seed give the same result, bit for bit, on any number of cores.
func SeedBootstrap(a, b [][]float64, opts SeedOptions) (SeedComparison, error) {
	n, err := checkRuns("a", a, -1)
	if err != nil {
		return SeedComparison{}, err
	}
	if _, err := checkRuns("b", b, n); err != nil {
		return SeedComparison{}, err
	}
	conf := opts.Confidence
	if conf == 0 {
		conf = DefaultConfidence
	}
	if !(conf > 0 && conf < 1) {
		return SeedComparison{}, fmt.Errorf("%w: confidence %g is not in (0, 1)", ErrBadParameter, conf)
	}
	B := opts.Resamples
	if B == 0 {
		B = DefaultResamples
	}
	if B < 2 || B > MaxResamples {
		return SeedComparison{}, fmt.Errorf("%w: resamples %d is not from 2 to %d", ErrBadParameter, B, MaxResamples)
	}
	res := SeedComparison{RunsA: len(a), RunsB: len(b), Users: n, Confidence: conf, Resamples: B,
		MeanA: grandMean(a), MeanB: grandMean(b)}
	res.Difference = res.MeanA - res.MeanB
	res.A, res.B = varianceComponents(a), varianceComponents(b)
	dfA, dfB := float64(len(a)-1), float64(len(b)-1)
	seed, resid := 0.0, 0.0
	if dfA+dfB > 0 {
		seed = (dfA*res.A.Seed + dfB*res.B.Seed) / (dfA + dfB)
		resid = (dfA*res.A.Residual + dfB*res.B.Residual) / (dfA + dfB)
	}
	res.Seed = seed
	res.RunToRun = math.Sqrt(2 * (seed + resid/float64(n)))
	ma, mb := runMeans(a), runMeans(b)
	res.BBeatsA = beats(ma, mb)

	diffs, err := seedReplicates(opts.Context, widened(a, ma), widened(b, mb), n, B, opts.Seed)
	if err != nil {
		return SeedComparison{}, err
	}
	res.SE = sampleSD(diffs)
	res.DF = welchDF(ma, mb, n)
	if res.SE == 0 {
		res.CILow, res.CIHigh, res.PValue = res.Difference, res.Difference, 1
		if res.Difference != 0 {
			res.PValue = 0
		}
		return res, nil
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: res.DF}
	q := t.Quantile((1 + conf) / 2)
	res.CILow, res.CIHigh = res.Difference-q*res.SE, res.Difference+q*res.SE
	res.PValue = math.Min(1, 2*t.Survival(math.Abs(res.Difference)/res.SE))
	return res, nil
}

// SeedMean is a configuration's mean over its runs and users with its
// interval from the two-level bootstrap of SeedBootstrap: each replicate
// draws the users and the runs (widened by √(R/(R−1))) with replacement,
// and the interval is the mean ± the t quantile, on R − 1 degrees of
// freedom (the users' n − 1 with one run), of the replicates' standard
// deviation, which it returns as se with the degrees of freedom.
func SeedMean(a [][]float64, opts SeedOptions) (mean Interval, se, df float64, err error) {
	n, err := checkRuns("a", a, -1)
	if err != nil {
		return Interval{}, 0, 0, err
	}
	conf, B := opts.Confidence, opts.Resamples
	if conf == 0 {
		conf = DefaultConfidence
	}
	if B == 0 {
		B = DefaultResamples
	}
	if !(conf > 0 && conf < 1) || B < 2 || B > MaxResamples {
		return Interval{}, 0, 0, fmt.Errorf("%w: confidence %g must be in (0, 1) and resamples %d from 2 to %d", ErrBadParameter, conf, B, MaxResamples)
	}
	means := runMeans(a)
	m := accurateSum(means) / float64(len(a))
	reps, err := seedReplicates(opts.Context, widened(a, means), nil, n, B, opts.Seed)
	if err != nil {
		return Interval{}, 0, 0, err
	}
	se, df = sampleSD(reps), float64(len(a)-1)
	if len(a) < 2 {
		df = float64(n - 1)
	}
	mean = Interval{Estimate: m, Low: m, High: m, Confidence: conf}
	if se > 0 && df >= 1 {
		half := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile((1+conf)/2) * se
		mean.Low, mean.High = m-half, m+half
	}
	return mean, se, df, nil
}

// widened is x with each run's values moved away from the configuration's
// mean by √(R/(R−1)) − 1 times its run mean's distance: the mean over all
// runs is unchanged, and the spread of the run means is widened by
// √(R/(R−1)). One run is returned as it is.
func widened(x [][]float64, means []float64) [][]float64 {
	R := len(x)
	if R < 2 {
		return x
	}
	grand := accurateSum(means) / float64(R)
	k := math.Sqrt(float64(R)/float64(R-1)) - 1
	out := make([][]float64, R)
	for j, run := range x {
		shift := k * (means[j] - grand)
		out[j] = make([]float64, len(run))
		for u, v := range run {
			out[j][u] = v + shift
		}
	}
	return out
}

// welchDF is the Welch–Satterthwaite degrees of freedom of the difference
// of the means of the run means a and b; with fewer than two runs on a
// side, or run means that do not vary, the users' n − 1.
func welchDF(a, b []float64, n int) float64 {
	if len(a) < 2 || len(b) < 2 {
		return float64(n - 1)
	}
	va, vb := sampleVar(a)/float64(len(a)), sampleVar(b)/float64(len(b))
	den := va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1)
	if den == 0 {
		return float64(n - 1)
	}
	return (va + vb) * (va + vb) / den
}

func sampleVar(x []float64) float64 {
	m := accurateSum(x) / float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return s / float64(len(x)-1)
}

func sampleSD(x []float64) float64 { return math.Sqrt(sampleVar(x)) }

// checkRuns checks that x has at least one run of n users each (n < 0:
// any n ≥ 1, the first run's), all finite, and returns n.
func checkRuns(name string, x [][]float64, n int) (int, error) {
	if len(x) == 0 {
		return 0, fmt.Errorf("%w: configuration %s has no runs", ErrTooFew, name)
	}
	if n < 0 {
		n = len(x[0])
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: configuration %s's runs score no users", ErrTooFew, name)
	}
	for j, run := range x {
		if len(run) != n {
			return 0, fmt.Errorf("%w: run %d of configuration %s scores %d users, not %d: every run must score the same users", ErrBadParameter, j, name, len(run), n)
		}
		for u, v := range run {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: run %d of configuration %s has a value that is not finite at user %d", ErrBadParameter, j, name, u)
			}
		}
	}
	return n, nil
}

func runMeans(x [][]float64) []float64 {
	m := make([]float64, len(x))
	for j, run := range x {
		m[j] = accurateSum(run) / float64(len(run))
	}
	return m
}

func grandMean(x [][]float64) float64 {
	return accurateSum(runMeans(x)) / float64(len(x))
}

// varianceComponents estimates x's components by the two-way ANOVA of a
// balanced crossed design (see VarianceComponents). With one run, the seed
// and residual components cannot be told apart: both are 0 and the user
// component is the users' variance.
func varianceComponents(x [][]float64) VarianceComponents {
	R, n := len(x), len(x[0])
	rm := runMeans(x)
	grand := accurateSum(rm) / float64(R)
	um := make([]float64, n)
	for u := range n {
		s := 0.0
		for j := range R {
			s += x[j][u]
		}
		um[u] = s / float64(R)
	}
	var ssRun, ssUser, ssErr float64
	for j := range R {
		d := rm[j] - grand
		ssRun += d * d
	}
	for u := range n {
		d := um[u] - grand
		ssUser += d * d
	}
	for j := range R {
		for u := range n {
			e := x[j][u] - rm[j] - um[u] + grand
			ssErr += e * e
		}
	}
	if R < 2 {
		if n < 2 {
			return VarianceComponents{}
		}
		return VarianceComponents{User: ssUser / float64(n-1)}
	}
	msRun := float64(n) * ssRun / float64(R-1)
	var c VarianceComponents
	if n < 2 {
		c.Seed = msRun
		return c
	}
	msUser := float64(R) * ssUser / float64(n-1)
	msErr := ssErr / float64((R-1)*(n-1))
	c.Residual = msErr
	c.Seed = math.Max(0, (msRun-msErr)/float64(n))
	c.User = math.Max(0, (msUser-msErr)/float64(R))
	return c
}

// beats is the share of pairs (a run of a, a run of b) in which b's mean
// is higher, ties counted half.
func beats(a, b []float64) float64 {
	w := 0.0
	for _, x := range a {
		for _, y := range b {
			switch {
			case y > x:
				w++
			case y == x:
				w += 0.5
			}
		}
	}
	return w / float64(len(a)*len(b))
}

// streamSeeds keeps SeedBootstrap's stream apart from the other methods'.
const streamSeeds uint64 = 0x7365656473747261 // "seedstra"

// seedReplicates returns B two-level bootstrap differences, replicate i at
// index i: each chunk of replicates has its own stream, so the result does
// not depend on how chunks spread over goroutines.
func seedReplicates(ctx context.Context, a, b [][]float64, n, B int, seed uint64) ([]float64, error) {
	out := make([]float64, B)
	work := (len(a) + len(b)) * n
	err := resampleChunks(ctx, B, work, func() func(chunk, first, count int) {
		users := make([]float64, n) // how often each user is drawn
		return func(chunk, first, count int) {
			st := newResampleStream(seed, streamSeeds, chunk)
			for r := range count {
				clear(users)
				for range n {
					users[st.Uint64()%uint64(n)]++
				}
				draw := func(x [][]float64) float64 {
					total := 0.0
					for range len(x) {
						run := x[st.Uint64()%uint64(len(x))]
						s := 0.0
						for u, c := range users {
							if c != 0 {
								s += c * run[u]
							}
						}
						total += s
					}
					return total / float64(len(x)*n)
				}
				out[first+r] = draw(a)
				if len(b) > 0 {
					out[first+r] -= draw(b)
				}
			}
		}
	})
	return out, err
}
