package compare

import (
	"math"

	"github.com/verdict-ml/verdict/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Sources of a margin decision's bounds (MarginTest.Source).
const (
	marginT         = "t"
	marginBootstrap = "bootstrap"
	marginNormal    = "normal"
)

// oneSidedAlpha is the level of the one-sided bounds a margin is decided
// from, when the metric has a margin; 0 (none) otherwise.
func oneSidedAlpha(r *MetricResult, opts Options) float64 {
	if _, ok := opts.marginOf(r.Metric); !ok {
		return 0
	}
	return opts.alpha()
}

// worseBy turns an interval of baseline − candidate into one of how much
// worse the candidate is, for r's direction.
func worseBy(r *MetricResult, d stats.Interval) stats.Interval {
	w := d
	if r.Direction.Lower() {
		w.Estimate, w.Low, w.High = -d.Estimate, -d.High, -d.Low
	}
	return w
}

// marginFromInterval sets r's margin test from iv, the (1 − 2α) interval
// of baseline − candidate, when the metric has a margin.
func marginFromInterval(r *MetricResult, iv *stats.Interval, source string, opts Options) {
	delta, ok := opts.marginOf(r.Metric)
	if !ok || iv == nil {
		return
	}
	r.Margin = &delta
	r.MarginTest = &MarginTest{Worse: worseBy(r, *iv), Source: source, Alpha: opts.alpha()}
}

// marginFromT sets r's margin test from a t mean difference (baseline −
// candidate) with standard error se and df degrees of freedom: the
// one-sided bounds and the one-sided tests' p-values (stats.TOST on how
// much worse the candidate is).
func marginFromT(r *MetricResult, mean, se float64, df int, opts Options) error {
	delta, ok := opts.marginOf(r.Metric)
	if !ok {
		return nil
	}
	a := opts.alpha()
	d := stats.OneSidedTBounds(mean, se, df, a)
	marginFromInterval(r, &d, marginT, opts)
	w := r.MarginTest.Worse.Estimate
	eq, err := stats.TOST(w, se, df, -delta, delta)
	if err != nil {
		return err
	}
	inf, err := stats.TOST(w, se, df, delta, math.Inf(1))
	if err != nil {
		return err
	}
	r.MarginTest.PNonInferior, r.MarginTest.PNotBetterByMargin = &eq.PHigh, &eq.PLow
	r.MarginTest.PEquivalence, r.MarginTest.PInferior = &eq.PValue, &inf.PLow
	return nil
}

// marginFromNormal sets r's margin test from a normal interval d of
// baseline − candidate at its confidence (DeLong's): the same standard
// error, at the one-sided level alpha.
func marginFromNormal(r *MetricResult, d stats.Interval, opts Options) {
	a := oneSidedAlpha(r, opts)
	if a == 0 {
		return
	}
	z := distuv.UnitNormal.Quantile((1 + d.Confidence) / 2)
	half := (d.High - d.Low) / 2 / z * distuv.UnitNormal.Quantile(1-a)
	iv := stats.Interval{Estimate: d.Estimate, Low: d.Estimate - half, High: d.Estimate + half, Confidence: 1 - 2*a}
	marginFromInterval(r, &iv, marginNormal, opts)
}

// decideMargin sets r's MarginDecision from its margin test, after its
// Winner: superior, equivalent, non_inferior, inferior, else
// inconclusive, the first that holds. The t methods decide each
// one-sided test by its p-value below alpha; the others by its bound
// beyond the margin. The two agree for the t: a p-value is below alpha
// exactly when the bound of the (1 − 2α) interval is beyond the margin.
func decideMargin(r *MetricResult) {
	t := r.MarginTest
	r.MarginDecision = ""
	if t == nil || r.Margin == nil {
		return
	}
	delta, w := *r.Margin, t.Worse
	nonInferior, betterBy, inferior := w.High < delta, w.Low > -delta, w.Low > delta
	if t.PNonInferior != nil {
		nonInferior, betterBy, inferior = *t.PNonInferior < t.Alpha, *t.PNotBetterByMargin < t.Alpha, *t.PInferior < t.Alpha
	}
	switch {
	case r.Winner == Candidate:
		r.MarginDecision = MarginSuperior
	case nonInferior && betterBy:
		r.MarginDecision = MarginEquivalent
	case nonInferior:
		r.MarginDecision = MarginNonInferior
	case inferior:
		r.MarginDecision = MarginInferior
	default:
		r.MarginDecision = MarginInconclusive
	}
}

// checkMargins checks the margins of o against the metrics compared: each
// metric Margins names must be one of them.
func checkMargins(o Options, metrics []string) error {
	for m := range o.Margins {
		found := false
		for _, x := range metrics {
			found = found || x == m
		}
		if !found {
			return invalidf("margin %s=%g: %s is not a metric of this comparison (%v)", m, o.Margins[m], m, metrics)
		}
	}
	return nil
}
