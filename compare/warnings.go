package compare

import (
	"context"
	"math"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// Warning says that the calibration study (docs/calibration.md, "Where a
// test is liberal") found the method liberal, or its interval short, on
// data like the comparison's, and which method is calibrated there. Front
// ends word it (report).
type Warning struct {
	// Code names the configuration: "folds-as-units", "short-interval",
	// "wilcoxon-not-means", "five-by-two", "auc-bootstrap-few-positives",
	// "classifier-bootstrap-few-samples", "ece-interval",
	// "few-differing-units", and, not findings of the study (Entry 0, no
	// Figure), "negligible-effect" and "seed-variance-not-counted".
	Code string `json:"code"`
	// Entry is the entry of the study's list, and Figure the figure that
	// shows it, a path under docs/.
	Entry  int    `json:"entry"`
	Figure string `json:"figure"`
	// Alternative is the calibrated method to use instead; empty when no
	// method is calibrated on these data.
	Alternative Method `json:"alternative,omitempty"`
	// Units is the number the condition counted, where the words cite it:
	// the units that differ, the effective number of units, the
	// positives.
	Units int `json:"units,omitempty"`
	// Experiment and Groups, for "seed-variance-not-counted", are the
	// experiment and the groups (configurations) of the two runs.
	Experiment string   `json:"experiment,omitempty"`
	Groups     []string `json:"groups,omitempty"`
}

// dataShape is what the warnings' conditions read from a comparison.
type dataShape struct {
	method    Method
	metric    string
	n         int
	neff      float64 // Kish's effective number of units, (Σm)²/Σm²
	folds     bool    // both sides are fold evaluations: one unit a fold
	binary    bool    // every per-unit value is 0 or 1
	differ    int     // units whose two values differ
	positives int     // the rarer class's samples, for predictions
	// predictions marks a comparison of predictions: a whole-set metric
	// recomputed per replicate, to which only the classifier entries
	// apply.
	predictions bool
}

func shapeOf(u stats.PairedUnits, method Method, folds bool) dataShape {
	s := dataShape{method: method, n: len(u.LeftSum), folds: folds, binary: u.Rows == nil, neff: float64(len(u.LeftSum))}
	if u.Rows != nil {
		var sum, sq float64
		for _, m := range u.Rows {
			sum += float64(m)
			sq += float64(m) * float64(m)
		}
		s.neff = sum * sum / sq
	}
	for i := range u.LeftSum {
		l, r := u.LeftSum[i], u.RightSum[i]
		if l != r {
			s.differ++
		}
		if s.binary && (l != 0 && l != 1 || r != 0 && r != 1) {
			s.binary = false
		}
	}
	return s
}

// shapeOfSummary is shapeOf for units of one row reduced to a summary.
func shapeOfSummary(s stats.PairedSummary, method Method, folds bool) dataShape {
	return dataShape{method: method, n: int(s.N), folds: folds, binary: s.NonBinary == 0, neff: float64(s.N),
		differ: int(s.Greater + s.Less)}
}

// percentileInterval reports the methods whose interval is the paired
// bootstrap's percentile interval.
func percentileInterval(m Method) bool { return m == Bootstrap || m == Wilcoxon || m == McNemar }

// warningRules are the study's liberal configurations that a comparison
// can recognise from its data, with the condition of each.
var warningRules = []struct {
	Warning
	applies func(*dataShape, *Warning) bool
}{
	{
		// The folds share most of their training data (Dietterich 1998;
		// Nadeau & Bengio 2003): 54-58 % of true nulls rejected with 10x10
		// folds, 34-46 % with 5x2.
		Warning: Warning{Code: "folds-as-units", Entry: 5, Figure: "calibration/typeI-folds.svg", Alternative: CorrectedT},
		applies: func(s *dataShape, _ *Warning) bool {
			return s.folds && (s.method == PairedT || s.method == Wilcoxon || s.method == Bootstrap)
		},
	},
	{
		// The 5x2cv t's interval, a bootstrap of 10 fold differences,
		// covers 45-57 %; its p-value is liberal at 300 rows and fewer.
		Warning: Warning{Code: "five-by-two", Entry: 6, Figure: "calibration/coverage-folds.svg", Alternative: CorrectedT},
		applies: func(s *dataShape, _ *Warning) bool { return s.method == FiveByTwo },
	},
	{
		// The percentile interval excludes zero under a true null in
		// 6.5-10.7 % of data sets with 20 effective units or fewer, and
		// 5.6-6.3 % at 100 when most differences are zero.
		Warning: Warning{Code: "short-interval", Entry: 1, Figure: "calibration/coverage-ndcg.svg", Alternative: PairedT},
		applies: func(s *dataShape, w *Warning) bool {
			w.Units = int(math.Round(s.neff))
			few := s.neff <= 20 || s.neff <= 100 && float64(s.n-s.differ) >= 0.53*float64(s.n)
			return !s.folds && !s.predictions && percentileInterval(s.method) && (s.binary && s.n <= 20 || !s.binary && few)
		},
	},
	{
		// Wilcoxon tests a shift of the differences' median, not equal
		// means: 6.5 % at 100 users, 12.2 % at 1,000, 70.5 % at 10,000
		// when the models' distributions differ in shape.
		Warning: Warning{Code: "wilcoxon-not-means", Entry: 3, Figure: "calibration/typeI-ties-mean.svg", Alternative: Bootstrap},
		applies: func(s *dataShape, _ *Warning) bool { return s.method == Wilcoxon && !s.folds && s.n >= 100 },
	},
	{
		// The stratified bootstrap of AUC rejects 6.6 % with about 20
		// positives; DeLong keeps alpha.
		Warning: Warning{Code: "auc-bootstrap-few-positives", Entry: 7, Figure: "calibration/typeI-auc.svg", Alternative: DeLong},
		applies: func(s *dataShape, w *Warning) bool {
			w.Units = s.positives
			return s.metric == "roc_auc" && s.method == Bootstrap && s.positives > 0 && s.positives <= 25
		},
	},
	{
		// The stratified bootstrap of log loss, Brier and average
		// precision rejects 8.5-15.2 % with about 4 positives, and F1's
		// 7.7-8.2 % with about 20; ECE's interval covers 67-77 % even at
		// 1,000 samples.
		Warning: Warning{Code: "classifier-bootstrap-few-samples", Entry: 10, Figure: "calibration/typeI-metrics.svg"},
		applies: func(s *dataShape, w *Warning) bool {
			w.Units = s.positives
			switch s.metric {
			case "log_loss", "brier", "average_precision":
				return s.method == Bootstrap && s.positives > 0 && s.positives <= 10
			case "f1", "precision", "recall":
				return s.method == Bootstrap && s.positives > 0 && s.positives <= 25
			case "ece":
				w.Code, w.Units = "ece-interval", 0
				return s.method == Bootstrap && s.predictions
			}
			return false
		},
	},
	{
		// With about 3 of 20 units differing, no interval reaches its
		// confidence (the t interval 91 %, the percentile 77 %).
		Warning: Warning{Code: "few-differing-units", Entry: 8, Figure: "calibration/coverage-hit.svg"},
		applies: func(s *dataShape, w *Warning) bool {
			w.Units = s.differ
			return !s.folds && !s.predictions && s.n <= 20 && s.differ <= 5
		},
	},
}

// Negligible effects. At many units a test distinguishes differences too
// small to matter; the warning "negligible-effect" says so where the
// standardised mean difference |d_z| is below negligibleDz at
// negligibleN units or more. It is no finding of the calibration study:
// its Entry is 0 and it names no figure. Units is the n.
const (
	negligibleDz = 0.01
	negligibleN  = 10000
)

// warn sets r's warnings for the comparison's data.
func warn(r *MetricResult, s dataShape) {
	r.Warnings = nil
	for _, rule := range warningRules {
		w := rule.Warning
		if rule.applies(&s, &w) {
			r.Warnings = append(r.Warnings, w)
		}
	}
	warnNegligible(r)
}

// warnNegligible adds the "negligible-effect" warning where it applies.
func warnNegligible(r *MetricResult) {
	if dz := r.EffectSizeDz; dz != nil && math.Abs(*dz) < negligibleDz && r.N >= negligibleN {
		r.Warnings = append(r.Warnings, Warning{Code: "negligible-effect", Units: r.N})
	}
}

// warnSeeds adds the "seed-variance-not-counted" warning to every metric
// of c when its two runs belong to two groups (configurations trained
// with several seeds): a paired test of one run of each counts the users'
// noise and not the seeds', and the groups can be compared instead.
func warnSeeds(ctx context.Context, st *store.Store, c *Comparison) error {
	b, cd := c.BaselineEval, c.CandidateEval
	if b == nil || cd == nil || b.Experiment != cd.Experiment || b.Run == cd.Run {
		return nil
	}
	rb, err := st.GetRun(ctx, b.Experiment, b.Run)
	if err != nil {
		return err
	}
	rc, err := st.GetRun(ctx, cd.Experiment, cd.Run)
	if err != nil {
		return err
	}
	if rb.Group == "" || rc.Group == "" || rb.Group == rc.Group {
		return nil
	}
	for _, r := range c.Metrics {
		r.Warnings = append(r.Warnings, Warning{Code: "seed-variance-not-counted", Experiment: b.Experiment, Groups: []string{rb.Group, rc.Group}})
	}
	return nil
}
