package evaluate_test

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/demo"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

// movieLens returns the demo's rankings of model ("popularity" or "knn") at
// k for the 610 users, with their targets.
func movieLens(t testing.TB, model string, k int) (ids []string, ranked, targets [][]int64) {
	t.Helper()
	s, err := demo.DemoSplit()
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

// movieLensNumPy writes rankings and targets as NumPy files, the way a
// Python job would save them: items.npy (movie IDs as int64 column
// indices), scores.npy (float32, movieLensScore), targets.npz (a CSR matrix
// with a column for every movie ID up to the largest) and ids.npy (the
// sample IDs). Every ranking must have the same length.
func movieLensNumPy(t testing.TB, ids []string, ranked, targets [][]int64) (items, scores, targetsPath, idsPath string) {
	t.Helper()
	dir := t.TempDir()
	k := len(ranked[0])
	var (
		itemVals  []int64
		scoreVals []float32
		indptr    = []int64{0}
		indices   []int32
		data      []float32
		cols      int64
		width     int
	)
	for r := range ids {
		require.Len(t, ranked[r], k)
		for i, it := range ranked[r] {
			itemVals = append(itemVals, it)
			scoreVals = append(scoreVals, float32(movieLensScore(i)))
			cols = max(cols, it+1)
		}
		for _, it := range targets[r] {
			indices = append(indices, int32(it))
			data = append(data, 1)
			cols = max(cols, it+1)
		}
		indptr = append(indptr, int64(len(indices)))
		width = max(width, len(ids[r]))
	}
	shape := fmt.Sprintf("(%d, %d)", len(ids), k)
	items, scores = filepath.Join(dir, "items.npy"), filepath.Join(dir, "scores.npy")
	targetsPath, idsPath = filepath.Join(dir, "targets.npz"), filepath.Join(dir, "ids.npy")
	require.NoError(t, os.WriteFile(items, npyArr{"'<i8'", shape, inputtest.Int64s(itemVals...)}.file(), 0o644))
	require.NoError(t, os.WriteFile(scores, npyArr{"'<f4'", shape, inputtest.Float32s(scoreVals...)}.file(), 0o644))
	npz := csrNPZ(len(ids), int(cols), inputtest.Int64s(indptr...), inputtest.Int32s(indices...), inputtest.Float32s(data...))
	require.NoError(t, os.WriteFile(targetsPath, inputtest.Zip(zip.Store, npz...), 0o644))
	idDescr := fmt.Sprintf("'<U%d'", width)
	require.NoError(t, os.WriteFile(idsPath, npyArr{idDescr, fmt.Sprintf("(%d,)", len(ids)), inputtest.Strings(width, ids...)}.file(), 0o644))
	return items, scores, targetsPath, idsPath
}

// movieLensTREC writes rankings and targets as a TREC run (scored by
// movieLensScore) and qrels, with movies as documents "m<ID>".
func movieLensTREC(t testing.TB, ids []string, ranked, targets [][]int64) (run, qrels string) {
	t.Helper()
	dir := t.TempDir()
	var rb, qb strings.Builder
	for r, id := range ids {
		for i, it := range ranked[r] {
			fmt.Fprintf(&rb, "%s Q0 m%d %d %v demo\n", id, it, i+1, movieLensScore(i))
		}
		for _, it := range targets[r] {
			fmt.Fprintf(&qb, "%s 0 m%d 1\n", id, it)
		}
	}
	run, qrels = filepath.Join(dir, "demo.run"), filepath.Join(dir, "demo.qrels")
	require.NoError(t, os.WriteFile(run, []byte(rb.String()), 0o644))
	require.NoError(t, os.WriteFile(qrels, []byte(qb.String()), 0o644))
	return run, qrels
}
