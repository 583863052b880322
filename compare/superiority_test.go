package compare_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/compare"
	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

// The probability of superiority's interval is drawn with the
// difference's bootstrap, in one pass: it is what stats'
// PairedSuperiorityUnits gives on the same units, bit for bit, in either
// direction.
func TestSuperiorityIntervalFromTheComparisonsDraws(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, err := store.Open(ctx, storetest.NewDatabase(t), store.Options{})
	require.NoError(t, err)
	t.Cleanup(st.Close)
	for _, lower := range []bool{false, true} {
		exp := fmt.Sprintf("sup-%t", lower)
		base, cand := map[string]float64{}, map[string]float64{}
		for i := range 300 {
			id := fmt.Sprintf("u%03d", i)
			base[id] = float64(i%8) / 16
			cand[id] = float64((i*5+1)%8) / 16 // multiples of 1/16: exact in float32
		}
		b := logUnits(t, st, exp, "base", "m", lower, base)
		c := logUnits(t, st, exp, "cand", "m", lower, cand)
		res, err := compare.Evaluations(ctx, st, b, c, compare.Options{Seed: 4, Resamples: 700})
		require.NoError(t, err)
		r := res.Metrics[0]
		require.NotNil(t, r.ProbSuperiorityLow, "lower %t", lower)

		p, err := st.Pair(ctx, b.ID, c.ID, "m", false)
		require.NoError(t, err)
		want, err := stats.PairedSuperiorityUnits(stats.PairedUnits{LeftSum: p.LeftSum, RightSum: p.RightSum}, lower,
			stats.BootstrapOptions{Seed: 4, Resamples: 700})
		require.NoError(t, err)
		require.Equal(t, want.Low, *r.ProbSuperiorityLow, "lower %t", lower)
		require.Equal(t, want.High, *r.ProbSuperiorityHigh, "lower %t", lower)
		require.Less(t, want.Low, want.High, "the fixture's premise: an interval of some width")
	}
}
