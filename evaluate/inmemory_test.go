package evaluate_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/fingerprint"
)

var _ evaluate.Rankings = (*evaluate.InMemoryRankings)(nil)

func TestInMemoryRankings(t *testing.T) {
	t.Parallel()
	// By hand: u1 ranks 7 then 3, relevant {3, 9} (9 given twice): recall@2 =
	// 1/2; u2 has no targets; u3 ranks 5 alone, relevant {5}: recall@2 = 1.
	src, err := evaluate.NewInMemoryRankings(
		[]string{"u1", "u2", "u3"},
		[][]int64{{7, 3}, {1, 2}, {5}},
		[][]int64{{9, 3, 9}, nil, {5}}, 0)
	require.NoError(t, err)
	ev, err := evaluate.NewEvaluator([]evaluate.Metric{evaluate.Recall(2)})
	require.NoError(t, err)
	s := ev.Start(context.Background(), src, 1)
	defer s.Close()
	require.NoError(t, s.Drain())
	sum := s.Summary()
	require.Equal(t, int64(3), sum.Rows())
	require.Equal(t, int64(2), sum.ScoredRows())
	require.InDelta(t, 0.75, sum.Means()["recall@2"], 1e-15)

	want := fingerprint.NewTargets()
	want.AddTargets([]byte("u3"), []string{"5"})
	want.AddTargets([]byte("u1"), []string{"3", "9"})
	require.Equal(t, want.Sum(), src.Targets().Sum())

	_, err = evaluate.NewInMemoryRankings([]string{"u1"}, [][]int64{{4, 4}}, [][]int64{{4}}, 0)
	require.ErrorIs(t, err, evaluate.ErrBadInput)
	require.EqualError(t, err, `row 0 (sample "u1"): item 4 is ranked twice`)
}
