package columns

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

// BenchmarkReadCSV reads 100,000 rows of label,left,right, scores with
// float32's digits as bench/classifybench writes them, and takes the three
// columns.
func BenchmarkReadCSV(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	buf := []byte("label,left,right\n")
	for range 100_000 {
		buf = strconv.AppendInt(buf, int64(rng.IntN(2)), 10)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, rng.Float64(), 'g', -1, 32)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, rng.Float64(), 'g', -1, 32)
		buf = append(buf, '\n')
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		in, err := Read(bytes.NewReader(buf), "bench", "csv")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := in.Floats("label", true); err != nil {
			b.Fatal(err)
		}
		if _, _, err := in.Pair(); err != nil {
			b.Fatal(err)
		}
	}
}
