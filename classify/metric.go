package classify

import (
	"fmt"
	"strings"
)

// Options holds the parameters of the metrics that have one. The zero
// Options is not the default (its threshold is 0 and its 0 bins are
// refused); start from DefaultOptions.
type Options struct {
	// Threshold is the score at or above which a binary prediction is
	// positive, for accuracy, precision, recall and f1.
	Threshold float64
	// Bins is the number of equal-width bins of ece.
	Bins int
}

// DefaultOptions returns a threshold of DefaultThreshold (0.5) and
// DefaultBins (10) bins.
func DefaultOptions() Options {
	return Options{Threshold: DefaultThreshold, Bins: DefaultBins}
}

// BinaryFunc computes a metric of scores against binary labels.
type BinaryFunc func(labels []int8, scores []float64, opts Options) (float64, error)

// MulticlassFunc computes a metric of an n×k row-major score matrix against
// class labels 0..k-1.
type MulticlassFunc func(labels []int32, probs []float64, k int, opts Options) (float64, error)

// Metric describes a metric by the name a user writes.
type Metric struct {
	// Name is what a user writes, such as "roc_auc".
	Name string
	// LowerIsBetter is true for the losses (log_loss, brier, ece) and false
	// for the rest, where higher is better.
	LowerIsBetter bool
	// NeedsProbabilities is true when the metric reads scores as
	// probabilities in [0, 1] and refuses others (log_loss, brier, ece); the
	// other metrics take any finite scores, such as logits.
	NeedsProbabilities bool
	// Binary computes the metric on binary labels, or is nil when the
	// metric is multi-class only.
	Binary BinaryFunc
	// Multiclass computes the metric on class labels 0..k-1, or is nil when
	// the metric is binary only.
	Multiclass MulticlassFunc
}

// metrics is the table Metrics copies and ParseMetric searches.
var metrics = []Metric{
	{Name: "roc_auc", Binary: func(l []int8, s []float64, _ Options) (float64, error) { return ROCAUC(l, s) }},
	{Name: "average_precision", Binary: func(l []int8, s []float64, _ Options) (float64, error) { return AveragePrecision(l, s) }},
	{
		Name: "log_loss", LowerIsBetter: true, NeedsProbabilities: true,
		Binary:     func(l []int8, s []float64, _ Options) (float64, error) { return LogLoss(l, s) },
		Multiclass: func(l []int32, p []float64, k int, _ Options) (float64, error) { return MulticlassLogLoss(l, p, k) },
	},
	{Name: "brier", LowerIsBetter: true, NeedsProbabilities: true, Binary: func(l []int8, s []float64, _ Options) (float64, error) { return Brier(l, s) }},
	{
		Name:       "accuracy",
		Binary:     func(l []int8, s []float64, o Options) (float64, error) { return Accuracy(l, s, o.Threshold) },
		Multiclass: func(l []int32, p []float64, k int, _ Options) (float64, error) { return MulticlassAccuracy(l, p, k) },
	},
	{Name: "precision", Binary: func(l []int8, s []float64, o Options) (float64, error) { return Precision(l, s, o.Threshold) }},
	{Name: "recall", Binary: func(l []int8, s []float64, o Options) (float64, error) { return Recall(l, s, o.Threshold) }},
	{Name: "f1", Binary: func(l []int8, s []float64, o Options) (float64, error) { return F1(l, s, o.Threshold) }},
	{Name: "ece", LowerIsBetter: true, NeedsProbabilities: true, Binary: func(l []int8, s []float64, o Options) (float64, error) { return ECE(l, s, o.Bins) }},
	{Name: "macro_f1", Multiclass: func(l []int32, p []float64, k int, _ Options) (float64, error) { return MacroF1(l, p, k) }},
	{Name: "micro_f1", Multiclass: func(l []int32, p []float64, k int, _ Options) (float64, error) { return MicroF1(l, p, k) }},
	{Name: "macro_roc_auc", Multiclass: func(l []int32, p []float64, k int, _ Options) (float64, error) { return MacroROCAUC(l, p, k) }},
}

// Metrics returns the metrics by name, binary ones first: roc_auc,
// average_precision, log_loss, brier, accuracy, precision, recall, f1 and
// ece, then the multi-class only macro_f1, micro_f1 and macro_roc_auc.
// log_loss and accuracy are defined for both kinds. The slice is the
// caller's to keep or change.
func Metrics() []Metric {
	out := make([]Metric, len(metrics))
	copy(out, metrics)
	return out
}

// aliases are the short names ParseMetric takes besides the metrics' own.
var aliases = map[string]string{"auc": "roc_auc", "ap": "average_precision", "logloss": "log_loss"}

// ParseMetric returns the metric a user named, ignoring case and
// surrounding spaces, by its name or a short one: auc (roc_auc), ap
// (average_precision) or logloss (log_loss). An unknown name returns an error wrapping
// ErrUnknownMetric that quotes it and lists the known names.
func ParseMetric(name string) (Metric, error) {
	want := strings.ToLower(strings.TrimSpace(name))
	if full, ok := aliases[want]; ok {
		want = full
	}
	names := make([]string, len(metrics))
	for i, m := range metrics {
		if m.Name == want {
			return m, nil
		}
		names[i] = m.Name
	}
	return Metric{}, fmt.Errorf("%w %q; the metrics are %s", ErrUnknownMetric, name, strings.Join(names, ", "))
}
