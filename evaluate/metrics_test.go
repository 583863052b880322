package evaluate_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/evaluate"
)

// exactTol bounds the error of values computed by hand from their formulas:
// a few roundings of float64 arithmetic.
const exactTol = 1e-12

// disc is the discount of rank i, 1/log2(i+1), and idcg the ideal DCG of n
// relevant items, Σ_{i≤n} disc(i): the terms of the hand-computed nDCG values.
func disc(i int) float64 { return 1 / math.Log2(float64(i+1)) }

func idcg(n int) float64 {
	var s float64
	for i := 1; i <= n; i++ {
		s += disc(i)
	}
	return s
}

// handRows are the rows of the hand-computed cases, width 5: 'x' marks a
// relevant item at that rank. They are scored at handCutoffs; 8 is past the
// width, so ranks 6 to 8 count as misses.
var handRows = []struct {
	hits     string
	relevant int32
	about    string
}{
	{"xx...", 2, "A: hits at adjacent ranks 1 and 2, a perfect ranking of R = 2"},
	{".xxx.", 3, "B: hits at adjacent ranks 2, 3 and 4"},
	{"..x..", 0, "C: no targets (the hit cannot happen from a reader; it must be ignored)"},
	{"x.x.x", 8, "D: R = 8 > every cutoff"},
	{"...x.", 1, "E: R = 1 < k from k = 3 on"},
	{".....", 2, "F: targets but no hit"},
	{"x...x", 3, "G: a hit at the last rank"},
	{".x...", 2, "H: targets [7, 7, 9], deduplicated by the reader to R = 2"},
	{".x...", 3, "I: the same row with R = 3 as given: metrics take R from the batch"},
}

var handCutoffs = []int{1, 3, 5, 8}

func handBatch(t *testing.T) *evaluate.Batch {
	t.Helper()
	b := &evaluate.Batch{Width: 5}
	for i, row := range handRows {
		require.Len(t, row.hits, b.Width, row.about)
		b.SampleIDs = append(b.SampleIDs, fmt.Sprintf("row-%c", 'A'+i))
		for _, c := range row.hits {
			b.Hits = append(b.Hits, c == 'x')
		}
		b.Relevant = append(b.Relevant, row.relevant)
	}
	return b
}

// TestMetricsByHand checks every metric on handRows against values worked
// out from the definitions in PRODUCT.md, "Metric definitions". Each row
// of want holds the values at handCutoffs 1, 3, 5 and 8, and each is written
// as the formula it came from.
func TestMetricsByHand(t *testing.T) {
	t.Parallel()
	zeros := []float64{0, 0, 0, 0}
	tests := []struct {
		metric evaluate.Metric
		want   [][]float64 // rows A to I
	}{
		{
			// Σ_{hit i ≤ k} disc(i) / idcg(min(k, R))
			metric: evaluate.NDCG(handCutoffs...),
			want: [][]float64{
				{disc(1) / idcg(1), (disc(1) + disc(2)) / idcg(2), (disc(1) + disc(2)) / idcg(2), (disc(1) + disc(2)) / idcg(2)},
				{0, (disc(2) + disc(3)) / idcg(3), (disc(2) + disc(3) + disc(4)) / idcg(3), (disc(2) + disc(3) + disc(4)) / idcg(3)},
				zeros,
				{disc(1) / idcg(1), (disc(1) + disc(3)) / idcg(3), (disc(1) + disc(3) + disc(5)) / idcg(5), (disc(1) + disc(3) + disc(5)) / idcg(8)},
				{0, 0, disc(4) / idcg(1), disc(4) / idcg(1)},
				zeros,
				{disc(1) / idcg(1), disc(1) / idcg(3), (disc(1) + disc(5)) / idcg(3), (disc(1) + disc(5)) / idcg(3)},
				{0, disc(2) / idcg(2), disc(2) / idcg(2), disc(2) / idcg(2)},
				{0, disc(2) / idcg(3), disc(2) / idcg(3), disc(2) / idcg(3)},
			},
		},
		{
			// hits@k / R
			metric: evaluate.Recall(handCutoffs...),
			want: [][]float64{
				{1.0 / 2, 2.0 / 2, 2.0 / 2, 2.0 / 2},
				{0, 2.0 / 3, 3.0 / 3, 3.0 / 3},
				zeros,
				{1.0 / 8, 2.0 / 8, 3.0 / 8, 3.0 / 8},
				{0, 0, 1, 1},
				zeros,
				{1.0 / 3, 1.0 / 3, 2.0 / 3, 2.0 / 3},
				{0, 1.0 / 2, 1.0 / 2, 1.0 / 2},
				{0, 1.0 / 3, 1.0 / 3, 1.0 / 3},
			},
		},
		{
			// hits@k / min(k, R)
			metric: evaluate.CalibratedRecall(handCutoffs...),
			want: [][]float64{
				{1.0 / 1, 2.0 / 2, 2.0 / 2, 2.0 / 2},
				{0, 2.0 / 3, 3.0 / 3, 3.0 / 3},
				zeros,
				{1.0 / 1, 2.0 / 3, 3.0 / 5, 3.0 / 8},
				{0, 0, 1.0 / 1, 1.0 / 1},
				zeros,
				{1.0 / 1, 1.0 / 3, 2.0 / 3, 2.0 / 3},
				{0, 1.0 / 2, 1.0 / 2, 1.0 / 2},
				{0, 1.0 / 3, 1.0 / 3, 1.0 / 3},
			},
		},
		{
			// hits@k / k, k = 8 included although the rows hold 5 ranks
			metric: evaluate.Precision(handCutoffs...),
			want: [][]float64{
				{1.0 / 1, 2.0 / 3, 2.0 / 5, 2.0 / 8},
				{0, 2.0 / 3, 3.0 / 5, 3.0 / 8},
				zeros,
				{1.0 / 1, 2.0 / 3, 3.0 / 5, 3.0 / 8},
				{0, 0, 1.0 / 5, 1.0 / 8},
				zeros,
				{1.0 / 1, 1.0 / 3, 2.0 / 5, 2.0 / 8},
				{0, 1.0 / 3, 1.0 / 5, 1.0 / 8},
				{0, 1.0 / 3, 1.0 / 5, 1.0 / 8},
			},
		},
		{
			// 1 if hits@k > 0
			metric: evaluate.HitRate(handCutoffs...),
			want: [][]float64{
				{1, 1, 1, 1},
				{0, 1, 1, 1},
				zeros,
				{1, 1, 1, 1},
				{0, 0, 1, 1},
				zeros,
				{1, 1, 1, 1},
				{0, 1, 1, 1},
				{0, 1, 1, 1},
			},
		},
		{
			// 1 / (rank of the first hit) if that rank ≤ k
			metric: evaluate.MRR(handCutoffs...),
			want: [][]float64{
				{1, 1, 1, 1},
				{0, 1.0 / 2, 1.0 / 2, 1.0 / 2},
				zeros,
				{1, 1, 1, 1},
				{0, 0, 1.0 / 4, 1.0 / 4},
				zeros,
				{1, 1, 1, 1},
				{0, 1.0 / 2, 1.0 / 2, 1.0 / 2},
				{0, 1.0 / 2, 1.0 / 2, 1.0 / 2},
			},
		},
		{
			// Σ_{hit i ≤ k} precision@i / min(k, R); precision@i at the
			// j-th hit is j/i.
			metric: evaluate.MAP(handCutoffs...),
			want: [][]float64{
				{1.0 / 1, (1.0 + 2.0/2) / 2, (1.0 + 2.0/2) / 2, (1.0 + 2.0/2) / 2},
				{0, (1.0/2 + 2.0/3) / 3, (1.0/2 + 2.0/3 + 3.0/4) / 3, (1.0/2 + 2.0/3 + 3.0/4) / 3},
				zeros,
				{1.0 / 1, (1 + 2.0/3) / 3, (1 + 2.0/3 + 3.0/5) / 5, (1 + 2.0/3 + 3.0/5) / 8},
				{0, 0, (1.0 / 4) / 1, (1.0 / 4) / 1},
				zeros,
				{1.0 / 1, 1.0 / 3, (1 + 2.0/5) / 3, (1 + 2.0/5) / 3},
				{0, (1.0 / 2) / 2, (1.0 / 2) / 2, (1.0 / 2) / 2},
				{0, (1.0 / 2) / 3, (1.0 / 2) / 3, (1.0 / 2) / 3},
			},
		},
	}
	for _, tt := range tests {
		name := tt.metric.Keys()[0]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := handBatch(t)
			require.Equal(t, 8, tt.metric.RequiredK())
			require.Len(t, tt.want, b.Len())
			nk := len(handCutoffs)
			out := make([]float64, b.Len()*nk)
			tt.metric.Compute(b, out)
			for r, want := range tt.want {
				for j, w := range want {
					got := out[r*nk+j]
					require.Truef(t, scalar.EqualWithinAbsOrRel(got, w, exactTol, exactTol),
						"%s, %s: got %v, want %v", handRows[r].about, tt.metric.Keys()[j], got, w)
				}
			}

			// The evaluator's shared pass gives the same values.
			e, err := evaluate.NewEvaluator([]evaluate.Metric{tt.metric})
			require.NoError(t, err)
			got, err := e.Score(b, nil)
			require.NoError(t, err)
			require.Equal(t, out, got)
		})
	}
}

func TestMetricKeys(t *testing.T) {
	t.Parallel()
	tests := []struct {
		metric evaluate.Metric
		keys   []string
		k      int
	}{
		{evaluate.NDCG(20, 10, 20), []string{"ndcg@10", "ndcg@20"}, 20},
		{evaluate.Recall(5), []string{"recall@5"}, 5},
		{evaluate.CalibratedRecall(100, 1), []string{"calibrated_recall@1", "calibrated_recall@100"}, 100},
		{evaluate.Precision(3), []string{"precision@3"}, 3},
		{evaluate.HitRate(3, 2, 1), []string{"hit_rate@1", "hit_rate@2", "hit_rate@3"}, 3},
		{evaluate.MRR(10), []string{"mrr@10"}, 10},
		{evaluate.MAP(evaluate.MaxCutoff), []string{"map@1000000"}, evaluate.MaxCutoff},
	}
	for _, tt := range tests {
		require.Equal(t, tt.keys, tt.metric.Keys())
		require.Equal(t, tt.k, tt.metric.RequiredK(), tt.keys)
	}
}

func TestMetricMisuse(t *testing.T) {
	t.Parallel()
	require.PanicsWithValue(t, "evaluate: ndcg needs at least one cutoff", func() { evaluate.NDCG() })
	require.PanicsWithValue(t, "evaluate: recall cutoff 0 is outside [1, 1000000]", func() { evaluate.Recall(10, 0) })
	require.PanicsWithValue(t, "evaluate: map cutoff 1000001 is outside [1, 1000000]",
		func() { evaluate.MAP(evaluate.MaxCutoff + 1) })

	b := handBatch(t)
	require.PanicsWithValue(t, "evaluate: mrr: out has 3 values, want 9 rows × 1 keys",
		func() { evaluate.MRR(1).Compute(b, make([]float64, 3)) })
	b.Relevant = b.Relevant[:2]
	require.PanicsWithValue(t, "evaluate: batch of 9 rows × width 5 has 45 hit flags and 2 relevant counts",
		func() { evaluate.MRR(1).Compute(b, make([]float64, 9)) })
}

// TestMetricsNarrowBatch checks a batch of width 0 (no predictions at all),
// the extreme of k > Width: every row with targets scores 0.
func TestMetricsNarrowBatch(t *testing.T) {
	t.Parallel()
	b := &evaluate.Batch{SampleIDs: []string{"a", "b"}, Relevant: []int32{3, 0}}
	for _, m := range []evaluate.Metric{
		evaluate.NDCG(1, 5), evaluate.Recall(1, 5), evaluate.CalibratedRecall(1, 5),
		evaluate.Precision(1, 5), evaluate.HitRate(1, 5), evaluate.MRR(1, 5), evaluate.MAP(1, 5),
	} {
		out := []float64{9, 9, 9, 9}
		m.Compute(b, out)
		require.Equal(t, []float64{0, 0, 0, 0}, out, m.Keys())
	}
}
