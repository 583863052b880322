package compare_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// Tolerances against testdata/adjusted/reference.json, which gen.py wrote
// with scipy 1.10 and statsmodels 0.13 from the very values the store
// holds (multiples of 1/1024, exact in single precision). The paired t is
// the same arithmetic on the same numbers, so the two agree to rounding;
// adjustedAbsTol only matters for values near zero.
const (
	adjustedRelTol = 1e-9
	adjustedAbsTol = 1e-14
)

// adjustedRef is one metric of testdata/adjusted/reference.json.
type adjustedRef struct {
	Metric        string             `json:"metric"`
	BaselineMean  float64            `json:"baseline_mean"`
	CandidateMean float64            `json:"candidate_mean"`
	MeanDiff      float64            `json:"mean_diff"`
	T             float64            `json:"t"`
	DF            int                `json:"df"`
	PValue        float64            `json:"p_value"`
	CILow         float64            `json:"ci_low"`
	CIHigh        float64            `json:"ci_high"`
	PAdjusted     map[string]float64 `json:"p_adjusted"` // statsmodels' multipletests
}

// adjustedFixture is the baseline and the candidate of
// testdata/adjusted, logged through `verdict log`'s reader, with the
// reference values of each metric.
type adjustedFixture struct {
	st         *store.Store
	base, cand *store.Evaluation
	ref        map[string]adjustedRef
	metrics    []string // in the files' order
}

func setupAdjusted(t *testing.T) adjustedFixture {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	f := adjustedFixture{st: st, ref: map[string]adjustedRef{}}
	log := func(run string) *store.Evaluation {
		in, err := scores.OpenScores(filepath.Join("testdata", "adjusted", run+".csv"), "")
		require.NoError(t, err)
		defer in.Close()
		l, err := in.Log(ctx, st, store.NewEvaluation{Experiment: "adjusted", Run: run, EvalSet: "test"})
		require.NoError(t, err)
		return &l.Evaluation
	}
	f.base, f.cand = log("baseline"), log("candidate")
	b, err := os.ReadFile(filepath.Join("testdata", "adjusted", "reference.json"))
	require.NoError(t, err)
	var doc struct {
		N       int           `json:"n"`
		Metrics []adjustedRef `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal(b, &doc))
	require.Len(t, doc.Metrics, 3)
	for _, m := range doc.Metrics {
		f.ref[m.Metric] = m
		f.metrics = append(f.metrics, m.Metric)
	}
	require.Equal(t, f.metrics, f.base.Metrics, "the files and the reference list the same metrics")
	require.EqualValues(t, doc.N, f.base.Units)
	return f
}

// requireAdjustedClose requires got to equal want within the reference
// tolerances.
func requireAdjustedClose(t *testing.T, want, got float64, what string) {
	t.Helper()
	require.Truef(t, scalar.EqualWithinAbsOrRel(got, want, adjustedAbsTol, adjustedRelTol),
		"%s: got %.17g, want %.17g", what, got, want)
}

// adjustByHand adjusts ps with the textbook formulas, p₍₁₎ ≤ … ≤ p₍ₘ₎ the
// p-values in ascending order:
//
//	Holm:        p̃₍ᵢ₎ = max_{j≤i} min(1, (m − j + 1)·p₍ⱼ₎)
//	BH:          p̃₍ᵢ₎ = min_{j≥i} min(1, m/j·p₍ⱼ₎)
//	Bonferroni:  p̃ᵢ = min(1, m·pᵢ)
//	none:        p̃ᵢ = pᵢ
func adjustByHand(method compare.Adjustment, ps []float64) []float64 {
	m := len(ps)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(ps[a], ps[b]) })
	out := make([]float64, m)
	switch method {
	case compare.AdjustHolm:
		run := 0.0
		for j, i := range order {
			run = max(run, min(1, float64(m-j)*ps[i]))
			out[i] = run
		}
	case compare.AdjustBH:
		run := 1.0
		for j := m - 1; j >= 0; j-- {
			i := order[j]
			run = min(run, float64(m)/float64(j+1)*ps[i])
			out[i] = run
		}
	case compare.AdjustBonf:
		for i, p := range ps {
			out[i] = min(1, float64(m)*p)
		}
	default:
		copy(out, ps)
	}
	return out
}

// TestAdjustedPDecides compares two runs on three metrics with the paired
// t. On recall@10 the candidate is worse, and the raw p (scipy: 0.0431) is
// below alpha 0.05, but adjusted across the three metrics it is not
// (Holm 0.0861, Benjamini-Hochberg 0.0646, Bonferroni 0.129): the adjusted
// p decides, so there is no winner, no regression for CI to fail on, and
// the sentence says why. ndcg@10, where the candidate is better by far
// (p = 8.0e-10), stays distinguishable after any adjustment, with the
// candidate as winner; mrr@10 never is. Without an adjustment the same
// recall@10 is a regression, which shows the data put raw p below alpha.
// The JSON a script reads and the history record say the same.
func TestAdjustedPDecides(t *testing.T) {
	t.Parallel()
	f := setupAdjusted(t)
	ctx := context.Background()
	const alpha = 0.05
	raw := make([]float64, len(f.metrics))
	for i, m := range f.metrics {
		raw[i] = f.ref[m].PValue
	}
	recall, ndcg, mrr := f.ref["recall@10"], f.ref["ndcg@10"], f.ref["mrr@10"]
	require.Less(t, recall.PValue, alpha, "the fixture's premise: recall@10's raw p is below alpha")
	require.Greater(t, recall.CILow, 0.0, "the fixture's premise: recall@10's interval excludes zero, so p alone fails")

	tests := []struct {
		name   string
		adjust compare.Adjustment
		// want is the adjustment the result reports (the default is
		// Holm, with three metrics), and words how the sentence names it.
		want  compare.Adjustment
		words string
		// recallWinner is recall@10's winner: none once adjusted.
		recallWinner compare.Side
	}{
		{name: "default", adjust: compare.AdjustDefault, want: compare.AdjustHolm, words: " after Holm adjustment across 3 metrics"},
		{name: "holm", adjust: compare.AdjustHolm, want: compare.AdjustHolm, words: " after Holm adjustment across 3 metrics"},
		{name: "bh", adjust: compare.AdjustBH, want: compare.AdjustBH, words: " after Benjamini-Hochberg adjustment across 3 metrics"},
		{name: "bonferroni", adjust: compare.AdjustBonf, want: compare.AdjustBonf, words: " after Bonferroni adjustment across 3 metrics"},
		{name: "none", adjust: compare.AdjustNone, want: "", words: "", recallWinner: compare.Baseline},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := compare.Evaluations(ctx, f.st, f.base, f.cand, compare.Options{
				Method: compare.PairedT, Adjust: tt.adjust, Alpha: alpha, Record: true, Sentence: report.Verdict})
			require.NoError(t, err)
			require.Len(t, c.Metrics, 3)
			hand := adjustByHand(tt.want, raw)
			byMetric := map[string]*compare.MetricResult{}
			for i, r := range c.Metrics {
				ref := f.ref[r.Metric]
				require.Equal(t, f.metrics[i], r.Metric)
				byMetric[r.Metric] = r
				requireAdjustedClose(t, ref.BaselineMean, r.BaselineMean, r.Metric+" baseline mean")
				requireAdjustedClose(t, ref.CandidateMean, r.CandidateMean, r.Metric+" candidate mean")
				requireAdjustedClose(t, ref.MeanDiff, r.Difference.Estimate, r.Metric+" mean difference")
				requireAdjustedClose(t, ref.CILow, r.Difference.Low, r.Metric+" interval's low bound")
				requireAdjustedClose(t, ref.CIHigh, r.Difference.High, r.Metric+" interval's high bound")
				require.NotNil(t, r.Statistic)
				requireAdjustedClose(t, ref.T, r.Statistic.Value, r.Metric+" t")
				require.NotNil(t, r.Statistic.DF)
				require.Equal(t, float64(ref.DF), *r.Statistic.DF)
				requireAdjustedClose(t, ref.PValue, r.PValue, r.Metric+" raw p")
				requireAdjustedClose(t, hand[i], r.PAdjusted, r.Metric+" adjusted p, by the formula")
				if tt.want != "" {
					requireAdjustedClose(t, ref.PAdjusted[string(tt.want)], r.PAdjusted, r.Metric+" adjusted p, by statsmodels")
				}
				require.Equal(t, string(tt.want), r.Adjustment)
				require.Equal(t, alpha, r.Alpha)
			}

			// recall@10: raw p < alpha ≤ adjusted p, unless unadjusted.
			r := byMetric["recall@10"]
			require.True(t, r.IntervalExcludesZero)
			require.Less(t, r.PValue, alpha)
			if tt.recallWinner == compare.Neither {
				require.GreaterOrEqual(t, r.PAdjusted, alpha, "the premise: the adjusted p is not below alpha")
				require.False(t, r.PBelowAlpha)
				require.False(t, r.Distinguishable)
				require.Equal(t, compare.Neither, r.Winner)
				require.False(t, r.Regression(), "no regression for CI to fail on")
				require.Nil(t, c.Failed(compare.FailOnRegression))
				require.True(t, strings.HasPrefix(r.Verdict, "baseline and candidate are not distinguishable on recall@10 (n = 200): "), r.Verdict)
				require.Contains(t, r.Verdict, fmt.Sprintf("which excludes zero, but p = %.3f%s is not below alpha 0.05.", recall.PAdjusted[string(tt.want)], tt.words))
				require.NotContains(t, r.Verdict, "beats")
				require.NotContains(t, r.Verdict, "is below alpha")
			} else {
				require.True(t, r.PBelowAlpha)
				require.True(t, r.Distinguishable)
				require.Equal(t, compare.Baseline, r.Winner, "the candidate's recall@10 is lower")
				require.True(t, r.Regression())
				require.Same(t, r, c.Failed(compare.FailOnRegression))
				require.True(t, strings.HasPrefix(r.Verdict, fmt.Sprintf("baseline beats candidate on recall@10 by %.4f (95%% CI %.4f to %.4f, p = %.3f, n = 200): the interval excludes zero and p is below alpha 0.05.",
					recall.MeanDiff, recall.CILow, recall.CIHigh, recall.PValue)), r.Verdict)
			}

			// ndcg@10: distinguishable whatever the adjustment; the
			// candidate, higher, wins.
			r = byMetric["ndcg@10"]
			require.True(t, r.Distinguishable)
			require.Equal(t, compare.Candidate, r.Winner)
			require.False(t, r.Regression())
			require.Less(t, r.PAdjusted, 1e-8)
			require.True(t, strings.HasPrefix(r.Verdict, fmt.Sprintf("candidate beats baseline on ndcg@10 by %.4f (95%% CI %.4f to %.4f, p < 0.001%s, n = 200): the interval excludes zero and p is below alpha 0.05.",
				-ndcg.MeanDiff, -ndcg.CIHigh, -ndcg.CILow, tt.words)), r.Verdict)
			require.NotContains(t, r.Verdict, "baseline beats")

			// mrr@10: no difference.
			r = byMetric["mrr@10"]
			require.False(t, r.Distinguishable)
			require.Equal(t, compare.Neither, r.Winner)
			require.Greater(t, mrr.PValue, alpha)
			require.True(t, strings.HasPrefix(r.Verdict, "baseline and candidate are not distinguishable on mrr@10 (n = 200): "), r.Verdict)
			require.Contains(t, r.Verdict, "which includes zero, and p = ")

			// The JSON a script reads (verdict compare --format json, the
			// HTTP API) decides the same.
			var b bytes.Buffer
			require.NoError(t, report.Comparison(&b, "json", c))
			var doc []map[string]any
			require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
			require.Len(t, doc, 3)
			for i, r := range c.Metrics {
				got := doc[i]
				require.Equal(t, r.Metric, got["metric"])
				requireAdjustedClose(t, f.ref[r.Metric].PValue, got["p_value"].(float64), r.Metric+" JSON p_value")
				requireAdjustedClose(t, hand[i], got["p_adjusted"].(float64), r.Metric+" JSON p_adjusted")
				require.Equal(t, string(tt.want), got["adjustment"])
				require.Equal(t, r.Distinguishable, got["distinguishable"], r.Metric)
				require.Equal(t, r.PBelowAlpha, got["p_below_alpha"], r.Metric)
				if r.Winner == compare.Neither {
					require.Nil(t, got["winner"], r.Metric)
				} else {
					require.Equal(t, string(r.Winner), got["winner"], r.Metric)
				}
				require.Equal(t, r.Verdict, got["verdict"])
			}

			// The history records what was decided, with the adjusted p.
			for i, r := range c.Metrics {
				require.NotNil(t, r.ComparisonID)
				h, err := compare.GetComparison(ctx, f.st, *r.ComparisonID)
				require.NoError(t, err)
				require.Equal(t, r.Metric, h.Metric)
				require.NotNil(t, h.PAdjusted)
				requireAdjustedClose(t, hand[i], *h.PAdjusted, r.Metric+" recorded p_adjusted")
				require.Equal(t, r.Distinguishable, h.Distinguishable, r.Metric)
				require.Equal(t, string(r.Winner), h.Winner, r.Metric)
				require.Equal(t, r.Verdict, h.Verdict)
			}
		})
	}

	// The default test, the paired bootstrap with the sign-flip
	// randomisation test, decides the same under Holm: its p is a Monte
	// Carlo estimate, so only the decision is checked.
	t.Run("default method", func(t *testing.T) {
		t.Parallel()
		c, err := compare.Evaluations(ctx, f.st, f.base, f.cand, compare.Options{Alpha: alpha, Sentence: report.Verdict})
		require.NoError(t, err)
		for _, r := range c.Metrics {
			require.Equal(t, string(compare.AdjustHolm), r.Adjustment)
			switch r.Metric {
			case "ndcg@10":
				require.Equal(t, compare.Candidate, r.Winner)
			case "recall@10":
				require.GreaterOrEqual(t, r.PAdjusted, alpha)
				require.Equal(t, compare.Neither, r.Winner)
				require.NotContains(t, r.Verdict, "beats", r.Verdict)
			case "mrr@10":
				require.Equal(t, compare.Neither, r.Winner)
			}
		}
	})
}
