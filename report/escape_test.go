package report_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/report"
	"github.com/verdict-ml/verdict/stats"
)

// TestTerminalEscapesInNamesArePrintedEscaped feeds names that carry an
// ANSI escape sequence, a carriage return and a C1 control to every text
// output that prints names: the raw control characters never reach the
// output, their escaped forms do.
func TestTerminalEscapesInNamesArePrintedEscaped(t *testing.T) {
	t.Parallel()
	require.Equal(t, "ok name", report.Printable("ok name"))
	require.Equal(t, `run\x1b[2Jx\x0dy\u0085`, report.Printable("run\x1b[2Jx\ry\u0085"))

	evil := "pr-1\x1b]0;pwned\x07\r"
	var out strings.Builder
	tbl := report.Table{Header: []string{"RUN"}}
	tbl.Add(evil)
	require.NoError(t, tbl.Render(&out))
	require.NoError(t, tbl.Markdown(&out))
	r := &compare.MetricResult{Metric: "ndcg\x1b[31m", Baseline: "main", Candidate: evil, N: 10, Alpha: 0.05,
		Difference: stats.Interval{Estimate: 0.1, Low: -0.1, High: 0.3, Confidence: 0.95}, PValue: 0.5, PAdjusted: 0.5}
	out.WriteString(report.Verdict(&compare.Comparison{}, r))
	for _, raw := range []string{"\x1b", "\x07", "\r", "\u0085"} {
		require.NotContains(t, out.String(), raw)
	}
	require.Contains(t, out.String(), `pr-1\x1b]0;pwned\x07\x0d`)
	require.Contains(t, out.String(), `ndcg\x1b[31m`)
}
