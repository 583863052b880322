package report_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/report"
)

func TestCSVCells(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		x    float64
		want string
	}{
		{0.1, "0.1"}, {0.29438366733093670, "0.2943836673309367"}, {-3, "-3"}, {0, "0"},
		{1e-7, "1e-07"}, {1e21, "1e+21"}, {math.NaN(), ""}, {math.Inf(1), ""}, {math.Inf(-1), ""},
	} {
		require.Equal(t, c.want, report.CSVNum(c.x), "%v", c.x)
	}

	p := 0.0004997501249375312
	require.Equal(t, "0.0004997501249375312", report.CSVPtr(&p))
	require.Empty(t, report.CSVPtr(nil))

	nan := math.NaN()
	require.Equal(t, []string{"-0.03294666594912996", "-0.045449849321295914", "-0.02055556592504582"},
		report.CSVInterval(-0.03294666594912996, -0.045449849321295914, -0.02055556592504582))
	require.Equal(t, []string{"", "", ""}, report.CSVInterval(nan, nan, nan))
	require.Equal(t, []string{"0.5", "", ""}, report.CSVInterval(0.5, nan, nan))

	paris := time.FixedZone("CET", 3600)
	require.Equal(t, "2024-03-01T13:30:00Z", report.CSVTime(time.Date(2024, 3, 1, 14, 30, 0, 0, paris)))
	require.Equal(t, "2024-03-01T14:30:00.25Z", report.CSVTime(time.Date(2024, 3, 1, 14, 30, 0, 250_000_000, time.UTC)))
}
