package compare

import (
	"github.com/verdict-ml/verdict/stats"
)

// Warning says that the calibration study (docs/calibration.md) found the
// method liberal, or its interval short, on data like the comparison's,
// and which method is calibrated there. Front ends word it (report).
type Warning struct {
	// Code names the configuration: "naive-t-on-folds", ...
	Code string `json:"code"`
	// Figure is the study's figure or table that shows it, as an anchor
	// of docs/calibration.md.
	Figure string `json:"figure"`
	// Alternative is the calibrated method to use instead.
	Alternative Method `json:"alternative"`
}

// dataShape is what the warnings' conditions read from a comparison.
type dataShape struct {
	method Method
	n      int
	folds  bool // both sides are k-fold evaluations: one unit a fold
	draws  bool // units of several rows
	binary bool // every per-unit value is 0 or 1
	zeros  int  // units whose difference is zero
}

func shapeOf(u stats.PairedUnits, method Method, folds bool) dataShape {
	s := dataShape{method: method, n: len(u.LeftSum), folds: folds, draws: u.Rows != nil, binary: u.Rows == nil}
	for i := range u.LeftSum {
		l, r := u.LeftSum[i], u.RightSum[i]
		if l == r {
			s.zeros++
		}
		if s.binary && (l != 0 && l != 1 || r != 0 && r != 1) {
			s.binary = false
		}
	}
	return s
}

// warningRules are the configurations the study found liberal, each with
// the condition that recognises it.
var warningRules = []struct {
	Warning
	applies func(dataShape) bool
}{
	{
		// The folds share most of their training data, so their
		// differences are correlated and the paired t's variance is too
		// small (Dietterich 1998; Nadeau & Bengio 2003).
		Warning: Warning{Code: "naive-t-on-folds", Figure: "docs/calibration.md#cross-validation", Alternative: CorrectedT},
		applies: func(s dataShape) bool {
			return s.folds && (s.method == PairedT || s.method == Wilcoxon || s.method == Bootstrap)
		},
	},
}

// warn sets r's warnings for the comparison's data.
func warn(r *MetricResult, s dataShape) {
	r.Warnings = nil
	for _, w := range warningRules {
		if w.applies(s) {
			r.Warnings = append(r.Warnings, w.Warning)
		}
	}
}
