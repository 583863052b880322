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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, report.Verdict(&compare.Comparison{}, &tt.r))
		})
	}
}
