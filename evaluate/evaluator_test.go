package evaluate_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats/scalar"

	"github.com/verdict-ml/verdict/evaluate"
)

// hitCount is a metric implemented outside the package: the number of hits
// in the whole row, or bad for the rows listed in badRows.
type hitCount struct {
	key     string
	bad     float64
	badRows map[int]bool
}

func (m hitCount) Keys() []string { return []string{m.key} }

func (m hitCount) RequiredK() int { return 7 }

func (m hitCount) Compute(b *evaluate.Batch, out []float64) {
	for r := range b.Len() {
		if m.badRows[r] {
			out[r] = m.bad
			continue
		}
		n := 0
		for _, h := range b.Row(r) {
			if h {
				n++
			}
		}
		out[r] = float64(n)
	}
}

func TestNewEvaluatorErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		metrics []evaluate.Metric
		want    string
	}{
		{name: "none", metrics: nil, want: "bad metric: no metrics to evaluate"},
		{name: "nil", metrics: []evaluate.Metric{evaluate.MRR(1), nil}, want: "bad metric: metric 2 of 2 is nil"},
		{
			name:    "same key twice",
			metrics: []evaluate.Metric{evaluate.NDCG(10), evaluate.Recall(10), evaluate.NDCG(10, 20)},
			want:    `bad metric "ndcg@10": key computed twice; give each metric and cutoff once`,
		},
		{
			name:    "custom key clashes",
			metrics: []evaluate.Metric{evaluate.MRR(5), hitCount{key: "mrr@5"}},
			want:    `bad metric "mrr@5": key computed twice; give each metric and cutoff once`,
		},
		{
			name:    "empty key",
			metrics: []evaluate.Metric{hitCount{key: ""}},
			want:    "bad metric: metric 1 of 1 has an empty key",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, err := evaluate.NewEvaluator(tt.metrics)
			require.ErrorIs(t, err, evaluate.ErrBadMetric)
			require.EqualError(t, err, tt.want)
			require.Nil(t, e)
		})
	}
}

// TestEvaluatorCustomMetric places a metric implemented outside the package
// between built-in ones, on the hand-computed rows.
func TestEvaluatorCustomMetric(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		metric  hitCount
		wantErr string
	}{
		{name: "finite", metric: hitCount{key: "hits"}},
		{
			// Row C has no targets: whatever the metric gives there is
			// replaced by 0.
			name:   "NaN in a row without targets",
			metric: hitCount{key: "hits", bad: math.NaN(), badRows: map[int]bool{2: true}},
		},
		{
			name:    "NaN in a row with targets",
			metric:  hitCount{key: "hits", bad: math.NaN(), badRows: map[int]bool{2: true, 4: true}},
			wantErr: `row 104 (sample "row-E"), key "hits": metric value is not finite: NaN`,
		},
		{
			name:    "infinity",
			metric:  hitCount{key: "hits", bad: math.Inf(-1), badRows: map[int]bool{0: true}},
			wantErr: `row 100 (sample "row-A"), key "hits": metric value is not finite: -Inf`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := handBatch(t)
			b.First = 100
			e, err := evaluate.NewEvaluator([]evaluate.Metric{evaluate.MRR(3), tt.metric, evaluate.Recall(1, 8)})
			require.NoError(t, err)
			require.Equal(t, []string{"mrr@3", "hits", "recall@1", "recall@8"}, e.Keys())
			require.Equal(t, 8, e.RequiredK())

			got, err := e.Score(b, nil)
			if tt.wantErr != "" {
				require.ErrorIs(t, err, evaluate.ErrBadValue)
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			// mrr@3 and recall@1, 8 from TestMetricsByHand; hits counted
			// from handRows. Row C has no targets and is 0 throughout.
			want := []float64{
				1, 2, 1.0 / 2, 2.0 / 2,
				1.0 / 2, 3, 0, 3.0 / 3,
				0, 0, 0, 0,
				1, 3, 1.0 / 8, 3.0 / 8,
				0, 1, 0, 1,
				0, 0, 0, 0,
				1, 2, 1.0 / 3, 2.0 / 3,
				1.0 / 2, 1, 0, 1.0 / 2,
				1.0 / 2, 1, 0, 1.0 / 3,
			}
			require.Len(t, got, len(want))
			for i, w := range want {
				require.Truef(t, scalar.EqualWithinAbsOrRel(got[i], w, exactTol, exactTol),
					"row %d, %s: got %v, want %v", i/4, e.Keys()[i%4], got[i], w)
			}
		})
	}
}

func TestScoreReusesOut(t *testing.T) {
	t.Parallel()
	b := handBatch(t)
	e, err := evaluate.NewEvaluator(evaluate.DefaultMetrics(5))
	require.NoError(t, err)
	buf := make([]float64, 3, 100)
	for i := range buf[:cap(buf)] {
		buf[:cap(buf)][i] = 7
	}
	got, err := e.Score(b, buf)
	require.NoError(t, err)
	require.Len(t, got, b.Len()*2)
	require.Same(t, &buf[:1][0], &got[0], "out's storage is reused")
	require.Equal(t, []float64{0, 0}, got[4:6], "row C, without targets, is overwritten with zeros")

	small := make([]float64, 0, 1)
	got, err = e.Score(b, small)
	require.NoError(t, err)
	require.Len(t, got, b.Len()*2)
}

// TestSummary checks the counts and means of a summary, and that merging
// summaries of parts gives the summary of the whole.
func TestSummary(t *testing.T) {
	t.Parallel()
	e, err := evaluate.NewEvaluator([]evaluate.Metric{evaluate.HitRate(1), evaluate.Precision(2)})
	require.NoError(t, err)
	// Width 2; "u1" is scored twice (two draws), "u3" has no targets, "u4"
	// appears once with targets and once without.
	batch := func(first int64, ids []string, hits string, relevant ...int32) *evaluate.Batch {
		b := &evaluate.Batch{First: first, SampleIDs: ids, Width: 2, Relevant: relevant}
		for _, c := range hits {
			b.Hits = append(b.Hits, c == 'x')
		}
		return b
	}
	b1 := batch(0, []string{"u1", "u1", "u2"}, "x.xx.x", 1, 2, 1)
	b2 := batch(3, []string{"u3", "u4", "u4", "u1"}, "...x....", 0, 3, 0, 4)
	// Scored rows and their (hit_rate@1, precision@2): (1, 1/2), (1, 1),
	// (0, 1/2), (0, 1/2), (0, 0).
	wantMeans := map[string]float64{"hit_rate@1": 2.0 / 5, "precision@2": (0.5 + 1 + 0.5 + 0.5 + 0) / 5}

	add := func(s *evaluate.Summary, b *evaluate.Batch) {
		v, err := e.Score(b, nil)
		require.NoError(t, err)
		s.Add(b, v)
	}
	whole := e.NewSummary()
	add(whole, b1)
	add(whole, b2)
	parts, other := e.NewSummary(), e.NewSummary()
	add(parts, b1)
	add(other, b2)
	parts.Merge(other)

	for name, s := range map[string]*evaluate.Summary{"whole": whole, "merged": parts} {
		require.Equal(t, int64(7), s.Rows(), name)
		require.Equal(t, int64(5), s.ScoredRows(), name)
		require.Equal(t, int64(3), s.Units(), "%s: u1, u2 and u4", name)
		require.Equal(t, []string{"hit_rate@1", "precision@2"}, s.Keys())
		means := s.Means()
		require.Len(t, means, 2)
		for k, w := range wantMeans {
			require.Truef(t, scalar.EqualWithinAbsOrRel(means[k], w, exactTol, exactTol),
				"%s %s: got %v, want %v", name, k, means[k], w)
		}
	}

	empty := e.NewSummary()
	add(empty, batch(0, []string{"u3"}, "..", 0))
	require.Equal(t, int64(1), empty.Rows())
	require.Equal(t, int64(0), empty.ScoredRows())
	require.Equal(t, int64(0), empty.Units())
	require.True(t, math.IsNaN(empty.Means()["hit_rate@1"]), "no scored rows: nothing to average")
}

// TestSummaryCompensated checks that the means keep their precision over
// many rows: ten million additions of 0.1 to a plain float64 sum drift by
// about 1e-9 relative; the compensated sum stays exact to rounding.
func TestSummaryCompensated(t *testing.T) {
	t.Parallel()
	const rows = 10_000_000
	e, err := evaluate.NewEvaluator([]evaluate.Metric{hitCount{key: "tenth"}})
	require.NoError(t, err)
	s := e.NewSummary()
	const width = 1000
	b := &evaluate.Batch{
		SampleIDs: make([]string, width), Width: 1,
		Hits: make([]bool, width), Relevant: make([]int32, width),
	}
	values := make([]float64, width)
	for r := range width {
		b.Relevant[r], values[r] = 1, 0.1
	}
	var plain float64
	for range rows / width {
		s.Add(b, values)
		for range width {
			plain += 0.1
		}
	}
	require.Greater(t, math.Abs(plain/rows-0.1), 1e-12, "the plain sum drifts")
	require.InDelta(t, 0.1, s.Means()["tenth"], 1e-16)
}

func TestSummaryMisuse(t *testing.T) {
	t.Parallel()
	e1, err := evaluate.NewEvaluator(evaluate.DefaultMetrics(5))
	require.NoError(t, err)
	e2, err := evaluate.NewEvaluator(evaluate.DefaultMetrics(5))
	require.NoError(t, err)
	require.PanicsWithValue(t, "evaluate: merging summaries of different evaluators",
		func() { e1.NewSummary().Merge(e2.NewSummary()) })
	b := handBatch(t)
	require.PanicsWithValue(t, "evaluate: summary of 2 keys given 3 values and 9 relevant counts for 9 rows",
		func() { e1.NewSummary().Add(b, make([]float64, 3)) })
}
