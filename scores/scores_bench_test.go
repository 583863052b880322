package scores_test

import (
	"archive/zip"
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/input/inputtest"
	"github.com/verdict-ml/verdict/scores"
)

// The benchmark input mirrors /work/shared/bench/gen_scores.py: benchUnits
// sample IDs such as u0000123 and 10 metrics, values in [0, 1] printed with
// 6 significant digits, 30 % exact zeros and 10 % exact ones. As CSV it is
// about 70 MB.
const benchUnits = 1_000_000

var benchMetrics = []string{
	"ndcg@10", "ndcg@20", "ndcg@50", "ndcg@100", "recall@10",
	"recall@20", "recall@50", "recall@100", "precision@10", "precision@20",
}

// benchRows calls row for each generated row; vals is reused.
func benchRows(row func(i int, id string, vals []float64) error) error {
	rng := rand.New(rand.NewPCG(1, 2))
	vals := make([]float64, len(benchMetrics))
	for i := range benchUnits {
		for j := range vals {
			switch v := rng.Float64(); {
			case v < 0.3:
				vals[j] = 0
			case v > 0.9:
				vals[j] = 1
			default:
				vals[j] = v
			}
		}
		if err := row(i, fmt.Sprintf("u%07d", i), vals); err != nil {
			return err
		}
	}
	return nil
}

// benchFiles writes the benchmark input in every format to dir, and
// returns the paths by format.
func benchFiles(dir string) (map[string]string, error) {
	paths := map[string]string{}
	for _, write := range []struct {
		name string
		fn   func(w io.Writer) error
	}{
		{"scores.csv", writeBenchCSV},
		{"scores.csv.gz", func(w io.Writer) error {
			zw := gzip.NewWriter(w)
			if err := writeBenchCSV(zw); err != nil {
				return err
			}
			return zw.Close()
		}},
		{"scores.jsonl", writeBenchJSONL},
		{"scores.parquet", writeBenchParquet},
		{"scores.npz", writeBenchNPZ},
	} {
		path := filepath.Join(dir, write.name)
		f, err := os.Create(path)
		if err != nil {
			return nil, err
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		if err := write.fn(bw); err != nil {
			return nil, err
		}
		if err := bw.Flush(); err != nil {
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
		paths[write.name] = path
	}
	return paths, nil
}

func writeBenchCSV(w io.Writer) error {
	fmt.Fprint(w, "sample_id")
	for _, m := range benchMetrics {
		fmt.Fprint(w, ",", m)
	}
	fmt.Fprintln(w)
	var line []byte
	return benchRows(func(_ int, id string, vals []float64) error {
		line = append(line[:0], id...)
		for _, v := range vals {
			line = fmt.Appendf(line, ",%.6g", v)
		}
		_, err := w.Write(append(line, '\n'))
		return err
	})
}

func writeBenchJSONL(w io.Writer) error {
	var line []byte
	return benchRows(func(_ int, id string, vals []float64) error {
		line = fmt.Appendf(line[:0], `{"sample_id": %q`, id)
		for j, v := range vals {
			line = fmt.Appendf(line, `, %q: %.6g`, benchMetrics[j], v)
		}
		_, err := w.Write(append(line, "}\n"...))
		return err
	})
}

// benchRow is a row of the Parquet benchmark input.
type benchRow struct {
	SampleID string  `parquet:"sample_id"`
	M0       float64 `parquet:"ndcg@10,snappy"`
	M1       float64 `parquet:"ndcg@20,snappy"`
	M2       float64 `parquet:"ndcg@50,snappy"`
	M3       float64 `parquet:"ndcg@100,snappy"`
	M4       float64 `parquet:"recall@10,snappy"`
	M5       float64 `parquet:"recall@20,snappy"`
	M6       float64 `parquet:"recall@50,snappy"`
	M7       float64 `parquet:"recall@100,snappy"`
	M8       float64 `parquet:"precision@10,snappy"`
	M9       float64 `parquet:"precision@20,snappy"`
}

func writeBenchParquet(w io.Writer) error {
	pw := parquet.NewGenericWriter[benchRow](w, parquet.MaxRowsPerRowGroup(128<<10))
	batch := make([]benchRow, 0, 4096)
	flush := func() error {
		_, err := pw.Write(batch)
		batch = batch[:0]
		return err
	}
	err := benchRows(func(_ int, id string, v []float64) error {
		batch = append(batch, benchRow{id, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]})
		if len(batch) == cap(batch) {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := flush(); err != nil {
		return err
	}
	return pw.Close()
}

// writeBenchNPZ writes the arrays as np.savez does: stored members, IDs as
// '<U8' and metrics as '<f8'.
func writeBenchNPZ(w io.Writer) error {
	ids := make([]byte, 0, 32*benchUnits)
	cols := make([][]byte, len(benchMetrics))
	err := benchRows(func(_ int, id string, vals []float64) error {
		ids = append(ids, inputtest.Strings(8, id)...)
		for j, v := range vals {
			cols[j] = append(cols[j], inputtest.Float64s(v)...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	shape := fmt.Sprintf("(%d,)", benchUnits)
	members := []inputtest.Member{inputtest.Array("sample_id", inputtest.NPY(1, "'<U8'", shape, ids))}
	for j, m := range benchMetrics {
		members = append(members, inputtest.Array(m, inputtest.NPY(1, "'<f8'", shape, cols[j])))
	}
	for _, m := range members {
		mw, err := zw.CreateHeader(&zip.FileHeader{Name: m.Name + ".npy", Method: zip.Store})
		if err != nil {
			return err
		}
		if _, err := mw.Write(m.Data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// BenchmarkScores reads 1,000,000 rows of 10 metrics in every format.
// B/op is short-lived garbage, about two small strings a row; the live heap
// stays flat, around 10 MiB whatever the file size. VERDICT_BENCH_CSV names
// another CSV file to read in the csv case, such as one written by
// gen_scores.py.
func BenchmarkScores(b *testing.B) {
	paths, err := benchFiles(b.TempDir())
	require.NoError(b, err)
	if p := os.Getenv("VERDICT_BENCH_CSV"); p != "" {
		paths["scores.csv"] = p
	}
	for _, name := range []string{"scores.csv", "scores.csv.gz", "scores.jsonl", "scores.parquet", "scores.npz"} {
		b.Run(name, func(b *testing.B) {
			path := paths[name]
			info, err := os.Stat(path)
			require.NoError(b, err)
			b.SetBytes(info.Size())
			b.ReportAllocs()
			for b.Loop() {
				s, err := scores.OpenScores(path, "")
				require.NoError(b, err)
				r := s.Wide()
				n := 0
				for r.Next() {
					n++
				}
				require.NoError(b, r.Err())
				require.Equal(b, benchUnits, n)
				require.NoError(b, s.Close())
			}
		})
	}
}
