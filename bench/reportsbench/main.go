// Command reportsbench fills a database with an experiment of many runs for
// bench/reports: -runs runs with params, tags and -per evaluations each (the
// checkpoints of a training run, logged over time), every evaluation holding
// -units users' ndcg@10 and recall@20. Run quality depends on the params, so
// filters and leaderboards have something to find. The data is seeded and
// the same on every call; an experiment that already has its evaluations is
// left alone.
//
//	go run ./bench/reportsbench -url URL [-experiment E] [-runs 1000] [-per 10] [-units 1000]
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/verdict-ml/verdict/store"
)

func main() {
	url := flag.String("url", os.Getenv("VERDICT_DATABASE_URL"), "database URL")
	exp := flag.String("experiment", "bench-reports", "experiment name")
	runs := flag.Int("runs", 1000, "runs")
	per := flag.Int("per", 10, "evaluations per run")
	units := flag.Int("units", 1000, "users per evaluation")
	flag.Parse()
	ctx := context.Background()
	st, err := store.Open(ctx, *url, store.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer st.Close()
	have, err := st.ListEvaluations(ctx, store.EvaluationFilter{Experiment: *exp})
	if err != nil {
		log.Fatal(err)
	}
	if len(have) >= *runs**per {
		fmt.Printf("%s already has %d evaluations\n", *exp, len(have))
		return
	}
	if len(have) > 0 {
		log.Fatalf("%s has %d of %d evaluations: drop it and start again", *exp, len(have), *runs**per)
	}

	ids := make([]string, *units)
	base := make([]float64, *units) // how easy each user is
	rng := rand.New(rand.NewPCG(1, 2))
	for u := range ids {
		ids[u] = fmt.Sprintf("u%06d", u)
		base[u] = rng.Float64()
	}
	models := []string{"item-knn", "mf", "popularity", "sasrec", "bert4rec"}
	start := time.Now()
	for r := range *runs {
		lr := math.Pow(10, -4+3*rng.Float64())
		layers := 1 + rng.IntN(6)
		model := models[rng.IntN(len(models))]
		quality := 0.05*math.Exp(-math.Pow(math.Log10(lr)+2.5, 2)) + 0.01*float64(layers) + 0.02*float64(len(model)%3)
		tags := []string{"sweep-" + string(rune('a'+r%4))}
		if r%50 == 0 {
			tags = append(tags, "baseline")
		}
		for k := range *per {
			step := float64(k+1) / float64(*per)
			vals := make([][]float64, *units)
			for u := range vals {
				ndcg := min(max(0.3*base[u]+quality*step+0.1*rng.NormFloat64(), 0), 1)
				recall := min(max(0.5*base[u]+1.5*quality*step+0.15*rng.NormFloat64(), 0), 1)
				vals[u] = []float64{ndcg, recall}
			}
			_, err := st.LogEvaluation(ctx, store.NewEvaluation{
				Experiment: *exp, Run: fmt.Sprintf("run-%04d", r), EvalSet: "test",
				Params:   map[string]any{"lr": lr, "layers": layers, "model": model},
				Tags:     tags,
				Metadata: map[string]any{"step": (k + 1) * 1000},
			}, &rows{ids: ids, vals: vals})
			if err != nil {
				log.Fatal(err)
			}
		}
		if (r+1)%100 == 0 {
			fmt.Printf("%d runs, %d evaluations logged in %.0f s\n", r+1, (r+1)**per, time.Since(start).Seconds())
		}
	}
}

// rows is one evaluation's values in memory.
type rows struct {
	ids  []string
	vals [][]float64
	i    int
}

func (r *rows) Metrics() []string { return []string{"ndcg@10", "recall@20"} }
func (r *rows) HasDraw() bool     { return false }
func (r *rows) Next() bool        { r.i++; return r.i <= len(r.ids) }
func (r *rows) SampleID() string  { return r.ids[r.i-1] }
func (r *rows) Draw() int64       { return 0 }
func (r *rows) Values() []float64 { return r.vals[r.i-1] }
func (r *rows) Where() string     { return fmt.Sprintf("row %d", r.i) }
func (r *rows) Err() error        { return nil }
