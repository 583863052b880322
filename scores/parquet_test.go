package scores_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
)

type pqWide struct {
	SampleID string  `parquet:"sample_id"`
	NDCG     float64 `parquet:"ndcg@10,zstd"`
	Recall   float32 `parquet:"recall@10,snappy"`
	Hits     int32   `parquet:"hits@10"`
}

type pqWideDraw struct {
	Draw     int16  `parquet:"draw"`
	SampleID int64  `parquet:"sample_id"`
	Hits     uint64 `parquet:"hits@10"`
}

type pqUnsignedIDs struct {
	SampleID uint32  `parquet:"sample_id"`
	Draw     uint8   `parquet:"draw"`
	NDCG     float64 `parquet:"ndcg@10"`
}

type pqPandas struct {
	SampleID []byte  `parquet:"sample_id,dict"`
	NDCG     float64 `parquet:"ndcg@10"`
	Index    int64   `parquet:"__index_level_0__"`
}

type pqLong struct {
	SampleID string  `parquet:"sample_id,dict"`
	Draw     int32   `parquet:"draw"`
	Metric   string  `parquet:"metric,dict"`
	Value    float32 `parquet:"value"`
}

type pqOptional struct {
	SampleID *string  `parquet:"sample_id,optional"`
	Draw     *int32   `parquet:"draw,optional"`
	NDCG     *float64 `parquet:"ndcg@10,optional"`
}

func TestParquetWide(t *testing.T) {
	t.Parallel()
	// Enough rows for several row groups, pages and read batches.
	var many []pqWide
	var manyWant []wideRow
	for i := range 10_000 {
		many = append(many, pqWide{SampleID: fmt.Sprintf("u%05d", i), NDCG: float64(i) / 8, Recall: 0.5, Hits: int32(i % 7)})
		manyWant = append(manyWant, wideRow{
			ID: fmt.Sprintf("u%05d", i), Values: []float64{float64(i) / 8, 0.5, float64(i % 7)}, Where: fmt.Sprintf("scores.parquet: row %d", i+1),
		})
	}
	ptr := func(s string) *string { return &s }
	i32 := func(i int32) *int32 { return &i }
	f64 := func(f float64) *float64 { return &f }
	tests := []struct {
		name  string
		write func(t *testing.T) string
		want  wideFile
	}{
		{
			name: "many rows in several row groups and pages",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "scores.parquet", many, parquet.MaxRowsPerRowGroup(3000), parquet.PageBufferSize(1024))
			},
			want: wideFile{Metrics: []string{"ndcg@10", "recall@10", "hits@10"}, Rows: manyWant},
		},
		{
			name: "integer sample IDs and draw",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "scores.parquet", []pqWideDraw{
					{SampleID: -5, Draw: 0, Hits: 3},
					{SampleID: -5, Draw: 32767, Hits: 1 << 40},
				})
			},
			want: wideFile{Metrics: []string{"hits@10"}, HasDraw: true, Rows: []wideRow{
				{ID: "-5", Draw: 0, Values: []float64{3}, Where: "scores.parquet: row 1"},
				{ID: "-5", Draw: 32767, Values: []float64{1 << 40}, Where: "scores.parquet: row 2"},
			}},
		},
		{
			name: "unsigned sample IDs and draw",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "scores.parquet", []pqUnsignedIDs{{SampleID: 4_000_000_000, Draw: 200, NDCG: 0.25}})
			},
			want: wideFile{Metrics: []string{"ndcg@10"}, HasDraw: true, Rows: []wideRow{
				{ID: "4000000000", Draw: 200, Values: []float64{0.25}, Where: "scores.parquet: row 1"},
			}},
		},
		{
			name: "byte array IDs, dictionary encoded; a pandas index is skipped",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "scores.parquet", []pqPandas{
					{SampleID: []byte("u1"), NDCG: 0.5, Index: 10},
					{SampleID: []byte("u2"), NDCG: 0.25, Index: 11},
				})
			},
			want: wideFile{Metrics: []string{"ndcg@10"}, Rows: []wideRow{
				{ID: "u1", Values: []float64{0.5}, Where: "scores.parquet: row 1"},
				{ID: "u2", Values: []float64{0.25}, Where: "scores.parquet: row 2"},
			}},
		},
		{
			name: "optional columns without nulls",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "scores.parquet", []pqOptional{{SampleID: ptr("u1"), Draw: i32(1), NDCG: f64(0.5)}})
			},
			want: wideFile{Metrics: []string{"ndcg@10"}, HasDraw: true, Rows: []wideRow{
				{ID: "u1", Draw: 1, Values: []float64{0.5}, Where: "scores.parquet: row 1"},
			}},
		},
		{
			name: "no rows",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "scores.parquet", []pqWide{})
			},
			want: wideFile{Metrics: []string{"ndcg@10", "recall@10", "hits@10"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := tt.write(t)
			got, err := readWide(t, path, "")
			require.NoError(t, err)
			requireWide(t, tt.want.in(path), got)
		})
	}
}

func TestParquetLong(t *testing.T) {
	t.Parallel()
	path := inputtest.WriteParquet(t, "scores.parquet", []pqLong{
		{SampleID: "u1", Draw: 0, Metric: "ndcg@10", Value: 0.5},
		{SampleID: "u1", Draw: 0, Metric: "recall@10", Value: 1},
		{SampleID: "u1", Draw: 1, Metric: "ndcg@10", Value: 0.25},
	})
	want := longFile{HasDraw: true, Rows: []longRow{
		{ID: "u1", Draw: 0, Metric: "ndcg@10", Value: 0.5, Where: inDir(path, "scores.parquet: row 1")},
		{ID: "u1", Draw: 0, Metric: "recall@10", Value: 1, Where: inDir(path, "scores.parquet: row 2")},
		{ID: "u1", Draw: 1, Metric: "ndcg@10", Value: 0.25, Where: inDir(path, "scores.parquet: row 3")},
	}}
	got, err := readLong(t, path, "")
	require.NoError(t, err)
	requireLong(t, want, got)
}

func TestParquetBad(t *testing.T) {
	t.Parallel()
	ptr := func(s string) *string { return &s }
	i32 := func(i int32) *int32 { return &i }
	f64 := func(f float64) *float64 { return &f }
	tests := []struct {
		name    string
		write   func(t *testing.T) string
		wantErr string // after the file's directory
	}{
		{
			name: "not parquet",
			write: func(t *testing.T) string {
				return inputtest.WriteFile(t, "scores.parquet", []byte("sample_id,ndcg@10\nu1,0.5\n"))
			},
			wantErr: `scores.parquet: not a readable Parquet file: invalid magic header of parquet file: "samp"`,
		},
		{
			name: "empty file",
			write: func(t *testing.T) string {
				return inputtest.WriteFile(t, "scores.parquet", nil)
			},
			wantErr: `scores.parquet: not a readable Parquet file: the file is empty`,
		},
		{
			name: "no sample_id",
			write: func(t *testing.T) string {
				type row struct {
					User string  `parquet:"user"`
					NDCG float64 `parquet:"ndcg@10"`
				}
				return inputtest.WriteParquet(t, "scores.parquet", []row{{"u1", 0.5}})
			},
			wantErr: `scores.parquet: no "sample_id" column among "user", "ndcg@10"`,
		},
		{
			name: "no metric",
			write: func(t *testing.T) string {
				type row struct {
					SampleID string `parquet:"sample_id"`
				}
				return inputtest.WriteParquet(t, "scores.parquet", []row{{"u1"}})
			},
			wantErr: `scores.parquet: no metric columns besides "sample_id"`,
		},
		{
			name: "boolean metric",
			write: func(t *testing.T) string {
				type row struct {
					SampleID string `parquet:"sample_id"`
					Hit      bool   `parquet:"hit@10"`
				}
				return inputtest.WriteParquet(t, "scores.parquet", []row{{"u1", true}})
			},
			wantErr: `scores.parquet: column "hit@10": has type BOOLEAN; it must be a float, double or integer`,
		},
		{
			name: "string metric",
			write: func(t *testing.T) string {
				type row struct {
					SampleID string `parquet:"sample_id"`
					NDCG     string `parquet:"ndcg@10"`
				}
				return inputtest.WriteParquet(t, "scores.parquet", []row{{"u1", "0.5"}})
			},
			wantErr: `scores.parquet: column "ndcg@10": has type STRING; it must be a float, double or integer`,
		},
		{
			name: "float sample IDs",
			write: func(t *testing.T) string {
				type row struct {
					SampleID float64 `parquet:"sample_id"`
					NDCG     float64 `parquet:"ndcg@10"`
				}
				return inputtest.WriteParquet(t, "scores.parquet", []row{{1, 0.5}})
			},
			wantErr: `scores.parquet: column "sample_id": has type DOUBLE; it must be a string or an integer`,
		},
		{
			name: "float draw",
			write: func(t *testing.T) string {
				type row struct {
					SampleID string  `parquet:"sample_id"`
					Draw     float64 `parquet:"draw"`
					NDCG     float64 `parquet:"ndcg@10"`
				}
				return inputtest.WriteParquet(t, "scores.parquet", []row{{"u1", 1, 0.5}})
			},
			wantErr: `scores.parquet: column "draw": has type DOUBLE; it must be an integer`,
		},
		{
			name: "a list column",
			write: func(t *testing.T) string {
				type row struct {
					SampleID string    `parquet:"sample_id"`
					NDCG     []float64 `parquet:"ndcg"`
				}
				return inputtest.WriteParquet(t, "scores.parquet", []row{{"u1", []float64{0.5}}})
			},
			wantErr: `scores.parquet: column "ndcg": is nested (a group, list or map); only flat columns of numbers and strings are supported`,
		},
		{
			name: "a group column",
			write: func(t *testing.T) string {
				type at struct {
					Ten float64 `parquet:"10"`
				}
				type row struct {
					SampleID string `parquet:"sample_id"`
					NDCG     at     `parquet:"ndcg"`
				}
				return inputtest.WriteParquet(t, "scores.parquet", []row{{"u1", at{0.5}}})
			},
			wantErr: `scores.parquet: column "ndcg": is nested (a group, list or map); only flat columns of numbers and strings are supported`,
		},
		{
			name: "a null value",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "scores.parquet", []pqOptional{
					{SampleID: ptr("u1"), Draw: i32(0), NDCG: f64(0.5)},
					{SampleID: ptr("u2"), Draw: i32(0)},
				})
			},
			wantErr: `scores.parquet: row 2 (sample "u2"), column "ndcg@10": value missing`,
		},
		{
			name: "a null sample ID",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "scores.parquet", []pqOptional{{Draw: i32(0), NDCG: f64(0.5)}})
			},
			wantErr: `scores.parquet: row 1, column "sample_id": sample ID missing`,
		},
		{
			name: "a null draw",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "scores.parquet", []pqOptional{{SampleID: ptr("u1"), NDCG: f64(0.5)}})
			},
			wantErr: `scores.parquet: row 1 (sample "u1"), column "draw": draw missing`,
		},
		{
			name: "draw out of range",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "scores.parquet", []pqLong{
					{SampleID: "u1", Draw: 1, Metric: "a", Value: 1},
					{SampleID: "u1", Draw: -1, Metric: "a", Value: 1},
				})
			},
			wantErr: `scores.parquet: row 2 (sample "u1"), column "draw": draw -1 is not a whole number from 0 to 32767`,
		},
		{
			name: "unsigned draw out of range",
			write: func(t *testing.T) string {
				type row struct {
					SampleID string  `parquet:"sample_id"`
					Draw     uint64  `parquet:"draw"`
					NDCG     float64 `parquet:"ndcg@10"`
				}
				return inputtest.WriteParquet(t, "scores.parquet", []row{{"u1", 1 << 63, 0.5}})
			},
			wantErr: `scores.parquet: row 1 (sample "u1"), column "draw": draw 9223372036854775808 is not a whole number from 0 to 32767`,
		},
		{
			name: "long form: empty metric",
			write: func(t *testing.T) string {
				return inputtest.WriteParquet(t, "scores.parquet", []pqLong{{SampleID: "u1", Metric: "", Value: 1}})
			},
			wantErr: `scores.parquet: row 1 (sample "u1"), column "metric": metric name missing`,
		},
		{
			name: "long form: numeric metric names",
			write: func(t *testing.T) string {
				type row struct {
					SampleID string  `parquet:"sample_id"`
					Metric   int32   `parquet:"metric"`
					Value    float64 `parquet:"value"`
				}
				return inputtest.WriteParquet(t, "scores.parquet", []row{{"u1", 10, 0.5}})
			},
			wantErr: `scores.parquet: column "metric": has type INT(32,true); it must be a string`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := tt.write(t)
			err := readAll(t, path, "")
			require.EqualError(t, err, inDir(path, tt.wantErr))
			require.ErrorIs(t, err, scores.ErrBadInput)
		})
	}
}

func TestParquetCorrupt(t *testing.T) {
	t.Parallel()
	t.Run("truncated", func(t *testing.T) {
		t.Parallel()
		path := inputtest.WriteParquet(t, "scores.parquet", []pqWide{{SampleID: "u1"}})
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, b[:len(b)-20], 0o644))
		err = readAll(t, path, "")
		require.ErrorIs(t, err, scores.ErrBadInput)
		require.ErrorContains(t, err, inDir(path, `scores.parquet: not a readable Parquet file: `))
	})
	var rows []pqWide
	for i := range 1000 {
		rows = append(rows, pqWide{SampleID: fmt.Sprintf("u%04d", i), NDCG: float64(i)})
	}
	path := inputtest.WriteParquet(t, "scores.parquet", rows)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	// Overwrite the zstd-compressed ndcg@10 page data after its header.
	i := bytes.Index(b, []byte{0x28, 0xb5, 0x2f, 0xfd}) // the zstd frame magic
	require.Positive(t, i)
	copy(b[i:i+64], bytes.Repeat([]byte{0xff}, 64))
	require.NoError(t, os.WriteFile(path, b, 0o644))
	err = readAll(t, path, "")
	require.ErrorIs(t, err, scores.ErrBadInput)
	require.ErrorContains(t, err, inDir(path, `scores.parquet: row 1, column "ndcg@10": cannot decode: `))
}
