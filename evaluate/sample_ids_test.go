package evaluate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

// pad puts white space around the i-th sample ID, as hand-edited or
// fixed-width exports do, in one of several ways.
func pad(i int, id string) string {
	return [...]string{" " + id, id + " ", "\t" + id + "\u00a0"}[i%3]
}

// padTable pads the sample ID, the first field of every line but the
// header, of a CSV table, quoting it.
func padTable(table string) string {
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	for i := 1; i < len(lines); i++ {
		id, rest, _ := strings.Cut(lines[i], ",")
		lines[i] = `"` + pad(i, id) + `",` + rest
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestSampleIDsTrimmed feeds each ranking reader the fixtures with white
// space around every sample ID. The rows and the targets' fingerprint come
// out as from the fixtures themselves, and as package scores reads the same
// IDs: surrounding white space is no part of a sample ID.
func TestSampleIDsTrimmed(t *testing.T) {
	t.Parallel()
	ids := []string{"u0", "u1", "u2", "u3", "u4", "u5"}
	tests := []struct {
		name    string
		open    func(t *testing.T) (evaluate.Rankings, string, string, error)
		rows    []rankedRow
		targets string
	}{
		{
			name: "numpy",
			open: func(t *testing.T) (evaluate.Rankings, string, string, error) {
				var padded []string
				for i, id := range ids {
					padded = append(padded, pad(i, id))
				}
				dir := copyFixtures(t, "items.npy", "targets.npz")
				idsPath := filepath.Join(dir, "ids.npy")
				require.NoError(t, os.WriteFile(idsPath, inputtest.NPY(1, "'<U4'", "(6,)", inputtest.Strings(4, padded...)), 0o644))
				targets := filepath.Join(dir, "targets.npz")
				r, err := evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), "", targets, idsPath, evaluate.RankingOptions{})
				return r, targets, idsPath, err
			},
			rows:    withIDs(numpyRows, ids, 4),
			targets: numpyPrint(func(row int) string { return ids[row] }),
		},
		{
			name: "csv tables",
			open: func(t *testing.T) (evaluate.Rankings, string, string, error) {
				dir := writeFiles(t, map[string][]byte{
					"predictions.csv": []byte(padTable(tablePredictionsRank)),
					"targets.csv":     []byte(padTable(tableTargets)),
				})
				targets := filepath.Join(dir, "targets.csv")
				r, err := evaluate.OpenTableRankings(filepath.Join(dir, "predictions.csv"), targets, evaluate.RankingOptions{})
				return r, targets, "", err
			},
			rows:    tableRows,
			targets: tablePrint,
		},
		{
			name: "parquet tables",
			open: func(t *testing.T) (evaluate.Rankings, string, string, error) {
				predictions, targets := tableParquet(t, false, pad)
				r, err := evaluate.OpenTableRankings(predictions, targets, evaluate.RankingOptions{})
				return r, targets, "", err
			},
			rows:    tableRows,
			targets: tablePrint,
		},
		{
			name: "trec, no-break spaces, as blanks separate the columns",
			open: func(t *testing.T) (evaluate.Rankings, string, string, error) {
				padQueries := func(name string) []byte {
					var b strings.Builder
					for _, line := range strings.Split(strings.TrimSuffix(string(fixtureBytes(t, name)), "\n"), "\n") {
						q, rest, _ := strings.Cut(line, " ")
						fmt.Fprintf(&b, "\u00a0%s\u2003 %s\n", q, rest)
					}
					return []byte(b.String())
				}
				dir := writeFiles(t, map[string][]byte{"run": padQueries("trec.run"), "qrels": padQueries("trec.qrels")})
				qrels := filepath.Join(dir, "qrels")
				r, err := evaluate.OpenTRECRankings(filepath.Join(dir, "run"), qrels, evaluate.RankingOptions{})
				return r, qrels, "", err
			},
			rows:    trecRows,
			targets: trecPrint,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, targets, sampleIDs, err := tt.open(t)
			require.NoError(t, err)
			defer r.Close()
			rows, _, err := readRankings(t, r)
			require.NoError(t, err)
			require.Equal(t, tt.rows, rows)
			require.Equal(t, tt.targets, r.Targets().Sum())

			format := ""
			if strings.HasSuffix(targets, "qrels") {
				format = "qrels"
			}
			fp, _, err := evaluate.FingerprintTargets(targets, sampleIDs, format)
			require.NoError(t, err)
			require.Equal(t, tt.targets, fp, "verdict fingerprint on the targets alone")
		})
	}
}
