package compare

import (
	"context"
	"slices"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// resampled is a metric's multinomial bootstrap, the bootstrap of its
// probability of superiority, and, for the bootstrap method, its sign-flip
// test, computed with the other metrics paired by the same join from one
// set of draws (stats.PairedBootstrapUnitsShared): what the metric's own
// resampling gives, bit for bit, and errors alike.
type resampled struct {
	boot    stats.BootstrapResult
	bootErr error
	// sup is the probability of superiority's bootstrap (units of one row
	// only; nil otherwise), as stats.PairedSuperiorityUnits gives it.
	sup     *stats.BootstrapResult
	supErr  error
	perm    *stats.RandomizationResult
	permErr error
}

// shareResampling resamples the metrics of mp together where method
// resamples them with the multinomial bootstrap, and returns each metric's
// results (nil where it resamples on its own: another method or
// resampling, draws that differ between the sides). The units are
// prepared as compareMetric prepares them, values equal within storage
// precision made equal, one metric at a time. Units of one row also
// share the draws with their probability of superiority, of direction
// lower(k), so that one metric alone still resamples once.
func shareResampling(ctx context.Context, mp *store.MetricPairs, method Method, opts Options, lower func(k int) bool) []*resampled {
	out := make([]*resampled, len(mp.Metrics))
	switch method {
	case Bootstrap, Wilcoxon, McNemar, FiveByTwo:
	default:
		return out
	}
	if opts.Resampling == Poisson || mp.Units() == 0 {
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
	// Metrics k ≥ len(out) are the superiority scores of metric k − len(out).
	m, all := len(out), len(out)
	if left, _ := mp.Rows(); !oneRow(left) {
		if m < 2 {
			return out
		}
	} else {
		all = 2 * m
	}
	withScores := func(k int) stats.PairedUnits {
		if k < m {
			return units(k)
		}
		w, err := stats.SuperiorityScores(units(k-m), lower(k-m))
		if err != nil {
			return stats.PairedUnits{} // refused, as the metric's own units are
		}
		return stats.PairedUnits{LeftSum: w, RightSum: make([]float64, len(w))}
	}
	boots, bootErrs := stats.PairedBootstrapUnitsShared(all, withScores, stats.BootstrapOptions{
		Confidence: opts.confidence(), Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx, OneSided: oneSided})
	for k := range out {
		out[k] = &resampled{boot: boots[k], bootErr: bootErrs[k]}
		if all > m {
			sup := boots[m+k]
			sup.OneSided = nil
			out[k].sup, out[k].supErr = &sup, bootErrs[m+k]
		}
	}
	if method == Bootstrap && m >= 2 {
		perms, permErrs := stats.RandomizationUnitsShared(len(out), units, stats.RandomizationOptions{Permutations: opts.resamples(), Seed: opts.Seed, Context: ctx})
		for k := range out {
			out[k].perm, out[k].permErr = &perms[k], permErrs[k]
		}
	}
	return out
}

// oneRow reports whether every unit has one row.
func oneRow(rows []int32) bool {
	for _, r := range rows {
		if r != 1 {
			return false
		}
	}
	return true
}
