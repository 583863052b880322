package evaluate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/demo"
)

// The MovieLens "latest-small" ratings split as `verdict demo` splits them:
// each user's 10 latest ratings are the targets, the earlier ones train the
// demo's models.
var movieLensSplit = sync.OnceValues(func() (*demo.Split, error) {
	ratings, err := demo.LoadMovieLens()
	if err != nil {
		return nil, err
	}
	return demo.SplitLatest(ratings, 10), nil
})

// movieLens returns the demo's rankings of model ("popularity" or "knn") at
// k for the 610 users, with their targets.
func movieLens(t testing.TB, model string, k int) (ids []string, ranked, targets [][]int64) {
	t.Helper()
	s, err := movieLensSplit()
	require.NoError(t, err)
	var m demo.Model
	switch model {
	case "popularity":
		m = demo.Popularity(s)
	case "knn":
		m = demo.ItemKNN(s, 50, 100)
	default:
		t.Fatalf("no model %q", model)
	}
	return demo.Rankings(s, m, k)
}

// movieLensScore is the score the tables give the item at 0-based rank i:
// strictly decreasing, so that it orders the items as the ranks do.
func movieLensScore(i int) float64 { return 1 / float64(i+2) }

// movieLensTables writes rankings and targets as CSV long tables: the
// predictions with a score column (movieLensScore), or with a rank column
// when withScores is false.
func movieLensTables(t testing.TB, ids []string, ranked, targets [][]int64, withScores bool) (predictions, targetsPath string) {
	t.Helper()
	dir := t.TempDir()
	var p, g strings.Builder
	if withScores {
		p.WriteString("sample_id,item,score\n")
	} else {
		p.WriteString("sample_id,item,rank\n")
	}
	g.WriteString("sample_id,item\n")
	for r, id := range ids {
		for i, it := range ranked[r] {
			if withScores {
				fmt.Fprintf(&p, "%s,%d,%v\n", id, it, movieLensScore(i))
			} else {
				fmt.Fprintf(&p, "%s,%d,%d\n", id, it, i+1)
			}
		}
		for _, it := range targets[r] {
			fmt.Fprintf(&g, "%s,%d\n", id, it)
		}
	}
	predictions, targetsPath = filepath.Join(dir, "predictions.csv"), filepath.Join(dir, "targets.csv")
	require.NoError(t, os.WriteFile(predictions, []byte(p.String()), 0o644))
	require.NoError(t, os.WriteFile(targetsPath, []byte(g.String()), 0o644))
	return predictions, targetsPath
}
