package report_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
)

// TestVerdictBranches covers the sentence's wording, including branches
// real data reaches rarely: an interval that includes zero while p clears
// alpha, a gap too small to size, equal means, a baseline that wins a
// lower-is-better metric, and an adjusted p-value.
func TestVerdictBranches(t *testing.T) {
	t.Parallel()
	n := 4100
	df4 := 4.0
	tests := []struct {
		name string
		r    compare.MetricResult
		want string
	}{
		{
			name: "interval includes zero, p below alpha",
			r: compare.MetricResult{Metric: "ndcg@10", Baseline: "main", Candidate: "pr-1", N: 40, Alpha: 0.05,
				Difference: stats.Interval{Estimate: 0.031, Low: -0.002, High: 0.07, Confidence: 0.95},
				PValue:     100.0 / 2001, PAdjusted: 100.0 / 2001, PBelowAlpha: true, NRequired: &n, Hint: compare.HintCount},
			want: "main and pr-1 are not distinguishable on ndcg@10 (n = 40): the difference main − pr-1 is +0.0310, with a 95% CI of -0.0020 to +0.0700, " +
				"which includes zero, although p = 0.04998 is below alpha 0.05. " +
				"Detecting a gap this size with 80% power would take about 4,100 units (from the observed variance of the paired differences: an order of magnitude, not a count).",
		},
		{
			name: "gap too small to size",
			r: compare.MetricResult{Metric: "recall@20", Baseline: "a", Candidate: "b", N: 1000, Alpha: 0.01,
				Difference: stats.Interval{Estimate: 1e-6, Low: -0.004, High: 0.004, Confidence: 0.99},
				PValue:     0.999, PAdjusted: 0.999, Hint: compare.HintTooLarge},
			want: "a and b are not distinguishable on recall@20 (n = 1,000): the difference a − b is +0.000001, with a 99% CI of -0.00400 to +0.00400, " +
				"which includes zero, and p = 0.999 is not below alpha 0.01. A gap this small for its variance is beyond any practical number of units.",
		},
		{
			name: "equal means",
			r: compare.MetricResult{Metric: "m", Baseline: "a", Candidate: "b", N: 3, Alpha: 0.05,
				Difference: stats.Interval{Confidence: 0.95}, PValue: 1, PAdjusted: 1, Hint: compare.HintEqualMeans},
			want: "a and b are not distinguishable on m (n = 3): the difference a − b is 0.000, with a 95% CI of 0.000 to 0.000, " +
				"which includes zero, and p = 1.000 is not below alpha 0.05. The means are equal, so no number of units would separate them.",
		},
		{
			name: "the baseline wins a loss by being lower, after adjustment",
			r: compare.MetricResult{Metric: "logloss", LowerIsBetter: true, Direction: compare.LowerIsBetter, Baseline: "main", Candidate: "pr-1",
				N: 100000, Alpha: 0.05, Difference: stats.Interval{Estimate: -0.0012, Low: -0.0019, High: -0.0004, Confidence: 0.95},
				PValue: 1.0 / 2001, PAdjusted: 2.0 / 2001, Adjustment: "holm", AdjustedN: 2,
				Distinguishable: true, PBelowAlpha: true, IntervalExcludesZero: true, Winner: compare.Baseline,
				CandidateBetter: 40000, CandidateWorse: 41000, Same: 19000},
			want: "main beats pr-1 on logloss by 0.00120 (lower is better; 95% CI 0.00040 to 0.00190, p < 0.001 after Holm adjustment across 2 metrics, n = 100,000): " +
				"the interval excludes zero and p is below alpha 0.05. main is better for 41,000 units, worse for 40,000 and the same for 19,000.",
		},
		{
			name: "corrected t with rho assumed, the posterior decides equivalence",
			r: compare.MetricResult{Metric: "accuracy", Method: "corrected-t", Baseline: "a", Candidate: "b", N: 5, K: 5, Alpha: 0.05,
				Difference: stats.Interval{Estimate: 0.002, Low: -0.004, High: 0.008, Confidence: 0.95},
				PValue:     0.4, PAdjusted: 0.4, Statistic: &compare.Statistic{Name: "t", Value: 0.93, DF: &df4}, Rho: 0.2, RhoAssumed: true,
				Bayes: &compare.Bayes{Rope: 0.01, PBaselineBetter: 0.02, PEquivalent: 0.97, PCandidateBetter: 0.01,
					Decision: compare.BayesEquivalent, DecideAt: 0.95}},
			want: "a and b are not distinguishable on accuracy (n = 5): the difference a − b is +0.00200, with a 95% CI of -0.00400 to +0.00800, " +
				"which includes zero, and p = 0.400 is not below alpha 0.05. " +
				"Corrected resampled t (Nadeau & Bengio, 5 folds): t = 0.9300 (df 4); ρ = 1/k = 0.2 assumed: the fold sizes were not recorded. " +
				"Bayesian correlated t with a ROPE of 0.01: P(a better) = 0.020, P(equivalent) = 0.970, P(b better) = 0.010. " +
				"With a ROPE of 0.01, the posterior decides: practically equivalent (P = 0.970 > 0.95).",
		},
		{
			name: "repeated k-fold, undecided",
			r: compare.MetricResult{Metric: "accuracy", Method: "corrected-t", Baseline: "a", Candidate: "b", N: 20, K: 10, Alpha: 0.05,
				Difference: stats.Interval{Estimate: 0.002, Low: -0.004, High: 0.008, Confidence: 0.95},
				PValue:     0.4, PAdjusted: 0.4, Rho: 0.1, RhoAssumed: true,
				Bayes: &compare.Bayes{Rope: 0.001, PBaselineBetter: 0.6, PEquivalent: 0.2, PCandidateBetter: 0.2,
					Decision: compare.BayesUndecided, DecideAt: 0.95}},
			want: "a and b are not distinguishable on accuracy (n = 20): the difference a − b is +0.00200, with a 95% CI of -0.00400 to +0.00800, " +
				"which includes zero, and p = 0.400 is not below alpha 0.05. " +
				"Corrected resampled t (Nadeau & Bengio, 20 folds); ρ = 1/k = 0.1 (k = 10 folds per repetition) assumed: the fold sizes were not recorded. " +
				"Bayesian correlated t with a ROPE of 0.001: P(a better) = 0.600, P(equivalent) = 0.200, P(b better) = 0.200. " +
				"With a ROPE of 0.001, the posterior is undecided: no probability exceeds 0.95.",
		},
		{
			name: "a decision just above its threshold prints the digits that show it",
			r: compare.MetricResult{Metric: "accuracy", Method: "corrected-t", Baseline: "a", Candidate: "b", N: 10, NTrain: 900, NTest: 100, Alpha: 0.05,
				Difference: stats.Interval{Estimate: 0.002, Low: -0.004, High: 0.008, Confidence: 0.95},
				PValue:     0.4, PAdjusted: 0.4, Rho: 0.1,
				Bayes: &compare.Bayes{Rope: 0, PBaselineBetter: 0.04996, PCandidateBetter: 0.95004,
					Decision: compare.BayesCandidateBetter, DecideAt: 0.95}},
			want: "a and b are not distinguishable on accuracy (n = 10): the difference a − b is +0.00200, with a 95% CI of -0.00400 to +0.00800, " +
				"which includes zero, and p = 0.400 is not below alpha 0.05. " +
				"Corrected resampled t (Nadeau & Bengio, 10 folds, n_train 900, n_test 100). " +
				"Bayesian correlated t with a ROPE of 0: P(a better) = 0.050, P(equivalent) = 0.000, P(b better) = 0.950. " +
				"With a ROPE of 0, the posterior decides: b better (P = 0.95004 > 0.95).",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, report.Verdict(&compare.Comparison{}, &tt.r))
		})
	}
}
