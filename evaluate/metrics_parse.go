package evaluate

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrBadMetric is wrapped by the errors of ParseMetrics and
// ParseMetricSpecs about a metric spec a user wrote, and by those of
// NewEvaluator about a set of metrics that cannot be evaluated together (no
// metric, an empty or duplicate key). The message names the spec or key, as
// in
//
//	bad metric "ndgc@10": unknown name "ndgc"; the metrics are ndcg, recall, calibrated_recall, precision, hit_rate, mrr, map and coverage
var ErrBadMetric = errors.New("bad metric")

// wholeSetNames are the names of the whole-set metrics a spec may name,
// after the per-user ones: coverage is CatalogueCoverage.
var wholeSetNames = []string{"coverage"}

// metricList names the built-in metrics, per-user and whole-set, for error
// messages.
var metricList = func() string {
	names := make([]string, 0, int(numFamilies)+len(wholeSetNames))
	for f := range numFamilies {
		names = append(names, f.name())
	}
	names = append(names, wholeSetNames...)
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}()

// WholeSetSpec is a whole-set metric as a spec names it, such as
// coverage@10,20, before the input it measures is open: coverage needs the
// size of the catalogue, which a NumPy input knows (CatalogueSizer) and the
// user may give (Request.CatalogueSize). RunOptions.WholeSetSpecs takes it.
type WholeSetSpec struct {
	// Name is the metric's name: "coverage".
	Name string
	// Cutoffs are its distinct cutoffs, ascending.
	Cutoffs []int
}

// Keys are the keys of the metrics the spec makes, such as "coverage@10".
func (s WholeSetSpec) Keys() []string {
	keys := make([]string, len(s.Cutoffs))
	for i, k := range s.Cutoffs {
		keys[i] = s.Name + "@" + strconv.Itoa(k)
	}
	return keys
}

// RequiredK is the largest of its cutoffs.
func (s WholeSetSpec) RequiredK() int { return slices.Max(s.Cutoffs) }

// Metrics makes the spec's metrics, one per cutoff, for a catalogue of
// catalogueSize items: CatalogueCoverage for coverage. It panics if the
// name is unknown, a cutoff is outside [1, MaxCutoff] or catalogueSize is
// not positive.
func (s WholeSetSpec) Metrics(catalogueSize int) []WholeSetMetric {
	if s.Name != "coverage" {
		panic(fmt.Sprintf("evaluate: unknown whole-set metric %q", s.Name))
	}
	ms := make([]WholeSetMetric, len(s.Cutoffs))
	for i, k := range s.Cutoffs {
		if k < 1 || k > MaxCutoff {
			panic(fmt.Sprintf("evaluate: %s cutoff %d is outside [1, %d]", s.Name, k, MaxCutoff))
		}
		ms[i] = CatalogueCoverage(k, catalogueSize)
	}
	return ms
}

// ParseMetrics parses metric specs as a user writes them on the command
// line and returns the per-user metrics they name, one per metric name in
// order of first appearance. It refuses specs of whole-set metrics, such
// as coverage@10, which ParseMetricSpecs reads.
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
	metrics, wholeSet, err := ParseMetricSpecs(specs)
	if err != nil {
		return nil, err
	}
	if len(wholeSet) > 0 {
		return nil, fmt.Errorf("%w %q: %s is a metric of the whole set of rows, not of each row; ParseMetricSpecs reads it",
			ErrBadMetric, wholeSet[0].Keys()[0], wholeSet[0].Name)
	}
	return metrics, nil
}

// ParseMetricSpecs parses metric specs as ParseMetrics does, and the specs
// of whole-set metrics among them as well: coverage@K, catalogue coverage
// (CatalogueCoverage), written like the others ("coverage@10,20",
// "ndcg@10,coverage@10"), in any case. It returns the per-user metrics, nil
// when the specs name none (so that Run computes DefaultMetrics), and the
// whole-set specs, one per name in order of first appearance, with their
// cutoffs merged.
func ParseMetricSpecs(specs []string) ([]Metric, []WholeSetSpec, error) {
	var (
		order []int // kinds in order of first appearance
		ks    = make([][]int, int(numFamilies)+len(wholeSetNames))
	)
	for _, spec := range specs {
		var cur int
		named := false
		for item := range strings.SplitSeq(spec, ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				return nil, nil, fmt.Errorf("%w %q: empty item; write specs as ndcg@10, or ndcg@10,20,50 for several cutoffs",
					ErrBadMetric, spec)
			}
			name, cutoff, hasAt := strings.Cut(item, "@")
			if hasAt {
				name = strings.TrimSpace(name)
				kind, known := kindNamed(strings.ToLower(name))
				if !known {
					return nil, nil, fmt.Errorf("%w %q: unknown name %q; the metrics are %s",
						ErrBadMetric, spec, name, metricList)
				}
				cur, named, cutoff = kind, true, strings.TrimSpace(cutoff)
			} else if _, known := kindNamed(strings.ToLower(item)); known {
				return nil, nil, fmt.Errorf("%w %q: %s has no cutoff; write it as %s@10, or %s@10,20,50 for several",
					ErrBadMetric, spec, item, item, item)
			} else if _, err := strconv.Atoi(item); !named || err != nil {
				return nil, nil, fmt.Errorf("%w %q: %q is not a metric; the metrics are %s, each followed by @ and a cutoff",
					ErrBadMetric, spec, item, metricList)
			} else {
				cutoff = item
			}
			k, err := strconv.Atoi(cutoff)
			if err != nil || k < 1 || k > MaxCutoff {
				return nil, nil, fmt.Errorf("%w %q: cutoff %q is not a whole number from 1 to %d",
					ErrBadMetric, spec, cutoff, MaxCutoff)
			}
			if ks[cur] == nil {
				order = append(order, cur)
			}
			ks[cur] = append(ks[cur], k)
		}
	}
	var (
		metrics  []Metric
		wholeSet []WholeSetSpec
	)
	for _, kind := range order {
		if kind < int(numFamilies) {
			metrics = append(metrics, newCutoffMetric(family(kind), ks[kind]))
			continue
		}
		wholeSet = append(wholeSet, WholeSetSpec{Name: wholeSetNames[kind-int(numFamilies)],
			Cutoffs: slices.Compact(slices.Sorted(slices.Values(ks[kind])))})
	}
	return metrics, wholeSet, nil
}

// kindNamed returns the built-in metric with the given name: a family, or
// numFamilies plus the index of a whole-set name.
func kindNamed(name string) (int, bool) {
	if f, ok := familyNamed(name); ok {
		return int(f), true
	}
	if i := slices.Index(wholeSetNames, name); i >= 0 {
		return int(numFamilies) + i, true
	}
	return 0, false
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
