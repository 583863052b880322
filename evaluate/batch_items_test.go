package evaluate_test

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
)

// TestBatchItems reads the demo's item-kNN rankings of MovieLens (top 20 of
// 610 users) with every reader, and checks that each batch names the
// predicted items of each row as the input does, with their scores when the
// input has them, up to the width read; and that a reader told to leave
// them off gives the same hits without them.
func TestBatchItems(t *testing.T) {
	t.Parallel()
	ids, ranked, targets := movieLens(t, "knn", 20)
	items, scores, npyTargets, npyIDs := movieLensNumPy(t, ids, ranked, targets)
	byScore, tgts := movieLensTables(t, ids, ranked, targets, true)
	byRank, _ := movieLensTables(t, ids, ranked, targets, false)
	run, qrels := movieLensTREC(t, ids, ranked, targets)
	numpyScore := func(i int) float64 { return float64(float32(movieLensScore(i))) }
	for _, tc := range []struct {
		name  string
		open  func(opts evaluate.RankingOptions) (evaluate.Rankings, error)
		item  func(movie int64) string
		score func(i int) float64 // nil: no scores
	}{
		{
			name: "numpy",
			open: func(o evaluate.RankingOptions) (evaluate.Rankings, error) {
				return evaluate.OpenNumPyRankings(items, scores, npyTargets, npyIDs, o)
			},
			score: numpyScore,
		},
		{
			name: "numpy/skip-validation", // the scores are left unread
			open: func(o evaluate.RankingOptions) (evaluate.Rankings, error) {
				o.SkipValidation = true
				return evaluate.OpenNumPyRankings(items, scores, npyTargets, npyIDs, o)
			},
		},
		{
			name: "table/score",
			open: func(o evaluate.RankingOptions) (evaluate.Rankings, error) {
				return evaluate.OpenTableRankings(byScore, tgts, o)
			},
			score: movieLensScore,
		},
		{
			name: "table/rank",
			open: func(o evaluate.RankingOptions) (evaluate.Rankings, error) {
				return evaluate.OpenTableRankings(byRank, tgts, o)
			},
		},
		{
			name: "trec",
			open: func(o evaluate.RankingOptions) (evaluate.Rankings, error) {
				return evaluate.OpenTRECRankings(run, qrels, o)
			},
			item:  func(movie int64) string { return fmt.Sprintf("m%d", movie) },
			score: movieLensScore,
		},
		{
			name: "in-memory",
			open: func(o evaluate.RankingOptions) (evaluate.Rankings, error) {
				return evaluate.NewInMemoryRankings(ids, ranked, targets, o.Width)
			},
		},
	} {
		for _, width := range []int{0, 7} {
			t.Run(fmt.Sprintf("%s/width=%d", tc.name, width), func(t *testing.T) {
				t.Parallel()
				src, err := tc.open(evaluate.RankingOptions{Width: width, BatchSize: 100})
				require.NoError(t, err)
				defer src.Close()
				item := tc.item
				if item == nil {
					item = func(movie int64) string { return strconv.FormatInt(movie, 10) }
				}
				// The same input without its items, as Run reads it when
				// nothing needs them: the same hits, and no items.
				bare, err := tc.open(evaluate.RankingOptions{Width: width, BatchSize: 100})
				require.NoError(t, err)
				defer bare.Close()
				evaluate.DropItems(bare)
				numeric := strings.HasPrefix(tc.name, "numpy") || tc.name == "in-memory"
				rows := 0
				for {
					b, err := src.Next()
					if errors.Is(err, io.EOF) {
						break
					}
					require.NoError(t, err)
					require.True(t, b.HasItems())
					nb, err := bare.Next()
					require.NoError(t, err)
					require.False(t, nb.HasItems())
					require.False(t, nb.HasScores())
					require.Zero(t, nb.Ranked(0))
					require.Empty(t, nb.Item(0, 0))
					require.Equal(t, b.Hits, nb.Hits)
					require.Equal(t, b.Relevant, nb.Relevant)
					require.Equal(t, tc.score != nil, b.HasScores())
					for r := range b.Len() {
						row := int(b.First) + r
						require.Equal(t, ids[row], b.SampleIDs[r])
						want := ranked[row][:min(len(ranked[row]), b.Width)]
						require.Equal(t, len(want), b.Ranked(r), "row %d", row)
						for i, movie := range want {
							require.Equal(t, item(movie), b.Item(r, i), "row %d rank %d", row, i+1)
							require.Equal(t, item(movie), string(b.AppendItem([]byte("x"), r, i))[1:])
							n, ok := b.ItemNumber(r, i)
							require.Equal(t, numeric, ok, "NumPy and in-memory items are integers, table items text")
							if ok {
								require.Equal(t, movie, n)
							}
							s, ok := b.Score(r, i)
							require.Equal(t, tc.score != nil, ok)
							if ok {
								require.Equal(t, tc.score(i), s, "row %d rank %d", row, i+1)
							}
						}
						require.Empty(t, b.Item(r, b.Width), "past the width")
					}
					rows += b.Len()
				}
				require.Equal(t, len(ids), rows)
			})
		}
	}
}
