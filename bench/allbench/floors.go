package main

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/verdict-ml/verdict/classify"
	"github.com/verdict-ml/verdict/stats"
)

// floors measures what the commands whose targets are out of reach cannot
// do without, each part alone: PostgreSQL planning and running the query
// the command reads its rows from, before sending any (EXPLAIN ANALYZE),
// and the resampling of the pairs held in memory (the stats package's
// functions on as many units, B = 2,000, on every core). A command's floor
// is the sum of its parts. It reads the data the other cases log, so it
// runs after them.
func floors(b *bench) ([]Figure, []Growth, error) {
	ids := func(exp string) ([]int64, error) {
		out, err := b.output("psql", b.url, "-Atc", fmt.Sprintf(
			`SELECT e.id FROM evaluations e JOIN runs r ON r.id = e.run_id JOIN experiments x ON x.id = r.experiment_id
			 WHERE x.name = '%s' AND e.id = (SELECT max(id) FROM evaluations WHERE run_id = r.id) ORDER BY r.name`, exp))
		if err != nil {
			return nil, err
		}
		var v []int64
		for _, f := range strings.Fields(out) {
			var id int64
			fmt.Sscan(f, &id)
			v = append(v, id)
		}
		return v, nil
	}
	part := func(id int64) string { return fmt.Sprintf("verdict_units.unit_values_%d", id) }
	// serverSecs is the time PostgreSQL takes to plan and run query, with
	// verdict's settings for a join, before any row is sent: the median
	// of three runs of EXPLAIN ANALYZE without per-node timing.
	serverSecs := func(query string) (float64, error) {
		var xs []float64
		for range 3 {
			out, err := b.output("psql", b.url, "-Atq", "-c", "SET jit = off; SET enable_hashjoin = off; SET max_parallel_workers_per_gather = 0",
				"-c", "EXPLAIN (ANALYZE, TIMING OFF, SUMMARY ON) "+query)
			if err != nil {
				return 0, err
			}
			var total float64
			for _, line := range strings.Split(out, "\n") {
				var ms float64
				if _, err := fmt.Sscanf(strings.TrimSpace(line), "Planning Time: %f ms", &ms); err == nil {
					total += ms
				} else if _, err := fmt.Sscanf(strings.TrimSpace(line), "Execution Time: %f ms", &ms); err == nil {
					total += ms
				}
			}
			xs = append(xs, total/1000)
		}
		return median(xs), nil
	}
	pairQuery := func(l, r int64, metrics int) string {
		var cols []string
		for _, side := range []string{"l", "r"} {
			for k := 1; k <= metrics; k++ {
				cols = append(cols, fmt.Sprintf("%s.vals[%d]", side, k))
			}
		}
		return fmt.Sprintf("SELECT %s FROM %s l JOIN %s r ON r.sample_id = l.sample_id WHERE l.evaluation_id = %d AND r.evaluation_id = %d ORDER BY l.sample_id",
			strings.Join(cols, ", "), part(l), part(r), l, r)
	}
	found := map[string][]int64{}
	for _, exp := range []string{"bench-all-compare", "bench-all-growth-10000000", "bench-all-leaderboard400", "bench-all-predictions"} {
		v, err := ids(exp)
		if err != nil {
			return nil, nil, err
		}
		found[exp] = v
	}
	cmpIDs, bigIDs, lbIDs, predIDs := found["bench-all-compare"], found["bench-all-growth-10000000"], found["bench-all-leaderboard400"], found["bench-all-predictions"]
	if len(cmpIDs) != 2 || len(bigIDs) != 2 || len(lbIDs) < 400 || len(predIDs) != 2 {
		return nil, nil, fmt.Errorf("floors needs the compare, growth, leaderboard400 and predictions cases' data: found %d, %d, %d and %d evaluations", len(cmpIDs), len(bigIDs), len(lbIDs), len(predIDs))
	}
	var branches []string
	for j, id := range lbIDs[:400] {
		branches = append(branches, fmt.Sprintf("SELECT %d::int AS ord, sample_id, vals[1]::double precision FROM %s", j, part(id)))
	}
	log := func(format string, args ...any) { fmt.Printf("allbench:   "+format+"\n", args...) }
	var sqlSecs []float64
	predQuery := fmt.Sprintf("SELECT l.label, l.scores, r.label, r.scores FROM verdict_units.predictions_%d l JOIN verdict_units.predictions_%d r ON r.sample_id = l.sample_id ORDER BY l.sample_id", predIDs[0], predIDs[1])
	for _, q := range []string{pairQuery(cmpIDs[0], cmpIDs[1], 1), pairQuery(cmpIDs[0], cmpIDs[1], 10), pairQuery(bigIDs[0], bigIDs[1], 1), strings.Join(branches, " UNION ALL "), predQuery} {
		v, err := serverSecs(q)
		if err != nil {
			return nil, nil, err
		}
		sqlSecs = append(sqlSecs, v)
	}
	log("the server's query: 1M one metric %.2f s, ten %.2f s; 10M %.2f s; 400 runs' columns %.2f s; 1M predictions %.2f s", sqlSecs[0], sqlSecs[1], sqlSecs[2], sqlSecs[3], sqlSecs[4])

	// The resampling of each command, alone: what compare and leaderboard
	// run on the pairs they hold.
	bopts := stats.BootstrapOptions{Resamples: 2000, Confidence: 0.95}
	ropts := stats.RandomizationOptions{Permutations: 2000}
	compare := func(ds []*stats.UnitDifferences) func() {
		return func() {
			stats.PairedBootstrapDifferencesShared(len(ds), func(k int) *stats.UnitDifferences { return ds[k] }, func(int) bool { return false }, bopts)
			stats.RandomizationDifferencesShared(len(ds), func(k int) *stats.UnitDifferences { return ds[k] }, ropts)
		}
	}
	leaderboard := func(means, diffs []*stats.UnitDifferences) func() {
		all := append(slices.Clip(means), diffs...)
		return func() {
			stats.PairedBootstrapDifferencesShared(len(all), func(k int) *stats.UnitDifferences { return all[k] }, nil, bopts)
			stats.RandomizationDifferencesShared(len(diffs), func(k int) *stats.UnitDifferences { return diffs[k] }, ropts)
		}
	}
	timed := func(f func()) float64 {
		var xs []float64
		for range 3 {
			runtime.GC()
			start := time.Now()
			f()
			xs = append(xs, time.Since(start).Seconds())
		}
		return median(xs)
	}
	one := func(n int, seed uint64) *stats.UnitDifferences { return differences(n, seed, false) }
	mean := func(n int, seed uint64) *stats.UnitDifferences { return differences(n, seed, true) }
	var ten []*stats.UnitDifferences
	for k := range 10 {
		ten = append(ten, one(1_000_000, uint64(k)))
	}
	r1 := timed(compare(ten[:1]))
	r10 := timed(compare(ten))
	ten = nil
	big := one(10_000_000, 0)
	r10m := timed(compare([]*stats.UnitDifferences{big}))
	rLb10m := timed(leaderboard([]*stats.UnitDifferences{mean(10_000_000, 1), mean(10_000_000, 2)}, []*stats.UnitDifferences{big}))
	big = nil
	var lbMeans, lbDiffs []*stats.UnitDifferences
	for k := range 400 {
		lbMeans = append(lbMeans, mean(2000, uint64(k)))
		if k > 0 {
			lbDiffs = append(lbDiffs, one(2000, uint64(1000+k)))
		}
	}
	r400 := timed(leaderboard(lbMeans, lbDiffs))
	lbMeans, lbDiffs = nil, nil
	// A new reference in the soak's leaderboard, once the soak's clients
	// have logged 3,300 runs: every difference resampled anew, the means
	// kept.
	var soakDiffs []*stats.UnitDifferences
	for k := range soakRuns - 1 {
		soakDiffs = append(soakDiffs, one(2000, uint64(5000+k)))
	}
	rSoak := timed(leaderboard(nil, soakDiffs))
	soakDiffs = nil
	// The bootstraps of a compare of predictions: four metrics of a
	// million binary predictions, 1 % positives.
	rng := rand.New(rand.NewPCG(7, 11))
	labels := make([]int32, 1_000_000)
	left, right := make([]float64, len(labels)), make([]float64, len(labels))
	for i := range labels {
		if rng.IntN(100) == 0 {
			labels[i] = 1
		}
		left[i] = min(1, max(0, 0.05+0.3*float64(labels[i])+0.1*rng.NormFloat64()))
		right[i] = min(1, max(0, 0.05+0.32*float64(labels[i])+0.1*rng.NormFloat64()))
	}
	rPred := timed(func() {
		classify.PairedBootstrapsOf([]string{"roc_auc", "average_precision", "log_loss", "brier"}, labels, left, right, 1,
			classify.BootstrapOptions{Options: classify.Options{Threshold: 0.5}, BootstrapOptions: bopts})
	})
	labels, left, right = nil, nil, nil
	log("resampling: 1M one metric %.2f s, ten %.2f s; 10M %.2f s; leaderboard 10M × 2 %.2f s, 400 runs %.2f s; a new reference among %d runs %.2f s; predictions' bootstraps %.2f s",
		r1, r10, r10m, rLb10m, r400, soakRuns, rSoak, rPred)

	floor := func(id, work string, parts ...float64) Figure {
		var v float64
		for _, p := range parts {
			v += p
		}
		return Figure{ID: id, Work: work, Peer: "floor", Unit: "s", Value: v, Low: v, High: v, Rounds: []float64{v}, Seconds: v, Bench: "bench/all --only floors"}
	}
	figs := []Figure{
		floor("floor_compare_1m", fmt.Sprintf("floor of compare 1M, one metric: query %.2f s + resampling %.2f s", sqlSecs[0], r1), sqlSecs[0], r1),
		floor("floor_compare_1m_ten", fmt.Sprintf("floor of compare 1M, ten metrics: query %.2f s + resampling %.2f s", sqlSecs[1], r10), sqlSecs[1], r10),
		floor("floor_compare_10m", fmt.Sprintf("floor of compare 10M: query %.2f s + resampling %.2f s", sqlSecs[2], r10m), sqlSecs[2], r10m),
		floor("floor_leaderboard_10m", fmt.Sprintf("floor of leaderboard 10M × 2: query %.2f s + resampling %.2f s", sqlSecs[2], rLb10m), sqlSecs[2], rLb10m),
		floor("floor_leaderboard_400", fmt.Sprintf("floor of leaderboard of 400 runs: query %.2f s + resampling %.2f s", sqlSecs[3], r400), sqlSecs[3], r400),
	}
	figs = append(figs, floor("floor_compare_predictions", fmt.Sprintf("floor of compare of predictions, 1M × 4 metrics: query %.2f s + bootstraps %.2f s", sqlSecs[4], rPred), sqlSecs[4], rPred))
	figs = append(figs, floor("floor_soak_new_reference", fmt.Sprintf("floor of a new reference in a leaderboard of %d runs × 2,000 users: resampling %.2f s", soakRuns, rSoak), rSoak))
	ratio := figs[1].Value / figs[0].Value
	figs = append(figs, Figure{ID: "floor_compare_1m_ten_ratio", Work: "floor of ten metrics over one", Peer: "floor", Unit: "x peer",
		Value: ratio, Low: ratio, High: ratio, Rounds: []float64{ratio}, Seconds: figs[1].Value, PeerSeconds: figs[0].Value, Bench: "bench/all --only floors"})
	return figs, nil, nil
}

// soakRuns is about how many runs the soak's clients log in 150 s.
const soakRuns = 3300

// differences returns n differences of float32 pairs drawn from seed: a
// run's values against zeros when mean is set (a leaderboard's mean),
// otherwise two runs' values, about a tenth of them tied.
func differences(n int, seed uint64, mean bool) *stats.UnitDifferences {
	rng := rand.New(rand.NewPCG(seed, 11))
	p := make([]float32, 2*n)
	for i := range n {
		a := float32(rng.Float64())
		bv := a
		if rng.IntN(10) > 0 {
			bv = float32(rng.Float64())
		}
		if mean {
			a, bv = bv, 0
		}
		p[2*i], p[2*i+1] = a, bv
	}
	d, err := stats.DifferencesOfPairs32(p)
	if err != nil {
		panic(err)
	}
	return d
}
