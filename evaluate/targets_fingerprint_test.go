package evaluate_test

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

// targetsInput is a targets file for FingerprintTargets, and a ranking
// reader of the same targets with predictions.
type targetsInput struct {
	targets, sampleIDs, format string
	open                       func() (evaluate.Rankings, error)
}

// rankingFixture is the path of a committed fixture of testdata/rankings, or "".
func rankingFixture(name string) string {
	if name == "" {
		return ""
	}
	return filepath.Join("testdata", "rankings", name)
}

// numpyInput fingerprints a targets fixture with a sample IDs fixture (or
// none), and reads them with the items fixture.
func numpyInput(targets, ids string) func(t *testing.T) targetsInput {
	return func(t *testing.T) targetsInput {
		return targetsInput{
			targets: rankingFixture(targets), sampleIDs: rankingFixture(ids),
			open: func() (evaluate.Rankings, error) {
				return evaluate.OpenNumPyRankings(rankingFixture("items.npy"), "", rankingFixture(targets), rankingFixture(ids), evaluate.RankingOptions{})
			},
		}
	}
}

// tableInput fingerprints a targets table, and reads it with the
// predictions of the table tests.
func tableInput(targets, format string) targetsInput {
	return targetsInput{
		targets: targets, format: format,
		open: func() (evaluate.Rankings, error) {
			return evaluate.OpenTableRankings(filepath.Join(filepath.Dir(targets), "predictions.csv"), targets, evaluate.RankingOptions{})
		},
	}
}

// writeTable writes the targets table content to name, gzipped when name
// ends in .gz, next to the predictions of the table tests, and returns its
// path.
func writeTable(t *testing.T, name string, content []byte) string {
	path := inputtest.WriteFile(t, name, content)
	require.NoError(t, os.WriteFile(filepath.Join(filepath.Dir(path), "predictions.csv"), []byte(tablePredictionsRank), 0o644))
	return path
}

func TestFingerprintTargets(t *testing.T) {
	t.Parallel()
	strIDs := []string{"u0", "u1", "u2", "u3", "u4", "ü5"}
	byRow := func(row int) string { return fmt.Sprint(row) }
	byStr := func(row int) string { return strIDs[row] }
	byInt := func(row int) string { return fmt.Sprint(100 + row) }
	tests := []struct {
		name    string
		setup   func(t *testing.T) targetsInput
		print   string // as the reader tests state it
		samples int64
	}{
		{name: "compressed CSR, row indices as IDs", setup: numpyInput("targets.npz", ""), print: numpyPrint(byRow), samples: 4},
		{name: "compressed CSR, string IDs", setup: numpyInput("targets.npz", "ids_str.npy"), print: numpyPrint(byStr), samples: 4},
		{name: "compressed CSR, integer IDs", setup: numpyInput("targets.npz", "ids_int.npy"), print: numpyPrint(byInt), samples: 4},
		{name: "stored CSR, row indices as IDs", setup: numpyInput("targets_stored.npz", ""), print: numpyPrint(byRow), samples: 4},
		{name: "stored CSR, string IDs", setup: numpyInput("targets_stored.npz", "ids_str.npy"), print: numpyPrint(byStr), samples: 4},
		{name: "stored CSR, integer IDs", setup: numpyInput("targets_stored.npz", "ids_int.npy"), print: numpyPrint(byInt), samples: 4},
		{
			name: "CSR under another name, by format",
			setup: func(t *testing.T) targetsInput {
				in := numpyInput("targets.npz", "ids_str.npy")(t)
				in.targets, in.format = inputtest.WriteFile(t, "targets.bin", fixtureBytes(t, "targets.npz")), "npz"
				return in
			},
			print: numpyPrint(byStr), samples: 4,
		},
		{
			name: "CSR of 10000 rows, in several batches",
			setup: func(t *testing.T) targetsInput {
				// Row i has targets i%7+7 and 30, but every tenth row has
				// none; each row predicts items 0 to 2.
				const n = 10_000
				var items, indices []int32
				indptr := []int64{0}
				for i := range n {
					items = append(items, 0, 1, 2)
					if i%10 != 0 {
						indices = append(indices, int32(i%7+7), 30)
					}
					indptr = append(indptr, int64(len(indices)))
				}
				ones := make([]float32, len(indices))
				for i := range ones {
					ones[i] = 1
				}
				dir := writeFiles(t, map[string][]byte{
					"items.npy":   npyArr{"'<i4'", fmt.Sprintf("(%d, 3)", n), inputtest.Int32s(items...)}.file(),
					"targets.npz": inputtest.Zip(zip.Deflate, csrNPZ(n, 31, inputtest.Int64s(indptr...), inputtest.Int32s(indices...), inputtest.Float32s(ones...))...),
				})
				return targetsInput{
					targets: filepath.Join(dir, "targets.npz"),
					open: func() (evaluate.Rankings, error) {
						return evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), "", filepath.Join(dir, "targets.npz"), "", evaluate.RankingOptions{})
					},
				}
			},
			samples: 9000,
		},
		{
			name: "TREC qrels",
			setup: func(t *testing.T) targetsInput {
				return targetsInput{
					targets: rankingFixture("trec.qrels"),
					open: func() (evaluate.Rankings, error) {
						return evaluate.OpenTRECRankings(rankingFixture("trec.run"), rankingFixture("trec.qrels"), evaluate.RankingOptions{})
					},
				}
			},
			print: trecPrint, samples: 4,
		},
		{
			name: "TREC qrels without an extension, lines reversed, by format",
			setup: func(t *testing.T) targetsInput {
				dir := writeFiles(t, map[string][]byte{"qrels": reversedLines(fixtureBytes(t, "trec.qrels"))})
				return targetsInput{
					targets: filepath.Join(dir, "qrels"), format: "qrels",
					open: func() (evaluate.Rankings, error) {
						return evaluate.OpenTRECRankings(rankingFixture("trec.run"), filepath.Join(dir, "qrels"), evaluate.RankingOptions{})
					},
				}
			},
			print: trecPrint, samples: 4,
		},
		{
			name: "CSV table",
			setup: func(t *testing.T) targetsInput {
				return tableInput(writeTable(t, "targets.csv", []byte(tableTargets)), "")
			},
			print: tablePrint, samples: 5,
		},
		{
			name: "gzipped TSV table, CRLF, spaces, another column, by format Table",
			setup: func(t *testing.T) targetsInput {
				tsv := strings.ReplaceAll(strings.ReplaceAll(tableTargets, ",", " \t "), "\n", "\tx\r\n")
				tsv = strings.Replace(tsv, "\tx\r\n", "\tnote\r\n", 1)
				return tableInput(writeTable(t, "targets.tsv.gz", []byte(tsv)), "Table")
			},
			print: tablePrint, samples: 5,
		},
		{
			name: "Parquet table of integer items",
			setup: func(t *testing.T) targetsInput {
				predictions, targets := tableParquet(t, false, nil)
				return targetsInput{
					targets: targets,
					open: func() (evaluate.Rankings, error) {
						return evaluate.OpenTableRankings(predictions, targets, evaluate.RankingOptions{})
					},
				}
			},
			print: tablePrint, samples: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.setup(t)
			r, err := in.open()
			require.NoError(t, err)
			defer r.Close()
			_, _, err = readRankings(t, r)
			require.NoError(t, err)

			fp, samples, err := evaluate.FingerprintTargets(in.targets, in.sampleIDs, in.format)
			require.NoError(t, err)
			require.Equal(t, r.Targets().Sum(), fp)
			require.Equal(t, int64(r.Targets().Len()), samples)
			require.Equal(t, tt.samples, samples)
			if tt.print != "" {
				require.Equal(t, tt.print, fp)
			}
		})
	}
}

func TestFingerprintTargetsBad(t *testing.T) {
	t.Parallel()
	const help = "targets are a scipy.sparse CSR matrix (.npz), TREC qrels (.qrels) or a long table of sample_id and item " +
		"(.csv, .tsv, either may be gzipped as .csv.gz, or .parquet); when the file name does not tell, name the format: npz, qrels or table"
	numpy := func(targets, ids string) func(dir string) (evaluate.Rankings, error) {
		return func(dir string) (evaluate.Rankings, error) {
			if ids != "" {
				ids = filepath.Join(dir, ids)
			}
			return evaluate.OpenNumPyRankings(filepath.Join(dir, "items.npy"), "", filepath.Join(dir, targets), ids, evaluate.RankingOptions{})
		}
	}
	trec := func(qrels string) func(dir string) (evaluate.Rankings, error) {
		return func(dir string) (evaluate.Rankings, error) {
			return evaluate.OpenTRECRankings(filepath.Join(dir, "run"), filepath.Join(dir, qrels), evaluate.RankingOptions{})
		}
	}
	table := func(targets string) func(dir string) (evaluate.Rankings, error) {
		return func(dir string) (evaluate.Rankings, error) {
			return evaluate.OpenTableRankings(filepath.Join(dir, "predictions.csv"), filepath.Join(dir, targets), evaluate.RankingOptions{})
		}
	}
	tests := []struct {
		name                       string
		files                      map[string][]byte // besides items.npy, run and predictions.csv
		targets, sampleIDs, format string
		reader                     func(dir string) (evaluate.Rankings, error) // nil: no reader has the problem
		is                         error                                       // nil: neither sentinel
		want                       string
	}{
		{
			name: "unknown format", files: map[string][]byte{"targets.npz": fixtureBytes(t, "targets.npz")},
			targets: "targets.npz", format: "json",
			is:   evaluate.ErrUnknownFormat,
			want: `DIR/targets.npz: unknown targets format "json": ` + help,
		},
		{
			name: "unknown extension", files: map[string][]byte{"targets.json": nil},
			targets: "targets.json",
			is:      evaluate.ErrUnknownFormat,
			want:    `DIR/targets.json: unknown targets format ".json": ` + help,
		},
		{
			name: "gzipped Parquet", files: map[string][]byte{"targets.parquet.gz": nil},
			targets: "targets.parquet.gz",
			is:      evaluate.ErrUnknownFormat,
			want:    `DIR/targets.parquet.gz: unknown targets format ".parquet.gz": ` + help,
		},
		{
			name: "no extension", files: map[string][]byte{"targets": nil},
			targets: "targets",
			is:      evaluate.ErrUnknownFormat,
			want:    "DIR/targets: unknown targets format: the file name has no extension; " + help,
		},
		{
			name: "a table not named like one", files: map[string][]byte{"targets.txt": []byte("sample_id,item\na,x\n")},
			targets: "targets.txt", format: "table", reader: table("targets.txt"),
			is:   evaluate.ErrUnknownFormat,
			want: "DIR/targets.txt: not a table by its name: a table must be .csv, .tsv (either may be gzipped, as .csv.gz) or .parquet",
		},
		{
			name: "a CSC matrix", files: map[string][]byte{"targets.npz": fixtureBytes(t, "targets_csc.npz")},
			targets: "targets.npz", reader: numpy("targets.npz", ""),
			is:   evaluate.ErrBadInput,
			want: "DIR/targets.npz: holds a sparse matrix in csc format; only CSR is supported, so save targets.tocsr()",
		},
		{
			name: "a COO matrix", files: map[string][]byte{"targets.npz": fixtureBytes(t, "targets_coo.npz")},
			targets: "targets.npz", reader: numpy("targets.npz", ""),
			is:   evaluate.ErrBadInput,
			want: "DIR/targets.npz: holds a sparse matrix in coo format; only CSR is supported, so save targets.tocsr()",
		},
		{
			name: "not a zip archive", files: map[string][]byte{"targets.npz": []byte("sample_id,item\n")},
			targets: "targets.npz", reader: numpy("targets.npz", ""),
			is:   evaluate.ErrBadInput,
			want: "DIR/targets.npz: not an .npz file of scipy.sparse.save_npz: zip: not a valid zip file",
		},
		{
			name:    "missing .npz file",
			targets: "targets.npz", reader: numpy("targets.npz", ""),
			is:   os.ErrNotExist,
			want: "open DIR/targets.npz: no such file or directory",
		},
		{
			name: "missing sample IDs", files: map[string][]byte{"targets.npz": fixtureBytes(t, "targets.npz")},
			targets: "targets.npz", sampleIDs: "ids.npy", reader: numpy("targets.npz", "ids.npy"),
			is:   os.ErrNotExist,
			want: "open DIR/ids.npy: no such file or directory",
		},
		{
			name:    "missing qrels",
			targets: "targets.qrels", reader: trec("targets.qrels"),
			is:   os.ErrNotExist,
			want: "open DIR/targets.qrels: no such file or directory",
		},
		{
			name:    "missing table",
			targets: "targets.csv", reader: table("targets.csv"),
			is:   os.ErrNotExist,
			want: "open DIR/targets.csv: no such file or directory",
		},
		{
			name: "fewer sample IDs than rows",
			files: map[string][]byte{
				"targets.npz": fixtureBytes(t, "targets.npz"),
				"ids.npy":     npyArr{"'<i8'", "(5,)", make([]byte, 40)}.file(),
			},
			targets: "targets.npz", sampleIDs: "ids.npy",
			is:   evaluate.ErrBadInput,
			want: "DIR/ids.npy: has 5 sample IDs, but DIR/targets.npz has 6 rows",
		},
		{
			name: "sample IDs of floats",
			files: map[string][]byte{
				"targets.npz": fixtureBytes(t, "targets.npz"),
				"ids.npy":     npyArr{"'<f8'", "(6,)", make([]byte, 48)}.file(),
			},
			targets: "targets.npz", sampleIDs: "ids.npy", reader: numpy("targets.npz", "ids.npy"),
			is:   evaluate.ErrBadInput,
			want: "DIR/ids.npy: has dtype float64; sample IDs must be integers or strings",
		},
		{
			name: "a target column above the columns, read while streaming",
			files: map[string][]byte{
				"targets.npz": numpyTargets(inputtest.Int64s(0, 2, 2, 5, 8, 9, 10), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 12, 2)),
				"ids.npy":     numpyFiles()["ids.npy"],
			},
			targets: "targets.npz", sampleIDs: "ids.npy", reader: numpy("targets.npz", "ids.npy"),
			is:   evaluate.ErrBadInput,
			want: `DIR/targets.npz: row 4 (sample "u4"): column 12 is outside the matrix's 10 columns`,
		},
		{
			name:    "indptr decreasing",
			files:   map[string][]byte{"targets.npz": numpyTargets(inputtest.Int64s(0, 2, 2, 5, 3, 9, 10), inputtest.Int32s(1, 4, 8, 2, 3, 6, 1, 6, 5, 2))},
			targets: "targets.npz", reader: numpy("targets.npz", ""),
			is:   evaluate.ErrBadInput,
			want: `DIR/targets.npz: row 3 (sample "3"): array "indptr" decreases from 5 to 3`,
		},
		{
			name:    "qrels relevance not an integer",
			files:   map[string][]byte{"targets.qrels": []byte("a 0 d1 1\n\nb 0 d2 high\n")},
			targets: "targets.qrels", reader: trec("targets.qrels"),
			is:   evaluate.ErrBadInput,
			want: `DIR/targets.qrels: line 3 (query "b"): relevance "high" is not an integer`,
		},
		{
			name:    "table item missing",
			files:   map[string][]byte{"targets.csv": []byte("sample_id,item\na,x\nb,\n")},
			targets: "targets.csv", reader: table("targets.csv"),
			is:   evaluate.ErrBadInput,
			want: `DIR/targets.csv: line 3 (sample "b"): item missing`,
		},
		{
			name:    "table without an item column",
			files:   map[string][]byte{"targets.csv": []byte("sample_id,items\na,x\n")},
			targets: "targets.csv", reader: table("targets.csv"),
			is:   evaluate.ErrBadInput,
			want: `DIR/targets.csv: line 1: no "item" column among "sample_id", "items"`,
		},
		{
			name:    "sample IDs with qrels",
			files:   map[string][]byte{"targets.qrels": fixtureBytes(t, "trec.qrels")},
			targets: "targets.qrels", sampleIDs: "ids.npy",
			want: "DIR/targets.qrels: sample IDs from DIR/ids.npy apply only to targets in .npz; qrels targets name their samples",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := map[string][]byte{
				"items.npy":       numpyFiles()["items.npy"],
				"run":             []byte("a Q0 d1 1 2 t\n"),
				"predictions.csv": []byte("sample_id,item,rank\na,x,1\n"),
			}
			for name, b := range tt.files {
				files[name] = b
			}
			dir := writeFiles(t, files)
			path := func(name string) string {
				if name == "" {
					return ""
				}
				return filepath.Join(dir, name)
			}
			_, _, err := evaluate.FingerprintTargets(path(tt.targets), path(tt.sampleIDs), tt.format)
			require.Error(t, err)
			got := strings.ReplaceAll(err.Error(), dir, "DIR")
			require.Equal(t, tt.want, got)
			if tt.is != nil {
				require.ErrorIs(t, err, tt.is)
			} else {
				require.NotErrorIs(t, err, evaluate.ErrBadInput)
				require.NotErrorIs(t, err, evaluate.ErrUnknownFormat)
			}
			if tt.reader != nil {
				r, err := tt.reader(dir)
				if err == nil {
					defer r.Close()
					_, _, err = readRankings(t, r)
				}
				require.Error(t, err, "the reader")
				require.Equal(t, got, strings.ReplaceAll(err.Error(), dir, "DIR"), "the reader's message")
			}
		})
	}
}

func ExampleFingerprintTargets() {
	dir := filepath.Join("testdata", "rankings")
	fp, samples, err := evaluate.FingerprintTargets(filepath.Join(dir, "targets.npz"), filepath.Join(dir, "ids_str.npy"), "")
	if err != nil {
		panic(err)
	}
	fmt.Println(samples, "samples with targets")
	fmt.Println(fp)

	// The same targets as a long table give the same fingerprint.
	tmp, err := os.MkdirTemp("", "verdict")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(tmp)
	table := filepath.Join(tmp, "targets.csv")
	os.WriteFile(table, []byte("sample_id,item\nu0,1\nu0,4\nu2,8\nu2,2\nu3,6\nu3,1\nu4,5\n"), 0o644)
	fromTable, _, err := evaluate.FingerprintTargets(table, "", "")
	if err != nil {
		panic(err)
	}
	fmt.Println("the same from a CSV table:", fromTable == fp)
	// Output:
	// 4 samples with targets
	// aed6d7e0fb1cee9d7abe8b9f5c8e9731ab0a8474bd01cacf5467b5f726c7bf56
	// the same from a CSV table: true
}
