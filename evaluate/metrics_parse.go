package evaluate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrBadMetric is wrapped by the errors of ParseMetrics about a metric spec
// a user wrote, and by those of NewEvaluator about a set of metrics that
// cannot be evaluated together (no metric, an empty or duplicate key). The
// message names the spec or key, as in
//
//	bad metric "ndgc@10": unknown name "ndgc"; the metrics are ndcg, recall, calibrated_recall, precision, hit_rate, mrr and map
var ErrBadMetric = errors.New("bad metric")

// metricList names the built-in metrics for error messages.
var metricList = func() string {
	var b strings.Builder
	for f := range numFamilies {
		switch {
		case f == numFamilies-1:
			b.WriteString(" and ")
		case f > 0:
			b.WriteString(", ")
		}
		b.WriteString(f.name())
	}
	return b.String()
}()

// ParseMetrics parses metric specs as a user writes them on the command
// line and returns the metrics they name, one per metric name in order of
// first appearance.
//
// A spec is a name, '@' and a cutoff, such as ndcg@10. Several specs may be
// given as separate strings or joined by commas, and a bare number after a
// comma is another cutoff of the metric before it, so
//
//	"ndcg@10,20,50,recall@20"
//
// means ndcg@10, ndcg@20, ndcg@50 and recall@20. Names are ndcg, recall,
// calibrated_recall, precision, hit_rate, mrr and map, in any case; spaces
// around an item are ignored. A cutoff is a whole number from 1 to
// MaxCutoff. Repeated specs are merged, so "ndcg@10" and "ndcg@10,20" give
// one NDCG(10, 20).
//
// No specs give nil and no error; DefaultMetrics is the usual fallback,
// and Run falls back to it. Any malformed spec is an error wrapping
// ErrBadMetric that quotes the spec and, for an unknown name, lists the
// known ones.
func ParseMetrics(specs []string) ([]Metric, error) {
	var (
		order []family
		ks    [numFamilies][]int
	)
	for _, spec := range specs {
		var cur family
		named := false
		for item := range strings.SplitSeq(spec, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				return nil, fmt.Errorf("%w %q: empty item; write specs as ndcg@10, or ndcg@10,20,50 for several cutoffs",
					ErrBadMetric, spec)
			}
			name, cutoff, hasAt := strings.Cut(item, "@")
			if hasAt {
				name = strings.TrimSpace(name)
				f, known := familyNamed(strings.ToLower(name))
				if !known {
					return nil, fmt.Errorf("%w %q: unknown name %q; the metrics are %s",
						ErrBadMetric, spec, name, metricList)
				}
				cur, named, cutoff = f, true, strings.TrimSpace(cutoff)
			} else if _, known := familyNamed(strings.ToLower(item)); known {
				return nil, fmt.Errorf("%w %q: %s has no cutoff; write it as %s@10, or %s@10,20,50 for several",
					ErrBadMetric, spec, item, item, item)
			} else if _, err := strconv.Atoi(item); !named || err != nil {
				return nil, fmt.Errorf("%w %q: %q is not a metric; the metrics are %s, each followed by @ and a cutoff",
					ErrBadMetric, spec, item, metricList)
			} else {
				cutoff = item
			}
			k, err := strconv.Atoi(cutoff)
			if err != nil || k < 1 || k > MaxCutoff {
				return nil, fmt.Errorf("%w %q: cutoff %q is not a whole number from 1 to %d",
					ErrBadMetric, spec, cutoff, MaxCutoff)
			}
			if ks[cur] == nil {
				order = append(order, cur)
			}
			ks[cur] = append(ks[cur], k)
		}
	}
	if len(order) == 0 {
		return nil, nil
	}
	metrics := make([]Metric, len(order))
	for i, f := range order {
		metrics[i] = newCutoffMetric(f, ks[f])
	}
	return metrics, nil
}

// familyNamed returns the built-in metric with the given name.
func familyNamed(name string) (family, bool) {
	for f := range numFamilies {
		if f.name() == name {
			return f, true
		}
	}
	return 0, false
}

// DefaultMetrics returns the metrics computed when the user names none:
// calibrated_recall and ndcg at the full prediction width, the number of
// predictions per row. Both reach 1 for a perfect ranking whatever a row's
// number of relevant items, so rows with many targets do not drag the mean
// down the way they do recall's. It panics if width is outside
// [1, MaxCutoff].
func DefaultMetrics(width int) []Metric {
	return []Metric{CalibratedRecall(width), NDCG(width)}
}
