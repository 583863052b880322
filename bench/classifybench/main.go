// Command classifybench writes, or times verdict's paired bootstrap of, a
// synthetic binary classification set: n samples with a share of
// positives, a latent signal z ~ N(0, 1) plus 1.5 for positives, and two
// models that see it through independent N(0, 1) noise, so that they have
// the same true ROC AUC; their scores are probabilities, the logistic of
// z + noise − 4. bench/classify uses it to write the file that `verdict
// stats paired-bootstrap --metric` and bench/classify_peer.py both read.
//
//	classifybench -write FILE [-n 1000000] [-positives 0.01] [-seed 1]
//	classifybench [-n 1000000] [-positives 0.01] [-b 2000] [-metric roc_auc]
//
// With -write it writes a CSV of label,left,right, the scores rounded to
// float32 and printed in the fewest digits that read back as that float32,
// as a model that computes in float32 would write them. Without -write it
// times classify.PairedBootstrap in process, with no file to parse, and
// prints one line of timing, then the result.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/verdict-ml/verdict/classify"
)

func main() {
	n := flag.Int("n", 1_000_000, "number of samples")
	positives := flag.Float64("positives", 0.01, "share of positives")
	seed := flag.Uint64("seed", 1, "data seed")
	write := flag.String("write", "", "write label,left,right to `FILE` and exit")
	b := flag.Int("b", 2000, "bootstrap replicates")
	metric := flag.String("metric", "roc_auc", "metric")
	flag.Parse()

	labels, left, right := generate(*n, *positives, *seed)
	if *write != "" {
		if err := writeCSV(*write, labels, left, right); err != nil {
			log.Fatal(err)
		}
		return
	}
	opts := classify.DefaultBootstrapOptions()
	opts.Resamples = *b
	start := time.Now()
	res, err := classify.PairedBootstrap(*metric, labels, left, right, opts)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("n=%d B=%d GOMAXPROCS=%d %s=%.3fs\n", *n, *b, runtime.GOMAXPROCS(0), *metric, time.Since(start).Seconds())
	fmt.Printf("left=%.6f right=%.6f diff=%.6f ci=(%.6f,%.6f) se=%.6f p=%.4f\n", res.Left, res.Right, res.Difference, res.Low, res.High, res.SE, res.PValue)
}

// generate returns the labels and both models' probabilities.
func generate(n int, positives float64, seed uint64) ([]int8, []float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 2))
	labels := make([]int8, n)
	left, right := make([]float64, n), make([]float64, n)
	for i := range n {
		z := rng.NormFloat64()
		if rng.Float64() < positives {
			labels[i] = 1
			z += 1.5
		}
		left[i] = logistic(z + rng.NormFloat64() - 4)
		right[i] = logistic(z + rng.NormFloat64() - 4)
	}
	return labels, left, right
}

func logistic(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func writeCSV(path string, labels []int8, left, right []float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString("label,left,right\n")
	var buf []byte
	for i := range labels {
		buf = strconv.AppendInt(buf[:0], int64(labels[i]), 10)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, left[i], 'g', -1, 32)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, right[i], 'g', -1, 32)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
