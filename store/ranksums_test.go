package store_test

import (
	"context"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// TestRankSumsEqualGo requires the rank sums the database computes to
// equal stats.RankSumsOf over the unit matrix Go reads, and its sums the
// exact sums of those values: with ties (ndcg's multiples of 1/64), units
// one evaluation lacks, both directions, two to four evaluations, runs
// that rank alike on every unit, and a value outside Q64.
func TestRankSumsEqualGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	var evals []*store.Evaluation
	for i, drop := range []int{0, 7, 0, 5} {
		l, err := s.LogEvaluation(ctx, newEval("e", string(rune('a'+i))), summaryRows(2000, uint64(i+1), drop))
		require.NoError(t, err)
		evals = append(evals, &l.Evaluation)
	}
	for _, metric := range []string{"ndcg@10", "revenue", "latency"} {
		for _, lower := range []bool{false, true} {
			for _, es := range [][]*store.Evaluation{evals, evals[:2], evals[1:]} {
				_, values, dropped, err := s.UnitMatrix(ctx, es, metric)
				require.NoError(t, err)
				require.Positive(t, dropped)
				gains := make([][]float64, len(values))
				want := make([]*big.Int, len(es))
				for j := range want {
					want[j] = new(big.Int)
				}
				for u, row := range values {
					gains[u] = make([]float64, len(row))
					for j, v := range row {
						gains[u][j] = v
						if lower {
							gains[u][j] = -v
						}
						x, _ := new(big.Float).SetMantExp(big.NewFloat(v), 64).Int(nil)
						want[j].Add(want[j], x)
					}
				}
				got, err := s.RankSums(ctx, es, metric, lower)
				require.NoError(t, err)
				require.Equal(t, stats.RankSumsOf(gains), got.Ranks, "%s lower=%v k=%d", metric, lower, len(es))
				require.Zero(t, got.Outside)
				require.Equal(t, want, got.Sums, metric)
			}
		}
	}

	// Three runs in the same order on every unit; then a value below 2⁻⁶⁴'s
	// reach, which the sums cannot hold exactly.
	alike := func(run string, add float64, tiny bool) *store.Evaluation {
		rows := summaryRows(50, 9, 0)
		for _, v := range rows.vals {
			v[0] += add
		}
		if tiny {
			rows.vals[3][0] = 1e-25
		}
		l, err := s.LogEvaluation(ctx, newEval("alike", run), rows)
		require.NoError(t, err)
		return &l.Evaluation
	}
	x, y, z := alike("x", 0, false), alike("y", 1, false), alike("z", 2, false)
	got, err := s.RankSums(ctx, []*store.Evaluation{x, y, z}, "ndcg@10", false)
	require.NoError(t, err)
	require.True(t, got.Ranks.SameOrder)
	require.Equal(t, []int64{50 * 6, 50 * 4, 50 * 2}, got.Ranks.Twice)
	require.Zero(t, got.Ranks.Ties)
	tiny := alike("tiny", 0, true)
	got, err = s.RankSums(ctx, []*store.Evaluation{x, tiny}, "ndcg@10", false)
	require.NoError(t, err)
	require.Equal(t, int64(1), got.Outside)
	require.Nil(t, got.Sums)
	_, err = s.RankSums(ctx, []*store.Evaluation{x}, "ndcg@10", false)
	require.ErrorIs(t, err, store.ErrBadInput)
}
