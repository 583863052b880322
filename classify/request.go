package classify

import (
	"fmt"

	"github.com/verdict-ml/verdict/internal/columns"
	"github.com/verdict-ml/verdict/request"
	"github.com/verdict-ml/verdict/stats"
)

// PairedBootstrapRequest is the paired bootstrap of the statistics
// catalogue (stats.Methods): a bootstrap of the mean difference, and with
// a metric, the stratified bootstrap of a classifier metric.
type PairedBootstrapRequest struct {
	stats.BootstrapOptions
	Metric     string   `req:"metric" arg:"METRIC" help:"classifier metric: roc_auc (auc), average_precision (ap), log_loss (logloss), brier, accuracy, precision, recall, f1 or ece"`
	Stratify   *bool    `req:"stratify" default:"true" help:"draw positives from positives and negatives from negatives, as by default (--stratify=false or --no-stratify: all together)"`
	NoStratify *bool    `req:"no_stratify" help:"draw all samples together"`
	Threshold  *float64 `req:"threshold" default:"0.5" arg:"T" help:"score at or above which accuracy, precision, recall and f1 predict positive"`
	Bins       *int     `req:"bins" default:"10" arg:"B" help:"number of equal-width ece bins"`
}

// Check holds the rules between the request's fields.
func (r PairedBootstrapRequest) Check() error {
	if r.Metric == "" {
		for _, f := range []struct {
			name  string
			given bool
		}{{"stratify", r.Stratify != nil}, {"no_stratify", r.NoStratify != nil}, {"threshold", r.Threshold != nil}, {"bins", r.Bins != nil}} {
			if f.given {
				return request.Errorf("{" + f.name + "} is for a classifier metric: it needs {metric}")
			}
		}
		return nil
	}
	if r.Stratify != nil && r.NoStratify != nil && *r.Stratify == *r.NoStratify {
		return request.Errorf("{stratify}=%t and {no_stratify}=%t contradict each other", *r.Stratify, *r.NoStratify)
	}
	return nil
}

// options are the classifier bootstrap's options the request gives.
func (r PairedBootstrapRequest) options() BootstrapOptions {
	o := BootstrapOptions{Options: DefaultOptions(), BootstrapOptions: r.BootstrapOptions}
	if r.Threshold != nil {
		o.Threshold = *r.Threshold
	}
	if r.Bins != nil {
		o.Bins = *r.Bins
	}
	o.Unstratified = r.Stratify != nil && !*r.Stratify || r.NoStratify != nil && *r.NoStratify
	return o
}

// PairedBootstrapMethod is the catalogue's paired-bootstrap: with units, a
// cluster bootstrap over them; with a metric, the classifier bootstrap of
// a label column and two models' scores.
func PairedBootstrapMethod() stats.Method {
	return stats.NewMethod("paired-bootstrap",
		"bootstrap interval of the mean difference; with units, a cluster bootstrap over units; with --metric, a stratified bootstrap of a classifier metric",
		"left, right; units (optional: a unit ID per row). With --metric: label (0/1), left, right (two models' scores of each sample)",
		func(in *columns.Columns, r PairedBootstrapRequest) (any, error) {
			if r.Metric == "" {
				left, right, units, err := in.PairUnits()
				if err != nil {
					return nil, err
				}
				return stats.PairedBootstrap(left, right, units, r.BootstrapOptions)
			}
			column := "label"
			if !in.Has(column) && in.Has("labels") {
				column = "labels"
			}
			raw, err := in.Floats(column, true)
			if err != nil {
				return nil, err
			}
			labels, err := BinaryLabels(raw)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", in.Source(), err)
			}
			left, right, err := in.Pair()
			if err != nil {
				return nil, err
			}
			return PairedBootstrap(r.Metric, labels, left, right, r.options())
		})
}
