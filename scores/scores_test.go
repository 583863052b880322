package scores_test

import (
	"archive/zip"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
	"github.com/verdict-ml/verdict/store"
)

var (
	_ store.Rows     = (*scores.WideReader)(nil)
	_ store.LongRows = (*scores.LongReader)(nil)
)

// tol is the tolerance for values that went through a decimal or binary
// encoding; the fixtures hold short decimals, so any real loss is far above it.
const tol = 1e-12

// wideRow is one row of a wide file as the reader returns it.
type wideRow struct {
	ID     string
	Draw   int64
	Values []float64
	Where  string
}

// longRow is one record of a long file as the reader returns it.
type longRow struct {
	ID     string
	Draw   int64
	Metric string
	Value  float64
	Where  string
}

// wideFile is what a test expects of a file in wide form.
type wideFile struct {
	Metrics []string
	HasDraw bool
	Rows    []wideRow
}

// longFile is what a test expects of a file in long form.
type longFile struct {
	HasDraw bool
	Rows    []longRow
}

// in returns a copy of f whose Where fields, which start with a file's base
// name, are prefixed with the directory of path.
func (f wideFile) in(path string) wideFile {
	rows := make([]wideRow, len(f.Rows))
	for i, r := range f.Rows {
		r.Where = inDir(path, r.Where)
		rows[i] = r
	}
	f.Rows = rows
	return f
}

// in returns a copy of f whose Where fields, which start with a file's base
// name, are prefixed with the directory of path.
func (f longFile) in(path string) longFile {
	rows := make([]longRow, len(f.Rows))
	for i, r := range f.Rows {
		r.Where = inDir(path, r.Where)
		rows[i] = r
	}
	f.Rows = rows
	return f
}

// inDir prefixes an expected message, which starts with a file's base name,
// with the directory of path, since messages name files as given.
func inDir(path, msg string) string {
	return filepath.Dir(path) + string(filepath.Separator) + msg
}

// readWide opens path and reads it to the end as a wide file.
func readWide(t *testing.T, path, format string) (wideFile, error) {
	t.Helper()
	s, err := scores.OpenScores(path, format)
	if err != nil {
		return wideFile{}, err
	}
	defer s.Close()
	require.Nil(t, s.Long(), "Long of a wide file")
	r := s.Wide()
	require.NotNil(t, r, "Wide of a wide file")
	got := wideFile{Metrics: r.Metrics(), HasDraw: r.HasDraw()}
	for r.Next() {
		got.Rows = append(got.Rows, wideRow{
			ID: r.SampleID(), Draw: r.Draw(), Values: append([]float64(nil), r.Values()...), Where: r.Where(),
		})
	}
	return got, r.Err()
}

// readLong opens path and reads it to the end as a long file.
func readLong(t *testing.T, path, format string) (longFile, error) {
	t.Helper()
	s, err := scores.OpenScores(path, format)
	if err != nil {
		return longFile{}, err
	}
	defer s.Close()
	require.Nil(t, s.Wide(), "Wide of a long file")
	r := s.Long()
	require.NotNil(t, r, "Long of a long file")
	got := longFile{HasDraw: r.HasDraw()}
	for r.Next() {
		got.Rows = append(got.Rows, longRow{
			ID: r.SampleID(), Draw: r.Draw(), Metric: r.Metric(), Value: r.Value(), Where: r.Where(r.Record()),
		})
	}
	return got, r.Err()
}

// readAll opens path and reads it to the end in whichever form it has,
// returning the first error.
func readAll(t *testing.T, path, format string) error {
	t.Helper()
	s, err := scores.OpenScores(path, format)
	if err != nil {
		return err
	}
	defer s.Close()
	if r := s.Wide(); r != nil {
		for r.Next() {
		}
		return r.Err()
	}
	r := s.Long()
	for r.Next() {
	}
	return r.Err()
}

// requireWide compares wide files, values within tol (NaN equal to NaN).
func requireWide(t *testing.T, want, got wideFile) {
	t.Helper()
	require.Equal(t, want.Metrics, got.Metrics, "metrics")
	require.Equal(t, want.HasDraw, got.HasDraw, "HasDraw")
	require.Len(t, got.Rows, len(want.Rows), "rows: %v", got.Rows)
	for i, w := range want.Rows {
		g := got.Rows[i]
		require.Equal(t, w.ID, g.ID, "row %d sample ID", i)
		require.Equal(t, w.Draw, g.Draw, "row %d draw", i)
		require.Equal(t, w.Where, g.Where, "row %d Where", i)
		require.Len(t, g.Values, len(w.Values), "row %d values", i)
		for j := range w.Values {
			requireClose(t, w.Values[j], g.Values[j], "row %d value %d", i, j)
		}
	}
}

// requireLong compares long files, values within tol.
func requireLong(t *testing.T, want, got longFile) {
	t.Helper()
	require.Equal(t, want.HasDraw, got.HasDraw, "HasDraw")
	require.Len(t, got.Rows, len(want.Rows), "records: %v", got.Rows)
	for i, w := range want.Rows {
		g := got.Rows[i]
		requireClose(t, w.Value, g.Value, "record %d value", i)
		w.Value, g.Value = 0, 0
		require.Equal(t, w, g, "record %d", i)
	}
}

func requireClose(t *testing.T, want, got float64, msg string, args ...any) {
	t.Helper()
	if math.IsNaN(want) || math.IsInf(want, 0) {
		require.Equal(t, fmt.Sprint(want), fmt.Sprint(got), append([]any{msg}, args...)...)
		return
	}
	require.InDelta(t, want, got, tol, append([]any{msg}, args...)...)
}

func TestOpenScoresFormat(t *testing.T) {
	t.Parallel()
	const csv = "sample_id,ndcg@10\nu1,0.5\n"
	tests := []struct {
		name    string
		file    string
		format  string
		wantErr string
	}{
		{name: "csv", file: "scores.csv"},
		{name: "upper case extension", file: "SCORES.CSV"},
		{name: "gzipped csv", file: "scores.csv.gz"},
		{name: "format overrides the extension", file: "scores.txt", format: "csv"},
		{name: "format in upper case", file: "scores.txt", format: "CSV"},
		{name: "gzip found by its magic bytes", file: "scores.gz", format: "csv"},
		{
			name: "unknown extension", file: "scores.txt",
			wantErr: `scores.txt: unknown scores format ".txt": the formats are csv, tsv, jsonl (also .ndjson), parquet and npz, ` +
				`and the text formats may be gzipped (.csv.gz); name the format when the file name does not say it`,
		},
		{
			name: "unknown gzipped extension", file: "scores.txt.gz",
			wantErr: `scores.txt.gz: unknown scores format ".txt.gz": the formats are csv, tsv, jsonl (also .ndjson), parquet and npz, ` +
				`and the text formats may be gzipped (.csv.gz); name the format when the file name does not say it`,
		},
		{
			name: "no extension", file: "scores",
			wantErr: `scores: unknown scores format: the file name has no extension; the formats are csv, tsv, jsonl (also .ndjson), parquet and npz, ` +
				`and the text formats may be gzipped (.csv.gz); name the format when the file name does not say it`,
		},
		{
			name: "gzipped parquet", file: "scores.parquet.gz",
			wantErr: `scores.parquet.gz: unknown scores format: only text formats may be gzipped; .parquet files are compressed inside already, so decompress this one first`,
		},
		{
			name: "unknown format", file: "scores.csv", format: "xlsx",
			wantErr: `scores.csv: unknown scores format "xlsx": the formats are csv, tsv, jsonl (also .ndjson), parquet and npz, ` +
				`and the text formats may be gzipped (.csv.gz); name the format when the file name does not say it`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := inputtest.WriteFile(t, tt.file, []byte(csv))
			s, err := scores.OpenScores(path, tt.format)
			if tt.wantErr != "" {
				require.EqualError(t, err, inDir(path, tt.wantErr))
				require.ErrorIs(t, err, scores.ErrUnknownFormat)
				return
			}
			require.NoError(t, err)
			defer s.Close()
			r := s.Wide()
			require.True(t, r.Next())
			require.Equal(t, "u1", r.SampleID())
			require.False(t, r.Next())
			require.NoError(t, r.Err())
		})
	}
}

func TestOpenScoresMissingFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "absent.csv")
	_, err := scores.OpenScores(path, "")
	require.ErrorIs(t, err, os.ErrNotExist)
	require.NotErrorIs(t, err, scores.ErrBadInput)
}

func TestScoresProgress(t *testing.T) {
	t.Parallel()
	const n = 200_000
	ids := make([]string, n)
	values := make([]float64, n)
	var csv bytes.Buffer
	csv.WriteString("sample_id,ndcg@10\n")
	for i := range n {
		ids[i] = fmt.Sprintf("u%07d", i)
		values[i] = float64(i) / n
		fmt.Fprintf(&csv, "%s,%g\n", ids[i], values[i])
	}
	tests := []struct {
		name  string
		write func(t *testing.T) string
	}{
		{name: "csv", write: func(t *testing.T) string { return inputtest.WriteFile(t, "scores.csv", csv.Bytes()) }},
		{name: "gzipped csv", write: func(t *testing.T) string { return inputtest.WriteFile(t, "scores.csv.gz", csv.Bytes()) }},
		{name: "parquet", write: func(t *testing.T) string {
			rows := make([]pqWide, n)
			for i := range rows {
				rows[i] = pqWide{SampleID: ids[i], NDCG: values[i]}
			}
			return inputtest.WriteParquet(t, "scores.parquet", rows)
		}},
		{name: "npz", write: func(t *testing.T) string {
			return inputtest.WriteNPZ(t, "scores.npz", zip.Deflate,
				inputtest.Array("sample_id", inputtest.NPY(1, "'<U8'", fmt.Sprintf("(%d,)", n), inputtest.Strings(8, ids...))),
				npyioArray(t, "ndcg@10", values))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := tt.write(t)
			info, err := os.Stat(path)
			require.NoError(t, err)
			s, err := scores.OpenScores(path, "")
			require.NoError(t, err)
			defer s.Close()
			done, total := s.Progress()
			require.Equal(t, info.Size(), total)
			require.Less(t, done, total/2, "after reading the header")
			r := s.Wide()
			rows := 0
			for r.Next() {
				rows++
				if rows == n/2 {
					done, _ = s.Progress()
					require.Greater(t, done, total/4, "half way")
					require.Less(t, done, total, "half way")
				}
			}
			require.NoError(t, r.Err())
			require.Equal(t, n, rows)
			done, total = s.Progress()
			require.Equal(t, total, done)
		})
	}
}

func ExampleOpenScores() {
	dir, err := os.MkdirTemp("", "verdict")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "scores.csv")
	content := "sample_id,ndcg@10,recall@10\nu1,0.63093,1\nu2,0,0\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		panic(err)
	}

	s, err := scores.OpenScores(path, "")
	if err != nil {
		panic(err)
	}
	defer s.Close()
	r := s.Wide()
	fmt.Println(r.Metrics())
	for r.Next() {
		fmt.Printf("%s %.4f\n", r.SampleID(), r.Values())
	}
	if err := r.Err(); err != nil {
		panic(err)
	}
	// Output:
	// [ndcg@10 recall@10]
	// u1 [0.6309 1.0000]
	// u2 [0.0000 0.0000]
}

// TestReadScoresStream reads text input once, from a reader, as a server
// reads a request's body; the formats read from their end need a file.
func TestReadScoresStream(t *testing.T) {
	t.Parallel()
	s, err := scores.ReadScores(strings.NewReader("sample_id,ndcg\nu1,0.5\nu2,1e-50\n"), "body", "csv", nil)
	require.NoError(t, err)
	defer s.Close()
	r := s.Wide()
	require.Equal(t, []string{"ndcg"}, r.Metrics())
	require.True(t, r.Next())
	require.Equal(t, "u1", r.SampleID())
	require.False(t, r.Next())
	require.ErrorIs(t, r.Err(), scores.ErrBadInput)
	require.Contains(t, r.Err().Error(), "body: line 3")

	_, err = scores.ReadScores(strings.NewReader("PAR1"), "body", "parquet", nil)
	require.ErrorIs(t, err, scores.ErrUnknownFormat)
	require.Contains(t, err.Error(), "parquet and npz need a file")
}
