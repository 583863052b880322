package store_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

func TestPairAlignsUnitsAndCountsTheMissing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	ev := newEval("e", "a")
	ev.TargetFingerprint = strings.Repeat("a", 64)
	a, err := s.LogEvaluation(ctx, ev, &memRows{metrics: []string{"x", "y"},
		ids: []string{"u1", "u2", "u3"}, vals: [][]float64{{1, 0.5}, {0, 0.25}, {1, 1}}})
	require.NoError(t, err)
	ev.Run = "b"
	// b orders its metrics differently and lacks u1 but has u4.
	b, err := s.LogEvaluation(ctx, ev, &memRows{metrics: []string{"y", "x"},
		ids: []string{"u2", "u3", "u4"}, vals: [][]float64{{0.5, 1}, {0.75, 0}, {0, 0}}})
	require.NoError(t, err)

	p, err := s.Pair(ctx, a.ID, b.ID, "y", false)
	require.NoError(t, err)
	require.Equal(t, []string{"u2", "u3"}, p.SampleIDs)
	require.Equal(t, []float64{0.25, 1}, p.LeftSum)
	require.Equal(t, []float64{0.5, 0.75}, p.RightSum)
	require.Equal(t, int64(1), p.LeftOnly)
	require.Equal(t, int64(1), p.RightOnly)
	require.False(t, p.Draws())

	_, err = s.Pair(ctx, a.ID, b.ID, "z", false)
	require.ErrorIs(t, err, store.ErrUnknownMetric)

	// Different targets are refused unless the intersection is asked for.
	other := newEval("e", "c")
	other.TargetFingerprint = strings.Repeat("b", 64)
	c, err := s.LogEvaluation(ctx, other, &memRows{metrics: []string{"y"}, ids: []string{"u1", "u2"}, vals: [][]float64{{1}, {0}}})
	require.NoError(t, err)
	_, err = s.Pair(ctx, a.ID, c.ID, "y", false)
	require.ErrorIs(t, err, store.ErrNotComparable)
	require.Contains(t, err.Error(), `e/a on "test", targets fingerprint aaaaaaaaaaaa`)
	require.Contains(t, err.Error(), `e/c on "test", targets fingerprint bbbbbbbbbbbb`)
	p, err = s.Pair(ctx, a.ID, c.ID, "y", true)
	require.NoError(t, err)
	require.Equal(t, []string{"u1", "u2"}, p.SampleIDs)
	require.Equal(t, int64(1), p.LeftOnly)

	id, err := s.RecordComparison(ctx, store.ComparisonRecord{LeftID: a.ID, RightID: b.ID, Metric: "y",
		Method: "bootstrap+randomization", Resamples: 2000, Confidence: 0.95, Alpha: 0.05, N: 2,
		Parameters: map[string]any{"seed": 0}, Outputs: map[string]any{"p_value": 1}})
	require.NoError(t, err)
	require.Positive(t, id)
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM comparisons WHERE winner IS NULL AND outputs->>'p_value' = '1'`))

	latest, err := s.LatestEvaluation(ctx, "e", "a", "")
	require.NoError(t, err)
	require.Equal(t, a.ID, latest.ID)
	_, err = s.LatestEvaluation(ctx, "e", "nope", "")
	require.ErrorIs(t, err, store.ErrNotFound)
}

// TestLatestMeansAndColumns checks the leaderboard's reads: each run's newest
// evaluation with the metric and its stored mean, and the runs' values as
// columns in sample ID order; evaluations of other units are not comparable.
func TestLatestMeansAndColumns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	log := func(run string, ids []string, vals [][]float64) {
		t.Helper()
		_, err := s.LogEvaluation(ctx, newEval("lb", run), &memRows{metrics: []string{"ndcg@10", "recall@10"}, ids: ids, vals: vals})
		require.NoError(t, err)
	}
	// Rows out of sample ID order; eighths are exact as stored reals.
	log("a", []string{"u2", "u1", "u3"}, [][]float64{{0.5, 1}, {0.25, 0}, {0, 0.5}})
	log("b", []string{"u1", "u2", "u3"}, [][]float64{{0.125, 0}, {0.75, 1}, {0.875, 0.5}})
	log("b", []string{"u3", "u1", "u2"}, [][]float64{{1, 0}, {0, 1}, {0.5, 0.5}}) // b's newest

	ms, err := s.LatestMeans(ctx, "lb", "", "recall@10")
	require.NoError(t, err)
	require.Len(t, ms, 2)
	require.Equal(t, "b", ms[0].Run, "newest first")
	require.Equal(t, 0.5, ms[0].Mean, "b's newest: (0 + 1 + 0.5) / 3")
	require.Equal(t, int32(2), ms[0].MetricIndex)
	require.Equal(t, int64(3), ms[0].Units)

	units, cols, err := s.RunMeansColumns(ctx, ms)
	require.NoError(t, err)
	require.Equal(t, []string{"u1", "u2", "u3"}, units)
	require.Equal(t, [][]float64{{1, 0.5, 0}, {0, 1, 0.5}}, cols, "recall@10 of b's newest, then of a")
	// One query an evaluation reads the same columns.
	byOne, colsByOne, err := s.RunMeansColumnsBy(ctx, ms, 1)
	require.NoError(t, err)
	require.Equal(t, units, byOne)
	require.Equal(t, cols, colsByOne)

	log("c", []string{"u1", "u2", "u4"}, [][]float64{{0, 0}, {0, 0}, {0, 0}})
	ms, err = s.LatestMeans(ctx, "lb", "", "ndcg@10")
	require.NoError(t, err)
	_, _, err = s.RunMeansColumns(ctx, ms)
	require.ErrorIs(t, err, store.ErrNotComparable)
	// c, the newest and first, has u4 where the others have u3, whichever
	// query reads them: three queries of one evaluation, or two of up to
	// five values.
	for _, perQuery := range []int64{1, 5} {
		_, _, err = s.RunMeansColumnsBy(ctx, ms, perQuery)
		require.ErrorIs(t, err, store.ErrNotComparable, "%d values a query", perQuery)
		require.ErrorContains(t, err, `"u4", "u3"`)
	}
}

// TestPairMetricsEqualsPair pairs several metrics in one join, the arrays
// of rows of one row a unit read in Go or, with draws, summed in the
// database, and finds each metric's pairs equal to Pair's for it alone:
// the same units, order, sums, rows and missing units on either side.
func TestPairMetricsEqualsPair(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	ev := newEval("e", "a")
	ev.TargetFingerprint = strings.Repeat("a", 64)
	// Five metrics each: four paired at once read the arrays, three or
	// one their elements.
	a, err := s.LogEvaluation(ctx, ev, &memRows{metrics: []string{"x", "y", "z", "v", "w"},
		ids: []string{"u1", "u2", "u3", "u5"}, vals: [][]float64{{1, 0.5, 0.1, 0, 0}, {0, 0.25, 0.2, 0, 0}, {1, 1, 0.3, 0, 0}, {0.125, 0.375, 0.4, 0, 0}}})
	require.NoError(t, err)
	ev.Run = "b"
	b, err := s.LogEvaluation(ctx, ev, &memRows{metrics: []string{"w", "z", "y", "x", "v"},
		ids: []string{"u2", "u3", "u4", "u5"}, vals: [][]float64{{0, 0.7, 0.5, 1, 0}, {0, 0.8, 0.75, 0, 0}, {0, 0.9, 0, 0, 0}, {0, 0.6, 0.0625, 1, 0}}})
	require.NoError(t, err)
	ev.Run, ev.Protocol.EvalDraws = "c", 0
	c, err := s.LogEvaluation(ctx, ev, &memRows{metrics: []string{"x", "y", "z"}, hasDraw: true,
		ids: []string{"u2", "u2", "u3", "u5"}, draws: []int64{1, 2, 1, 1}, vals: [][]float64{{1, 0.5, 0}, {0, 0.25, 1}, {1, 1, 1}, {0, 0, 0}}})
	require.NoError(t, err)

	for _, tt := range []struct {
		pair    [2]int64
		metrics []string
	}{
		{[2]int64{a.ID, b.ID}, []string{"z", "x", "y"}},
		{[2]int64{a.ID, b.ID}, []string{"z", "x", "w", "y"}},
		{[2]int64{b.ID, a.ID}, []string{"z", "x", "y"}},
		{[2]int64{b.ID, a.ID}, []string{"v", "z", "x", "y"}},
		{[2]int64{a.ID, c.ID}, []string{"z", "x", "y"}},
		{[2]int64{a.ID, a.ID}, []string{"z", "x", "y"}},
	} {
		pair, metrics := tt.pair, tt.metrics
		var mp, bare *store.MetricPairs
		units := 0
		require.NoError(t, s.InTx(ctx, func(tx *store.Tx) error {
			var err error
			if mp, err = tx.PairMetrics(ctx, pair[0], pair[1], metrics, store.PairOptions{SampleIDs: true}); err != nil {
				return err
			}
			bare, err = tx.PairMetrics(ctx, pair[0], pair[1], metrics, store.PairOptions{})
			return err
		}))
		draws := pair[1] == c.ID
		require.Equal(t, !draws, mp.OneRow())
		require.Equal(t, !draws, bare.OneRow())
		for k, m := range metrics {
			alone, err := s.Pair(ctx, pair[0], pair[1], m, false)
			require.NoError(t, err)
			got := mp.Pairs(k)
			got.Left, got.Right, alone.Left, alone.Right = nil, nil, nil, nil
			require.Equal(t, alone, got, "evaluations %v, metric %s", pair, m)
			units = len(got.SampleIDs)
			require.Equal(t, units, got.Units())
			if !draws {
				// Without sample IDs, units of one row come as their values
				// only, in the same order.
				values := bare.Values32(k)
				require.Len(t, values, 2*units)
				for u := range units {
					require.Equal(t, alone.LeftSum[u], float64(values[2*u]), "evaluations %v, metric %s, unit %d", pair, m, u)
					require.Equal(t, alone.RightSum[u], float64(values[2*u+1]), "evaluations %v, metric %s, unit %d", pair, m, u)
				}
				want := *alone
				want.SampleIDs, want.LeftRows, want.RightRows = nil, nil, nil
				b := bare.Pairs(k)
				b.Left, b.Right = nil, nil
				require.Equal(t, &want, b, "evaluations %v, metric %s without sample IDs", pair, m)
			} else {
				// With draws the IDs and rows come either way.
				b := bare.Pairs(k)
				b.Left, b.Right = nil, nil
				require.Equal(t, alone, b, "evaluations %v, metric %s", pair, m)
			}
			mp.Release(k)
			bare.Release(k)
			require.Panics(t, func() { mp.Pairs(k) })
		}
		require.Equal(t, units, mp.Units())
		require.Equal(t, units, bare.Units())
		if !draws {
			left, right := bare.Rows()
			require.Nil(t, left)
			require.Nil(t, right)
		}
	}
}

// TestValueColumnsEqualStore reads evaluations once and serves the pairs
// and columns of each metric from memory: the same as the store's queries.
func TestValueColumnsEqualStore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := setup(t)
	ev := newEval("e", "a")
	ev.TargetFingerprint = strings.Repeat("c", 64)
	a, err := s.LogEvaluation(ctx, ev, &memRows{metrics: []string{"x", "y"},
		ids: []string{"u1", "u2", "u3", "u5"}, vals: [][]float64{{1, 0.5}, {0, 0.25}, {1, 1}, {0.125, 0.375}}})
	require.NoError(t, err)
	ev.Run = "b"
	b, err := s.LogEvaluation(ctx, ev, &memRows{metrics: []string{"y", "x"},
		ids: []string{"u0", "u2", "u3", "u4", "u5"}, vals: [][]float64{{1, 1}, {0.5, 1}, {0.75, 0}, {0, 0}, {0.0625, 1}}})
	require.NoError(t, err)
	read, err := s.ReadValueColumns(ctx, []int64{a.ID, b.ID})
	require.NoError(t, err)
	for _, m := range []string{"x", "y"} {
		la, lb := int32(slices.Index(a.Metrics, m)+1), int32(slices.Index(b.Metrics, m)+1)
		for _, pair := range [][2]int64{{a.ID, b.ID}, {b.ID, a.ID}, {a.ID, a.ID}} {
			want, err := s.Pair(ctx, pair[0], pair[1], m, false)
			require.NoError(t, err)
			want.Left, want.Right, want.Metric = nil, nil, ""
			li, ri := la, lb
			if pair[0] == b.ID {
				li, ri = lb, la
			}
			if pair[1] == a.ID {
				ri = la
			}
			got, ok := read.Pair(pair[0], pair[1], li, ri)
			require.True(t, ok)
			require.Equal(t, want, got, "%s %v", m, pair)
		}
		means := []store.RunMean{{EvaluationID: a.ID, MetricIndex: la, Rows: 4, Units: 4}, {EvaluationID: a.ID, MetricIndex: la, Rows: 4, Units: 4}}
		wantUnits, wantCols, err := s.RunMeansColumns(ctx, means)
		require.NoError(t, err)
		units, cols, ok, err := read.RunMeansColumns(means)
		require.True(t, ok)
		require.NoError(t, err)
		require.Equal(t, wantUnits, units)
		require.Equal(t, wantCols, cols)
		means[1] = store.RunMean{EvaluationID: b.ID, MetricIndex: lb, Rows: 5, Units: 5}
		_, _, wantErr := s.RunMeansColumns(ctx, means)
		_, _, ok, err = read.RunMeansColumns(means)
		require.True(t, ok)
		require.ErrorIs(t, wantErr, store.ErrNotComparable)
		require.Equal(t, wantErr.Error(), err.Error())
	}
	_, ok := read.Pair(a.ID, 999, 1, 1)
	require.False(t, ok, "an evaluation not read")
}
