package main

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// method is one way of deciding, named for the tables (name) and for
// readers (label: the command that runs it).
type method struct{ name, label string }

// outcome is what one method did on one simulated data set.
type outcome struct {
	// ran is false where the method does not apply (McNemar on non-0/1
	// values) or was left out (BCa at 10,000 users).
	ran bool
	// reject: the method named a winner (or its interval excluded zero).
	reject bool
	// hasInterval and covered: whether the method gives an interval, and
	// whether it held the true difference.
	hasInterval, covered bool
}

// tally counts a method's outcomes over a cell's replications.
type tally struct {
	trials, rejected   int
	intervals, covered int
}

func (t *tally) add(o outcome) {
	if !o.ran {
		return
	}
	t.trials++
	if o.reject {
		t.rejected++
	}
	if o.hasInterval {
		t.intervals++
		if o.covered {
			t.covered++
		}
	}
}

// cell is one configuration of a study: reps replications of replicate,
// each with its own random stream, seeded from the cell's key and the
// replication's index alone, so that results do not depend on the number
// of cores or on the order the work is done in.
type cell struct {
	key     string
	reps    int
	methods int
	// cost is the relative time of a replication, to start the slow cells
	// first.
	cost float64
	// replicate runs replication rep with its random stream rng: it fills
	// out (one outcome per method, all zero on entry) and returns a number
	// to average over the replications (the share of zero differences,
	// say).
	replicate func(rep int, rng *rand.Rand, out []outcome) float64
}

// cellResult is a cell's tallies, one per method, and the mean of what its
// replications returned.
type cellResult struct {
	tallies []tally
	mean    float64
}

// seedOf is the 64-bit FNV-1a hash of key.
func seedOf(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}

// blockSize is the number of replications a worker runs at a time.
const blockSize = 20

// runCells runs every cell's replications on workers goroutines and
// returns the cells' results in order. It reports progress to log every
// ten seconds (log nil: never).
func runCells(cells []cell, workers int, log io.Writer) []cellResult {
	type block struct{ cell, first, count int }
	var blocks []block
	for i, c := range cells {
		for first := 0; first < c.reps; first += blockSize {
			blocks = append(blocks, block{i, first, min(blockSize, c.reps-first)})
		}
	}
	// The slowest cells first, so that no long one is left for the end.
	slices.SortStableFunc(blocks, func(a, b block) int { return cmp.Compare(cells[b.cell].cost, cells[a.cell].cost) })
	tallies := make([][]tally, len(blocks))
	sums := make([]float64, len(blocks))
	var next, done atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	if log != nil {
		go func() {
			start := time.Now()
			tick := time.NewTicker(10 * time.Second)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					fmt.Fprintf(log, "  %d of %d blocks, %s\n", done.Load(), len(blocks), time.Since(start).Round(time.Second))
				}
			}
		}()
	}
	for range workers {
		wg.Go(func() {
			for {
				b := int(next.Add(1) - 1)
				if b >= len(blocks) {
					return
				}
				bl := blocks[b]
				c := cells[bl.cell]
				t := make([]tally, c.methods)
				out := make([]outcome, c.methods)
				for r := bl.first; r < bl.first+bl.count; r++ {
					clear(out)
					rng := replicationRNG(c.key, r)
					sums[b] += c.replicate(r, rng, out)
					for m, o := range out {
						t[m].add(o)
					}
				}
				tallies[b] = t
				done.Add(1)
			}
		})
	}
	wg.Wait()
	close(stop)
	// Reduce in the blocks' order of replication, so that the means are
	// summed in the same order on every run.
	results := make([]cellResult, len(cells))
	order := make([]int, len(blocks))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(blocks[a].cell, blocks[b].cell), cmp.Compare(blocks[a].first, blocks[b].first))
	})
	for _, b := range order {
		r := &results[blocks[b].cell]
		if r.tallies == nil {
			r.tallies = make([]tally, cells[blocks[b].cell].methods)
		}
		for m, t := range tallies[b] {
			r.tallies[m].trials += t.trials
			r.tallies[m].rejected += t.rejected
			r.tallies[m].intervals += t.intervals
			r.tallies[m].covered += t.covered
		}
		r.mean += sums[b]
	}
	for i := range results {
		results[i].mean /= float64(cells[i].reps)
	}
	return results
}
