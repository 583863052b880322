// Command calibrationstudy measures, by simulation, how well verdict's
// paired tests keep their promises: the type I error of each test at
// alpha = 0.05, the coverage of its 95 % interval, and its power against a
// small true difference. It runs the tests as `verdict compare` and
// `verdict stats` run them (same functions, default options, seed 0) on
// simulated data shaped like real evaluation results:
//
//   - per-user metrics (0/1 hit rate, ndcg-like values with a point mass at
//     zero, leave-one-out ndcg@10 with heavy ties, and several rows per
//     user with a few heavy users) at 20 to 10,000 users and paired
//     correlations from 0 to 0.9;
//   - fold scores of two learners cross-validated on one data set
//     (10-fold, 10×10-fold and 5×2-fold), where training sets overlap;
//   - two classifiers' ROC AUC (DeLong and the stratified bootstrap);
//   - Friedman's test with Iman–Davenport, Holm and Nemenyi on three runs
//     ranked over users (verdict rank, verdict stats friedman);
//   - the stratified bootstrap of the other classifier metrics (average
//     precision, log loss, Brier, F1, ECE) that compare uses by default;
//   - the Poisson bootstrap and hashed sign-flip test that compare runs on
//     a distributed database, against the multinomial bootstrap and random
//     sign flips, from 20 to 100,000 paired units;
//   - compare's margin decisions (--margin) at the margin's boundary, where
//     the candidate is worse by exactly the margin: the bootstrap's and
//     the paired t's, on ndcg-like values and 0/1 correctness;
//   - two configurations of equal quality, each trained with 2 to 5 seeds
//     whose effects have a standard deviation of 0 to 0.05, on 60 and 500
//     users: the two-level bootstrap of runs and users (compare --groups,
//     stats.SeedBootstrap) against compare's default on one run of each.
//
// It writes one SVG figure per question to -out and prints Markdown
// tables of every rate with its 99 % Clopper–Pearson interval, then the
// configurations where a method rejects a true null more often than alpha
// allows. bench/calibration runs it; docs/calibration.md reads its output.
//
//	go run ./bench/calibrationstudy [-out docs/calibration] [-scale 1] [-workers N] [-format svg]
//
// Every replication has its own random stream, seeded from its
// configuration's name and its index, so the output is the same on any
// number of cores.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"runtime"
	"strings"
	"time"
)

func main() {
	out := flag.String("out", "docs/calibration", "`DIR` to write the figures to")
	scale := flag.Float64("scale", 1, "multiply every number of replications by `S` (0.1 for a quick look)")
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "goroutines running replications")
	format := flag.String("format", "svg", "figure `FORMAT`: svg or png")
	parts := flag.String("parts", "users,folds,auc,friedman,metrics,poisson,agree,margin,seeds", "comma-separated `PARTS` to run: users, folds, auc, friedman, metrics, poisson, agree, margin, seeds; the figures and tables of the others are left out")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	st := newStudy(fullPlan().scaled(*scale), strings.Split(*parts, ","))
	start := time.Now()
	st.run(*workers, os.Stderr)
	elapsed := time.Since(start)
	if err := st.figures(*out, *format); err != nil {
		log.Fatal(err)
	}
	if err := st.markdown(os.Stdout, elapsed, *workers); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "calibration study: %s on %d workers (GOMAXPROCS %d)\n", elapsed.Round(time.Second), *workers, runtime.GOMAXPROCS(0))
}
