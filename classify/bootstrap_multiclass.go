package classify

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/verdict-ml/verdict/stats"
)

// PairedBootstrapMulticlass is PairedBootstrap for the multi-class
// metrics: accuracy (of the argmax), macro_f1, micro_f1, log_loss and
// macro_roc_auc, on n×k row-major score matrices left and right against
// labels 0..k-1 (left[i*k+c] is the left model's score of sample i for
// class c). Each replicate draws n samples with replacement and recomputes
// the metric of both models on the same draws; the difference is
// left − right, the baseline minus the candidate. Stratified, the default,
// draws each class's samples from that class, so that every replicate
// keeps the sample's number of each class; opts.Unstratified draws from
// all samples together. The interval, standard error, p-value and
// reproducibility are PairedBootstrap's: the result is the same bit for
// bit for the same inputs, options and seed on any number of cores.
//
// Left and Right are the metric's own function on all samples
// (MulticlassAccuracy, MacroF1, MicroF1, MulticlassLogLoss or
// MacroROCAUC). No multi-class metric has a threshold or bins, so
// opts.Options is not used and Threshold and Bins are nil; Positives is 0,
// a multi-class sample having no positive class.
//
// Each replicate reaches the metric as per-sample draw counts, and
// nothing is re-sorted or copied per replicate:
//
//   - accuracy and micro_f1 (the same number) count the samples each model
//     predicts right, with the counts as weights;
//   - macro_f1 counts, with the counts as weights, each class's labels,
//     each model's predictions of it and its hits, which give
//     F1_c = 2·TP_c / (2·TP_c + FP_c + FN_c) = 2·TP_c / (labels_c + predicted_c);
//   - log_loss takes the count-weighted mean of per-sample terms computed
//     once, each clipped and normalised as MulticlassLogLoss does;
//   - macro_roc_auc sorts each model's column of each class once, before
//     resampling, and bins the samples as PairedBootstrap's roc_auc does;
//     a replicate then makes one pass over the counts a class and
//     averages the k one-vs-rest AUCs, each AUCWeighted of the replicate.
//     It costs O(k·n) a replicate and keeps 8·k bytes a sample.
//
// Each is the metric of the replicate written out with sample i repeated
// counts[i] times: exactly, but for log_loss, whose replicate sums are
// plain and round as PairedBootstrap's log_loss does.
//
// With opts.Unstratified, a replicate may draw no sample of a class, which
// leaves that class's one-vs-rest AUC, and so macro_roc_auc, undefined;
// such replicates are counted in Undefined and left out. Stratified
// replicates keep every class, so none is. The other metrics are defined
// on every replicate (macro_f1 leaves out a class neither drawn nor
// predicted, as MacroF1 does). Note that, stratified, a class of a single
// sample is that sample in every replicate and adds no variance.
//
// Errors wrap ErrUnknownMetric for a name that is not a multi-class metric
// (the message lists them), ErrBadParameter for k < 2, ErrLengths when
// left or right does not hold n·k values, and otherwise what the metric
// itself returns on either model's scores (ErrEmpty, ErrLabel;
// ErrNotFinite, ErrNotProbability and ErrRowSum naming the side;
// ErrSingleClass for macro_roc_auc when a class is no sample's label),
// ErrBadParameter for an interval method other than percentile or more
// than 2³⁰ samples, or what stats.PairedBootstrapCounts returns for the
// other options (stats.ErrBadParameter) or a cancelled Context.
func PairedBootstrapMulticlass(metric string, labels []int32, left, right []float64, k int, opts BootstrapOptions) (BootstrapResult, error) {
	plan, err := planMulticlassBootstrap(metric, labels, left, right, k, opts)
	if err != nil {
		return BootstrapResult{}, err
	}
	return plan.run(plan.statistic, opts)
}

// planMulticlassBootstrap validates the input, computes both models'
// metric on all samples and prepares the replicate statistic.
func planMulticlassBootstrap(metric string, labels []int32, left, right []float64, k int, opts BootstrapOptions) (bootPlan, error) {
	m, err := ParseMetric(metric)
	if err != nil {
		return bootPlan{}, fmt.Errorf("%w %q; the multi-class metrics are %s", ErrUnknownMetric, metric, multiclassMetricNames())
	}
	if m.Multiclass == nil {
		return bootPlan{}, fmt.Errorf("%w: %s is a binary metric; the multi-class paired bootstrap takes %s", ErrUnknownMetric, m.Name, multiclassMetricNames())
	}
	if k < 2 {
		return bootPlan{}, fmt.Errorf("%w: %d classes; a multi-class metric needs at least 2", ErrBadParameter, k)
	}
	n := len(labels)
	// Divided rather than multiplied, so that no k can overflow n·k.
	if len(left)%k != 0 || len(left)/k != n || len(right)%k != 0 || len(right)/k != n {
		return bootPlan{}, fmt.Errorf("%w: %d labels and %d classes need %d values a model; left has %d, right %d", ErrLengths, n, k, n*k, len(left), len(right))
	}
	if n > maxBootstrapSamples {
		return bootPlan{}, fmt.Errorf("%w: %d samples; the bootstrap takes at most %d", ErrBadParameter, n, maxBootstrapSamples)
	}
	if opts.Method != "" && opts.Method != stats.Percentile {
		return bootPlan{}, fmt.Errorf("%w: the paired bootstrap of a classifier metric gives %s intervals only, not %s", ErrBadParameter, stats.Percentile, opts.Method)
	}
	res := BootstrapResult{Metric: m.Name, LowerIsBetter: m.LowerIsBetter, Stratified: !opts.Unstratified, N: n}
	// The metric's own function validates each side and gives the point
	// estimate. For macro_roc_auc that sorts each column once more than
	// the replicate statistic needs; against B replicates of k passes over
	// the counts, the extra sort is small.
	if res.Left, err = m.Multiclass(labels, left, k, opts.Options); err != nil {
		return bootPlan{}, multiclassSideError("left", err)
	}
	if res.Right, err = m.Multiclass(labels, right, k, opts.Options); err != nil {
		return bootPlan{}, multiclassSideError("right", err)
	}
	res.Difference = res.Left - res.Right

	lay := newMulticlassLayout(labels, k, !opts.Unstratified)
	var statistic func() stats.CountStatistic
	switch m.Name {
	case "accuracy", "micro_f1":
		statistic = lay.hitStatistic(labels, left, right, k)
	case "macro_f1":
		statistic = lay.macroF1Statistic(labels, left, right, k)
	case "log_loss":
		termsLeft, termsRight := make([]float64, n), make([]float64, n)
		for i, l := range labels {
			termsLeft[i] = multiclassLogLossTerm(left[i*k:(i+1)*k], l)
			termsRight[i] = multiclassLogLossTerm(right[i*k:(i+1)*k], l)
		}
		// meanStatistic's term is the precomputed term itself; it has no
		// use for a binary label.
		statistic = lay.meanStatistic(make([]int8, n), termsLeft, termsRight, func(_ int8, t float64) float64 { return t })
	case "macro_roc_auc":
		statistic = lay.macroAUCStatistic(labels, left, right, k)
	default:
		panic("classify: no multi-class bootstrap statistic for " + m.Name)
	}
	return bootPlan{res, lay, statistic}, nil
}

// multiclassMetricNames lists the metrics with a multi-class form, in the
// order Metrics gives them.
func multiclassMetricNames() string {
	var names []string
	for _, m := range metrics {
		if m.Multiclass != nil {
			names = append(names, m.Name)
		}
	}
	return strings.Join(names, ", ")
}

// multiclassSideError is sideError, which also names the model whose rows
// do not sum to 1.
func multiclassSideError(side string, err error) error {
	if errors.Is(err, ErrRowSum) {
		return fmt.Errorf("%s %w", side, err)
	}
	return sideError(side, err)
}

// newMulticlassLayout lays the samples out for stats.PairedBootstrapCounts.
// Stratified, class 0's samples come first, in input order, then class
// 1's, and so on, one stratum a class (of size 0 for a class without
// samples, which draws nothing); otherwise the samples keep their input
// order as one stratum. positives and leftOrder stay unset.
func newMulticlassLayout(labels []int32, k int, stratified bool) bootLayout {
	n := len(labels)
	lay := bootLayout{perm: make([]int32, n)}
	if !stratified {
		for i := range lay.perm {
			lay.perm[i] = int32(i)
		}
		lay.strata = []int{n}
		return lay
	}
	lay.strata = make([]int, k)
	for _, l := range labels {
		lay.strata[l]++
	}
	next := make([]int, k) // where class c's next sample goes
	for c := 1; c < k; c++ {
		next[c] = next[c-1] + lay.strata[c-1]
	}
	for i, l := range labels {
		lay.perm[next[l]] = int32(i)
		next[l]++
	}
	return lay
}

// multiclassLogLossTerm is one sample's term of MulticlassLogLoss, computed
// as it computes it: clip each entry of the row, sum the clipped row, and
// take −ln of the label's clipped entry over that sum.
func multiclassLogLossTerm(row []float64, label int32) float64 {
	var rowSum float64
	for _, p := range row {
		rowSum += clip(p)
	}
	return -math.Log(clip(row[label]) / rowSum)
}

// hitStatistic recomputes accuracy (and micro F1, the same number) from
// the count-weighted numbers of samples each model predicts right. Each
// sample's outcome is packed in a byte: bit 0 set when the left model's
// argmax is the label, bit 1 when the right model's is. The counts are
// integers, so the result is argmaxAccuracy's of the written-out replicate.
func (lay bootLayout) hitStatistic(labels []int32, left, right []float64, k int) func() stats.CountStatistic {
	cells := make([]uint8, len(lay.perm))
	for pos, i := range lay.perm {
		l := int(labels[i])
		if argmax(left[int(i)*k:(int(i)+1)*k]) == l {
			cells[pos] |= 1
		}
		if argmax(right[int(i)*k:(int(i)+1)*k]) == l {
			cells[pos] |= 2
		}
	}
	return func() stats.CountStatistic {
		return func(counts []int32) (float64, float64) {
			var h [4]int64
			cells := cells[:len(counts)]
			for pos, c := range counts {
				h[cells[pos]&3] += int64(c)
			}
			total := float64(h[0] + h[1] + h[2] + h[3])
			return float64(h[1]+h[3]) / total, float64(h[2]+h[3]) / total
		}
	}
}

// f1Cell is what macro F1 needs of one sample: its label, each model's
// predicted class, and where each model's hit is counted, the label when
// the prediction is right and the spare slot k when it is wrong (so that
// a replicate adds every count unconditionally).
type f1Cell struct {
	label, predLeft, predRight, hitLeft, hitRight int32
}

// macroF1Statistic recomputes macro F1 from count-weighted class totals:
// labels_c, each model's predicted_c and hits TP_c. With one label and one
// prediction a sample, TP_c + FN_c = labels_c and TP_c + FP_c =
// predicted_c, so 2·TP_c + FP_c + FN_c = labels_c + predicted_c, and a
// class is in C, the classes MacroF1 averages over, when that sum is not
// 0. The sums are integers and the F1s are added in class order, as
// MacroF1 adds them, so the result is MacroF1's of the written-out
// replicate.
func (lay bootLayout) macroF1Statistic(labels []int32, left, right []float64, k int) func() stats.CountStatistic {
	cells := make([]f1Cell, len(lay.perm))
	for pos, i := range lay.perm {
		l := labels[i]
		pl := int32(argmax(left[int(i)*k : (int(i)+1)*k]))
		pr := int32(argmax(right[int(i)*k : (int(i)+1)*k]))
		cell := f1Cell{label: l, predLeft: pl, predRight: pr, hitLeft: int32(k), hitRight: int32(k)}
		if pl == l {
			cell.hitLeft = l
		}
		if pr == l {
			cell.hitRight = l
		}
		cells[pos] = cell
	}
	return func() stats.CountStatistic {
		// The totals of a replicate are at most n ≤ 2³⁰, so int32 holds
		// them.
		support := make([]int32, k)
		predLeft, predRight := make([]int32, k), make([]int32, k)
		hitLeft, hitRight := make([]int32, k+1), make([]int32, k+1)
		return func(counts []int32) (float64, float64) {
			clear(support)
			clear(predLeft)
			clear(predRight)
			clear(hitLeft)
			clear(hitRight)
			cells := cells[:len(counts)]
			for pos, c := range counts {
				cell := &cells[pos]
				support[cell.label] += c
				predLeft[cell.predLeft] += c
				predRight[cell.predRight] += c
				hitLeft[cell.hitLeft] += c
				hitRight[cell.hitRight] += c
			}
			return macroF1Totals(support, predLeft, hitLeft), macroF1Totals(support, predRight, hitRight)
		}
	}
}

// macroF1Totals is MacroF1 from a replicate's class totals: support[c]
// labels of class c, pred[c] predictions of it and tp[c] hits (tp may hold
// a spare last slot, which is ignored).
func macroF1Totals(support, pred, tp []int32) float64 {
	var (
		sum     float64
		classes int
	)
	for c := range support {
		both := int(support[c]) + int(pred[c]) // 2·TP + FP + FN
		if both == 0 {
			continue
		}
		classes++
		if hits := int(tp[c]); hits > 0 {
			sum += float64(2*hits) / float64(both)
		}
	}
	return sum / float64(classes)
}

// macroAUCStatistic recomputes macro ROC AUC as the mean of k one-vs-rest
// AUCs, each from a rankedSide of the class's column: the column is
// sorted once here, and a replicate adds each count to its slot in one
// pass, then walks the slots (aucSlots, whose integer sums are
// AUCWeighted's). The AUCs are added in class order and divided by k, as
// MacroROCAUC does, so the result is MacroROCAUC's of the written-out
// replicate, or NaN when the replicate lacks a class.
func (lay bootLayout) macroAUCStatistic(labels []int32, left, right []float64, k int) func() stats.CountStatistic {
	n := len(labels)
	position := make([]int32, n) // position[i]: where sample i is in the layout
	for pos, i := range lay.perm {
		position[i] = int32(pos)
	}
	sides := make([][2]rankedSide, k) // class c's left and right
	binary := make([]int8, n)
	column := make([]float64, n)
	maxSlots := [2]int{}
	for c := range k {
		for i, l := range labels {
			binary[i] = 0
			if int(l) == c {
				binary[i] = 1
			}
		}
		for s, probs := range [2][]float64{left, right} {
			for i := range n {
				column[i] = probs[i*k+c]
			}
			sides[c][s] = newRankedSide(Order(column), binary, column, position)
			maxSlots[s] = max(maxSlots[s], sides[c][s].slots)
		}
	}
	return func() stats.CountStatistic {
		// One class at a time, so one histogram a side, as large as the
		// largest class's, serves them all.
		scratchLeft, scratchRight := make([]int32, 2*maxSlots[0]), make([]int32, 2*maxSlots[1])
		return func(counts []int32) (float64, float64) {
			var sumLeft, sumRight float64
			for c := range sides {
				hl, hr := scratchLeft[:2*sides[c][0].slots], scratchRight[:2*sides[c][1].slots]
				clear(hl)
				clear(hr)
				kl, kr := sides[c][0].keys[:len(counts)], sides[c][1].keys[:len(counts)]
				for pos, w := range counts {
					hl[kl[pos]] += w
					hr[kr[pos]] += w
				}
				sumLeft += aucSlots(hl)
				sumRight += aucSlots(hr)
			}
			return sumLeft / float64(k), sumRight / float64(k)
		}
	}
}
