package evaluate_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/fingerprint"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

var _ evaluate.Rankings = (*evaluate.NumPyRankings)(nil)

// rankedRow is a row of a batch as a test states it. Hits has one character
// per rank position: 'x' for a hit, '.' for a miss.
type rankedRow struct {
	ID   string
	Hits string
	R    int32
}

// readRankings reads r to the end and returns its rows and the First of
// each batch. It checks what every batch must satisfy: its width, its
// First, and the lengths of its slices.
func readRankings(t *testing.T, r evaluate.Rankings) (rows []rankedRow, firsts []int64, err error) {
	t.Helper()
	for {
		b, err := r.Next()
		if err == io.EOF {
			_, err = r.Next()
			require.Equal(t, io.EOF, err, "Next after io.EOF")
			return rows, firsts, nil
		}
		if err != nil {
			require.ErrorIs(t, err, evaluate.ErrBadInput)
			return rows, firsts, err
		}
		require.Equal(t, r.Width(), b.Width)
		require.Equal(t, int64(len(rows)), b.First)
		require.Len(t, b.Hits, b.Len()*b.Width)
		require.Len(t, b.Relevant, b.Len())
		firsts = append(firsts, b.First)
		for i := range b.Len() {
			var hits strings.Builder
			for _, h := range b.Row(i) {
				if h {
					hits.WriteByte('x')
				} else {
					hits.WriteByte('.')
				}
			}
			rows = append(rows, rankedRow{ID: b.SampleIDs[i], Hits: hits.String(), R: b.Relevant[i]})
		}
	}
}

// targetsPrint is the fingerprint of targets given as sample ID and
// relevant items, in that order.
func targetsPrint(pairs ...[]string) string {
	fp := fingerprint.NewTargets()
	for _, p := range pairs {
		fp.AddTargets([]byte(p[0]), p[1:])
	}
	return fp.Sum()
}

// copyFixtures copies committed fixtures from testdata/rankings to a fresh
// temporary directory and returns it.
func copyFixtures(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join("testdata", "rankings", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	return dir
}

// fixtureBytes reads a committed fixture of testdata/rankings.
func fixtureBytes(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "rankings", name))
	require.NoError(t, err)
	return b
}

// writeFiles writes files by name to a fresh temporary directory and
// returns it.
func writeFiles(t *testing.T, files map[string][]byte) string {
	t.Helper()
	dir := t.TempDir()
	for name, b := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	return dir
}

// badInput checks that err is about the input and returns its message
// with the directory dir written as DIR.
func badInput(t *testing.T, dir string, err error) string {
	t.Helper()
	require.Error(t, err)
	require.True(t, errors.Is(err, evaluate.ErrBadInput), "%v does not wrap ErrBadInput", err)
	return strings.ReplaceAll(err.Error(), dir, "DIR")
}

// TestRankingsSameTargetsSamePrint reads the same targets from every input
// format: the NumPy fixture's CSR matrix, a long table in CSV and Parquet,
// and TREC qrels. Their fingerprints must agree.
func TestRankingsSameTargetsSamePrint(t *testing.T) {
	t.Parallel()
	const tableTargets = "sample_id,item\nu3,6\nu0,4\nu0,1\nu2,8\nu3,1\nu4,5\nu2,2\n"
	tablePredictions := "sample_id,item,rank\nu0,1,1\nu1,1,1\nu2,1,1\nu3,1,1\nu4,1,1\nu5,1,1\n"
	var qrels, run strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(tableTargets), "\n")[1:] {
		f := strings.Split(line, ",")
		qrels.WriteString(f[0] + " 0 " + f[1] + " 1\n")
	}
	qrels.WriteString("u1 0 3 0\n") // not relevant
	run.WriteString("u0 Q0 1 1 1 t\n")
	type pqTarget struct {
		SampleID string `parquet:"sample_id"`
		Item     int64  `parquet:"item"`
	}
	var pqTargets []pqTarget
	for _, line := range strings.Split(strings.TrimSpace(tableTargets), "\n")[1:] {
		f := strings.Split(line, ",")
		pqTargets = append(pqTargets, pqTarget{SampleID: f[0], Item: int64(f[1][0] - '0')})
	}

	dir := copyFixtures(t, "items.npy", "targets.npz", "ids_str.npy")
	files := writeFiles(t, map[string][]byte{
		"targets.csv":     []byte(tableTargets),
		"predictions.csv": []byte(tablePredictions),
		"qrels":           []byte(qrels.String()),
		"run":             []byte(run.String()),
	})
	pqPath := filepath.Join(files, "targets.parquet")
	inputtest.WriteParquetAt(t, pqPath, pqTargets)
	path := func(name string) string { return filepath.Join(files, name) }

	readers := map[string]func() (evaluate.Rankings, error){
		"numpy": func() (evaluate.Rankings, error) {
			return evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), "", filepath.Join(dir, "targets.npz"),
				filepath.Join(dir, "ids_str.npy"), evaluate.RankingOptions{})
		},
		"csv": func() (evaluate.Rankings, error) {
			return evaluate.OpenTableRankings(path("predictions.csv"), path("targets.csv"), evaluate.RankingOptions{})
		},
		"parquet": func() (evaluate.Rankings, error) {
			return evaluate.OpenTableRankings(path("predictions.csv"), pqPath, evaluate.RankingOptions{})
		},
		"trec": func() (evaluate.Rankings, error) {
			return evaluate.OpenTRECRankings(path("run"), path("qrels"), evaluate.RankingOptions{})
		},
	}
	want := numpyPrint(func(row int) string { return fmt.Sprintf("u%d", row) })
	for name, open := range readers {
		r, err := open()
		require.NoError(t, err, name)
		_, _, err = readRankings(t, r)
		require.NoError(t, err, name)
		require.Equal(t, want, r.Targets().Sum(), name)
		require.Equal(t, uint64(4), r.Targets().Len(), name)
		require.NoError(t, r.Close())
	}
}
