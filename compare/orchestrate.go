package compare

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/verdict-ml/verdict/store"
)

// pairBudget bounds the bytes of per-unit sums one pairing join of a
// comparison returns: 32 metrics of a million units of one row.
const pairBudget = 256 << 20

// Evaluations compares two logged evaluations on each metric of
// opts.Metrics (default: every metric both have): it pairs them unit by
// unit inside PostgreSQL, runs the method's test, adjusts the p-values
// across metrics and decides each metric with stats.Decide. The winner is
// the better side for the metric's direction. With opts.Record, one
// transaction pairs every metric and records the results, so that what is
// recorded is what was read.
//
// Errors: store.ErrNotComparable for evaluations scored against different
// targets (unless AllowDifferentTargets), store.ErrUnknownMetric,
// ErrNothingShared for no shared metric or unit, ErrNotApplicable for a
// method that does not fit the data, ErrInvalid for bad options.
func Evaluations(ctx context.Context, st *store.Store, base, cand *store.Evaluation, opts Options) (*Comparison, error) {
	c := &Comparison{Baseline: base.Run, Candidate: cand.Run, BaselineEval: base, CandidateEval: cand}
	if base.Run == cand.Run && base.ID != cand.ID {
		c.Baseline, c.Candidate = evaluationName(base), evaluationName(cand)
	}
	metrics := opts.Metrics
	if len(metrics) == 0 {
		for _, m := range base.Metrics {
			if slices.Contains(cand.Metrics, m) {
				metrics = append(metrics, m)
			}
		}
		if len(metrics) == 0 {
			return nil, fmt.Errorf("%w: evaluations %d and %d share no metric (%s; %s)", ErrNothingShared,
				base.ID, cand.ID, strings.Join(base.Metrics, ", "), strings.Join(cand.Metrics, ", "))
		}
	}
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	if err := checkMargins(opts, metrics); err != nil {
		return nil, err
	}
	if base.Predictions != nil || cand.Predictions != nil {
		return evaluatePredictions(ctx, st, c, metrics, opts)
	}
	method := opts.Method
	var auto *AutoChoice
	if method == "" {
		switch {
		case isKFold(base) && isKFold(cand):
			method = CorrectedT
		case base.Protocol.Name == "5x2" && cand.Protocol.Name == "5x2":
			method = FiveByTwo
		default:
			method = Bootstrap
			if auto = autoMethod(base, cand, opts); auto != nil {
				method = auto.Method
			}
		}
	}
	distributed, err := st.Distributed(ctx)
	if err != nil {
		return nil, err
	}
	// One join pairs a batch of metrics; a batch's sums take 8 bytes a
	// unit and metric (16 with draws), so a batch holds at most pairBudget
	// bytes of them.
	perUnit := 8
	if base.ScoredRows != base.Units || cand.ScoredRows != cand.Units {
		perUnit = 16
	}
	batch := max(1, pairBudget/(perUnit*int(max(base.Units, cand.Units, 1))))
	err = st.InTx(ctx, func(tx *store.Tx) error {
		c.Metrics = nil
		var labels map[string]int16
		if method == DeLong {
			var err error
			if labels, err = tx.Labels(ctx, base.EvalSetID); err != nil {
				return err
			}
		}
		for first := 0; first < len(metrics); first += batch {
			ms := metrics[first:min(first+batch, len(metrics))]
			input := inputs(base, cand, opts, labels)
			var err error
			if distributed {
				err = pairDistributed(ctx, tx, c, base, cand, ms, input, method, opts)
			} else {
				err = pairOneServer(ctx, tx, c, base, cand, ms, input, method, opts)
			}
			if err != nil {
				return err
			}
		}
		for _, r := range c.Metrics {
			r.Auto = auto
		}
		return conclude(ctx, tx, c, opts, func(int) Method { return method })
	})
	if err != nil {
		return nil, err
	}
	return c, warnSeeds(ctx, st, c)
}

// inputs returns a metric's pairedInput for a comparison of base and cand,
// without its units.
func inputs(base, cand *store.Evaluation, opts Options, labels map[string]int16) func(m string) pairedInput {
	return func(m string) pairedInput {
		return pairedInput{
			metric: m,
			dir:    DirectionOf(m, base.LowerIsBetter, cand.LowerIsBetter),
			nTrain: base.Protocol.NTrain, nTest: base.Protocol.NTest,
			folds:    isKFold(base) && isKFold(cand) || base.Protocol.Name == "5x2" && cand.Protocol.Name == "5x2",
			kfold:    isKFold(base) && isKFold(cand),
			protocol: base.Protocol,
			poisson:  opts.Resampling == Poisson,
			labels:   labels,
		}
	}
}

// pairOneServer compares the metrics ms of one batch on one server: one
// join pairs them, with the sample IDs only where the method reads them,
// and they share their multinomial resampling where the method allows.
// Units of one row compared by a method of fromDifferences go to
// compareOneRow. It appends each metric's result to c.Metrics, in the
// order of ms.
func pairOneServer(ctx context.Context, tx *store.Tx, c *Comparison, base, cand *store.Evaluation, ms []string, input func(string) pairedInput, method Method, opts Options) error {
	pairs, err := tx.PairMetrics(ctx, base.ID, cand.ID, ms, store.PairOptions{
		Intersect: opts.AllowDifferentTargets, SampleIDs: needsSampleIDs(method, opts)})
	if err != nil {
		return err
	}
	if pairs.OneRow() && pairs.Units() > 0 && fromDifferences(method, opts) {
		return compareOneRow(ctx, c, pairs, ms, input, method, opts)
	}
	shared := shareResampling(ctx, pairs, method, opts, func(k int) bool { return input(ms[k]).dir.Lower() })
	// The metrics' own work (exact sums, counts, tests that do
	// not resample) runs on every core, a metric each; each
	// metric's sums are made when it starts and let go when it
	// ends.
	rs, errs := make([]*MetricResult, len(ms)), make([]error, len(ms))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for k, m := range ms {
		g.Go(func() error {
			in := input(m)
			in.pairs, in.shared = pairs.Pairs(k), shared[k]
			pairs.Release(k)
			rs[k], errs[k] = compareMetric(ctx, c, in, method, opts)
			return nil
		})
	}
	g.Wait()
	for k, m := range ms {
		if errs[k] != nil {
			return fmt.Errorf("%s: %w", m, errs[k])
		}
		c.Metrics = append(c.Metrics, rs[k])
	}
	return nil
}

// pairDistributed compares the metrics ms of one batch on a distributed
// (Citus) database: each metric is reduced in the database where its
// method allows, else paired on its own. It appends each metric's result
// to c.Metrics, in the order of ms.
func pairDistributed(ctx context.Context, tx *store.Tx, c *Comparison, base, cand *store.Evaluation, ms []string, input func(string) pairedInput, method Method, opts Options) error {
	for _, m := range ms {
		in := input(m)
		var err error
		if in.pushed, in.poisson, err = pushDown(ctx, tx, base, cand, m, method, opts); err != nil {
			return err
		}
		if in.pushed == nil {
			if in.pairs, err = tx.Pair(ctx, base.ID, cand.ID, m, opts.AllowDifferentTargets); err != nil {
				return err
			}
		}
		r, err := compareMetric(ctx, c, in, method, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		c.Metrics = append(c.Metrics, r)
	}
	return nil
}

// evaluatePredictions is Evaluations for two evaluations of predictions.
func evaluatePredictions(ctx context.Context, st *store.Store, c *Comparison, metrics []string, opts Options) (*Comparison, error) {
	err := st.InTx(ctx, func(tx *store.Tx) error {
		c.Metrics = nil
		methods, err := comparePredictions(ctx, tx, c, metrics, opts)
		if err != nil {
			return err
		}
		return conclude(ctx, tx, c, opts, func(i int) Method { return methods[i] })
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

func isKFold(e *store.Evaluation) bool {
	return e.Protocol.Name == "kfold" || e.Protocol.Name == "repeated_kfold"
}
