package evaluate_test

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/verdict-ml/verdict/evaluate"
)

// The scoring benchmarks use 1,000,000 rows of width 100 in batches of
// 4096, shaped like /work/shared/bench/gen_ranking.py: 5 % of rows without
// targets, the others with R = min(Geometric(1/8), 40) relevant items, each
// found by the model with probability 0.25 and placed at the top, then the
// first 10 ranks shuffled; a stray hit anywhere with probability 0.002.
const (
	benchScoreRows  = 1_000_000
	benchScoreWidth = 100
	benchScoreBatch = 4096
)

var benchCutoffs = []int{10, 20, 50, 100}

var benchScoreBatches = sync.OnceValue(func() []*evaluate.Batch {
	return makeBenchBatches(func(rng *rand.Rand, hits []bool) int32 {
		if rng.Float64() < 0.05 {
			return 0
		}
		r := 1
		for r < 40 && rng.Float64() >= 1.0/8 {
			r++
		}
		found := 0
		for range r {
			if rng.Float64() < 0.25 {
				found++
			}
		}
		for i := range found {
			hits[i] = true
		}
		rng.Shuffle(10, func(i, j int) { hits[i], hits[j] = hits[j], hits[i] })
		for i := max(found, 10); i < len(hits) && found < r; i++ {
			if rng.Float64() < 0.002 {
				hits[i] = true
				found++
			}
		}
		return int32(r)
	})
})

// benchDenseBatches are the worst case: every rank is a hit with
// probability 1/2, and R = 100.
var benchDenseBatches = sync.OnceValue(func() []*evaluate.Batch {
	return makeBenchBatches(func(rng *rand.Rand, hits []bool) int32 {
		for i := range hits {
			hits[i] = rng.Uint32()&1 == 1
		}
		return benchScoreWidth
	})
})

func makeBenchBatches(row func(rng *rand.Rand, hits []bool) int32) []*evaluate.Batch {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []*evaluate.Batch
	for first := 0; first < benchScoreRows; first += benchScoreBatch {
		n := min(benchScoreBatch, benchScoreRows-first)
		b := &evaluate.Batch{
			SampleIDs: make([]string, n), First: int64(first), Width: benchScoreWidth,
			Hits: make([]bool, n*benchScoreWidth), Relevant: make([]int32, n),
		}
		for r := range n {
			b.SampleIDs[r] = fmt.Sprintf("u%07d", first+r)
			b.Relevant[r] = row(rng, b.Row(r))
		}
		out = append(out, b)
	}
	return out
}

// BenchmarkScore scores 1,000,000 rows per iteration; ns/row is the figure
// to quote. "all" is the 28 keys of 7 metrics at 10, 20, 50 and 100.
func BenchmarkScore(b *testing.B) {
	cases := []struct {
		name    string
		metrics []evaluate.Metric
		batches func() []*evaluate.Batch
	}{
		{"all", allMetrics(benchCutoffs...), benchScoreBatches},
		{"all/dense", allMetrics(benchCutoffs...), benchDenseBatches},
		{"default", evaluate.DefaultMetrics(benchScoreWidth), benchScoreBatches},
	}
	for _, m := range allMetrics(benchCutoffs...) {
		name := m.Keys()[0]
		cases = append(cases, struct {
			name    string
			metrics []evaluate.Metric
			batches func() []*evaluate.Batch
		}{name[:len(name)-3], []evaluate.Metric{m}, benchScoreBatches})
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			batches := c.batches()
			e, err := evaluate.NewEvaluator(c.metrics)
			if err != nil {
				b.Fatal(err)
			}
			var out []float64
			b.ReportAllocs()
			for b.Loop() {
				for _, batch := range batches {
					if out, err = e.Score(batch, out); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchScoreRows, "ns/row")
		})
	}
}

// BenchmarkScoreSummary is the whole of what `verdict evaluate` does with
// a batch after reading it: score the 28 keys and add them to the summary.
func BenchmarkScoreSummary(b *testing.B) {
	batches := benchScoreBatches()
	e, err := evaluate.NewEvaluator(allMetrics(benchCutoffs...))
	if err != nil {
		b.Fatal(err)
	}
	var out []float64
	b.ReportAllocs()
	for b.Loop() {
		s := e.NewSummary()
		for _, batch := range batches {
			if out, err = e.Score(batch, out); err != nil {
				b.Fatal(err)
			}
			s.Add(batch, out)
		}
		if s.Units() == 0 {
			b.Fatal("no units")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchScoreRows, "ns/row")
}

// BenchmarkSummaryAdd adds 1,000,000 scored rows of 28 keys to a summary
// and counts its units, per iteration.
func BenchmarkSummaryAdd(b *testing.B) {
	batches := benchScoreBatches()
	e, err := evaluate.NewEvaluator(allMetrics(benchCutoffs...))
	if err != nil {
		b.Fatal(err)
	}
	values := make([][]float64, len(batches))
	for i, batch := range batches {
		if values[i], err = e.Score(batch, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		s := e.NewSummary()
		for i, batch := range batches {
			s.Add(batch, values[i])
		}
		if s.Units() == 0 {
			b.Fatal("no units")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchScoreRows, "ns/row")
}
