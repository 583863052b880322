package classify

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/verdict-ml/verdict/stats"
)

// Evaluation is every metric of one classifier's predictions that is
// defined on them, as an evaluation stores it.
type Evaluation struct {
	// Metrics names the metrics computed, in the order Metrics lists them.
	Metrics []string
	// Values holds each computed metric's value over all samples.
	Values map[string]float64
	// LowerIsBetter names the computed metrics where lower is better.
	LowerIsBetter []string
	// Skipped says, per metric left out, why it is not defined on these
	// predictions: scores that are not probabilities (log_loss, brier,
	// ece), or a single class (the ranking metrics).
	Skipped map[string]string
}

// EvaluateBinary computes every binary metric of scores against labels
// with the threshold and bins of opts. The metrics that need probabilities
// are left out, with the reason in Skipped, when a score lies outside
// [0, 1] (logits, margins), and the ranking metrics when the labels hold
// one class. Errors: those of the metrics for labels or scores that are
// not valid input (ErrEmpty, ErrLengths, ErrLabel, ErrNotFinite), and
// ErrBadParameter for opts.
func EvaluateBinary(labels []int8, scores []float64, opts Options) (*Evaluation, error) {
	if err := checkBinary(labels, scores); err != nil {
		return nil, err
	}
	if err := checkThreshold(opts.Threshold); err != nil {
		return nil, err
	}
	notProbability := -1
	for i, s := range scores {
		if s < 0 || s > 1 {
			notProbability = i
			break
		}
	}
	ev := &Evaluation{Values: map[string]float64{}, Skipped: map[string]string{}}
	for _, m := range metrics {
		if m.Binary == nil {
			continue
		}
		if m.NeedsProbabilities && notProbability >= 0 {
			ev.Skipped[m.Name] = fmt.Sprintf("it needs probabilities in [0, 1], and score %d is %v", notProbability+1, scores[notProbability])
			continue
		}
		v, err := m.Binary(labels, scores, opts)
		if errors.Is(err, ErrSingleClass) {
			ev.Skipped[m.Name] = "every sample has the same label, and it compares positives with negatives"
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		ev.add(m, v)
	}
	return ev, nil
}

// EvaluateMulticlass computes every multi-class metric of an n×k row-major
// probability matrix against labels 0..k-1. macro_roc_auc is left out,
// with the reason in Skipped, when a class has no sample or every sample.
// Errors: those of the metrics for input that is not valid (ErrEmpty,
// ErrLengths, ErrLabel, ErrNotFinite, ErrNotProbability, ErrRowSum,
// ErrBadParameter for k < 2).
func EvaluateMulticlass(labels []int32, probs []float64, k int) (*Evaluation, error) {
	if err := checkMulticlass("the multi-class metrics", labels, probs, k, true); err != nil {
		return nil, err
	}
	ev := &Evaluation{Values: map[string]float64{}, Skipped: map[string]string{}}
	for _, m := range metrics {
		if m.Multiclass == nil {
			continue
		}
		v, err := m.Multiclass(labels, probs, k, Options{})
		if errors.Is(err, ErrSingleClass) {
			ev.Skipped[m.Name] = "a class has no sample or every sample, and one-vs-rest AUC compares a class with the rest"
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		ev.add(m, v)
	}
	return ev, nil
}

func (ev *Evaluation) add(m Metric, v float64) {
	if math.IsNaN(v) {
		return
	}
	ev.Metrics = append(ev.Metrics, m.Name)
	ev.Values[m.Name] = v
	if m.LowerIsBetter {
		ev.LowerIsBetter = append(ev.LowerIsBetter, m.Name)
	}
}

// Argmax is the class a row of probabilities predicts: the index of its
// largest value, the first of equal ones (numpy.argmax's rule, which
// scikit-learn's predictions from probabilities follow).
func Argmax(row []float64) int { return argmax(row) }

// Bootstrap is the bootstrap interval of one model's metric: the
// replicates of PairedBootstrap (or PairedBootstrapMulticlass, for k > 1
// probabilities a sample) with the model on the left and nothing on the
// right, so that Left is the metric on all samples, Low and High bound
// it, and Right and Difference are 0 and Left. A binary task has k = 1
// and labels 0 and 1. Errors are PairedBootstrap's.
func Bootstrap(metric string, labels []int32, scores []float64, k int, opts BootstrapOptions) (BootstrapResult, error) {
	plan, err := planOf(metric, labels, scores, scores, k, opts)
	if err != nil {
		return BootstrapResult{}, err
	}
	paired := plan.statistic
	one := func() stats.CountStatistic {
		s := paired()
		return func(counts []int32) (float64, float64) {
			l, _ := s(counts)
			return l, 0
		}
	}
	plan.res.Right, plan.res.Difference = 0, plan.res.Left
	return plan.run(one, opts)
}

// PairedBootstrapOf is PairedBootstrap for k = 1 score a sample (labels 0
// and 1) and PairedBootstrapMulticlass for k > 1 probabilities a sample,
// with the labels as class indices either way.
func PairedBootstrapOf(metric string, labels []int32, left, right []float64, k int, opts BootstrapOptions) (BootstrapResult, error) {
	plan, err := planOf(metric, labels, left, right, k, opts)
	if err != nil {
		return BootstrapResult{}, err
	}
	return plan.run(plan.statistic, opts)
}

// PairedBootstrapsOf is PairedBootstrapOf for each of metrics, on the same
// samples and options. Metrics whose samples the bootstrap lays out alike
// (the ranking metrics together, the others together) share each
// replicate's draws: every result, and every error, is the one
// PairedBootstrapOf gives the metric alone, bit for bit, for a fraction
// of the time.
func PairedBootstrapsOf(metrics []string, labels []int32, left, right []float64, k int, opts BootstrapOptions) ([]BootstrapResult, []error) {
	res, errs := make([]BootstrapResult, len(metrics)), make([]error, len(metrics))
	plans := make([]bootPlan, len(metrics))
	var groups [][]int // indexes of metrics of one layout
	for i, m := range metrics {
		if plans[i], errs[i] = planOf(m, labels, left, right, k, opts); errs[i] != nil {
			continue
		}
		g := slices.IndexFunc(groups, func(g []int) bool { return plans[g[0]].layout.same(plans[i].layout) })
		if g < 0 {
			groups = append(groups, []int{i})
		} else {
			groups[g] = append(groups[g], i)
		}
	}
	for _, g := range groups {
		makers := make([]func() stats.CountStatistic, len(g))
		for j, i := range g {
			makers[j] = plans[i].statistic
		}
		boots, bootErrs := stats.PairedBootstrapCountsShared(plans[g[0]].layout.strata, makers, opts.BootstrapOptions)
		for j, i := range g {
			if errs[i] = bootErrs[j]; errs[i] != nil {
				continue
			}
			res[i] = plans[i].res
			boot := boots[j]
			boot.Left, boot.Right, boot.Difference = res[i].Left, res[i].Right, res[i].Difference
			res[i].CountsBootstrapResult = boot
		}
	}
	return res, errs
}

// planOf plans the bootstrap of k scores a sample: binary for k = 1,
// multi-class for more.
func planOf(metric string, labels []int32, left, right []float64, k int, opts BootstrapOptions) (bootPlan, error) {
	if k > 1 {
		return planMulticlassBootstrap(metric, labels, left, right, k, opts)
	}
	l8 := make([]int8, len(labels))
	for i, l := range labels {
		if l != 0 && l != 1 {
			return bootPlan{}, fmt.Errorf("%w: labels[%d] is %d; binary labels are 0 or 1", ErrLabel, i, l)
		}
		l8[i] = int8(l)
	}
	return planBootstrap(metric, l8, left, right, opts)
}
