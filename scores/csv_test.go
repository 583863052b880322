package scores_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
)

func TestCSVWide(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		content string
		want    wideFile
	}{
		{
			name:    "plain",
			file:    "scores.csv",
			content: "sample_id,ndcg@10,recall@10\nu1,0.5,1\nu2,0,0.25\n",
			want: wideFile{Metrics: []string{"ndcg@10", "recall@10"}, Rows: []wideRow{
				{ID: "u1", Values: []float64{0.5, 1}, Where: "scores.csv: line 2"},
				{ID: "u2", Values: []float64{0, 0.25}, Where: "scores.csv: line 3"},
			}},
		},
		{
			name:    "draw column anywhere, sample_id not first",
			file:    "scores.csv",
			content: "ndcg@10,draw,sample_id\n0.5,0,u1\n0.75,1,u1\n0.125,32767,u2\n",
			want: wideFile{Metrics: []string{"ndcg@10"}, HasDraw: true, Rows: []wideRow{
				{ID: "u1", Draw: 0, Values: []float64{0.5}, Where: "scores.csv: line 2"},
				{ID: "u1", Draw: 1, Values: []float64{0.75}, Where: "scores.csv: line 3"},
				{ID: "u2", Draw: 32767, Values: []float64{0.125}, Where: "scores.csv: line 4"},
			}},
		},
		{
			name: "quoting, CRLF, byte order mark, blank lines, spaces around numbers",
			file: "scores.csv",
			content: "\ufeffsample_id, \"ndcg@10\"\r\n\"u,1\", 0.5 \r\n\r\n\"say \"\"hi\"\"\",1e-3\r\n" +
				"\"multi\nline\",2\n",
			want: wideFile{Metrics: []string{"ndcg@10"}, Rows: []wideRow{
				{ID: "u,1", Values: []float64{0.5}, Where: "scores.csv: line 2"},
				{ID: `say "hi"`, Values: []float64{0.001}, Where: "scores.csv: line 4"},
				{ID: "multi\nline", Values: []float64{2}, Where: "scores.csv: line 5"},
			}},
		},
		{
			name:    "NaN and infinity spellings are numbers, for the store to judge; decimals as Python, NumPy and pandas write them",
			file:    "scores.csv",
			content: "sample_id,a,b,c,d\nu1,NaN,nan,inf,-Infinity\nu2,1.5E+10,+3,-0,.5\nu3,1e-45,5.,0e-400,-1e-05\n",
			want: wideFile{Metrics: []string{"a", "b", "c", "d"}, Rows: []wideRow{
				{ID: "u1", Values: []float64{math.NaN(), math.NaN(), math.Inf(1), math.Inf(-1)}, Where: "scores.csv: line 2"},
				{ID: "u2", Values: []float64{1.5e10, 3, 0, 0.5}, Where: "scores.csv: line 3"},
				{ID: "u3", Values: []float64{1e-45, 5, 0, -1e-05}, Where: "scores.csv: line 4"},
			}},
		},
		{
			name:    "empty sample ID passes, for the store to judge",
			file:    "scores.csv",
			content: "sample_id,a\n,1\n",
			want: wideFile{Metrics: []string{"a"}, Rows: []wideRow{
				{ID: "", Values: []float64{1}, Where: "scores.csv: line 2"},
			}},
		},
		{
			name:    "header only",
			file:    "scores.csv",
			content: "sample_id,a\n",
			want:    wideFile{Metrics: []string{"a"}},
		},
		{
			name:    "no final newline",
			file:    "scores.csv",
			content: "sample_id,a\nu1,1",
			want: wideFile{Metrics: []string{"a"}, Rows: []wideRow{
				{ID: "u1", Values: []float64{1}, Where: "scores.csv: line 2"},
			}},
		},
		{
			name:    "tsv",
			file:    "scores.tsv",
			content: "sample_id\tdraw\tndcg@10\nu 1\t2\t0.5\n",
			want: wideFile{Metrics: []string{"ndcg@10"}, HasDraw: true, Rows: []wideRow{
				{ID: "u 1", Draw: 2, Values: []float64{0.5}, Where: "scores.tsv: line 2"},
			}},
		},
		{
			name:    "gzipped csv",
			file:    "scores.csv.gz",
			content: "sample_id,ndcg@10\nu1,0.5\nu2,0.25\n",
			want: wideFile{Metrics: []string{"ndcg@10"}, Rows: []wideRow{
				{ID: "u1", Values: []float64{0.5}, Where: "scores.csv.gz: line 2"},
				{ID: "u2", Values: []float64{0.25}, Where: "scores.csv.gz: line 3"},
			}},
		},
		{
			name:    "gzipped tsv with draw",
			file:    "scores.tsv.gz",
			content: "sample_id\tdraw\tndcg@10\nu1\t0\t0.5\nu1\t1\t0.25\n",
			want: wideFile{Metrics: []string{"ndcg@10"}, HasDraw: true, Rows: []wideRow{
				{ID: "u1", Draw: 0, Values: []float64{0.5}, Where: "scores.tsv.gz: line 2"},
				{ID: "u1", Draw: 1, Values: []float64{0.25}, Where: "scores.tsv.gz: line 3"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, tt.file, []byte(tt.content))
			got, err := readWide(t, path, "")
			require.NoError(t, err)
			requireWide(t, tt.want.in(path), got)
		})
	}
}

func TestCSVLong(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		content string
		want    longFile
	}{
		{
			name:    "long",
			file:    "scores.csv",
			content: "sample_id,metric,value\nu1,ndcg@10,0.5\nu1,recall@10,1\nu2,ndcg@10,0\n",
			want: longFile{Rows: []longRow{
				{ID: "u1", Metric: "ndcg@10", Value: 0.5, Where: "scores.csv: line 2"},
				{ID: "u1", Metric: "recall@10", Value: 1, Where: "scores.csv: line 3"},
				{ID: "u2", Metric: "ndcg@10", Value: 0, Where: "scores.csv: line 4"},
			}},
		},
		{
			name:    "long with draw, columns in any order",
			file:    "scores.csv",
			content: "value,draw,metric,sample_id\n0.5,3,ndcg@10,u1\n0.25,4,ndcg@10,u1\n",
			want: longFile{HasDraw: true, Rows: []longRow{
				{ID: "u1", Draw: 3, Metric: "ndcg@10", Value: 0.5, Where: "scores.csv: line 2"},
				{ID: "u1", Draw: 4, Metric: "ndcg@10", Value: 0.25, Where: "scores.csv: line 3"},
			}},
		},
		{
			name:    "gzipped tsv",
			file:    "scores.tsv.gz",
			content: "sample_id\tmetric\tvalue\nu1\tndcg@10\t0.5\n",
			want: longFile{Rows: []longRow{
				{ID: "u1", Metric: "ndcg@10", Value: 0.5, Where: "scores.tsv.gz: line 2"},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, tt.file, []byte(tt.content))
			got, err := readLong(t, path, "")
			require.NoError(t, err)
			requireLong(t, tt.want.in(path), got)
		})
	}
}

func TestCSVBad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		content string
		wantErr string // after the file's directory
	}{
		{
			name: "empty file", file: "scores.csv", content: "",
			wantErr: `scores.csv: the file is empty; it needs a header line naming sample_id and the metric columns`,
		},
		{
			name: "blank lines only", file: "scores.csv", content: "\n\n",
			wantErr: `scores.csv: the file is empty; it needs a header line naming sample_id and the metric columns`,
		},
		{
			name: "no sample_id column", file: "scores.csv", content: "user_id,ndcg@10\nu1,0.5\n",
			wantErr: `scores.csv: line 1: no "sample_id" column among "user_id", "ndcg@10"`,
		},
		{
			name: "many columns, no sample_id", file: "scores.csv", content: "a,b,c,d,e,f,g,h\n",
			wantErr: `scores.csv: line 1: no "sample_id" column among "a", "b", "c", "d", "e", "f" and 2 more`,
		},
		{
			name: "duplicate column", file: "scores.csv", content: "sample_id,ndcg@10,recall@10,ndcg@10\n",
			wantErr: `scores.csv: line 1: column "ndcg@10" appears twice (columns 2 and 4)`,
		},
		{
			name: "duplicate sample_id", file: "scores.csv", content: "sample_id,sample_id,a\n",
			wantErr: `scores.csv: line 1: column "sample_id" appears twice (columns 1 and 2)`,
		},
		{
			name: "no metric columns", file: "scores.csv", content: "sample_id,draw\nu1,0\n",
			wantErr: `scores.csv: line 1: no metric columns besides "sample_id", "draw"`,
		},
		{
			name: "pandas index column", file: "scores.csv", content: ",sample_id,ndcg@10\n0,u1,0.5\n",
			wantErr: `scores.csv: line 1: column 1 has no name (was a pandas index written without index=False?)`,
		},
		{
			name: "pandas index column read back and written again", file: "scores.csv", content: "Unnamed: 0,sample_id,ndcg@10\n0,u1,0.5\n",
			wantErr: `scores.csv: line 1: column 1 is named "Unnamed: 0" (was a pandas index written without index=False?)`,
		},
		{
			name: "trailing comma in the header", file: "scores.csv", content: "sample_id,a,\n",
			wantErr: `scores.csv: line 1: column 3 has no name`,
		},
		{
			name: "long form with an extra column", file: "scores.csv", content: "sample_id,metric,value,fold\n",
			wantErr: `scores.csv: line 1: column "metric" next to other columns: the long form has exactly the columns sample_id, metric and value, and optionally draw`,
		},
		{
			name: "too few fields", file: "scores.csv", content: "sample_id,a,b\nu1,1,2\nu2,1\n",
			wantErr: `scores.csv: line 3 (sample "u2"): 2 fields, but the header has 3`,
		},
		{
			name: "too many fields", file: "scores.csv", content: "sample_id,a\nu1,1,2\n",
			wantErr: `scores.csv: line 2 (sample "u1"): 3 fields, but the header has 2`,
		},
		{
			name: "too few fields to reach the sample ID", file: "scores.csv", content: "a,b,sample_id\n1,2\n",
			wantErr: `scores.csv: line 2: 2 fields, but the header has 3`,
		},
		{
			name: "not a number", file: "scores.csv", content: "sample_id,ndcg@10\nu0000011,abc\n",
			wantErr: `scores.csv: line 2 (sample "u0000011"), column "ndcg@10": "abc" is not a number`,
		},
		{
			name: "decimal comma", file: "scores.csv", content: "sample_id;ndcg@10\nu1;0,5\n",
			wantErr: `scores.csv: line 1: no "sample_id" column among "sample_id;ndcg@10"`,
		},
		{
			name: "value missing", file: "scores.csv", content: "sample_id,a,b\nu1,1,\n",
			wantErr: `scores.csv: line 2 (sample "u1"), column "b": value missing`,
		},
		{
			name: "value of spaces", file: "scores.csv", content: "sample_id,a\nu1,  \n",
			wantErr: `scores.csv: line 2 (sample "u1"), column "a": value missing`,
		},
		{
			name: "out of range", file: "scores.csv", content: "sample_id,a\nu1,1e400\n",
			wantErr: `scores.csv: line 2 (sample "u1"), column "a": "1e400" is out of range`,
		},
		{
			name: "negative draw", file: "scores.csv", content: "sample_id,draw,a\nu1,-1,0.5\n",
			wantErr: `scores.csv: line 2 (sample "u1"), column "draw": draw "-1" is not a whole number from 0 to 32767`,
		},
		{
			name: "draw too large", file: "scores.csv", content: "sample_id,draw,a\nu1,32768,0.5\n",
			wantErr: `scores.csv: line 2 (sample "u1"), column "draw": draw "32768" is not a whole number from 0 to 32767`,
		},
		{
			name: "fractional draw", file: "scores.csv", content: "sample_id,draw,a\nu1,1.0,0.5\n",
			wantErr: `scores.csv: line 2 (sample "u1"), column "draw": draw "1.0" is not a whole number from 0 to 32767`,
		},
		{
			name: "draw missing", file: "scores.csv", content: "sample_id,draw,a\nu1,,0.5\n",
			wantErr: `scores.csv: line 2 (sample "u1"), column "draw": draw missing`,
		},
		{
			name: "bare quote", file: "scores.csv", content: "sample_id,a\nu\"1,0.5\n",
			wantErr: `scores.csv: line 2: bare " in non-quoted-field at character 2`,
		},
		{
			name: "unterminated quote", file: "scores.csv", content: "sample_id,a\n\"u1,0.5\n",
			wantErr: `scores.csv: line 2: extraneous or missing " in quoted-field at character 9`,
		},
		{
			name: "long form: metric missing", file: "scores.csv", content: "sample_id,metric,value\nu1,,0.5\n",
			wantErr: `scores.csv: line 2 (sample "u1"), column "metric": metric name missing`,
		},
		{
			name: "long form: value not a number", file: "scores.csv", content: "sample_id,metric,value\nu1,ndcg@10,x\n",
			wantErr: `scores.csv: line 2 (sample "u1"), column "value": "x" is not a number`,
		},
		{
			name: "tsv read as tsv: commas do not split", file: "scores.tsv", content: "sample_id,a\nu1,0.5\n",
			wantErr: `scores.tsv: line 1: no "sample_id" column among "sample_id,a"`,
		},
		{
			name: "gzipped, bad value", file: "scores.csv.gz", content: "sample_id,a\nu1,0.5\nu2,?\n",
			wantErr: `scores.csv.gz: line 3 (sample "u2"), column "a": "?" is not a number`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, tt.file, []byte(tt.content))
			err := readAll(t, path, "")
			require.EqualError(t, err, inDir(path, tt.wantErr))
			require.ErrorIs(t, err, scores.ErrBadInput)
		})
	}
}

func TestCSVBadGzip(t *testing.T) {
	t.Parallel()
	var content []byte
	content = append(content, "sample_id,a\n"...)
	for i := range 100_000 {
		content = fmt.Appendf(content, "u%d,%d\n", i, i)
	}
	gz, err := os.ReadFile(inputtest.WriteFile(t, "full.csv.gz", content))
	require.NoError(t, err)
	tests := []struct {
		name    string
		content []byte
		wantErr string
	}{
		{
			name:    "corrupt checksum",
			content: append(append([]byte(nil), gz[:len(gz)-8]...), 0, 0, 0, 0, 0, 0, 0, 0),
			wantErr: `scores.csv.gz: line 100002: corrupt compressed data: gzip: invalid checksum`,
		},
		{
			name:    "bad header",
			content: []byte{0x1f, 0x8b, 0, 0},
			wantErr: `scores.csv.gz: the file is truncated`,
		},
	}
	t.Run("truncated", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "scores.csv.gz")
		require.NoError(t, os.WriteFile(path, gz[:len(gz)/2], 0o644))
		_, err := readWide(t, path, "")
		// Where the stream breaks depends on the compressor.
		require.Regexp(t, `^`+regexp.QuoteMeta(path)+`: line \d+: the file is truncated$`, err)
		require.ErrorIs(t, err, scores.ErrBadInput)
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "scores.csv.gz")
			require.NoError(t, os.WriteFile(path, tt.content, 0o644))
			_, err := readWide(t, path, "")
			require.EqualError(t, err, inDir(path, tt.wantErr))
			require.ErrorIs(t, err, scores.ErrBadInput)
		})
	}
}
