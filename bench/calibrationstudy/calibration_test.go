package main

import (
	"math"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"
)

// TestCalibrationOfDefaults is the reduced calibration study: the type I
// error of every default test, at alpha = 0.05, in configurations where
// docs/calibration.md finds it calibrated. Each case has the key of a cell
// of the full study, so its replications are that cell's data sets (and
// continue them where the test runs more). The count of rejections must
// stay inside the 99.9 % range of Binomial(reps, 0.05). A calibrated test
// leaves it with probability 0.1 %, so the test does not fail by chance;
// a test that became liberal by a change is caught: at 8.5 % instead of
// 5 %, it leaves the range of 2,000 replications with probability 99.9 %.
// A default test becomes liberal only by a decision, never by accident.
//
// Tests the full study finds conservative (the fold tests reject less
// often than alpha, by design) are held to the upper limit only.
func TestCalibrationOfDefaults(t *testing.T) {
	shapes := map[string]userShape{}
	for _, s := range userShapes() {
		shapes[s.name] = s
	}
	user := func(shape string, f family, rho float64, n int) cell {
		c := userConfig{shape: shapes[shape], fam: f, rho: rho, n: n, defaultsOnly: true}
		return cell{key: c.key(), reps: 2000, methods: uMethods, cost: float64(n), replicate: c.replicate}
	}
	folds := func(n int, fiveByTwoOnly bool) cell {
		c := foldConfig{fam: sameNull, n: n, fiveByTwoOnly: fiveByTwoOnly}
		return cell{key: c.key(), reps: 2000, methods: fMethods, cost: float64(n), replicate: c.replicate}
	}
	auc := func(rho float64, n int) cell {
		c := classConfig{fam: sameNull, rho: rho, n: n, defaultsOnly: true}
		return cell{key: c.key(), reps: 2000, methods: cMethods, cost: float64(n), replicate: c.replicate}
	}
	margin := func(shape marginShape, n int, lower bool) cell {
		c := marginConfig{shape: shape, rho: 0.5, n: n, lower: lower}
		return cell{key: c.key(), reps: 2000, methods: mgMethods, cost: 3 * float64(n), replicate: c.replicate}
	}
	seeds := func(sd float64, runs, n int) cell {
		c := seedConfig{sd: sd, runs: runs, n: n}
		return cell{key: c.key(), reps: 2000, methods: sdMethods, cost: c.cost(), replicate: c.replicate}
	}
	cases := []struct {
		name         string
		cell         cell
		method       int
		conservative bool
		// liberal: a test the full study finds liberal, held above the
		// upper limit, so that the study keeps showing what it warns of.
		liberal bool
	}{
		{name: "compare default, 0/1 values, 1,000 users, rho 0.5", cell: user("hit", sameNull, 0.5, 1000), method: uDefault},
		{name: "compare default, ndcg-like values with equal means, 100 users, rho 0.5", cell: user("ndcg", meanNull, 0.5, 100), method: uDefault},
		{name: "compare default, heavy ties, 100 users, rho 0.9", cell: user("ties", sameNull, 0.9, 100), method: uDefault},
		// Where the bootstrap interval alone rejects 9 % of true nulls.
		{name: "compare default, draws with heavy users and equal means, 100 users, rho 0.5", cell: user("draws", meanNull, 0.5, 100), method: uDefault},
		{name: "corrected t, 10-fold, 300 rows", cell: folds(300, false), method: fCorrected10, conservative: true},
		{name: "corrected t, 10x10-fold, 300 rows", cell: folds(300, false), method: fCorrected100, conservative: true},
		// At 1,000 rows; at 100 and 300 the 5×2cv t is liberal.
		{name: "5x2cv t, 1,000 rows", cell: folds(1000, true), method: fFiveByTwo, conservative: true},
		{name: "DeLong, 1,000 samples, rho 0", cell: auc(0, 1000), method: cDeLong},
		// compare --margin at the margin's boundary (the candidate worse
		// by exactly the margin): non-inferiority and inferiority are
		// false claims, each a one-sided test at alpha.
		{name: "margin, bootstrap non-inferior, ndcg-like, 100 users", cell: margin(marginNDCG, 100, false), method: mgBootNonInferior},
		{name: "margin, t non-inferior, ndcg-like, 100 users", cell: margin(marginNDCG, 100, false), method: mgTNonInferior},
		{name: "margin, bootstrap non-inferior, 0/1 correctness, 100 samples", cell: margin(marginHit, 100, false), method: mgBootNonInferior},
		{name: "margin, bootstrap inferior, ndcg-like loss, 100 users", cell: margin(marginNDCG, 100, true), method: mgBootInferior},
		{name: "margin, t inferior, ndcg-like loss, 100 users", cell: margin(marginNDCG, 100, true), method: mgTInferior},
		// Two configurations of equal quality, three seeds each (seed SD
		// 0.02) on 60 users: the two-level bootstrap holds its level
		// (conservatively), compare's default on one run of each does not.
		{name: "seeds, two-level bootstrap, seed SD 0.02, 3 runs, 60 users", cell: seeds(0.02, 3, 60), method: sdTwoLevel, conservative: true},
		{name: "seeds, compare default on one run each, seed SD 0.02, 3 runs, 60 users", cell: seeds(0.02, 3, 60), method: sdUserOnly, liberal: true},
	}
	var cells []cell
	for _, c := range cases {
		cells = append(cells, c.cell)
	}
	cells = slices.CompactFunc(cells, func(a, b cell) bool { return a.key == b.key }) // the fold cases, and the margin cases of one cell, share one cell
	results := runCells(cells, runtime.GOMAXPROCS(0), nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := slices.IndexFunc(cells, func(x cell) bool { return x.key == c.cell.key })
			tl := results[i].tallies[c.method]
			require.Equal(t, c.cell.reps, tl.trials)
			lo, hi := binomialBand(tl.trials, alpha, 0.999)
			r := tl.rejection()
			if c.liberal {
				require.Greaterf(t, tl.rejected, hi, "%d of %d true nulls rejected (%.1f %%): within the %d a calibrated test reaches; the simulation no longer shows the test liberal",
					tl.rejected, tl.trials, 100*r.est, hi)
				return
			}
			require.LessOrEqualf(t, tl.rejected, hi, "%d of %d true nulls rejected (%.1f %%, 99 %% interval [%.1f, %.1f] %%): above the %d a calibrated test reaches with probability 99.95 %%; the test has become liberal",
				tl.rejected, tl.trials, 100*r.est, 100*r.low, 100*r.high, hi)
			if !c.conservative {
				require.GreaterOrEqualf(t, tl.rejected, lo, "%d of %d true nulls rejected (%.1f %%): below the %d a calibrated test reaches with probability 99.95 %%; the test has lost its power to reject",
					tl.rejected, tl.trials, 100*r.est, lo)
			}
		})
	}
}

func TestCalibrationClopperPearson(t *testing.T) {
	t.Parallel()
	const tol = 1e-9
	// Expected bounds: scipy 1.10.1
	// binomtest(k, n).proportion_ci(confidence_level=0.99, method="exact").
	for _, tc := range []struct {
		k, n      int
		low, high float64
	}{
		{k: 5, n: 100, low: 0.010940333584747596, high: 0.13514468253562387},
		{k: 0, n: 50, low: 0, high: 0.1005450833748586},
		{k: 132, n: 2000, low: 0.05249837824538953, high: 0.08161252817869447},
	} {
		r := clopperPearson(tc.k, tc.n, 0.99)
		require.InDelta(t, float64(tc.k)/float64(tc.n), r.est, tol)
		require.True(t, scalar.EqualWithinAbsOrRel(tc.low, r.low, tol, tol), "k=%d n=%d low %v", tc.k, tc.n, r.low)
		require.True(t, scalar.EqualWithinAbsOrRel(tc.high, r.high, tol, tol), "k=%d n=%d high %v", tc.k, tc.n, r.high)
	}
	require.True(t, math.IsNaN(clopperPearson(0, 0, 0.99).est))
}

func TestCalibrationBinomialBand(t *testing.T) {
	t.Parallel()
	// Expected: the largest lo with binom.cdf(lo − 1) ≤ tail and the
	// smallest hi with binom.sf(hi) ≤ tail, scipy 1.10.1.
	lo, hi := binomialBand(2000, 0.05, 0.999)
	require.Equal(t, [2]int{69, 133}, [2]int{lo, hi})
	lo, hi = binomialBand(600, 0.95, 0.99)
	require.Equal(t, [2]int{555, 583}, [2]int{lo, hi})
}

// The marginals' means, which the coverage of the lift rests on, are the
// means of their quantile functions (midpoint rule on a fine grid).
func TestCalibrationMarginalMeans(t *testing.T) {
	t.Parallel()
	for _, s := range userShapes() {
		for _, f := range s.families() {
			l, r := s.sides(f)
			for _, m := range []marginal{l, r} {
				const k = 1 << 20
				var sum float64
				for i := range k {
					sum += m.quantile((float64(i) + 0.5) / k)
				}
				require.InDelta(t, m.mean(), sum/k, 2e-5, "%s %s", s.name, f)
			}
			if f == meanNull {
				require.InDelta(t, l.mean(), r.mean(), 1e-12, "%s: equal means", s.name)
			}
			if f == lift {
				require.InDelta(t, 1.1, l.mean()/r.mean(), 1e-12, "%s: a lift of 10 %%", s.name)
			}
		}
	}
}

// The cross-validation study's truth is the expected test error of least
// squares, σ²·(n − 1)/(n − q − 1); a simulation of learner A alone must
// agree with it.
func TestCalibrationFoldTruth(t *testing.T) {
	t.Parallel()
	const trainN, reps = 40, 4000
	// Under the lift, A's error is 1 + |β_B|² = 1.4 times the inflation.
	want := 1.4 * (trainN - 1) / float64(trainN-foldFeatures-1)
	x := make([]float64, 2*trainN*2*foldFeatures)
	y := make([]float64, 2*trainN)
	perm := make([]int, 2*trainN)
	for i := range perm {
		perm[i] = i
	}
	var sum, sumSq float64
	for r := range reps {
		rng := replicationRNG("fold-truth", r)
		a2, b2 := foldSignal(lift)
		ba, bb := math.Sqrt(a2/foldFeatures), math.Sqrt(b2/foldFeatures)
		for i := range y {
			y[i] = rng.NormFloat64()
			for j := range 2 * foldFeatures {
				v := rng.NormFloat64()
				x[i*2*foldFeatures+j] = v
				if j < foldFeatures {
					y[i] += ba * v
				} else {
					y[i] += bb * v
				}
			}
		}
		// 2-fold: each half trains on trainN rows and tests on the other.
		mseA, _ := crossValidate(x, y, perm, 2)
		for _, m := range mseA {
			sum += m
			sumSq += m * m
		}
	}
	n := float64(2 * reps)
	mean := sum / n
	se := math.Sqrt((sumSq/n - mean*mean) / n)
	require.InDelta(t, want, mean, 4*se, "simulated %v, formula %v", mean, want)
	require.InDelta(t, -0.2*(trainN-1)/float64(trainN-foldFeatures-1), foldTruth(lift, trainN), 1e-12)
	require.Zero(t, foldTruth(sameNull, trainN))
}
