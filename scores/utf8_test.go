package scores_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
)

// Sample IDs and metric names that are not UTF-8 are refused by the
// readers, with the file, the line or row and the column, rather than by
// PostgreSQL, whose message names neither.
func TestNonUTF8Refused(t *testing.T) {
	t.Parallel()
	const (
		notUTF8 = "is not valid UTF-8; convert the file to UTF-8 (was it written as Latin-1 or Windows-1252?)"
		latin1  = "caf\xe9" // "café" in Latin-1
	)
	// A 'U' string holding the code point of a lone surrogate.
	surrogate := binary.LittleEndian.AppendUint32(inputtest.Strings(1, "u"), 0xdc80)
	badName := filepath.Join(t.TempDir(), "name.parquet")
	f, err := os.Create(badName)
	require.NoError(t, err)
	w := parquet.NewWriter(f, parquet.NewSchema("scores", parquet.Group{"sample_id": parquet.String(), latin1: parquet.Leaf(parquet.DoubleType)}))
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())

	tests := []struct {
		name string
		path string
		want string // after the path
	}{
		{
			name: "csv sample ID",
			path: inputtest.WriteFile(t, "scores.csv", []byte("sample_id,a\nu1,1\n"+latin1+",1\n")),
			want: `line 3 (sample "caf\xe9"), column "sample_id": the sample ID ` + notUTF8,
		},
		{
			name: "gzipped tsv sample ID",
			path: inputtest.WriteFile(t, "scores.tsv.gz", []byte("a\tsample_id\n1\t"+latin1+"\n")),
			want: `line 2 (sample "caf\xe9"), column "sample_id": the sample ID ` + notUTF8,
		},
		{
			name: "csv metric name",
			path: inputtest.WriteFile(t, "scores.csv", []byte("sample_id,a,"+latin1+"\nu1,1,2\n")),
			want: `line 1: column 3: the metric name ` + notUTF8,
		},
		{
			name: "csv long form metric name",
			path: inputtest.WriteFile(t, "scores.csv", []byte("sample_id,metric,value\nu1,"+latin1+",1\n")),
			want: `line 2 (sample "u1"), column "metric": the metric name ` + notUTF8,
		},
		{
			name: "jsonl sample ID",
			path: inputtest.WriteFile(t, "scores.jsonl", []byte(`{"sample_id": "`+latin1+`", "a": 1}`+"\n")),
			want: `line 1 (sample "caf\xe9"), key "sample_id": the sample ID ` + notUTF8,
		},
		{
			name: "jsonl sample ID with a lone surrogate, as Python writes an undecodable byte",
			path: inputtest.WriteFile(t, "scores.jsonl", []byte(`{"sample_id": "caf\udce9", "a": 1}`+"\n")),
			want: `line 1, key "sample_id": the sample ID ` + notUTF8,
		},
		{
			name: "jsonl key",
			path: inputtest.WriteFile(t, "scores.jsonl", []byte(`{"sample_id": "u1", "`+latin1+`": 1}`+"\n")),
			want: `line 1: key 2: the metric name ` + notUTF8,
		},
		{
			name: "jsonl escaped key",
			path: inputtest.WriteFile(t, "scores.jsonl", []byte(`{"sample_id": "u1", "caf\udce9": 1}`+"\n")),
			want: `line 1, key "caf\\udce9": the key ` + notUTF8,
		},
		{
			name: "jsonl long form metric name",
			path: inputtest.WriteFile(t, "scores.jsonl", []byte(`{"sample_id": "u1", "metric": "`+latin1+`", "value": 1}`+"\n")),
			want: `line 1 (sample "u1"), key "metric": the metric name ` + notUTF8,
		},
		{
			name: "parquet sample ID",
			path: inputtest.WriteParquet(t, "scores.parquet", []pqWide{{SampleID: "u1"}, {SampleID: latin1}}),
			want: `row 2 (sample "caf\xe9"), column "sample_id": the sample ID ` + notUTF8,
		},
		{
			name: "parquet long form metric name",
			path: inputtest.WriteParquet(t, "scores.parquet", []pqLong{{SampleID: "u1", Metric: latin1}}),
			want: `row 1 (sample "u1"), column "metric": the metric name ` + notUTF8,
		},
		{name: "parquet column name", path: badName, want: `column 1: the metric name ` + notUTF8},
		{
			name: "npz byte-string sample ID",
			path: inputtest.WriteNPZ(t, "scores.npz", 0,
				inputtest.Array("sample_id", inputtest.NPY(1, "'|S4'", "(1,)", []byte(latin1))),
				inputtest.Array("a", inputtest.NPY(1, "'<f8'", "(1,)", inputtest.Float64s(1)))),
			want: `row 1 (sample "caf\xe9"), array "sample_id": the sample ID ` + notUTF8,
		},
		{
			name: "npz unicode sample ID with a lone surrogate",
			path: inputtest.WriteNPZ(t, "scores.npz", 0,
				inputtest.Array("sample_id", inputtest.NPY(1, "'<U2'", "(1,)", surrogate)),
				inputtest.Array("a", inputtest.NPY(1, "'<f8'", "(1,)", inputtest.Float64s(1)))),
			want: `row 1 (sample "u\xff"), array "sample_id": the sample ID ` + notUTF8,
		},
		{
			name: "npz array name",
			path: inputtest.WriteNPZ(t, "scores.npz", 0,
				inputtest.Array("sample_id", inputtest.NPY(1, "'<i8'", "(1,)", inputtest.Int64s(1))),
				inputtest.Array(latin1, inputtest.NPY(1, "'<f8'", "(1,)", inputtest.Float64s(1)))),
			want: `array 2: the metric name ` + notUTF8,
		},
		{
			name: "npz long form metric name",
			path: inputtest.WriteNPZ(t, "scores.npz", 0,
				inputtest.Array("sample_id", inputtest.NPY(1, "'<i8'", "(1,)", inputtest.Int64s(1))),
				inputtest.Array("metric", inputtest.NPY(1, "'<U2'", "(1,)", surrogate)),
				inputtest.Array("value", inputtest.NPY(1, "'<f8'", "(1,)", inputtest.Float64s(1)))),
			want: `row 1 (sample "1"), array "metric": the metric name ` + notUTF8,
		},
		{
			name: "labels sample ID",
			path: inputtest.WriteFile(t, "labels.csv", []byte("sample_id,label\n"+latin1+",1\n")),
			want: `line 2 (sample "caf\xe9"), column "sample_id": the sample ID ` + notUTF8,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := readScoresOrLabels(t, tt.path)
			require.ErrorIs(t, err, scores.ErrBadInput)
			require.EqualError(t, err, tt.path+": "+tt.want)
		})
	}
}

// A scores or labels file named .gz whose bytes are not gzip is refused
// rather than read as plain text; a gzipped file without the suffix is
// still read, by its magic bytes.
func TestGzNameWithoutGzipRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string
		gzip    bool
	}{
		{name: "scores.csv.gz", content: "sample_id,a\nu1,1\n"},
		{name: "scores.tsv.gz", content: "sample_id\ta\nu1\t1\n"},
		{name: "scores.jsonl.gz", content: `{"sample_id": "u1", "a": 1}` + "\n"},
		{name: "labels.csv.gz", content: "sample_id,label\nu1,1\n"},
		{name: "scores.csv", content: "sample_id,a\nu1,1\n", gzip: true},
		{name: "scores.jsonl", content: `{"sample_id": "u1", "a": 1}` + "\n", gzip: true},
		{name: "labels.csv", content: "sample_id,label\nu1,1\n", gzip: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			content := []byte(tt.content)
			if tt.gzip {
				content = inputtest.Gzip(t, content)
			}
			path := filepath.Join(t.TempDir(), tt.name)
			require.NoError(t, os.WriteFile(path, content, 0o644))
			err := readScoresOrLabels(t, path)
			if tt.gzip {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, scores.ErrBadInput)
			require.EqualError(t, err, path+": not gzip, though its name says so")
		})
	}
}
