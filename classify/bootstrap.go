package classify

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/verdict-ml/verdict/stats"
)

// BootstrapOptions configures PairedBootstrap.
type BootstrapOptions struct {
	// Options holds the metric's threshold (accuracy, precision, recall,
	// f1) and number of bins (ece). As for Options, the zero value is not
	// the default; DefaultBootstrapOptions starts from DefaultOptions.
	Options

	// Unstratified draws every replicate from all samples together. By
	// default (false) positives are drawn from the positives and negatives
	// from the negatives, so that each replicate keeps the sample's
	// numbers of each.
	Unstratified bool

	// BootstrapOptions sets the confidence, the number of replicates B (at
	// most stats.MaxResamples), the seed and a Context that cancels the
	// resampling, as for stats.PairedBootstrapCounts; the interval method
	// must be empty or stats.Percentile.
	stats.BootstrapOptions
}

// DefaultBootstrapOptions returns a stratified bootstrap of 2000
// replicates with seed 0 and a 95 % interval, at a threshold of
// DefaultThreshold and with DefaultBins bins.
func DefaultBootstrapOptions() BootstrapOptions {
	return BootstrapOptions{Options: DefaultOptions()}
}

// BootstrapResult is the outcome of PairedBootstrap.
type BootstrapResult struct {
	// Metric is the metric's name, and LowerIsBetter its direction.
	Metric        string `json:"metric"`
	LowerIsBetter bool   `json:"lower_is_better"`
	// Threshold is the threshold of accuracy, precision, recall and f1,
	// and Bins the number of bins of ece; nil for other metrics.
	Threshold *float64 `json:"threshold,omitempty"`
	Bins      *int     `json:"bins,omitempty"`
	// Stratified says whether each replicate drew positives and negatives
	// separately.
	Stratified bool `json:"stratified"`
	// N is the number of samples, Positives how many have label 1.
	N         int `json:"n"`
	Positives int `json:"positives"`
	// CountsBootstrapResult holds the interval, standard error, p-value
	// and replicates, as stats.PairedBootstrapCounts defines them, except
	// that Left and Right are the metric of each model on all samples as
	// the metric's own function computes it (Difference is Left − Right).
	// Interval gives the difference with its interval.
	stats.CountsBootstrapResult
}

// PairedBootstrap compares two classifiers scored on the same samples by a
// stratified, paired bootstrap of any binary metric (metric is a name
// Metrics lists with a binary form: roc_auc, average_precision, log_loss,
// brier, accuracy, precision, recall, f1 or ece). Each replicate draws n
// samples with replacement, the positives from the positives and the
// negatives from the negatives unless opts.Unstratified, and recomputes the
// metric of both models on the same draws; the difference is left − right,
// the baseline minus the candidate. The result holds both metrics on all
// samples, the difference with its percentile interval, the bootstrap
// standard error, and the two-sided p-value
//
//	p = min(1, 2 · (1 + min(#{d* ≤ 0}, #{d* ≥ 0})) / (B + 1))
//
// over the B replicate differences d*, which cannot go below 2/(B + 1);
// stats.PairedBootstrapCounts gives its reasoning. The result is the same
// bit for bit for the same inputs, options and seed on any number of cores.
//
// The bootstrap belongs to two packages. Drawing the replicates (the
// strata, the seeded parallel streams, cancellation, the interval and the
// p-value) is stats.PairedBootstrapCounts, which knows nothing of
// classifiers and takes any statistic of a weighted sample; what a metric
// is, and how to recompute it fast, stays here. Each replicate reaches
// the metric as per-sample draw counts, and nothing is re-sorted or copied
// per replicate:
//
//   - roc_auc and average_precision sort each model's scores once, before
//     resampling, and bin the samples by where their score lies among the
//     positives' distinct scores; a replicate adds each sample's count to
//     its bin for both models in one pass, then walks the bins, forming
//     the integer sums of AUCWeighted and AveragePrecisionWeighted;
//   - log_loss and brier take the count-weighted mean of per-sample terms
//     computed once (so no logarithm is taken per replicate);
//   - accuracy, precision, recall and f1 count the confusion matrix with
//     the counts as weights;
//   - ece sums the counts and count-weighted probabilities per bin.
//
// Each is the metric of the replicate written out with sample i repeated
// counts[i] times, to rounding (exactly, for the ranking and threshold
// metrics, whose sums are integers).
//
// With opts.Unstratified, a replicate of a ranking metric may draw no
// positive (or no negative) and leave the metric undefined; such
// replicates are counted in Undefined and left out. Stratified replicates
// keep at least one of each whenever the sample has one, so none is
// undefined.
//
// Errors wrap ErrUnknownMetric for a name that is not a binary metric,
// ErrLengths when labels, left and right differ in length, and otherwise
// what the metric itself returns on either model's scores (ErrEmpty,
// ErrLabel, ErrNotFinite and ErrNotProbability naming the side,
// ErrSingleClass for roc_auc and average_precision on one class,
// ErrBadParameter for a threshold or number of bins), ErrBadParameter for
// an interval method other than percentile or more than 2³⁰ samples, or
// what
// stats.PairedBootstrapCounts returns for the other options
// (stats.ErrBadParameter) or a cancelled Context.
func PairedBootstrap(metric string, labels []int8, left, right []float64, opts BootstrapOptions) (BootstrapResult, error) {
	plan, err := planBootstrap(metric, labels, left, right, opts)
	if err != nil {
		return BootstrapResult{}, err
	}
	return plan.run(plan.statistic, opts)
}

// run draws the plan's replicates of statistic and completes its result
// with the interval, standard error and p-value.
func (plan bootPlan) run(statistic func() stats.CountStatistic, opts BootstrapOptions) (BootstrapResult, error) {
	res := plan.res
	boot, err := stats.PairedBootstrapCounts(plan.layout.strata, statistic, opts.BootstrapOptions)
	if err != nil {
		return BootstrapResult{}, err
	}
	// The metric's own values on all samples stay.
	boot.Left, boot.Right, boot.Difference = res.Left, res.Right, res.Difference
	res.CountsBootstrapResult = boot
	return res, nil
}

// maxBootstrapSamples bounds the samples of PairedBootstrap, 2³⁰, so that
// a ranking metric's histogram keys, up to 4n + 1, fit in 32 bits.
const maxBootstrapSamples = 1 << 30

// bootPlan is a bootstrap ready to resample: the result with its point
// estimates, the layout of the samples and the replicate statistic.
type bootPlan struct {
	res       BootstrapResult
	layout    bootLayout
	statistic func() stats.CountStatistic
}

// planBootstrap validates the input, computes both models' metric on all
// samples and prepares the replicate statistic.
func planBootstrap(metric string, labels []int8, left, right []float64, opts BootstrapOptions) (bootPlan, error) {
	m, err := ParseMetric(metric)
	if err != nil {
		return bootPlan{}, err
	}
	if m.Binary == nil {
		return bootPlan{}, fmt.Errorf("%w: %s is a multi-class metric; the paired bootstrap takes binary ones", ErrUnknownMetric, m.Name)
	}
	if len(left) != len(labels) || len(right) != len(labels) {
		return bootPlan{}, fmt.Errorf("%w: %d labels, %d left scores, %d right scores", ErrLengths, len(labels), len(left), len(right))
	}
	if len(labels) > maxBootstrapSamples {
		return bootPlan{}, fmt.Errorf("%w: %d samples; the bootstrap takes at most %d", ErrBadParameter, len(labels), maxBootstrapSamples)
	}
	if opts.Method != "" && opts.Method != stats.Percentile {
		// BCa's acceleration would need a jackknife of the metric: n
		// recomputations, where the bootstrap makes B.
		return bootPlan{}, fmt.Errorf("%w: the paired bootstrap of a classifier metric gives %s intervals only, not %s", ErrBadParameter, stats.Percentile, opts.Method)
	}
	res := BootstrapResult{Metric: m.Name, LowerIsBetter: m.LowerIsBetter, Stratified: !opts.Unstratified, N: len(labels)}
	switch m.Name {
	case "accuracy", "precision", "recall", "f1":
		res.Threshold = &opts.Threshold
	case "ece":
		res.Bins = &opts.Bins
	}

	if ranking := rankingMetrics[m.Name]; ranking != nil {
		// The metric's own function would sort each model's scores once
		// more; the bootstrap's sort orders give the same numbers.
		if err := checkBinary(labels, left); err != nil {
			return bootPlan{}, sideError("left", err)
		}
		if err := checkBinary(labels, right); err != nil {
			return bootPlan{}, sideError("right", err)
		}
		if err := checkBothClasses(ranking.name, labels); err != nil {
			return bootPlan{}, err
		}
		lay := newBootLayout(labels, left, !opts.Unstratified, true)
		rightOrder := Order(right)
		res.Left = ranking.weighted(lay.leftOrder, labels, left, nil)
		res.Right = ranking.weighted(rightOrder, labels, right, nil)
		res.Difference = res.Left - res.Right
		res.Positives = lay.positives
		return bootPlan{res, lay, lay.rankedStatistic(ranking.fromSlots, labels, left, right, rightOrder)}, nil
	}
	if res.Left, err = m.Binary(labels, left, opts.Options); err != nil {
		return bootPlan{}, sideError("left", err)
	}
	if res.Right, err = m.Binary(labels, right, opts.Options); err != nil {
		return bootPlan{}, sideError("right", err)
	}
	res.Difference = res.Left - res.Right
	lay := newBootLayout(labels, left, !opts.Unstratified, false)
	res.Positives = lay.positives
	return bootPlan{res, lay, lay.statistic(m.Name, labels, left, right, opts.Options)}, nil
}

// rankingMetrics are the metrics that sort the scores: the name they give
// in errors, their weighted form, and their form from a rankedSide's
// histogram.
var rankingMetrics = map[string]*struct {
	name      string
	weighted  func([]int32, []int8, []float64, []int32) float64
	fromSlots func([]int32) float64
}{
	"roc_auc":           {name: "ROC AUC", weighted: AUCWeighted, fromSlots: aucSlots},
	"average_precision": {name: "average precision", weighted: AveragePrecisionWeighted, fromSlots: averagePrecisionSlots},
}

// sideError names the model whose scores an error is about; errors about
// the labels or the parameters are the same for both and pass unchanged.
func sideError(side string, err error) error {
	if errors.Is(err, ErrNotFinite) || errors.Is(err, ErrNotProbability) {
		return fmt.Errorf("%s %w", side, err)
	}
	return err
}

// bootLayout is the order in which the bootstrap sees the samples: perm[k]
// is the sample at position k. Stratified, the positives come first, then
// the negatives, as stats.PairedBootstrapCounts wants its strata. Within a
// stratum the ranking metrics put the samples in ascending order of the
// left model's scores, so that the left model's histogram keys (see
// rankedSide) rise along each stratum and its writes stay in cache however
// many slots there are.
type bootLayout struct {
	perm      []int32
	strata    []int
	positives int
	// leftOrder is the left model's ascending score order, as original
	// indices, when the layout follows it; nil otherwise.
	leftOrder []int32
}

// same reports whether two layouts put the same samples in the same
// places and strata, so that one replicate's counts mean the same draws
// for both.
func (lay bootLayout) same(other bootLayout) bool {
	return slices.Equal(lay.strata, other.strata) && slices.Equal(lay.perm, other.perm)
}

// newBootLayout lays the samples out in strata when stratified, and
// within them in the left model's score order when sorted.
func newBootLayout(labels []int8, left []float64, stratified, sorted bool) bootLayout {
	n := len(labels)
	lay := bootLayout{perm: make([]int32, 0, n)}
	for _, l := range labels {
		lay.positives += int(l)
	}
	walk := func(yield func(i int32)) {
		for i := range int32(n) {
			yield(i)
		}
	}
	if sorted {
		lay.leftOrder = Order(left)
		walk = func(yield func(i int32)) {
			for _, i := range lay.leftOrder {
				yield(i)
			}
		}
	}
	if !stratified {
		walk(func(i int32) { lay.perm = append(lay.perm, i) })
		lay.strata = []int{n}
		return lay
	}
	walk(func(i int32) {
		if labels[i] == 1 {
			lay.perm = append(lay.perm, i)
		}
	})
	walk(func(i int32) {
		if labels[i] == 0 {
			lay.perm = append(lay.perm, i)
		}
	})
	lay.strata = []int{lay.positives, n - lay.positives}
	return lay
}

// statistic returns the stats.CountStatistic maker of a metric that does
// not sort, with every per-sample quantity it needs precomputed in layout
// order.
func (lay bootLayout) statistic(name string, labels []int8, left, right []float64, opts Options) func() stats.CountStatistic {
	switch name {
	case "log_loss":
		return lay.meanStatistic(labels, left, right, binaryLogLossTerm)
	case "brier":
		return lay.meanStatistic(labels, left, right, func(y int8, p float64) float64 {
			d := p - float64(y)
			return d * d
		})
	case "accuracy":
		return lay.confusionStatistic(labels, left, right, opts.Threshold, Confusion.Accuracy)
	case "precision":
		return lay.confusionStatistic(labels, left, right, opts.Threshold, Confusion.Precision)
	case "recall":
		return lay.confusionStatistic(labels, left, right, opts.Threshold, Confusion.Recall)
	case "f1":
		return lay.confusionStatistic(labels, left, right, opts.Threshold, Confusion.F1)
	case "ece":
		return lay.eceStatistic(labels, left, right, opts.Bins)
	}
	panic("classify: no bootstrap statistic for " + name)
}

// rankedSide is one model's samples binned for a ranking metric. Let
// t_0 < t_1 < … < t_{G−1} be the distinct scores of the positives. Slot
// 2g+1 holds the samples scoring exactly t_g, positives and negatives
// alike, and slot 2g the negatives scoring strictly between t_{g−1} and
// t_g (below t_0 for g = 0, above t_{G−1} for g = G), so there are 2G + 1
// slots. Both AUCWeighted and AveragePrecisionWeighted walk the groups of
// equal scores in order, and a group without positives only adds its
// negatives to a running count; so the weighted counts of positives and of
// negatives in each slot are all they need, and give them the same integer
// sums. keys[k] is 2·slot + label of the sample at layout position k: its
// place in a histogram of 2(2G + 1) counts, negatives and positives of
// each slot side by side.
type rankedSide struct {
	keys  []uint32
	slots int
}

// newRankedSide bins scores, whose ascending sort order is order, given
// each sample's layout position.
func newRankedSide(order []int32, labels []int8, scores []float64, position []int32) rankedSide {
	s := rankedSide{keys: make([]uint32, len(order))}
	groups := 0 // the positives' distinct scores seen so far
	for j := 0; j < len(order); {
		score, end, positive := scores[order[j]], j, false
		for ; end < len(order) && scores[order[end]] == score; end++ {
			positive = positive || labels[order[end]] == 1
		}
		slot := 2 * groups
		if positive {
			slot++
			groups++
		}
		for ; j < end; j++ {
			i := order[j]
			s.keys[position[i]] = uint32(2*slot) + uint32(labels[i])
		}
	}
	s.slots = 2*groups + 1
	return s
}

// rankedStatistic recomputes AUC or AP (value, from a histogram) on each
// replicate: one pass over the samples adds each count to its slot in both
// models' histograms, then one pass over the slots gives the metric. The
// first pass reads memory in sequence and writes to histograms of
// 2(2G + 1) counts, which stay in cache when positives are few; that is
// where a bootstrap's precision matters most, and where the pass costs
// about a nanosecond a sample.
func (lay bootLayout) rankedStatistic(value func([]int32) float64, labels []int8, left, right []float64, rightOrder []int32) func() stats.CountStatistic {
	position := make([]int32, len(lay.perm)) // position[i]: where sample i is in the layout
	for k, i := range lay.perm {
		position[i] = int32(k)
	}
	l := newRankedSide(lay.leftOrder, labels, left, position)
	r := newRankedSide(rightOrder, labels, right, position)
	return func() stats.CountStatistic {
		hl, hr := make([]int32, 2*l.slots), make([]int32, 2*r.slots)
		return func(counts []int32) (float64, float64) {
			clear(hl)
			clear(hr)
			kl, kr := l.keys[:len(counts)], r.keys[:len(counts)]
			for k, c := range counts {
				hl[kl[k]] += c
				hr[kr[k]] += c
			}
			return value(hl), value(hr)
		}
	}
}

// aucSlots is AUCWeighted from a rankedSide's histogram h, walking the
// slots up: h[2s] negatives and h[2s+1] positives in slot s. The sums are
// AUCWeighted's, exact integers, so the result is the same number.
func aucSlots(h []int32) float64 {
	var negBelow, pos, twiceU int64
	for s := 0; s+1 < len(h); s += 2 {
		gn, gp := int64(h[s]), int64(h[s+1])
		twiceU += gp * (2*negBelow + gn)
		negBelow += gn
		pos += gp
	}
	if pos == 0 || negBelow == 0 {
		return math.NaN()
	}
	return float64(twiceU) / (2 * float64(pos) * float64(negBelow))
}

// averagePrecisionSlots is AveragePrecisionWeighted from a rankedSide's
// histogram h, walking the slots down: the same terms added in the same
// order, so the same number, but for a replicate without negatives. That
// is NaN here, not 1: AveragePrecision refuses a single class, and a
// replicate of one class is undefined for AP as it is for AUC.
func averagePrecisionSlots(h []int32) float64 {
	var tp, fp int64
	var sum stats.CompensatedSum
	for s := len(h) - 2; s >= 0; s -= 2 {
		gn, gp := int64(h[s]), int64(h[s+1])
		tp += gp
		fp += gn
		if gp > 0 {
			sum.Add(float64(gp) * float64(tp) / float64(tp+fp))
		}
	}
	if tp == 0 || fp == 0 {
		return math.NaN()
	}
	return sum.Value() / float64(tp)
}

// meanStatistic recomputes a metric that is a mean of per-sample terms
// (log loss, Brier score) as Σ c_k t_k / Σ c_k, with the terms t_k of both
// models computed once. The replicate sums are plain, two accumulators a
// side: their rounding, below 1e-10 relative for any n up to 10⁶ and
// usually near 1e-14, is far under the bootstrap's Monte Carlo error,
// where a compensated sum would cost as much as the rest of the pass.
func (lay bootLayout) meanStatistic(labels []int8, left, right []float64, term func(int8, float64) float64) func() stats.CountStatistic {
	terms := make([]float64, 2*len(lay.perm)) // left, right interleaved
	for k, i := range lay.perm {
		terms[2*k], terms[2*k+1] = term(labels[i], left[i]), term(labels[i], right[i])
	}
	return func() stats.CountStatistic {
		return func(counts []int32) (float64, float64) {
			var l0, l1, r0, r1 float64
			var total int64
			k := 0
			for ; k+2 <= len(counts); k += 2 {
				c0, c1 := float64(counts[k]), float64(counts[k+1])
				t := terms[2*k : 2*k+4]
				l0 += c0 * t[0]
				r0 += c0 * t[1]
				l1 += c1 * t[2]
				r1 += c1 * t[3]
				total += int64(counts[k]) + int64(counts[k+1])
			}
			if k < len(counts) {
				c := float64(counts[k])
				l0 += c * terms[2*k]
				r0 += c * terms[2*k+1]
				total += int64(counts[k])
			}
			return (l0 + l1) / float64(total), (r0 + r1) / float64(total)
		}
	}
}

// confusionStatistic recomputes a threshold metric from the confusion
// matrices of both models with the counts as weights. Each sample's cells
// are packed in a byte: the left model's 2·predicted + label in the low two
// bits, the right model's in the next two.
func (lay bootLayout) confusionStatistic(labels []int8, left, right []float64, threshold float64, metric func(Confusion) float64) func() stats.CountStatistic {
	cells := make([]uint8, len(lay.perm))
	for k, i := range lay.perm {
		y := uint8(labels[i])
		var pl, pr uint8
		if left[i] >= threshold {
			pl = 1
		}
		if right[i] >= threshold {
			pr = 1
		}
		cells[k] = (2*pl + y) | (2*pr+y)<<2
	}
	confusion := func(c *[4]int64) Confusion {
		return Confusion{TN: int(c[0]), FN: int(c[1]), FP: int(c[2]), TP: int(c[3])}
	}
	return func() stats.CountStatistic {
		return func(counts []int32) (float64, float64) {
			var cl, cr [4]int64
			for k, c := range counts {
				cell := cells[k]
				cl[cell&3] += int64(c)
				cr[cell>>2] += int64(c)
			}
			return metric(confusion(&cl)), metric(confusion(&cr))
		}
	}
}

// eceStatistic recomputes the ECE of both models from per-bin sums of the
// counts of positives and of count-weighted probabilities, each sample's
// bin found once. The per-bin sums are plain, for the reason
// meanStatistic gives.
func (lay bootLayout) eceStatistic(labels []int8, left, right []float64, bins int) func() stats.CountStatistic {
	n := len(lay.perm)
	y := make([]int64, n)
	bl, br := make([]int32, n), make([]int32, n)
	pl, pr := make([]float64, n), make([]float64, n)
	for k, i := range lay.perm {
		y[k] = int64(labels[i])
		bl[k], br[k] = int32(eceBin(left[i], bins)), int32(eceBin(right[i], bins))
		pl[k], pr[k] = left[i], right[i]
	}
	return func() stats.CountStatistic {
		posL, posR := make([]int64, bins), make([]int64, bins)
		sumL, sumR := make([]float64, bins), make([]float64, bins)
		ece := func(pos []int64, sums []float64, total int64) float64 {
			var s stats.CompensatedSum
			for b := range pos {
				s.Add(math.Abs(float64(pos[b]) - sums[b]))
			}
			return s.Value() / float64(total)
		}
		return func(counts []int32) (float64, float64) {
			clear(posL)
			clear(posR)
			clear(sumL)
			clear(sumR)
			var total int64
			for k, c := range counts {
				w := int64(c)
				total += w
				posL[bl[k]] += w * y[k]
				posR[br[k]] += w * y[k]
				sumL[bl[k]] += float64(c) * pl[k]
				sumR[br[k]] += float64(c) * pr[k]
			}
			return ece(posL, sumL, total), ece(posR, sumR, total)
		}
	}
}
