package compare

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// pairedInput is one metric's paired values: per unit, each side's sum of
// rows and the row count, in sample ID order.
type pairedInput struct {
	metric string
	// pairs are the units paired in Go; pushed, when set instead, reduces
	// them in the database.
	pairs  *store.Pairs
	pushed *pushed
	// oneRow, when set instead, is the units of one row each reduced in
	// Go to their exact summary (compareOneRow), with leftOnly and
	// rightOnly the units of one side only.
	oneRow              *stats.PairedSummary
	leftOnly, rightOnly int64
	// poisson selects the Poisson bootstrap and hashed sign flips.
	poisson bool
	labels  map[string]int16 // DeLong only
	dir     Direction
	// nTrain and nTest are the fold sizes of k-fold evaluations, and
	// folds says both sides are fold-based (k-fold or 5x2) evaluations;
	// kfold says both are k-fold ones, of the baseline's protocol.
	nTrain, nTest int64
	folds, kfold  bool
	protocol      store.Protocol
	// shared is the metric's resampling, done with the other metrics of
	// its join; nil when it resamples on its own.
	shared *resampled
}

// foldsPerRepetition is the k of n fold units of k-fold evaluations of
// protocol p: the folds per repetition as logged; else, for plain k-fold,
// n, every unit being a fold; else, for repeated k-fold, n over the
// repetitions when they divide it; else 0.
func foldsPerRepetition(p store.Protocol, n int) int {
	switch {
	case p.Folds > 0:
		return p.Folds
	case p.Name == "kfold":
		return n
	case p.Repeats > 0 && n%p.Repeats == 0:
		return n / p.Repeats
	}
	return 0
}

// float32Resolution is the relative precision per-unit values are stored
// at: PostgreSQL's real, IEEE single precision, 2⁻²³ ≈ 1.2·10⁻⁷.
const float32Resolution = 0x1p-23

// equalWithinStorage reports whether a and b differ by no more than the
// precision values are stored at: |a − b| ≤ 2⁻²³·max(|a|, |b|). Such a
// difference is rounding, not a difference between models: verdict treats
// it as zero everywhere, in the interval, the tests, the counts and the
// sample-size hint, so that numerically equal means never read as a
// distinguishable gap or ask for billions of units.
func equalWithinStorage(a, b float64) bool {
	return math.Abs(a-b) <= float32Resolution*max(math.Abs(a), math.Abs(b))
}

// equalizeWithinStorage makes right[i] equal to left[i] wherever the two
// are equal within storage precision, in place.
func equalizeWithinStorage(left, right []float64) {
	for i := range right {
		if equalWithinStorage(left[i], right[i]) {
			right[i] = left[i]
		}
	}
}

// compareMetric runs method on one metric's pairs, or on their reduction
// in the database.
func compareMetric(ctx context.Context, c *Comparison, in pairedInput, method Method, opts Options) (*MetricResult, error) {
	r := &MetricResult{
		Metric: in.metric, Method: method.label(), Baseline: c.Baseline, Candidate: c.Candidate,
		Alpha: opts.alpha(), Direction: in.dir, LowerIsBetter: in.dir.Lower(),
		NTrain: in.nTrain, NTest: in.nTest,
	}
	if pd := in.pushed; pd != nil {
		r.N, r.BaselineOnly, r.CandidateOnly = int(pd.s.N), pd.s.LeftOnly, pd.s.RightOnly
		return compareReduced(ctx, r, pd, in, method, opts)
	}
	if s := in.oneRow; s != nil {
		r.N, r.BaselineOnly, r.CandidateOnly = int(s.N), in.leftOnly, in.rightOnly
		if in.kfold {
			r.K = foldsPerRepetition(in.protocol, r.N)
		}
		return compareReduced(ctx, r, summarized{*s}, in, method, opts)
	}
	p := in.pairs
	n := p.Units()
	if n == 0 {
		return nil, fmt.Errorf("%w: the evaluations share no unit", ErrNothingShared)
	}
	r.N, r.BaselineOnly, r.CandidateOnly = n, p.LeftOnly, p.RightOnly
	if in.kfold {
		r.K = foldsPerRepetition(in.protocol, n)
	}
	// The pairs are this comparison's own: values equal within storage
	// precision are made equal in place.
	left, right := p.LeftSum, p.RightSum
	var rows []int32
	if p.Draws() {
		rows = p.LeftRows
		for i, id := range p.SampleIDs {
			if p.RightRows[i] != p.LeftRows[i] {
				return nil, fmt.Errorf("%w: unit %q has %d rows in the baseline and %d in the candidate; draws must match to pair",
					ErrNotApplicable, id, p.LeftRows[i], p.RightRows[i])
			}
		}
	}
	equalizeWithinStorage(left, right)
	units := stats.PairedUnits{LeftSum: left, RightSum: right, Rows: rows}
	// Units of one row are reduced exactly, as the database reduces them,
	// so that a comparison gives the same numbers on one server and on a
	// distributed database.
	var red reducer
	if rows == nil {
		g, err := newGoUnits(p.SampleIDs, left, right)
		if err != nil {
			return nil, err
		}
		red = g
	}
	if err := measure(ctx, r, units, red, p.SampleIDs, in.labels, method, opts, in.poisson, in.shared); err != nil {
		return nil, err
	}
	shape := shapeOf(units, method, in.folds)
	variance := func() (float64, error) { return stats.DifferenceVariance(units) }
	if red != nil {
		variance = red.summary().Variance
	}
	hint(r, method, variance)
	attainable(r, method, opts.resamples())
	if err := effects(ctx, r, &units, variance, opts, in.shared); err != nil {
		return nil, err
	}
	shape.metric = in.metric
	warn(r, shape)
	return r, nil
}

// compareReduced is compareMetric for units of one row reduced to red,
// the units themselves not held: what the method reads beyond red's
// summary comes from in.poisson's replicates or from in.shared.
func compareReduced(ctx context.Context, r *MetricResult, red reducer, in pairedInput, method Method, opts Options) (*MetricResult, error) {
	if err := measure(ctx, r, stats.PairedUnits{}, red, nil, nil, method, opts, in.poisson, in.shared); err != nil {
		return nil, err
	}
	sum := red.summary()
	hint(r, method, sum.Variance)
	attainable(r, method, opts.resamples())
	if err := effects(ctx, r, nil, sum.Variance, opts, in.shared); err != nil {
		return nil, err
	}
	shape := shapeOfSummary(sum, method, in.folds)
	shape.metric = in.metric
	warn(r, shape)
	return r, nil
}

// measure fills r from the paired units u, or from red where it is set
// (units of one row each): means, counts, the method's test and interval.
// ids name the units (DeLong's labels, the fold order of the fold-based
// tests, the Poisson bootstrap's hashes). With poisson the bootstrap and
// the sign-flip test draw hashed replicates. shared, when set, holds the
// multinomial bootstrap and sign-flip test, done with other metrics.
func measure(ctx context.Context, r *MetricResult, u stats.PairedUnits, red reducer, ids []string, labels map[string]int16, method Method, opts Options, poisson bool, shared *resampled) error {
	if red != nil {
		s := red.summary()
		r.BaselineMean, r.CandidateMean = s.Means()
		better, worse := s.Less, s.Greater // higher is better: the candidate's value is higher
		if r.Direction.Lower() {
			better, worse = worse, better
		}
		r.CandidateBetter, r.CandidateWorse, r.Same = int(better), int(worse), int(s.N-s.Greater-s.Less)
	} else {
		totalRows := len(u.LeftSum)
		if u.Rows != nil {
			totalRows = 0
			for _, m := range u.Rows {
				totalRows += int(m)
			}
		}
		r.BaselineMean = stats.Sum(u.LeftSum) / float64(totalRows)
		r.CandidateMean = stats.Sum(u.RightSum) / float64(totalRows)
		for i := range u.LeftSum {
			switch {
			case r.Direction.Better(u.RightSum[i], u.LeftSum[i]):
				r.CandidateBetter++
			case r.Direction.Better(u.LeftSum[i], u.RightSum[i]):
				r.CandidateWorse++
			default:
				r.Same++
			}
		}
	}
	left, right := unitMeans(u.LeftSum, u.Rows), unitMeans(u.RightSum, u.Rows)
	conf := opts.confidence()
	var reps *stats.Replicates
	bootstrap := func() error {
		if poisson {
			var err error
			if red != nil {
				reps, err = red.replicates(ctx, opts.resamples(), opts.Seed)
			} else {
				reps, err = stats.HashedReplicates(ctx, ids, u, opts.resamples(), opts.Seed)
			}
			if err != nil {
				return err
			}
			b, err := reps.PoissonBootstrap(conf)
			if err != nil {
				return err
			}
			r.Difference = stats.Interval{Estimate: b.Estimate, Low: b.Low, High: b.High, Confidence: b.Confidence}
			if a := oneSidedAlpha(r, opts); a > 0 {
				one, err := reps.PoissonBootstrap(1 - 2*a)
				if err != nil {
					return err
				}
				marginFromInterval(r, &stats.Interval{Estimate: one.Estimate, Low: one.Low, High: one.High, Confidence: one.Confidence}, marginBootstrap, opts)
			}
			r.Resampling = string(Poisson)
			r.Method = strings.Replace(r.Method, "bootstrap", "poisson-bootstrap", 1)
			return nil
		}
		var b stats.BootstrapResult
		var err error
		if shared != nil {
			b, err = shared.boot, shared.bootErr
		} else {
			b, err = stats.PairedBootstrapUnits(u, stats.BootstrapOptions{Confidence: conf, Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx, OneSided: oneSidedAlpha(r, opts)})
		}
		if err != nil {
			return err
		}
		r.Difference = stats.Interval{Estimate: b.Estimate, Low: b.Low, High: b.High, Confidence: b.Confidence}
		marginFromInterval(r, b.OneSided, marginBootstrap, opts)
		r.Resampling = string(Multinomial)
		return nil
	}
	oneRow := func() error {
		if u.Rows != nil {
			return fmt.Errorf("%w: %s pairs one row per unit, and these evaluations have several rows per unit", ErrNotApplicable, method)
		}
		return nil
	}
	switch method {
	case Bootstrap:
		if err := bootstrap(); err != nil {
			return err
		}
		if reps != nil {
			r.PValue = reps.FlipPValue()
			break
		}
		var perm stats.RandomizationResult
		var err error
		if shared != nil && shared.perm != nil {
			perm, err = *shared.perm, shared.permErr
		} else {
			perm, err = stats.RandomizationUnits(u, stats.RandomizationOptions{Permutations: opts.resamples(), Seed: opts.Seed, Context: ctx})
		}
		if err != nil {
			return err
		}
		r.PValue = perm.PValue
	case PairedT:
		var t stats.PairedTResult
		var err error
		if red != nil {
			t, err = red.summary().PairedT(stats.PairedTOptions{Confidence: conf})
		} else {
			t, err = stats.PairedT(left, right, stats.PairedTOptions{Confidence: conf})
		}
		if err != nil {
			return err
		}
		r.Difference = stats.Interval{Estimate: t.MeanDiff, Low: t.CILow, High: t.CIHigh, Confidence: conf}
		r.PValue = t.PValue
		r.Statistic = statistic("t", t.T, float64(t.DF))
		if err := marginFromT(r, t.MeanDiff, t.SE, t.DF, opts); err != nil {
			return err
		}
	case Wilcoxon:
		var w stats.WilcoxonResult
		var err error
		if red != nil {
			var ranks stats.SignedRanks
			if ranks, err = red.ranks(ctx); err == nil {
				w, err = stats.WilcoxonRanks(ranks, stats.WilcoxonOptions{})
			}
		} else {
			w, err = stats.Wilcoxon(left, right, stats.WilcoxonOptions{})
		}
		if err != nil {
			return err
		}
		if err := bootstrap(); err != nil {
			return err
		}
		r.PValue, r.Wilcoxon = w.PValue, &w
		r.Statistic = statistic("W+", w.WPlus, math.NaN())
	case McNemar:
		if err := oneRow(); err != nil {
			return err
		}
		m, err := stats.McNemar(left, right, stats.McNemarOptions{})
		if err != nil {
			return fmt.Errorf("%w (McNemar needs a 0/1 correctness metric)", err)
		}
		if err := bootstrap(); err != nil {
			return err
		}
		r.PValue, r.McNemar = m.PValue, &m
		name := "chi2"
		if m.Mode == stats.McNemarExact {
			name = "b"
		}
		r.Statistic = statistic(name, m.Statistic, math.NaN())
	case DeLong:
		if err := oneRow(); err != nil {
			return err
		}
		y := make([]float64, len(ids))
		for i, id := range ids {
			l, ok := labels[id]
			if !ok {
				return fmt.Errorf("%w: sample %q has no label recorded with the evaluation set; log the evaluation with its labels", ErrNotApplicable, id)
			}
			y[i] = float64(l)
		}
		d, err := stats.DeLong(y, left, right, stats.DeLongOptions{Confidence: conf})
		if err != nil {
			return err
		}
		// The compared quantity is the AUC, higher is better whatever the
		// scores' own direction.
		r.Direction, r.LowerIsBetter = HigherIsBetter, false
		r.CandidateBetter, r.CandidateWorse, r.Same = 0, 0, 0
		r.BaselineMean, r.CandidateMean = d.AUCLeft, d.AUCRight
		r.Difference = stats.Interval{Estimate: d.Diff, Low: d.CILow, High: d.CIHigh, Confidence: conf}
		r.PValue, r.DeLong = d.PValue, &d
		r.Statistic = statistic("z", d.Z, math.NaN())
		marginFromNormal(r, r.Difference, opts)
	case FiveByTwo:
		if len(left) != 10 || u.Rows != nil {
			return fmt.Errorf("%w: 5x2 evaluations must share 10 folds of one row each, got %d units", ErrNotApplicable, len(left))
		}
		diffs := make([]float64, 10)
		for i := range diffs {
			diffs[i] = left[i] - right[i]
		}
		f, err := stats.FiveByTwoCVT(diffs)
		if err != nil {
			return err
		}
		if err := bootstrap(); err != nil {
			return err
		}
		r.PValue, r.Folds = f.PValue, ids
		r.Statistic = statistic("t", f.T, float64(f.DF))
	case CorrectedT:
		return correctedT(r, left, right, ids, opts)
	default:
		return invalidf("method %q", method)
	}
	return nil
}

// effects sets r's effect sizes: d_z, the mean difference over the
// standard deviation of the per-unit differences that variance gives, and
// the probability of superiority from the counts, with its interval from
// the multinomial bootstrap draws the comparison made: shared's, else
// those of a bootstrap of u, the units paired in Go; with neither (units
// reduced in the database) there is no interval. DeLong compares AUCs, of
// no unit: it gets neither.
func effects(ctx context.Context, r *MetricResult, u *stats.PairedUnits, variance func() (float64, error), opts Options, shared *resampled) error {
	r.EffectSizeDz, r.ProbSuperiority, r.ProbSuperiorityLow, r.ProbSuperiorityHigh = nil, nil, nil, nil
	if r.DeLong != nil || r.N == 0 {
		return nil
	}
	if v, err := variance(); err == nil && v > 0 && r.Hint != HintEqualMeans {
		dz := r.Difference.Estimate / math.Sqrt(v)
		r.EffectSizeDz = &dz
	}
	ps := (float64(r.CandidateBetter) + float64(r.Same)/2) / float64(r.N)
	r.ProbSuperiority = &ps
	// The interval comes from the multinomial bootstrap's draws. The
	// Poisson bootstrap's sum differences alone, as a distributed database
	// streams them (a hash and a difference a unit), with no unit's score:
	// it gets none, on one server too, so that both give the same result.
	if Resampling(r.Resampling) != Multinomial {
		return nil
	}
	var b stats.BootstrapResult
	var err error
	switch {
	case shared != nil && shared.sup != nil:
		b, err = *shared.sup, shared.supErr // drawn with the difference's bootstrap
	case u != nil:
		b, err = stats.PairedSuperiorityUnits(*u, r.Direction.Lower(), stats.BootstrapOptions{
			Confidence: opts.confidence(), Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx})
	default:
		return nil
	}
	if err != nil {
		return err
	}
	lo, hi := b.Low, b.High
	r.ProbSuperiorityLow, r.ProbSuperiorityHigh = &lo, &hi
	return nil
}

// correctedT runs the corrected resampled t, and the Bayesian correlated t
// with a ROPE, on k-fold units. Without the fold sizes, k-fold evaluations
// assume ρ = 1/k, as folds of equal size give: n_test/n_train = 1/(k − 1).
func correctedT(r *MetricResult, left, right []float64, ids []string, opts Options) error {
	ctOpts := stats.CorrectedTOptions{NTrain: int(r.NTrain), NTest: int(r.NTest)}
	if !(r.NTrain > 0 && r.NTest > 0) {
		if r.K < 2 {
			return fmt.Errorf("%w: the corrected resampled t needs the training and test sizes of the folds, or k-fold evaluations with their number of folds, and the evaluations were logged without them", ErrNotApplicable)
		}
		ctOpts, r.RhoAssumed = stats.CorrectedTOptions{Folds: r.K}, true
	}
	ct, err := stats.CorrectedResampledT(left, right, ctOpts)
	if err != nil {
		return err
	}
	r.Difference = stats.TInterval(ct.MeanDiff, ct.T, ct.DF, opts.confidence())
	r.PValue, r.Folds, r.Rho = ct.PValue, ids, ct.Rho
	r.Statistic = statistic("t", ct.T, float64(ct.DF))
	if err := marginFromT(r, ct.MeanDiff, ct.SE, ct.DF, opts); err != nil {
		return err
	}
	// The Bayesian t's region of practical equivalence is the metric's
	// margin.
	rope, ok := opts.marginOf(r.Metric)
	if !ok && opts.Rope == nil {
		return nil
	} else if !ok {
		rope = *opts.Rope
	}
	b, err := stats.BayesCorrelatedT(left, right, stats.BayesOptions{
		Folds: ctOpts.Folds, NTrain: ctOpts.NTrain, NTest: ctOpts.NTest, Rope: rope, DecideAt: opts.DecideAt})
	if err != nil {
		return err
	}
	// The posterior is of baseline − candidate: "left better" means the
	// baseline's value is higher.
	higher, lower := b.PLeftBetter, b.PRightBetter
	decisions := map[stats.BayesDecision]BayesDecision{stats.BayesLeftBetter: BayesBaselineBetter,
		stats.BayesRightBetter: BayesCandidateBetter, stats.BayesEquivalent: BayesEquivalent, stats.BayesUndecided: BayesUndecided}
	if r.Direction.Lower() {
		higher, lower = lower, higher
		decisions[stats.BayesLeftBetter], decisions[stats.BayesRightBetter] = BayesCandidateBetter, BayesBaselineBetter
	}
	r.Bayes = &Bayes{Rope: rope, PBaselineBetter: higher, PEquivalent: b.PEquivalent, PCandidateBetter: lower,
		Decision: decisions[b.Decision], DecideAt: b.DecideAt, DF: b.DF, Loc: b.Loc, Scale: b.Scale}
	return nil
}

// statistic is a Statistic, or nil for a non-finite value (a t of ±Inf
// when every difference is the same); a NaN df is left out.
func statistic(name string, v, df float64) *Statistic {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	s := &Statistic{Name: name, Value: v}
	if !math.IsNaN(df) {
		s.DF = &df
	}
	return s
}

// unitMeans is each unit's mean, sum/rows; with rows nil the sums
// themselves.
func unitMeans(sums []float64, rows []int32) []float64 {
	if rows == nil {
		return sums
	}
	out := make([]float64, len(sums))
	for i := range sums {
		out[i] = sums[i] / float64(rows[i])
	}
	return out
}
