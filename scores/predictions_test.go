package scores_test

import (
	"archive/zip"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
)

type pqPredBinary struct {
	SampleID string  `parquet:"sample_id"`
	Label    int32   `parquet:"label"`
	Score    float64 `parquet:"score"`
}

type pqPredBool struct {
	Score    float32 `parquet:"score,snappy"`
	Label    bool    `parquet:"label"`
	SampleID int64   `parquet:"sample_id"`
}

type pqPredFloatLabel struct {
	SampleID []byte  `parquet:"sample_id,dict"`
	Label    float64 `parquet:"label"`
	Score    float64 `parquet:"score,zstd"`
	Index    int64   `parquet:"__index_level_0__"`
}

type pqPredOptional struct {
	SampleID *string  `parquet:"sample_id,optional"`
	Label    *bool    `parquet:"label,optional"`
	Score    *float64 `parquet:"score,optional"`
}

type pqPredOptionalLabel struct {
	SampleID string  `parquet:"sample_id"`
	Label    *int64  `parquet:"label,optional"`
	Score    float64 `parquet:"score"`
}

type pqPredMulti struct {
	SampleID string  `parquet:"sample_id"`
	Label    string  `parquet:"label,dict"`
	PA       float64 `parquet:"p_a"`
	PB       float32 `parquet:"p_b"`
	PC       float64 `parquet:"p_c"`
}

type pqPredMultiInt struct {
	SampleID uint32  `parquet:"sample_id"`
	P1       float64 `parquet:"p_1"`
	P0       float64 `parquet:"p_0"`
	Label    int64   `parquet:"label"`
}

type pqPredStringLabel struct {
	SampleID string  `parquet:"sample_id"`
	Label    string  `parquet:"label"`
	Score    float64 `parquet:"score"`
}

type pqPredMultiFloatLabel struct {
	SampleID string  `parquet:"sample_id"`
	Label    float64 `parquet:"label"`
	P0       float64 `parquet:"p_0"`
	P1       float64 `parquet:"p_1"`
}

type pqPredExtra struct {
	SampleID string  `parquet:"sample_id"`
	Label    int32   `parquet:"label"`
	Score    float64 `parquet:"score"`
	Fold     int32   `parquet:"fold"`
}

// predictionsFixture copies a committed fixture from testdata/predictions,
// written by testdata/predictions/gen_npz.py with NumPy, to a temporary
// directory.
func predictionsFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "predictions", name))
	require.NoError(t, err)
	return inputtest.WriteFile(t, name, b)
}

// requirePredictions compares predictions, scores within tol.
func requirePredictions(t *testing.T, want, got *scores.Predictions) {
	t.Helper()
	require.NotNil(t, got)
	require.Equal(t, want.Path, got.Path, "Path")
	require.Equal(t, want.Task, got.Task, "Task")
	require.Equal(t, want.Classes, got.Classes, "Classes")
	require.Equal(t, want.SampleIDs, got.SampleIDs, "SampleIDs")
	require.Equal(t, want.Labels, got.Labels, "Labels")
	require.Equal(t, want.Probabilities, got.Probabilities, "Probabilities")
	require.Len(t, got.Scores, len(want.Scores), "Scores")
	for i := range want.Scores {
		requireClose(t, want.Scores[i], got.Scores[i], "score %d", i)
	}
}

// wantBinary and wantMulticlass build expected predictions.
func wantBinary(probabilities bool, ids []string, labels []int32, scores_ ...float64) *scores.Predictions {
	return &scores.Predictions{
		Task: scores.TaskBinary, Classes: []string{"0", "1"},
		SampleIDs: ids, Labels: labels, Scores: scores_, Probabilities: probabilities,
	}
}

func wantMulticlass(classes, ids []string, labels []int32, probs ...float64) *scores.Predictions {
	return &scores.Predictions{
		Task: scores.TaskMulticlass, Classes: classes,
		SampleIDs: ids, Labels: labels, Scores: probs, Probabilities: true,
	}
}

func TestReadPredictions(t *testing.T) {
	t.Parallel()
	// Enough rows for several Parquet row groups, pages and read batches,
	// and several NumPy batches.
	const n = 20_000
	var (
		manyIDs    []string
		manyLabels []int32
		manyScores []float64
		manyBool   []pqPredBool
		manyLabel8 []byte
	)
	for i := range n {
		manyIDs = append(manyIDs, fmt.Sprint(i))
		manyLabels = append(manyLabels, int32(i%3%2))
		manyScores = append(manyScores, float64(i%8)/8)
		manyBool = append(manyBool, pqPredBool{SampleID: int64(i), Label: i%3%2 == 1, Score: float32(i%8) / 8})
		manyLabel8 = append(manyLabel8, byte(i%3%2))
	}
	ids6 := make([]string, n)
	for i := range ids6 {
		ids6[i] = fmt.Sprintf("%6d", i) // right-aligned, as NumPy pads nothing: the spaces are trimmed
	}
	tests := []struct {
		name   string
		file   string
		format string
		// content is the file's text, for text files; write makes others.
		content string
		write   func(t *testing.T) string
		want    *scores.Predictions
	}{
		{
			name: "CSV, binary probabilities", file: "preds.csv",
			content: "sample_id,label,score\nu1,1,0.75\nu2,0,0.25\nu3,1,1\n",
			want:    wantBinary(true, []string{"u1", "u2", "u3"}, []int32{1, 0, 1}, 0.75, 0.25, 1),
		},
		{
			name: "CSV, binary logits, columns in any order, labels as numbers equal to 0 or 1", file: "preds.csv",
			content: "score,sample_id,label\n-2.5,u1,1.0\n3,u2,0e0\n0,u3,1e+00\n1e3,u4,-0\n",
			want:    wantBinary(false, []string{"u1", "u2", "u3", "u4"}, []int32{1, 0, 1, 0}, -2.5, 3, 0, 1000),
		},
		{
			name: "CSV: byte order mark, CRLF, quotes, blank lines and spaces trimmed", file: "preds.csv",
			content: "\ufeffsample_id, label ,score\r\n\" u,1 \", 1 , 0.5 \r\n\r\n\"say \"\"hi\"\"\",0,0.125\r\n",
			want:    wantBinary(true, []string{"u,1", `say "hi"`}, []int32{1, 0}, 0.5, 0.125),
		},
		{
			name: "CSV gzipped", file: "preds.csv.gz",
			content: "sample_id,label,score\nu1,1,0.75\n",
			want:    wantBinary(true, []string{"u1"}, []int32{1}, 0.75),
		},
		{
			name: "CSV named otherwise, format given", file: "preds.txt", format: "CSV",
			content: "sample_id,label,score\nu1,1,0.75\n",
			want:    wantBinary(true, []string{"u1"}, []int32{1}, 0.75),
		},
		{
			name: "TSV, multi-class, classes in file order", file: "preds.tsv",
			content: "sample_id\tp_cat\tlabel\tp_dog\tp_bird\nu1\t0.5\tdog\t0.25\t0.25\nu2\t0\tbird\t0\t1\n u3 \t0.2\tcat\t0.7\t0.1\n",
			want: wantMulticlass([]string{"cat", "dog", "bird"}, []string{"u1", "u2", "u3"}, []int32{1, 2, 0},
				0.5, 0.25, 0.25, 0, 0, 1, 0.2, 0.7, 0.1),
		},
		{
			name: "CSV, multi-class: rows that sum to 1 within 1e-6, as float32 softmax writes them", file: "preds.csv",
			content: "sample_id,label,p_0,p_1\nu1,0,0.3333334,0.6666667\nu2,1,0.9999995,0\n",
			want:    wantMulticlass([]string{"0", "1"}, []string{"u1", "u2"}, []int32{0, 1}, 0.3333334, 0.6666667, 0.9999995, 0),
		},
		{
			name: "CSV, multi-class: class names without the spaces around them", file: "preds.csv",
			content: "sample_id,label,\"p_ a\",p_b \nu1, a ,1,0\n",
			want:    wantMulticlass([]string{"a", "b"}, []string{"u1"}, []int32{0}, 1, 0),
		},
		{
			name: "JSON Lines, binary: booleans, numbers and strings as labels, keys in any order", file: "preds.jsonl",
			content: "{\"sample_id\": \"u1\", \"label\": true, \"score\": 0.5}\n" +
				"\n" +
				"{\"score\": -1.5e0, \"label\": 0, \"sample_id\": 7}\n" +
				"{\"sample_id\": \"u\\u00e9\", \"label\": 1.0, \"score\": 2}\n" +
				"{\"sample_id\": \"u4\", \"label\": \"0\", \"score\": 0}\n" +
				"{\"sample_id\": \"u5\", \"label\": false, \"score\": 0}\n",
			want: wantBinary(false, []string{"u1", "7", "ué", "u4", "u5"}, []int32{1, 0, 1, 0, 0}, 0.5, -1.5, 2, 0, 0),
		},
		{
			name: "JSON Lines gzipped, named ndjson, multi-class: numbers name their classes", file: "preds.ndjson.gz",
			content: "{\"sample_id\": \"a\", \"label\": 2, \"p_0\": 0.25, \"p_1\": 0.25, \"p_2\": 0.5}\n" +
				"{\"sample_id\": \"b\", \"label\": 1.0, \"p_0\": 0, \"p_1\": 1, \"p_2\": 0}\n" +
				"{\"sample_id\": \"c\", \"label\": \"0\", \"p_0\": 1e0, \"p_1\": 0.0, \"p_2\": 0}\n",
			want: wantMulticlass([]string{"0", "1", "2"}, []string{"a", "b", "c"}, []int32{2, 1, 0}, 0.25, 0.25, 0.5, 0, 1, 0, 1, 0, 0),
		},
		{
			name: "Parquet, binary: integer labels",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredBinary{{"u1", 1, 0.75}, {"u2", 0, -3}})
			},
			want: wantBinary(false, []string{"u1", "u2"}, []int32{1, 0}, 0.75, -3),
		},
		{
			name: "Parquet, binary: float labels, a pandas index skipped",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredFloatLabel{{[]byte(" u1"), 1, 0.75, 0}, {[]byte("u2"), 0, 0.5, 1}})
			},
			want: wantBinary(true, []string{"u1", "u2"}, []int32{1, 0}, 0.75, 0.5),
		},
		{
			name: "Parquet, binary: boolean labels in several row groups and pages",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", manyBool, parquet.MaxRowsPerRowGroup(3000), parquet.PageBufferSize(1024))
			},
			want: wantBinary(true, manyIDs, manyLabels, manyScores...),
		},
		{
			name: "Parquet, binary: optional columns",
			write: func(t *testing.T) string {
				id, label, score := "u1", true, 0.5
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredOptional{{&id, &label, &score}})
			},
			want: wantBinary(true, []string{"u1"}, []int32{1}, 0.5),
		},
		{
			name: "Parquet, multi-class: string labels",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredMulti{{"u1", "c", 0.25, 0.25, 0.5}, {"u2", "a", 1, 0, 0}})
			},
			want: wantMulticlass([]string{"a", "b", "c"}, []string{"u1", "u2"}, []int32{2, 0}, 0.25, 0.25, 0.5, 1, 0, 0),
		},
		{
			name: "Parquet, multi-class: integer labels name the classes",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredMultiInt{{7, 0.75, 0.25, 1}, {8, 0, 1, 0}})
			},
			want: wantMulticlass([]string{"1", "0"}, []string{"7", "8"}, []int32{0, 1}, 0.75, 0.25, 0, 1),
		},
		{
			name:  "NumPy, binary: unicode IDs, integer labels, float32 logits",
			write: func(t *testing.T) string { return predictionsFixture(t, "binary.npz") },
			want:  wantBinary(false, []string{"u1", "u2", "ü3"}, []int32{1, 0, 1}, 2.5, -1, 0.25),
		},
		{
			name:  "NumPy compressed, binary: bytes IDs, boolean labels",
			write: func(t *testing.T) string { return predictionsFixture(t, "binary_bool.npz") },
			want:  wantBinary(true, []string{"a", "b"}, []int32{1, 0}, 0.75, 0.125),
		},
		{
			name:  "NumPy compressed, multi-class: integer IDs, class names as labels",
			write: func(t *testing.T) string { return predictionsFixture(t, "multiclass.npz") },
			want: wantMulticlass([]string{"cat", "dog", "bird"}, []string{"10", "11", "12"}, []int32{0, 1, 2},
				0.5, 0.25, 0.25, 0.25, 0.75, 0, 0, 0.5, 0.5),
		},
		{
			name:  "NumPy, multi-class: integer labels name the classes",
			write: func(t *testing.T) string { return predictionsFixture(t, "multiclass_int.npz") },
			want:  wantMulticlass([]string{"0", "1", "2"}, []string{"x", "y"}, []int32{2, 0}, 0.5, 0, 0.5, 1, 0, 0),
		},
		{
			name: "NumPy, binary: many rows, deflated",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Deflate,
					inputtest.Array("sample_id", inputtest.NPY(1, "'<U6'", fmt.Sprintf("(%d,)", n), inputtest.Strings(6, ids6...))),
					inputtest.Array("label", inputtest.NPY(1, "'|i1'", fmt.Sprintf("(%d,)", n), manyLabel8)),
					npyioArray(t, "score", manyScores))
			},
			want: wantBinary(true, manyIDs, manyLabels, manyScores...),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := ""
			if tt.write != nil {
				path = tt.write(t)
			} else {
				path = inputtest.WriteFile(t, tt.file, []byte(tt.content))
			}
			got, err := scores.ReadPredictions(path, tt.format, scores.PredictionOptions{})
			require.NoError(t, err)
			want := *tt.want
			want.Path = path
			requirePredictions(t, &want, got)
		})
	}
}

func TestReadPredictionsBad(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 1025)
	layout := "a predictions file has the columns sample_id, label and score (binary), " +
		"or sample_id, label and a p_<class> column for each class, at least two (multi-class)"
	layoutKeys := strings.ReplaceAll(strings.ReplaceAll(layout, "columns", "keys"), "column", "key")
	layoutArrays := strings.ReplaceAll(strings.ReplaceAll(layout, "columns", "arrays"), "column", "array")
	ids := inputtest.Array("sample_id", inputtest.NPY(1, "'<U2'", "(2,)", inputtest.Strings(2, "u1", "u2")))
	labels := inputtest.Array("label", inputtest.NPY(1, "'<i8'", "(2,)", inputtest.Int64s(1, 0)))
	tests := []struct {
		name    string
		file    string
		content string
		write   func(t *testing.T) string
		wantErr string // after the file's directory
	}{
		// The layout.
		{
			name: "empty file", file: "preds.csv", content: "",
			wantErr: "preds.csv: the file is empty; it needs a header line naming its columns: " + layout,
		},
		{
			name: "a header but no rows", file: "preds.csv", content: "sample_id,label,score\n",
			wantErr: "preds.csv: no predictions: the file has a header line but no rows",
		},
		{
			name: "no sample_id column", file: "preds.csv", content: "id,label,score\nu1,1,0.5\n",
			wantErr: `preds.csv: line 1: column "id" is not allowed: ` + layout,
		},
		{
			name: "no label column", file: "preds.csv", content: "sample_id,score\nu1,0.5\n",
			wantErr: `preds.csv: line 1: no "label" column among "sample_id", "score"; ` + layout,
		},
		{
			name: "another column", file: "preds.csv", content: "sample_id,label,score,fold\nu1,1,0.5,0\n",
			wantErr: `preds.csv: line 1: column "fold" is not allowed: ` + layout,
		},
		{
			name: "score and p_ columns", file: "preds.csv", content: "sample_id,label,score,p_a,p_b\n",
			wantErr: `preds.csv: line 1: both a "score" column and p_<class> columns; ` + layout + ", not both",
		},
		{
			name: "one p_ column", file: "preds.csv", content: "sample_id,label,p_a\nu1,a,1\n",
			wantErr: `preds.csv: line 1: one p_<class> column, "p_a"; a multi-class file has one for each class, at least two, and a binary file a "score" column instead`,
		},
		{
			name: "neither score nor p_ columns", file: "preds.csv", content: "sample_id,label\nu1,1\n",
			wantErr: `preds.csv: line 1: neither a "score" column nor p_<class> columns; ` + layout,
		},
		{
			name: "a p_ column without a class", file: "preds.csv", content: "sample_id,label,p_a,p_\n",
			wantErr: `preds.csv: line 1: column "p_" names no class; a probability column is named p_ and its class, such as p_cat`,
		},
		{
			name: "two columns of one class", file: "preds.csv", content: "sample_id,label,p_a,\"p_ a\"\n",
			wantErr: `preds.csv: line 1: columns "p_a" and "p_ a" name the same class "a"`,
		},
		{
			name: "a duplicate column", file: "preds.csv", content: "sample_id,label,score,label\n",
			wantErr: `preds.csv: line 1: column "label" appears twice (columns 2 and 4)`,
		},
		{
			name: "a pandas index", file: "preds.csv", content: ",sample_id,label,score\n0,u1,1,0.5\n",
			wantErr: `preds.csv: line 1: column 1 has no name (was a pandas index written without index=False?)`,
		},
		{
			name: "a class name that is not UTF-8", file: "preds.csv", content: "sample_id,label,p_a,p_\xe9\n",
			wantErr: `preds.csv: line 1: column 4: the class name is not valid UTF-8; convert the file to UTF-8 (was it written as Latin-1 or Windows-1252?)`,
		},

		// Rows of CSV.
		{
			name: "a ragged row", file: "preds.csv", content: "sample_id,label,score\nu1,1,0.5\nu2,1\n",
			wantErr: `preds.csv: line 3 (sample "u2"): 2 fields, but the header has 3`,
		},
		{
			name: "an empty sample ID", file: "preds.csv", content: "sample_id,label,score\nu1,1,0.5\n  ,1,0.5\n",
			wantErr: `preds.csv: line 3, column "sample_id": sample ID missing; every line needs one`,
		},
		{
			name: "a sample ID too long", file: "preds.csv", content: "sample_id,label,score\n" + long + ",1,0.5\n",
			wantErr: `preds.csv: line 2 (sample "` + long[:64] + `"... (1025 bytes)), column "sample_id": the sample ID is 1025 bytes long; at most 1024 are allowed`,
		},
		{
			name: "a sample ID not UTF-8", file: "preds.csv", content: "sample_id,label,score\nu\xe9,1,0.5\n",
			wantErr: `preds.csv: line 2 (sample "u\xe9"), column "sample_id": the sample ID is not valid UTF-8; convert the file to UTF-8 (was it written as Latin-1 or Windows-1252?)`,
		},
		{
			name: "a binary label of 2", file: "preds.csv", content: "sample_id,label,score\nu1,1,0.5\nu42,2,0.5\n",
			wantErr: `preds.csv: line 3 (sample "u42"), column "label": label "2" is not 0 or 1`,
		},
		{
			name: "a binary label that is no number", file: "preds.csv", content: "sample_id,label,score\nu1,yes,0.5\n",
			wantErr: `preds.csv: line 2 (sample "u1"), column "label": label "yes" is not 0 or 1`,
		},
		{
			name: "a binary label too small to be 0", file: "preds.csv", content: "sample_id,label,score\nu1,1e-400,0.5\n",
			wantErr: `preds.csv: line 2 (sample "u1"), column "label": label "1e-400" is not 0 or 1`,
		},
		{
			name: "a label missing", file: "preds.csv", content: "sample_id,label,score\nu1, ,0.5\n",
			wantErr: `preds.csv: line 2 (sample "u1"), column "label": label missing`,
		},
		{
			name: "a score NaN", file: "preds.csv", content: "sample_id,label,score\nu1,1,0.5\nu2,0,nan\n",
			wantErr: `preds.csv: line 3 (sample "u2"), column "score": score "nan" is not finite; a score is a finite number, a probability or a logit`,
		},
		{
			name: "a score infinite", file: "preds.csv", content: "sample_id,label,score\nu1,1,-Infinity\n",
			wantErr: `preds.csv: line 2 (sample "u1"), column "score": score "-Infinity" is not finite; a score is a finite number, a probability or a logit`,
		},
		{
			name: "a score out of range", file: "preds.csv", content: "sample_id,label,score\nu1,1,1e400\n",
			wantErr: `preds.csv: line 2 (sample "u1"), column "score": score "1e400" is out of range`,
		},
		{
			name: "a score that is no number", file: "preds.csv", content: "sample_id,label,score\nu1,1,0x1p-2\n",
			wantErr: `preds.csv: line 2 (sample "u1"), column "score": "0x1p-2" is not a number`,
		},
		{
			name: "a score missing", file: "preds.csv", content: "sample_id,label,score\nu1,1,\n",
			wantErr: `preds.csv: line 2 (sample "u1"), column "score": score missing`,
		},
		{
			name: "a label that is no class", file: "preds.csv", content: "sample_id,label,p_cat,p_dog\nu1,cat,1,0\nu2,fish,0.5,0.5\n",
			wantErr: `preds.csv: line 3 (sample "u2"), column "label": label "fish" is not one of the classes "cat", "dog" (the names of the p_<class> columns)`,
		},
		{
			name: "a probability above 1", file: "preds.csv", content: "sample_id,label,p_a,p_b\nu1,a,1.5,-0.5\n",
			wantErr: `preds.csv: line 2 (sample "u1"), column "p_a": probability "1.5" is not in [0, 1]`,
		},
		{
			name: "a probability below 0", file: "preds.csv", content: "sample_id,label,p_a,p_b\nu1,a,1,-0.5\n",
			wantErr: `preds.csv: line 2 (sample "u1"), column "p_b": probability "-0.5" is not in [0, 1]`,
		},
		{
			name: "a probability NaN", file: "preds.csv", content: "sample_id,label,p_a,p_b\nu1,a,NaN,0\n",
			wantErr: `preds.csv: line 2 (sample "u1"), column "p_a": probability "NaN" is not in [0, 1]`,
		},
		{
			name: "probabilities that sum to 0.97", file: "preds.csv",
			content: "sample_id,label,p_a,p_b\nu1,a,1,0\nu2,a,0.5,0.5\nu3,b,0.5,0.5\nx,b,0.47,0.5\n",
			wantErr: `preds.csv: line 5 (sample "x"): probabilities sum to 0.97, not 1 within 1e-06`,
		},
		{
			name: "probabilities that sum to 1 plus 2e-6", file: "preds.csv",
			content: "sample_id,label,p_a,p_b\nu1,a,0.500002,0.5\n",
			wantErr: `preds.csv: line 2 (sample "u1"): probabilities sum to 1.000002, not 1 within 1e-06`,
		},
		{
			name: "a sample twice", file: "preds.csv",
			content: "sample_id,label,score\nu1,1,0.5\nu2,0,0.5\n\"u1 \",0,0.25\n",
			wantErr: `preds.csv: line 4 (sample "u1"), column "sample_id": the sample appears twice, at lines 2 and 4; a predictions file has one line per sample`,
		},
		{
			name: "gzip named but not gzip", file: "preds.csv.gz",
			wantErr: `preds.csv.gz: not gzip, though its name says so`,
			write: func(t *testing.T) string {
				path := filepath.Join(t.TempDir(), "preds.csv.gz")
				require.NoError(t, os.WriteFile(path, []byte("sample_id,label,score\n"), 0o644))
				return path
			},
		},

		// JSON Lines.
		{
			name: "JSON Lines: empty file", file: "preds.jsonl", content: "\n\n",
			wantErr: "preds.jsonl: the file is empty; it needs one JSON object per line: " + layoutKeys,
		},
		{
			name: "JSON Lines: an unknown key", file: "preds.jsonl", content: `{"sample_id": "u1", "label": 1, "prob": 0.5}` + "\n",
			wantErr: `preds.jsonl: line 1: key "prob" is not allowed: ` + layoutKeys,
		},
		{
			name: "JSON Lines: a key missing", file: "preds.jsonl",
			content: `{"sample_id": "u1", "label": 1, "score": 0.5}` + "\n" + `{"sample_id": "u2", "label": 1}` + "\n",
			wantErr: `preds.jsonl: line 2 (sample "u2"): keys differ from line 1: this line lacks key "score"`,
		},
		{
			name: "JSON Lines: a label of 2", file: "preds.jsonl",
			content: `{"sample_id": "u42", "label": 2, "score": 0.5}` + "\n",
			wantErr: `preds.jsonl: line 1 (sample "u42"), key "label": label 2 is not 0 or 1`,
		},
		{
			name: "JSON Lines: a label as an array", file: "preds.jsonl",
			content: `{"sample_id": "u1", "label": [1], "score": 0.5}` + "\n",
			wantErr: `preds.jsonl: line 1 (sample "u1"), key "label": expected 0 or 1, got an array`,
		},
		{
			name: "JSON Lines: a label null", file: "preds.jsonl",
			content: `{"sample_id": "u1", "label": null, "score": 0.5}` + "\n",
			wantErr: `preds.jsonl: line 1 (sample "u1"), key "label": label missing`,
		},
		{
			name: "JSON Lines: a boolean label of a multi-class file", file: "preds.jsonl",
			content: `{"sample_id": "u1", "label": true, "p_0": 0.5, "p_1": 0.5}` + "\n",
			wantErr: `preds.jsonl: line 1 (sample "u1"), key "label": expected a class name, got true`,
		},
		{
			name: "JSON Lines: a number that names no class", file: "preds.jsonl",
			content: `{"sample_id": "u1", "label": 2.5, "p_0": 0.5, "p_1": 0.5}` + "\n",
			wantErr: `preds.jsonl: line 1 (sample "u1"), key "label": label 2.5 is not one of the classes "0", "1" (the names of the p_<class> keys)`,
		},
		{
			name: "JSON Lines: a score NaN", file: "preds.jsonl",
			content: `{"sample_id": "u1", "label": 1, "score": NaN}` + "\n",
			wantErr: `preds.jsonl: line 1 (sample "u1"), key "score": score NaN is not finite; a score is a finite number, a probability or a logit`,
		},
		{
			name: "JSON Lines: a score as a string", file: "preds.jsonl",
			content: `{"sample_id": "u1", "label": 1, "score": "0.5"}` + "\n",
			wantErr: `preds.jsonl: line 1 (sample "u1"), key "score": expected a number, got "0.5"`,
		},
		{
			name: "JSON Lines: a probability above 1", file: "preds.jsonl",
			content: `{"sample_id": "u1", "label": 1, "p_0": -0.5, "p_1": 1.5}` + "\n",
			wantErr: `preds.jsonl: line 1 (sample "u1"), key "p_0": probability -0.5 is not in [0, 1]`,
		},
		{
			name: "JSON Lines: a sample ID null", file: "preds.jsonl",
			content: `{"sample_id": null, "label": 1, "score": 0.5}` + "\n",
			wantErr: `preds.jsonl: line 1, key "sample_id": sample ID missing; every line needs one`,
		},
		{
			name: "JSON Lines: a sample twice", file: "preds.jsonl",
			content: `{"sample_id": 1, "label": 1, "score": 0.5}` + "\n\n" + `{"sample_id": "1", "label": 0, "score": 0.5}` + "\n",
			wantErr: `preds.jsonl: line 3 (sample "1"), key "sample_id": the sample appears twice, at lines 1 and 3; a predictions file has one line per sample`,
		},
		{
			name: "JSON Lines: invalid JSON", file: "preds.jsonl",
			content: `{"sample_id": "u1", "label": 1, "score": 0.5` + "\n",
			wantErr: `preds.jsonl: line 1: invalid JSON at byte 45: expected ',' or '}'`,
		},
		{
			name: "JSON Lines: too many keys", file: "preds.jsonl",
			content: "{" + strings.Repeat(`"a": 1, `, 1002) + `"b": 2}` + "\n",
			wantErr: `preds.jsonl: line 1: the object has more than 1002 keys; a predictions file has sample_id, label and at most 1000 p_<class> columns`,
		},

		// Parquet.
		{
			name: "Parquet: another column",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredExtra{{"u1", 1, 0.5, 0}})
			},
			wantErr: `preds.parquet: column "fold" is not allowed: ` + layout,
		},
		{
			name: "Parquet: no rows",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredBinary{})
			},
			wantErr: `preds.parquet: no predictions: the file has no rows`,
		},
		{
			name: "Parquet: a binary label of strings",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredStringLabel{{"u1", "1", 0.5}})
			},
			wantErr: `preds.parquet: column "label": has type STRING; a binary label is 0 or 1, in a column of integers, floats or booleans`,
		},
		{
			name: "Parquet: a multi-class label of floats",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredMultiFloatLabel{{"u1", 1, 0, 1}})
			},
			wantErr: `preds.parquet: column "label": has type DOUBLE; it must be a string or an integer`,
		},
		{
			name: "Parquet: a label of 2",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredBinary{{"u1", 1, 0.5}, {"u42", 2, 0.5}})
			},
			wantErr: `preds.parquet: row 2 (sample "u42"), column "label": label 2 is not 0 or 1`,
		},
		{
			name: "Parquet: a label missing",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredOptionalLabel{{"u1", nil, 0.5}})
			},
			wantErr: `preds.parquet: row 1 (sample "u1"), column "label": label missing`,
		},
		{
			name: "Parquet: a sample ID missing",
			write: func(t *testing.T) string {
				label, score := true, 0.5
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredOptional{{nil, &label, &score}})
			},
			wantErr: `preds.parquet: row 1, column "sample_id": sample ID missing; every row needs one`,
		},
		{
			name: "Parquet: a score missing",
			write: func(t *testing.T) string {
				id, label := "u1", false
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredOptional{{&id, &label, nil}})
			},
			wantErr: `preds.parquet: row 1 (sample "u1"), column "score": score missing`,
		},
		{
			name: "Parquet: a boolean label missing",
			write: func(t *testing.T) string {
				id, score := "u1", 0.5
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredOptional{{&id, nil, &score}})
			},
			wantErr: `preds.parquet: row 1 (sample "u1"), column "label": label missing`,
		},
		{
			name: "Parquet: a score infinite",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredBinary{{"u1", 1, math.Inf(1)}})
			},
			wantErr: `preds.parquet: row 1 (sample "u1"), column "score": score +Inf is not finite; a score is a finite number, a probability or a logit`,
		},
		{
			name: "Parquet: a label that is no class",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredMultiInt{{1, 0.5, 0.5, 1}, {2, 0.5, 0.5, 3}})
			},
			wantErr: `preds.parquet: row 2 (sample "2"), column "label": label 3 is not one of the classes "1", "0" (the names of the p_<class> columns)`,
		},
		{
			name: "Parquet: probabilities that sum to 0.75",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredMulti{{"u1", "a", 0.25, 0.25, 0.25}})
			},
			wantErr: `preds.parquet: row 1 (sample "u1"): probabilities sum to 0.75, not 1 within 1e-06`,
		},
		{
			name: "Parquet: a sample twice",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "preds.parquet", []pqPredBinary{{"u1", 1, 0.5}, {"u2", 1, 0.5}, {"u1", 1, 0.5}})
			},
			wantErr: `preds.parquet: row 3 (sample "u1"), column "sample_id": the sample appears twice, at rows 1 and 3; a predictions file has one row per sample`,
		},

		// NumPy.
		{
			name: "NumPy: positional arrays",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Store,
					inputtest.Array("arr_0", inputtest.NPY(1, "'<U2'", "(2,)", inputtest.Strings(2, "u1", "u2"))))
			},
			wantErr: `preds.npz: array "arr_0" is not allowed: ` + layoutArrays +
				"; save the arrays by name, as np.savez(path, sample_id=ids, label=labels, score=scores)",
		},
		{
			name: "NumPy: a 2-D array of probabilities",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Store, ids, labels,
					inputtest.Array("score", inputtest.NPY(1, "'<f8'", "(2, 2)", inputtest.Float64s(0.5, 0.5, 1, 0))))
			},
			wantErr: `preds.npz: array "score": has shape (2, 2); only 1-D arrays are supported, so save one array per column`,
		},
		{
			name: "NumPy: arrays of different lengths",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Store, ids, labels,
					inputtest.Array("score", inputtest.NPY(1, "'<f8'", "(3,)", inputtest.Float64s(0.5, 0.5, 1))))
			},
			wantErr: `preds.npz: arrays differ in length: "sample_id" has 2 values, "score" has 3`,
		},
		{
			name: "NumPy: float labels of a multi-class file",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Store, ids,
					inputtest.Array("label", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0, 1))),
					inputtest.Array("p_0", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(1, 0))),
					inputtest.Array("p_1", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0, 1))))
			},
			wantErr: `preds.npz: array "label": has dtype float64; it must be class names, as strings or integers`,
		},
		{
			name: "NumPy: string scores",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Store, ids, labels,
					inputtest.Array("score", inputtest.NPY(1, "'<U1'", "(2,)", inputtest.Strings(1, "1", "0"))))
			},
			wantErr: `preds.npz: array "score": has dtype <U1; it must be floats or integers`,
		},
		{
			name: "NumPy: a label of 2",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Store, ids,
					inputtest.Array("label", inputtest.NPY(1, "'<u2'", "(2,)", []byte{1, 0, 2, 0})),
					inputtest.Array("score", inputtest.NPY(1, "'<f4'", "(2,)", inputtest.Float32s(0.5, 0.5))))
			},
			wantErr: `preds.npz: row 2 (sample "u2"), array "label": label 2 is not 0 or 1`,
		},
		{
			name: "NumPy: a float label of 0.5",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Store, ids,
					inputtest.Array("label", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0.5, 1))),
					inputtest.Array("score", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0.5, 0.5))))
			},
			wantErr: `preds.npz: row 1 (sample "u1"), array "label": label 0.5 is not 0 or 1`,
		},
		{
			name: "NumPy: a score NaN",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Deflate, ids, labels,
					inputtest.Array("score", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0.5, math.NaN()))))
			},
			wantErr: `preds.npz: row 2 (sample "u2"), array "score": score NaN is not finite; a score is a finite number, a probability or a logit`,
		},
		{
			name: "NumPy: probabilities that sum to 2",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Store, ids,
					inputtest.Array("label", inputtest.NPY(1, "'<U1'", "(2,)", inputtest.Strings(1, "a", "b"))),
					inputtest.Array("p_a", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(1, 1))),
					inputtest.Array("p_b", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0, 1))))
			},
			wantErr: `preds.npz: row 2 (sample "u2"): probabilities sum to 2, not 1 within 1e-06`,
		},
		{
			name: "NumPy: a sample twice",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Store,
					inputtest.Array("sample_id", inputtest.NPY(1, "'<i8'", "(2,)", inputtest.Int64s(5, 5))), labels,
					inputtest.Array("score", inputtest.NPY(1, "'<f8'", "(2,)", inputtest.Float64s(0.5, 0.5))))
			},
			wantErr: `preds.npz: row 2 (sample "5"), array "sample_id": the sample appears twice, at rows 1 and 2; a predictions file has one row per sample`,
		},
		{
			name: "NumPy: empty arrays",
			write: func(t *testing.T) string {
				return inputtest.WriteNPZ(t, "preds.npz", zip.Store,
					inputtest.Array("sample_id", inputtest.NPY(1, "'<U1'", "(0,)", nil)),
					inputtest.Array("label", inputtest.NPY(1, "'|b1'", "(0,)", nil)),
					inputtest.Array("score", inputtest.NPY(1, "'<f8'", "(0,)", nil)))
			},
			wantErr: `preds.npz: no predictions: the arrays are empty`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var path string
			if tt.write != nil {
				path = tt.write(t)
			} else {
				path = inputtest.WriteFile(t, tt.file, []byte(tt.content))
			}
			_, err := scores.ReadPredictions(path, "", scores.PredictionOptions{})
			require.EqualError(t, err, inDir(path, tt.wantErr))
			require.ErrorIs(t, err, scores.ErrBadPredictions)
			require.NotErrorIs(t, err, scores.ErrBadInput)
		})
	}
}

func ExampleReadPredictions() {
	dir, err := os.MkdirTemp("", "predictions")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			panic(err)
		}
		return path
	}

	path := write("preds.csv", "sample_id,label,p_cat,p_dog\nu1,dog,0.2,0.8\nu2,cat,0.9,0.1\n")
	p, err := scores.ReadPredictions(path, "", scores.PredictionOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Task, p.Classes)
	k := len(p.Classes)
	for i, id := range p.SampleIDs {
		fmt.Printf("%s %s %.2f\n", id, p.Classes[p.Labels[i]], p.Scores[i*k:(i+1)*k])
	}

	path = write("bad.csv", "sample_id,label,p_cat,p_dog\nu1,dog,0.2,0.8\nx,cat,0.47,0.5\n")
	_, err = scores.ReadPredictions(path, "", scores.PredictionOptions{})
	fmt.Println(strings.TrimPrefix(err.Error(), dir+string(filepath.Separator)))
	// Output:
	// multiclass [cat dog]
	// u1 dog [0.20 0.80]
	// u2 cat [0.90 0.10]
	// bad.csv: line 3 (sample "x"): probabilities sum to 0.97, not 1 within 1e-06
}

// A row of probabilities that ReadPredictions accepts passes classify's
// check of the same row: both sum in order and compare with
// classify.RowSumTolerance.
func TestReadPredictionsRowSumAgreesWithClassify(t *testing.T) {
	t.Parallel()
	path := inputtest.WriteFile(t, "preds.csv", []byte("sample_id,label,p_a,p_b,p_c\nu1,a,0.1,0.2,0.7000009\nu2,c,0.3333333,0.3333333,0.3333333\n"))
	p, err := scores.ReadPredictions(path, "", scores.PredictionOptions{})
	require.NoError(t, err)
	_, err = classify.MulticlassLogLoss(p.Labels, p.Scores, len(p.Classes))
	require.NoError(t, err)
}

// The memory that predictions hold is bounded: past the bound, the read
// stops at the row that passed it, saying to split the evaluation set.
func TestReadPredictionsMemoryBound(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("sample_id,label,score\n")
	for i := range 100 {
		fmt.Fprintf(&b, "u%03d,%d,0.5\n", i, i%2)
	}
	path := inputtest.WriteFile(t, "preds.csv", []byte(b.String()))

	// Each row holds 4 bytes of ID, 56 of the duplicate check, and the
	// growth of the slices: the first row 16 + 4 + 8 bytes.
	_, err := scores.ReadPredictions(path, "", scores.PredictionOptions{MaxHeldBytes: 100})
	require.EqualError(t, err, inDir(path,
		`preds.csv: line 3 (sample "u001"): the predictions held in memory pass 100 bytes; verdict reads a predictions file whole: split the evaluation set into parts`))
	require.ErrorIs(t, err, scores.ErrBadPredictions)

	_, err = scores.ReadPredictions(path, "", scores.PredictionOptions{MaxHeldBytes: 4 << 10})
	require.ErrorContains(t, err, "the predictions held in memory pass 4 KiB; verdict reads a predictions file whole: split the evaluation set into parts")

	p, err := scores.ReadPredictions(path, "", scores.PredictionOptions{MaxHeldBytes: 64 << 10})
	require.NoError(t, err)
	require.Len(t, p.SampleIDs, 100)

	require.PanicsWithValue(t, "scores: negative PredictionOptions.MaxHeldBytes", func() {
		_, _ = scores.ReadPredictions(path, "", scores.PredictionOptions{MaxHeldBytes: -1})
	})
}

// A multi-class file of 1,000 classes, as ImageNet's, is read; one of
// 1,001 is refused with the bound.
func TestReadPredictionsClasses(t *testing.T) {
	t.Parallel()
	file := func(k int) string {
		var b strings.Builder
		b.WriteString("sample_id,label")
		for c := range k {
			fmt.Fprintf(&b, ",p_%d", c)
		}
		b.WriteString("\nu1,0,1" + strings.Repeat(",0", k-1) + "\n")
		return b.String()
	}
	p, err := scores.ReadPredictions(inputtest.WriteFile(t, "preds.csv", []byte(file(1000))), "", scores.PredictionOptions{})
	require.NoError(t, err)
	require.Len(t, p.Classes, 1000)
	require.Equal(t, "999", p.Classes[999])

	path := inputtest.WriteFile(t, "preds.csv", []byte(file(1001)))
	_, err = scores.ReadPredictions(path, "", scores.PredictionOptions{})
	require.EqualError(t, err, inDir(path, "preds.csv: line 1: the header has more than 1002 columns; a predictions file has sample_id, label and at most 1000 p_<class> columns"))
	require.ErrorIs(t, err, scores.ErrBadPredictions)
}

func TestReadPredictionsFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		format  string
		wantErr string // after the file's directory
	}{
		{name: "unknown extension", file: "preds.txt",
			wantErr: `preds.txt: unknown scores format ".txt": the formats are csv, tsv, jsonl (also .ndjson), parquet and npz, and the text formats may be gzipped (.csv.gz); name the format when the file name does not say it`},
		{name: "unknown format", file: "preds.csv", format: "xlsx",
			wantErr: `preds.csv: unknown scores format "xlsx": the formats are csv, tsv, jsonl (also .ndjson), parquet and npz, and the text formats may be gzipped (.csv.gz); name the format when the file name does not say it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, tt.file, []byte("sample_id,label,score\nu1,1,0.5\n"))
			_, err := scores.ReadPredictions(path, tt.format, scores.PredictionOptions{})
			require.EqualError(t, err, inDir(path, tt.wantErr))
			require.ErrorIs(t, err, scores.ErrUnknownFormat)
		})
	}
	_, err := scores.ReadPredictions(filepath.Join(t.TempDir(), "missing.csv"), "", scores.PredictionOptions{})
	var pathErr *fs.PathError
	require.ErrorAs(t, err, &pathErr)
}

// fuzzPredictions reads a predictions file and checks that it does not
// panic, that an error is about the file's content or a failure to read
// it, and that what it returns holds together.
func fuzzPredictions(t *testing.T, path string) {
	p, err := scores.ReadPredictions(path, "", scores.PredictionOptions{MaxHeldBytes: 1 << 20})
	if err != nil {
		var pathErr *fs.PathError
		if !errors.Is(err, scores.ErrBadPredictions) && !errors.As(err, &pathErr) {
			t.Fatalf("an error that does not wrap ErrBadPredictions: %v", err)
		}
		return
	}
	n, k := len(p.SampleIDs), 1
	if p.Task == scores.TaskMulticlass {
		k = len(p.Classes)
	}
	switch {
	case n == 0:
		t.Fatal("no predictions, and no error")
	case len(p.Classes) < 2:
		t.Fatalf("classes %q", p.Classes)
	case len(p.Labels) != n || len(p.Scores) != n*k:
		t.Fatalf("%d samples, %d labels, %d scores", n, len(p.Labels), len(p.Scores))
	}
	seen := map[string]bool{}
	for i, id := range p.SampleIDs {
		if id == "" || !utf8.ValidString(id) || seen[id] {
			t.Fatalf("sample ID %q", id)
		}
		seen[id] = true
		if l := p.Labels[i]; l < 0 || int(l) >= len(p.Classes) {
			t.Fatalf("label %d of %d classes", l, len(p.Classes))
		}
	}
	for _, v := range p.Scores {
		if math.IsNaN(v) || math.IsInf(v, 0) || p.Probabilities && (v < 0 || v > 1) {
			t.Fatalf("score %v, Probabilities %v", v, p.Probabilities)
		}
	}
}

// predictionFormats are the file names that FuzzReadPredictions writes,
// by its format argument.
var predictionFormats = []string{"preds.csv", "preds.tsv", "preds.jsonl", "preds.parquet", "preds.npz"}

// FuzzReadPredictions feeds ReadPredictions arbitrary files, in the format
// predictionFormats[format%5]. Run it with
//
//	go test ./scores -run '^$' -fuzz FuzzReadPredictions -fuzztime 60s
func FuzzReadPredictions(f *testing.F) {
	const csv, tsv, jsonl, pq, npz = 0, 1, 2, 3, 4
	for _, seed := range []struct {
		format  uint8
		content string
	}{
		{csv, "sample_id,label,score\nu1,1,0.5\nu2,0,-3\n"},
		{csv, "sample_id,label,p_a,p_b\nu1,a,0.25,0.75\n\"u\n2\",b,0,1\n"},
		{tsv, "label\tsample_id\tscore\n1.0\tu1\t1e-3\n"},
		{jsonl, `{"sample_id": "u1", "label": true, "score": 0.5}` + "\n" + `{"sample_id": 2, "label": 0, "score": NaN}` + "\n"},
		{jsonl, `{"sample_id": "u1", "label": 2, "p_0": 0, "p_1": 0, "p_2": 1}` + "\n"},
	} {
		f.Add(seed.format, []byte(seed.content))
	}
	dir := f.TempDir()
	parquetSeeds := map[string]func(path string){
		"binary": func(p string) { inputtest.WriteParquetAt(f, p, []pqPredBinary{{"u1", 1, 0.5}, {"u2", 0, 0.25}}) },
		"bool":   func(p string) { inputtest.WriteParquetAt(f, p, []pqPredBool{{0.5, true, 1}, {0.25, false, 2}}) },
		"multi":  func(p string) { inputtest.WriteParquetAt(f, p, []pqPredMulti{{"u1", "c", 0.25, 0.25, 0.5}}) },
	}
	for name, write := range parquetSeeds {
		path := filepath.Join(dir, name+".parquet")
		write(path)
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(pq), b)
	}
	fixtures, err := filepath.Glob(filepath.Join("testdata", "predictions", "*.npz"))
	if err != nil || len(fixtures) == 0 {
		f.Fatalf("no fixtures: %v", err)
	}
	for _, name := range fixtures {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(npz), b)
	}
	f.Fuzz(func(t *testing.T, format uint8, content []byte) {
		name := predictionFormats[int(format)%len(predictionFormats)]
		fuzzPredictions(t, fuzzFile(t, name, content))
	})
}
