package compare

import (
	"context"
	"fmt"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// needsSampleIDs reports whether method, with opts, reads the units'
// sample IDs: the Poisson bootstrap hashes them, DeLong looks their labels
// up, and the fold-based tests name the folds by them. The others pair
// units of one row without them.
func needsSampleIDs(method Method, opts Options) bool {
	switch method {
	case DeLong, FiveByTwo, CorrectedT:
		return true
	}
	return opts.Resampling == Poisson
}

// fromDifferences reports whether method, with opts, reads units of one
// row through nothing but their exact summary and their differences
// (compareOneRow): the paired t-test, and the multinomial bootstrap with
// its sign-flip test.
func fromDifferences(method Method, opts Options) bool {
	return (method == Bootstrap || method == PairedT) && opts.Resampling != Poisson
}

// compareOneRow compares the metrics ms of one batch whose units have one
// row each, by a method of fromDifferences: it gives what pairOneServer's
// pairs give, bit for bit, without widening them. Each metric's stored
// values are made equal within storage precision and summarized exactly,
// then, for the bootstrap, turned into their differences in place, a
// metric a core; then every metric's bootstrap, probability of
// superiority and sign-flip test draw together from the differences
// (stats.PairedBootstrapDifferencesShared). It appends each metric's
// result to c.Metrics, in the order of ms.
func compareOneRow(ctx context.Context, c *Comparison, pairs *store.MetricPairs, ms []string, input func(string) pairedInput, method Method, opts Options) error {
	sums, diffs, errs := make([]stats.PairedSummary, len(ms)), make([]*stats.UnitDifferences, len(ms)), make([]error, len(ms))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for k := range ms {
		g.Go(func() error {
			values := pairs.Values32(k)
			pairs.Release(k) // the values are this metric's now
			equalizeWithinStorage32(values)
			if sums[k], errs[k] = stats.SummarizePairs32(values); errs[k] != nil || method != Bootstrap {
				return nil
			}
			diffs[k], errs[k] = stats.DifferencesOfPairs32(values)
			return nil
		})
	}
	g.Wait()
	shared := make([]*resampled, len(ms))
	if method == Bootstrap {
		var ok []int // the metrics with differences
		for k := range ms {
			if errs[k] == nil {
				ok = append(ok, k)
			}
		}
		// The one-sided bounds of a margin come from the same draws.
		oneSided := 0.0
		if opts.Margin != nil || len(opts.Margins) > 0 || opts.Rope != nil && *opts.Rope > 0 {
			oneSided = opts.alpha()
		}
		at := func(i int) *stats.UnitDifferences { return diffs[ok[i]] }
		boots, sups, bootErrs, supErrs := stats.PairedBootstrapDifferencesShared(len(ok), at,
			func(i int) bool { return input(ms[ok[i]]).dir.Lower() },
			stats.BootstrapOptions{Confidence: opts.confidence(), Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx, OneSided: oneSided})
		perms, permErrs := stats.RandomizationDifferencesShared(len(ok), at,
			stats.RandomizationOptions{Permutations: opts.resamples(), Seed: opts.Seed, Context: ctx})
		for i, k := range ok {
			sup := sups[i]
			sup.OneSided = nil
			shared[k] = &resampled{boot: boots[i], bootErr: bootErrs[i], sup: &sup, supErr: supErrs[i], perm: &perms[i], permErr: permErrs[i]}
			diffs[k] = nil
		}
	}
	leftOnly, rightOnly := pairs.Unpaired()
	for k, m := range ms {
		if errs[k] != nil {
			return fmt.Errorf("%s: %w", m, errs[k])
		}
		in := input(m)
		in.oneRow, in.leftOnly, in.rightOnly, in.shared = &sums[k], leftOnly, rightOnly, shared[k]
		r, err := compareMetric(ctx, c, in, method, opts)
		if err != nil {
			return fmt.Errorf("%s: %w", m, err)
		}
		c.Metrics = append(c.Metrics, r)
	}
	return nil
}

// equalizeWithinStorage32 is equalizeWithinStorage on interleaved float32
// values, unit u's left at 2u and right at 2u + 1: the right value is made
// the left one wherever the two, widened, are equal within storage
// precision.
func equalizeWithinStorage32(values []float32) {
	for i := 0; i+1 < len(values); i += 2 {
		if equalWithinStorage(float64(values[i]), float64(values[i+1])) {
			values[i+1] = values[i]
		}
	}
}

// summarized reduces units of one row held as nothing but their exact
// summary: what reads more of them (replicates, ranks) does not run on it
// (see fromDifferences), and calling it is a programming error.
type summarized struct{ sum stats.PairedSummary }

func (s summarized) summary() stats.PairedSummary { return s.sum }

func (s summarized) replicates(context.Context, int, uint64) (*stats.Replicates, error) {
	panic("compare: replicates of units held as their summary")
}

func (s summarized) ranks(context.Context) (stats.SignedRanks, error) {
	panic("compare: ranks of units held as their summary")
}
