package evaluate_test

import (
	"archive/zip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/internal/input/inputtest"
)

// BenchmarkNumPyRankings reads items, scores and targets, validates them and
// builds the hits: everything `verdict evaluate` does before the metrics.
//
// By default it reads benchRankRows × 100 rankings generated here. Set
// VERDICT_BENCH_RANKINGS to a directory written by
// /work/shared/bench/gen_ranking.py (items.npy, scores.npy, targets.npz,
// user_ids.npy) to read that instead, for example the 1,000,000 × 100 of the
// performance goal:
//
//	/usr/bin/python3 gen_ranking.py /tmp/rk 1000000 100 50000 1
//	VERDICT_BENCH_RANKINGS=/tmp/rk go test ./evaluate -run '^$' -bench NumPyRankings -benchtime 3x
func BenchmarkNumPyRankings(b *testing.B) {
	dir := os.Getenv("VERDICT_BENCH_RANKINGS")
	if dir == "" {
		dir = b.TempDir()
		writeBenchRankings(b, dir)
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	for _, bc := range []struct {
		name string
		opts evaluate.RankingOptions
	}{
		{"validate", evaluate.RankingOptions{}},
		{"skip-validation", evaluate.RankingOptions{SkipValidation: true}},
		{"width-20", evaluate.RankingOptions{Width: 20}},
		{"no-items", evaluate.RankingOptions{}}, // as Run reads them without debug rows or whole-set metrics
	} {
		b.Run(bc.name, func(b *testing.B) {
			var rows, hits int64
			for b.Loop() {
				r, err := evaluate.OpenNumPyRankings(path("items.npy"), path("scores.npy"), path("targets.npz"), path("user_ids.npy"), bc.opts)
				require.NoError(b, err)
				if bc.name == "no-items" {
					evaluate.DropItems(r)
				}
				rows, hits = 0, 0
				for {
					batch, err := r.Next()
					if err == io.EOF {
						break
					}
					require.NoError(b, err)
					rows += int64(batch.Len())
					for _, h := range batch.Hits {
						if h {
							hits++
						}
					}
				}
				_ = r.Targets().Sum()
				require.NoError(b, r.Close())
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(rows)/b.Elapsed().Seconds()*float64(b.N), "rows/s")
			b.ReportMetric(float64(ms.Sys)/1e6, "sys-MB")
		})
	}
}

// benchRankRows is the size of the generated benchmark rankings.
const benchRankRows = 200_000

// writeBenchRankings writes benchRankRows × 100 rankings over 50,000 items
// to dir, like gen_ranking.py's: 1 to 40 targets per row (none for 5 %), a
// fifth of them among the predictions.
func writeBenchRankings(b *testing.B, dir string) {
	const k, items = 100, 50_000
	rng := rand.New(rand.NewPCG(3, 4))
	indptr := []int64{0}
	var indices []int32
	itemRows := make([]int32, 0, benchRankRows*k)
	scoreRows := make([]float32, 0, benchRankRows*k)
	ids := make([]int64, 0, benchRankRows)
	seen := make(map[int32]bool)
	for r := range benchRankRows {
		clear(seen)
		n := 0
		if rng.Float64() >= 0.05 {
			n = 1 + min(int(rng.ExpFloat64()*7), 39)
		}
		var row []int32
		for range n {
			t := int32(rng.IntN(items))
			if !seen[t] {
				seen[t] = true
				indices = append(indices, t)
				if rng.Float64() < 0.2 {
					row = append(row, t)
				}
			}
		}
		indptr = append(indptr, int64(len(indices)))
		for len(row) < k {
			it := int32(rng.IntN(items))
			if !seen[it] {
				seen[it] = true
				row = append(row, it)
			}
		}
		for j, it := range row {
			itemRows = append(itemRows, it)
			scoreRows = append(scoreRows, float32(k-j))
		}
		ids = append(ids, int64(10_000_000+r))
	}
	shape := fmt.Sprintf("(%d, %d)", benchRankRows, k)
	for name, arr := range map[string]npyArr{
		"items.npy":    {"'<i4'", shape, inputtest.Int32s(itemRows...)},
		"scores.npy":   {"'<f4'", shape, inputtest.Float32s(scoreRows...)},
		"user_ids.npy": {"'<i8'", fmt.Sprintf("(%d,)", benchRankRows), inputtest.Int64s(ids...)},
	} {
		require.NoError(b, os.WriteFile(filepath.Join(dir, name), arr.file(), 0o644))
	}
	data := make([]float32, len(indices))
	for i := range data {
		data[i] = 1
	}
	npz := csrNPZ(benchRankRows, items, inputtest.Int64s(indptr...), inputtest.Int32s(indices...), inputtest.Float32s(data...))
	require.NoError(b, os.WriteFile(filepath.Join(dir, "targets.npz"), inputtest.Zip(zip.Deflate, npz...), 0o644))
}
