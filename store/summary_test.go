package store_test

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/stats"
	"github.com/verdict-ml/verdict/store"
)

// summaryRows are n units of three metrics as training jobs log them:
// ndcg-like values with a third zeros and many ties (the values are
// multiples of 1/64), an unbounded one (a revenue-like value), and one
// whose values run from 10⁻⁹ to 10⁴ (a latency in seconds), so that the
// summaries see zeros, ties, values equal within storage precision, and
// differences that need two words a unit. Some units are on one side
// only.
func summaryRows(n int, seed uint64, drop int) *memRows {
	rng := rand.New(rand.NewPCG(seed, 5))
	rows := &memRows{metrics: []string{"ndcg@10", "revenue", "latency"}}
	for i := range n {
		if drop > 0 && i%drop == 0 {
			continue
		}
		ndcg := 0.0
		if rng.IntN(3) > 0 {
			ndcg = float64(rng.IntN(64)) / 64
		}
		rows.ids = append(rows.ids, fmt.Sprintf("user-%06d", i))
		rows.vals = append(rows.vals, []float64{ndcg, float64(float32(rng.ExpFloat64() * 37.5)),
			float64(float32(math.Pow(10, -9+13*rng.Float64())))})
	}
	return rows
}

// equalized is what the comparison pairs: right made equal to left where
// the two are equal within storage precision.
func equalized(left, right []float64) []float64 {
	out := append([]float64(nil), right...)
	for i := range out {
		if math.Abs(left[i]-out[i]) <= 0x1p-23*max(math.Abs(left[i]), math.Abs(out[i])) {
			out[i] = left[i]
		}
	}
	return out
}

// The queries that a distributed database runs on its workers give, on
// one server, the numbers Go computes from the pairs: the summary equals
// stats.SummarizePairs, the replicates stats.HashedReplicates, the
// grouped magnitudes stats.SignedRanksOfPairs, all bit for bit.
func TestSummaryQueriesEqualGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	a, err := s.LogEvaluation(ctx, newEval("e", "a"), summaryRows(3000, 1, 0))
	require.NoError(t, err)
	right := summaryRows(3000, 2, 7)
	right.vals[5][1] = right.vals[5][1] * (1 + 0x1p-25) // equal within storage precision
	b, err := s.LogEvaluation(ctx, newEval("e", "b"), right)
	require.NoError(t, err)
	for _, metric := range []string{"ndcg@10", "revenue", "latency"} {
		err := s.InTx(ctx, func(tx *store.Tx) error {
			p, err := tx.Pair(ctx, a.ID, b.ID, metric, true)
			require.NoError(t, err)
			r := equalized(p.LeftSum, p.RightSum)
			want, err := stats.SummarizePairs(p.LeftSum, r)
			require.NoError(t, err)
			got, err := tx.Summarize(ctx, a.ID, b.ID, metric, true)
			require.NoError(t, err)
			require.Zero(t, got.Outside)
			require.Equal(t, int64(len(p.SampleIDs)), got.N)
			require.Equal(t, p.LeftOnly, got.LeftOnly)
			require.Equal(t, p.RightOnly, got.RightOnly)
			require.Equal(t, []int64{want.Greater, want.Less, want.NonBinary}, []int64{got.Greater, got.Less, got.NonBinary})
			for i, pair := range [][2]*big.Int{{want.SumLeft, got.SumLeft}, {want.SumRight, got.SumRight}, {want.SumDiff, got.SumDiff}, {want.SumDiffSq, got.SumDiffSq}} {
				require.Zero(t, pair[0].Cmp(pair[1]), "%s: sum %d: Go %v, SQL %v", metric, i, pair[0], pair[1])
			}

			const B = 50
			reps, err := stats.HashedReplicates(ctx, p.SampleIDs, stats.PairedUnits{LeftSum: p.LeftSum, RightSum: r}, B, 77)
			require.NoError(t, err)
			// The differences streamed, hashed in SQL, give the same
			// replicates drawn in Go, batch by batch.
			stream, err := stats.NewReplicateStream(B, 77)
			require.NoError(t, err)
			require.NoError(t, tx.StreamDifferences(ctx, got, 77, func(hashes, hi, lo []int64) error {
				return stream.Add(ctx, hashes, hi, lo)
			}))
			streamed, err := stream.Replicates()
			require.NoError(t, err)
			require.Equal(t, reps, streamed, metric)
			// In batches of 7 units, the last one short.
			stream, err = stats.NewReplicateStream(B, 77)
			require.NoError(t, err)
			var sizes []int
			require.NoError(t, tx.StreamDifferencesBy(ctx, got, 77, 7, func(hashes, hi, lo []int64) error {
				sizes = append(sizes, len(hashes))
				return stream.Add(ctx, hashes, hi, lo)
			}))
			streamed, err = stream.Replicates()
			require.NoError(t, err)
			require.Equal(t, reps, streamed, metric)
			require.Len(t, sizes, (int(got.N)+6)/7)
			require.Equal(t, int(got.N)-7*(len(sizes)-1), sizes[len(sizes)-1])

			ranks, err := stats.SignedRanksOfPairs(p.LeftSum, r)
			require.NoError(t, err)
			groups, err := tx.SignedRanks(ctx, a.ID, b.ID, metric)
			require.NoError(t, err)
			require.Len(t, groups, len(ranks.Groups))
			for k, g := range groups {
				require.Equal(t, ranks.Groups[k], stats.SignedRankGroup{Pos: g.Pos, Neg: g.Neg}, "%s: group %d", metric, k)
			}
			return nil
		})
		require.NoError(t, err)
	}

	// One evaluation's values summed alone equal Go's exact sums of the
	// values paired with zeros: Σ v and Σ v², for a, for b (some units
	// dropped, one value rounded to float32 when stored) and for values
	// of both signs.
	mixed := summaryRows(500, 3, 0)
	for i := range mixed.vals {
		if i%2 == 0 {
			mixed.vals[i][1] = -mixed.vals[i][1]
		}
	}
	c, err := s.LogEvaluation(ctx, newEval("e", "c"), mixed)
	require.NoError(t, err)
	for _, e := range []struct {
		id   int64
		rows *memRows
	}{{a.ID, summaryRows(3000, 1, 0)}, {b.ID, right}, {c.ID, mixed}} {
		for m, metric := range e.rows.metrics {
			values := make([]float64, len(e.rows.vals))
			for i, v := range e.rows.vals {
				values[i] = float64(float32(v[m]))
			}
			want, err := stats.SummarizePairs(values, make([]float64, len(values)))
			require.NoError(t, err)
			require.NoError(t, s.InTx(ctx, func(tx *store.Tx) error {
				got, err := tx.SummarizeValues(ctx, e.id, metric)
				require.NoError(t, err)
				require.Zero(t, got.Outside)
				require.Equal(t, want.N, got.N)
				require.Zero(t, want.SumDiff.Cmp(got.Sum), "%s of %d: Σ v: Go %v, SQL %v", metric, e.id, want.SumDiff, got.Sum)
				require.Zero(t, want.SumDiffSq.Cmp(got.SumSq), "%s of %d: Σ v²: Go %v, SQL %v", metric, e.id, want.SumDiffSq, got.SumSq)
				return nil
			}))
		}
	}
}

// A value outside Q64 (below 4.6·10⁻¹³) is counted, so that the caller
// pairs the units instead.
func TestSummaryCountsValuesOutsideFixedPoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	rows := twoMetricRows()
	a, err := s.LogEvaluation(ctx, newEval("e", "a"), rows)
	require.NoError(t, err)
	rows = twoMetricRows()
	rows.vals[1][0] = 1e-20
	b, err := s.LogEvaluation(ctx, newEval("e", "b"), rows)
	require.NoError(t, err)
	require.NoError(t, s.InTx(ctx, func(tx *store.Tx) error {
		got, err := tx.Summarize(ctx, a.ID, b.ID, "ndcg@10", false)
		require.NoError(t, err)
		require.Equal(t, int64(1), got.Outside)
		require.Equal(t, int64(3), got.N)
		sums, err := tx.SummarizeValues(ctx, b.ID, "ndcg@10")
		require.NoError(t, err)
		require.Equal(t, int64(1), sums.Outside)
		require.Nil(t, sums.Sum)
		return nil
	}))
}

// At the edges of Q64 the exact sums still equal Go's: values of either
// sign just below 2²⁴ and just above 2⁻⁶⁴ (the largest differences, near
// 2²⁵, and the smallest), whose d² needs 178 bits, and the sums of the
// differences' magnitudes, positive and negative alike.
func TestSummaryAtTheEdgesOfFixedPoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	top := float64(float32(16777215))
	edge := []float64{top, -top, 0x1p-64, -0x1p-64, 3 * 0x1p-64, top - 0.5, -0.25, 0x1.fffffep+23, 1 - 0x1p-24, 0}
	left, right := &memRows{metrics: []string{"m"}}, &memRows{metrics: []string{"m"}}
	for i, l := range edge {
		for j, r := range edge {
			id := fmt.Sprintf("u%02d-%02d", i, j)
			left.ids, right.ids = append(left.ids, id), append(right.ids, id)
			left.vals, right.vals = append(left.vals, []float64{l}), append(right.vals, []float64{r})
		}
	}
	a, err := s.LogEvaluation(ctx, newEval("e", "a"), left)
	require.NoError(t, err)
	b, err := s.LogEvaluation(ctx, newEval("e", "b"), right)
	require.NoError(t, err)
	require.NoError(t, s.InTx(ctx, func(tx *store.Tx) error {
		p, err := tx.Pair(ctx, a.ID, b.ID, "m", true)
		require.NoError(t, err)
		r := equalized(p.LeftSum, p.RightSum)
		want, err := stats.SummarizePairs(p.LeftSum, r)
		require.NoError(t, err)
		got, err := tx.Summarize(ctx, a.ID, b.ID, "m", true)
		require.NoError(t, err)
		require.Zero(t, got.Outside)
		for i, pair := range [][2]*big.Int{{want.SumLeft, got.SumLeft}, {want.SumRight, got.SumRight}, {want.SumDiff, got.SumDiff}, {want.SumDiffSq, got.SumDiffSq}} {
			require.Zero(t, pair[0].Cmp(pair[1]), "sum %d: Go %v, SQL %v", i, pair[0], pair[1])
		}
		// Σ d and Σ |d|, exactly, from big.Rat.
		sum, abs := new(big.Rat), new(big.Rat)
		for i := range p.LeftSum {
			d := new(big.Rat).Sub(new(big.Rat).SetFloat64(p.LeftSum[i]), new(big.Rat).SetFloat64(r[i]))
			sum.Add(sum, d)
			abs.Add(abs, d.Abs(d))
		}
		scale := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 64))
		diffs, err := tx.SummarizeDifferences(ctx, a.ID, b.ID, "m", true)
		require.NoError(t, err)
		require.Zero(t, diffs.Outside)
		require.Equal(t, sum.Mul(sum, scale).Num().String(), diffs.Sum.String(), "Σ d")
		require.Equal(t, abs.Mul(abs, scale).Num().String(), diffs.SumAbs.String(), "Σ |d|")
		for _, e := range []struct {
			id     int64
			values []float64
		}{{a.ID, p.LeftSum}, {b.ID, p.RightSum}} {
			want, err := stats.SummarizePairs(e.values, make([]float64, len(e.values)))
			require.NoError(t, err)
			got, err := tx.SummarizeValues(ctx, e.id, "m")
			require.NoError(t, err)
			require.Zero(t, got.Outside)
			require.Zero(t, want.SumDiff.Cmp(got.Sum), "Σ v: Go %v, SQL %v", want.SumDiff, got.Sum)
			require.Zero(t, want.SumDiffSq.Cmp(got.SumSq), "Σ v²: Go %v, SQL %v", want.SumDiffSq, got.SumSq)
		}
		return nil
	}))
}
