package compare

import (
	"context"

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

// shareResampling resamples the metrics of pairs together where method
// resamples them with the multinomial bootstrap, and returns each metric's
// results (nil where it resamples on its own: another method or
// resampling, draws that differ between the sides). The units are
// prepared as compareMetric prepares them, values equal within storage
// precision made equal.
func shareResampling(ctx context.Context, pairs []*store.Pairs, method Method, opts Options) []*resampled {
	out := make([]*resampled, len(pairs))
	switch method {
	case Bootstrap, Wilcoxon, McNemar, FiveByTwo:
	default:
		return out
	}
	if opts.Resampling == Poisson || len(pairs) < 2 {
		return out
	}
	var us []stats.PairedUnits
	var which []int
	for k, p := range pairs {
		u, ok := pairedUnits(p)
		if !ok {
			continue
		}
		us, which = append(us, u), append(which, k)
	}
	boots, bootErrs := stats.PairedBootstrapUnitsShared(us, stats.BootstrapOptions{
		Confidence: opts.confidence(), Resamples: opts.resamples(), Seed: opts.Seed, Context: ctx})
	for i, k := range which {
		out[k] = &resampled{boot: boots[i], bootErr: bootErrs[i]}
	}
	if method == Bootstrap {
		perms, permErrs := stats.RandomizationUnitsShared(us, stats.RandomizationOptions{Permutations: opts.resamples(), Seed: opts.Seed, Context: ctx})
		for i, k := range which {
			out[k].perm, out[k].permErr = &perms[i], permErrs[i]
		}
	}
	return out
}

// pairedUnits are the units compareMetric resamples for p, made equal
// within storage precision in place; false when the sides' draws differ,
// which compareMetric refuses.
func pairedUnits(p *store.Pairs) (stats.PairedUnits, bool) {
	if len(p.SampleIDs) == 0 {
		return stats.PairedUnits{}, false
	}
	var rows []int32
	if p.Draws() {
		for i := range p.LeftRows {
			if p.LeftRows[i] != p.RightRows[i] {
				return stats.PairedUnits{}, false
			}
		}
		rows = p.LeftRows
	}
	equalizeWithinStorage(p.LeftSum, p.RightSum)
	return stats.PairedUnits{LeftSum: p.LeftSum, RightSum: p.RightSum, Rows: rows}, true
}
