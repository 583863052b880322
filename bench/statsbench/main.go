// Command statsbench times verdict's paired bootstrap and sign-flip
// randomisation test on synthetic paired scores shaped like those of
// ../shared/bench/scipy_compare.py: a_i ~ U(0, 1) and
// b_i = clip(a_i + N(0.001, 0.1²), 0, 1). bench/stats runs it side by side
// with that script.
//
//	go run ./bench/statsbench [-n 1000000] [-b 2000] [-seed 0]
//
// It prints one line of timings in seconds, then the interval and p-value.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/verdict-ml/verdict/stats"
)

func main() {
	n := flag.Int("n", 1_000_000, "number of paired units")
	b := flag.Int("b", 2000, "bootstrap resamples and random sign flips")
	seed := flag.Uint64("seed", 0, "resampling seed")
	flag.Parse()

	rng := rand.New(rand.NewPCG(0, 0))
	a, c := make([]float64, *n), make([]float64, *n)
	for i := range a {
		a[i] = rng.Float64()
		c[i] = min(max(a[i]+0.001+0.1*rng.NormFloat64(), 0), 1)
	}

	t := time.Now()
	boot, err := stats.PairedBootstrap(a, c, nil, stats.BootstrapOptions{Resamples: *b, Seed: *seed})
	if err != nil {
		log.Fatal(err)
	}
	tBoot := time.Since(t).Seconds()

	t = time.Now()
	perm, err := stats.Randomization(a, c, nil, stats.RandomizationOptions{Permutations: *b, Seed: *seed})
	if err != nil {
		log.Fatal(err)
	}
	tPerm := time.Since(t).Seconds()

	fmt.Printf("n=%d B=%d GOMAXPROCS=%d bootstrap=%.3fs randomization=%.3fs\n", *n, *b, runtime.GOMAXPROCS(0), tBoot, tPerm)
	fmt.Printf("ci=(%.6f,%.6f) p=%.4f\n", boot.Low, boot.High, perm.PValue)
}
