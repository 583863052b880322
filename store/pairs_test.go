package store_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

func TestPairAlignsUnitsAndCountsTheMissing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)

	ev := newEval("e", "a")
	ev.TargetFingerprint = "same-targets"
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
	other.TargetFingerprint = "other-targets"
	c, err := s.LogEvaluation(ctx, other, &memRows{metrics: []string{"y"}, ids: []string{"u1", "u2"}, vals: [][]float64{{1}, {0}}})
	require.NoError(t, err)
	_, err = s.Pair(ctx, a.ID, c.ID, "y", false)
	require.ErrorIs(t, err, store.ErrNotComparable)
	require.Contains(t, err.Error(), `e/a on "test", targets fingerprint same-targets`)
	require.Contains(t, err.Error(), `e/c on "test", targets fingerprint other-target`)
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
