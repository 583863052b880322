package compare

import (
	"context"
	"slices"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// resampled is a metric's multinomial bootstrap and, for the bootstrap
// method, its sign-flip test, computed with the other metrics paired by
// the same join from one set of draws (stats.PairedBootstrapUnitsShared):
// what the metric's own resampling gives, bit for bit, and errors alike.
type resampled struct {
	boot    stats.BootstrapResult
	bootErr error
	perm    *stats.RandomizationResult
	permErr error
}

// shareResampling resamples the metrics of mp together where method
// resamples them with the multinomial bootstrap, and returns each metric's
// results (nil where it resamples on its own: another method or
// resampling, draws that differ between the sides). The units are
// prepared as compareMetric prepares them, values equal within storage
// precision made equal, one metric at a time.
func shareResampling(ctx context.Context, mp *store.MetricPairs, method Method, opts Options) []*resampled {
	out := make([]*resampled, len(mp.Metrics))
	switch method {
	case Bootstrap, Wilcoxon, McNemar, FiveByTwo:
	default:
		return out
	}
	if opts.Resampling == Poisson || len(out) < 2 || mp.Units() == 0 {
		return out
	}
	// Metrics whose sides' draws differ are refused by compareMetric; the
	// others are resampled here. Draws differ for every metric or none.
	if left, right := mp.Rows(); !slices.Equal(left, right) {
		return out
	}
	units := func(k int) stats.PairedUnits {
		p := mp.Pairs(k)
		equalizeWithinStorage(p.LeftSum, p.RightSum)
		u := stats.PairedUnits{LeftSum: p.LeftSum, RightSum: p.RightSum}
		if p.Draws() {
			u.Rows = p.LeftRows
		}
		return u
	}
	// The one-sided bounds of a margin come from the same draws.
	oneSided := 0.0
	if opts.Margin != nil || len(opts.Margins) > 0 || opts.Rope != nil && *opts.Rope > 0 {
		oneSided = opts.alpha()
	}
	boots, bootErrs := stats.PairedBootstrapUnitsShared(len(out), units, stats.BootstrapOptions{
		Confidence: opts.confidence(), Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx, OneSided: oneSided})
	for k := range out {
		out[k] = &resampled{boot: boots[k], bootErr: bootErrs[k]}
	}
	if method == Bootstrap {
		perms, permErrs := stats.RandomizationUnitsShared(len(out), units, stats.RandomizationOptions{Permutations: opts.resamples(), Seed: opts.Seed, Context: ctx})
		for k := range out {
			out[k].perm, out[k].permErr = &perms[k], permErrs[k]
		}
	}
	return out
}
