package compare_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// marginRef is one case of testdata/margin/reference.json, which gen.py
// wrote with statsmodels' ttost_paired.
type marginRef struct {
	Name                string    `json:"name"`
	LowerIsBetter       bool      `json:"lower_is_better"`
	Margin              float64   `json:"margin"`
	Baseline            []float64 `json:"baseline"`
	Candidate           []float64 `json:"candidate"`
	Worse               float64   `json:"worse"`
	WorseLow            float64   `json:"worse_low"`
	WorseHigh           float64   `json:"worse_high"`
	PNonInferior        float64   `json:"p_non_inferior"`
	PNotBetterByMargin  float64   `json:"p_not_better_by_margin"`
	PEquivalence        float64   `json:"p_equivalence"`
	PInferior           float64   `json:"p_inferior"`
	Decision            string    `json:"decision"`
	PTwoSidedReferenced float64   `json:"p_two_sided"`
}

// TestMarginPairedTAgainstStatsmodels checks the paired t's margin test
// (TOST) on each case of testdata/margin: the one-sided p-values against
// statsmodels' ttost_paired, the one-sided bounds against the 90 % t
// interval, the decision (non-inferior, inferior, equivalent,
// inconclusive, for each direction), the gates and the sentence.
func TestMarginPairedTAgainstStatsmodels(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, err := os.ReadFile(filepath.Join("testdata", "margin", "reference.json"))
	require.NoError(t, err)
	var doc struct {
		Cases []marginRef `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.Cases, 8)
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	const metric = "score"
	for _, c := range doc.Cases {
		log := func(run string, vals []float64) *store.Evaluation {
			ids := make([]string, len(vals))
			for i := range ids {
				ids[i] = fmt.Sprintf("u%03d", i)
			}
			ev := store.NewEvaluation{Experiment: c.Name, Run: run, EvalSet: "test"}
			if c.LowerIsBetter {
				ev.LowerIsBetter = []string{metric}
			}
			l, err := st.LogEvaluation(ctx, ev, &memRows{metric: metric, ids: ids, vals: vals})
			require.NoError(t, err)
			return &l.Evaluation
		}
		base, cand := log("base", c.Baseline), log("cand", c.Candidate)
		res, err := compare.Evaluations(ctx, st, base, cand, compare.Options{Method: compare.PairedT,
			Margins: map[string]float64{metric: c.Margin}, Record: true, Sentence: report.Verdict})
		require.NoError(t, err, c.Name)
		r := res.Metrics[0]
		mt := r.MarginTest
		require.NotNil(t, mt, c.Name)
		require.Equal(t, c.Margin, *r.Margin)
		require.Equal(t, "t", mt.Source)
		close := func(want, got float64, what string) {
			t.Helper()
			require.True(t, scalar.EqualWithinAbsOrRel(want, got, 1e-15, 1e-9), "%s %s: want %.17g, got %.17g", c.Name, what, want, got)
		}
		close(c.Worse, mt.Worse.Estimate, "worse")
		close(c.WorseLow, mt.Worse.Low, "one-sided low")
		close(c.WorseHigh, mt.Worse.High, "one-sided high")
		close(c.PNonInferior, *mt.PNonInferior, "p non-inferior")
		close(c.PNotBetterByMargin, *mt.PNotBetterByMargin, "p not better by margin")
		close(c.PEquivalence, *mt.PEquivalence, "p equivalence (TOST)")
		close(c.PInferior, *mt.PInferior, "p inferior")
		require.Equal(t, compare.MarginDecision(c.Decision), r.MarginDecision, c.Name)
		require.Equal(t, r.MarginDecision == compare.MarginInferior, r.Fails(compare.FailOnRegressionBeyondMargin), c.Name)
		require.Equal(t, r.MarginDecision == compare.MarginInconclusive || r.MarginDecision == compare.MarginInferior,
			r.Fails(compare.FailOnUnprovenNonInferiority), c.Name)
		want := map[compare.MarginDecision]string{
			compare.MarginNonInferior:  "cand is non-inferior to base on score: it is ",
			compare.MarginInferior:     "cand is inferior to base on score: it is worse by at least ",
			compare.MarginEquivalent:   fmt.Sprintf("cand is equivalent to base on score within the margin ±%g", c.Margin),
			compare.MarginInconclusive: fmt.Sprintf("Against the margin %g, cand is neither shown non-inferior", c.Margin),
		}[r.MarginDecision]
		require.Contains(t, r.Verdict, want, c.Name)
		require.Contains(t, r.Verdict, "95% one-sided bound", c.Name)
		// The table and the CSV show the margin's columns.
		var tb, csv strings.Builder
		require.NoError(t, report.Comparison(&tb, "table", res))
		require.Contains(t, tb.String(), "MARGIN")
		require.Contains(t, tb.String(), string(r.MarginDecision)+" (Δ ")
		require.NoError(t, report.Comparison(&csv, "csv", res))
		require.Contains(t, csv.String(), "margin,margin_decision,worse_by_low,worse_by_high")
		require.Contains(t, csv.String(), ","+string(r.MarginDecision)+",")
		// The history records the margin.
		h, err := st.GetComparison(ctx, *r.ComparisonID)
		require.NoError(t, err)
		require.NotNil(t, h.Margin, c.Name)
		require.Equal(t, c.Margin, *h.Margin)
		require.Equal(t, string(r.MarginDecision), h.MarginDecision)
	}
}

// TestMarginBootstrapDecisions checks the bootstrap's margin decisions,
// from the quantiles of its replicates, in both directions, and that
// superior comes before the others.
func TestMarginBootstrapDecisions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const n = 400
	scores := func(shift, spread float64, lower bool) (base, cand map[string]float64) {
		base, cand = map[string]float64{}, map[string]float64{}
		for i := range n {
			id := fmt.Sprintf("u%03d", i)
			b := 0.3 + 0.4*float64((i*37)%n)/n
			noise := spread * (float64((i*61)%n)/n - 0.5)
			w := shift + noise // how much worse the candidate is
			if lower {
				w = -w
			}
			base[id], cand[id] = b, b-w
		}
		return base, cand
	}
	tests := []struct {
		name           string
		shift, spread  float64
		want           compare.MarginDecision
		regressBeyond  bool
		unprovenFails  bool
		sentencePrefix string
	}{
		{"equivalent", 0.0001, 0.01, compare.MarginEquivalent, false, false, "is equivalent to"},
		{"inferior", 0.05, 0.05, compare.MarginInferior, true, true, "is inferior to"},
		{"inconclusive", 0.01, 0.4, compare.MarginInconclusive, false, true, "is neither shown non-inferior"},
		{"superior", -0.02, 0.05, compare.MarginSuperior, false, false, "is superior to"},
		{"non-inferior", -0.005, 0.4, compare.MarginNonInferior, false, false, "is non-inferior to"},
	}
	for _, tt := range tests {
		for _, lower := range []bool{false, true} {
			dir := map[bool]compare.Direction{false: compare.HigherIsBetter, true: compare.LowerIsBetter}[lower]
			base, cand := scores(tt.shift, tt.spread, lower)
			delta := 0.01
			c, err := compare.Scores(ctx, "m", dir, compare.Named{Name: "base", Scores: base}, compare.Named{Name: "cand", Scores: cand},
				compare.Options{Margin: &delta, Sentence: report.Verdict})
			require.NoError(t, err)
			r := c.Metrics[0]
			require.Equal(t, tt.want, r.MarginDecision, "%s lower=%v: %+v", tt.name, lower, r.MarginTest)
			require.Equal(t, "bootstrap", r.MarginTest.Source)
			require.InDelta(t, 0.9, r.MarginTest.Worse.Confidence, 1e-12)
			require.Nil(t, r.MarginTest.PNonInferior)
			require.Equal(t, tt.regressBeyond, r.Fails(compare.FailOnRegressionBeyondMargin))
			require.Equal(t, tt.unprovenFails, r.Fails(compare.FailOnUnprovenNonInferiority))
			require.Contains(t, r.Verdict, tt.sentencePrefix)
			// The bounds are those of the 90 % interval of the same
			// replicates, oriented by the direction.
			nine, err := compare.Scores(ctx, "m", dir, compare.Named{Scores: base}, compare.Named{Scores: cand}, compare.Options{Confidence: 0.9})
			require.NoError(t, err)
			d := nine.Metrics[0].Difference
			lo, hi := d.Low, d.High
			if lower {
				lo, hi = -d.High, -d.Low
			}
			// (1 − 0.9)/2 is not 0.05 in floating point: the quantiles
			// agree to rounding.
			require.InDelta(t, lo, r.MarginTest.Worse.Low, 1e-15)
			require.InDelta(t, hi, r.MarginTest.Worse.High, 1e-15)
		}
	}
}

// TestMarginRequest checks the margin's parsing and rules.
func TestMarginRequest(t *testing.T) {
	t.Parallel()
	half := 0.5
	tests := []struct {
		r       compare.Request
		wantErr string
	}{
		{compare.Request{Margin: []string{"0.01"}}, ""},
		{compare.Request{Margin: []string{"ndcg@10=0.01", "recall@10=0.02"}}, ""},
		{compare.Request{Margin: []string{"0.01", "ndcg@10=0.02"}}, ""},
		{compare.Request{Margin: []string{"0"}}, "DELTA must be a positive finite number"},
		{compare.Request{Margin: []string{"-0.1"}}, "DELTA must be a positive finite number"},
		{compare.Request{Margin: []string{"inf"}}, "DELTA must be a positive finite number"},
		{compare.Request{Margin: []string{"NaN"}}, "DELTA must be a positive finite number"},
		{compare.Request{Margin: []string{"=0.1"}}, "want DELTA or METRIC=DELTA"},
		{compare.Request{Margin: []string{"0.1", "0.2"}}, "one DELTA is every metric's margin"},
		{compare.Request{Margin: []string{"a=0.1", "a=0.2"}}, "a has a margin already"},
		{compare.Request{Margin: []string{"0.1"}, Rope: &half}, "give one"},
		{compare.Request{Margin: []string{"a=0.1"}, Rope: &half}, ""},
		{compare.Request{FailOn: "regression-beyond-margin"}, "decides against a practical margin"},
		{compare.Request{FailOn: "unproven-non-inferiority"}, "decides against a practical margin"},
		{compare.Request{FailOn: "unproven-non-inferiority", Margin: []string{"0.01"}}, ""},
		{compare.Request{FailOn: "regression-beyond-margin", Rope: &half}, ""},
	}
	for _, tt := range tests {
		_, _, err := tt.r.Options(false)
		if tt.wantErr == "" {
			require.NoError(t, err, "%+v", tt.r)
			continue
		}
		require.ErrorContains(t, err, tt.wantErr, "%+v", tt.r)
	}
	o, gate, err := compare.Request{Margin: []string{"0.01", "ndcg@10=0.02"}, FailOn: "unproven-non-inferiority"}.Options(false)
	require.NoError(t, err)
	require.Equal(t, 0.01, *o.Margin)
	require.Equal(t, map[string]float64{"ndcg@10": 0.02}, o.Margins)
	require.Equal(t, compare.FailOnUnprovenNonInferiority, gate)
}

// TestMarginOfAnotherMetric checks that a margin naming a metric the
// comparison does not compare is refused, saying so.
func TestMarginOfAnotherMetric(t *testing.T) {
	t.Parallel()
	s := map[string]float64{"a": 0.5, "b": 0.6, "c": 0.7}
	_, err := compare.Scores(context.Background(), "ndcg@10", compare.HigherIsBetter, compare.Named{Scores: s}, compare.Named{Scores: s},
		compare.Options{Margins: map[string]float64{"ndcg@20": 0.01}})
	require.ErrorIs(t, err, compare.ErrInvalid)
	require.ErrorContains(t, err, "ndcg@20 is not a metric of this comparison")
	bad := math.Inf(1)
	_, err = compare.Scores(context.Background(), "m", compare.HigherIsBetter, compare.Named{Scores: s}, compare.Named{Scores: s},
		compare.Options{Margin: &bad})
	require.ErrorIs(t, err, compare.ErrInvalid)
}

// TestMarginIsTheRope checks that one margin serves both: on k-fold
// evaluations --margin sets the Bayesian correlated t's region, and the
// corrected t decides the margin with its one-sided tests; on a holdout
// comparison --rope, which no Bayesian t reads, is the margin.
func TestMarginIsTheRope(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, d := range directions {
		f := setupKFold(t, d, store.Protocol{Name: "kfold", NTrain: 900, NTest: 100}, 1)
		margin := 0.02
		c, err := compare.Evaluations(ctx, f.st, f.good, f.poor, compare.Options{Margins: map[string]float64{d.metric: margin}, Sentence: report.Verdict})
		require.NoError(t, err)
		r := c.Metrics[0]
		require.Equal(t, "corrected-t", r.Method)
		require.NotNil(t, r.Bayes, "%s: the margin is the Bayesian t's region", d.name)
		require.Equal(t, margin, r.Bayes.Rope)
		require.Equal(t, "t", r.MarginTest.Source)
		require.NotNil(t, r.MarginTest.PNonInferior)
		require.NotEmpty(t, r.MarginDecision)
		require.Contains(t, r.Verdict, "Bayesian correlated t with a ROPE of 0.02")

		// --rope alone is the same margin.
		c2, err := compare.Evaluations(ctx, f.st, f.good, f.poor, compare.Options{Rope: &margin})
		require.NoError(t, err)
		require.Equal(t, r.MarginDecision, c2.Metrics[0].MarginDecision)
		require.Equal(t, *r.MarginTest.PNonInferior, *c2.Metrics[0].MarginTest.PNonInferior)
	}
	// A holdout comparison: --rope is the margin, with no Bayesian t.
	s := map[string]float64{}
	k := map[string]float64{}
	for i := range 200 {
		id := fmt.Sprintf("u%d", i)
		s[id], k[id] = 0.5+0.001*float64(i%17), 0.5+0.001*float64(i%13)
	}
	rope := 0.05
	c, err := compare.Scores(ctx, "m", compare.HigherIsBetter, compare.Named{Scores: s}, compare.Named{Scores: k}, compare.Options{Rope: &rope})
	require.NoError(t, err)
	r := c.Metrics[0]
	require.Nil(t, r.Bayes)
	require.Equal(t, rope, *r.Margin)
	require.Equal(t, compare.MarginEquivalent, r.MarginDecision)
}
