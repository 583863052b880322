package evaluate

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/verdict-ml/verdict/stats"
)

// WholeSetBootstrap compares two models on a whole-set metric by the paired
// bootstrap over users. A whole-set metric has no value per user to pair,
// so each replicate draws the scored users with replacement, the same
// users for both models, and recomputes the metric on each model's
// rankings of the users drawn: d*_b = m(left on draw b) − m(right on draw
// b). A user drawn c times takes part c times (a metric such as coverage
// does not notice; one that counts users does). The interval, the
// standard error and the p-value are stats.PairedBootstrapCounts', whose
// seeded replicate draws make the result the same bit for bit for the same
// seed.
//
// sampleIDs, left, right and relevant are in-memory rankings as
// NewInMemoryRankings takes them: both models' rankings of the same rows,
// row by row, against the same relevant items. Only rows with relevant
// items take part. The unit of resampling is the sample ID: the rows of an
// ID that repeats (several evaluation draws of a user) are drawn together.
// newMetric returns a fresh metric, called twice for each goroutine that
// resamples; key is the key of its value to compare, and width the rank
// positions kept per row (0: the longest ranking, as NewInMemoryRankings).
//
// Errors: rankings that NewInMemoryRankings refuses (ErrBadInput); a key
// the metric does not have (ErrBadMetric); no row with relevant items, or
// the errors of stats.PairedBootstrapCounts for its options, or when the
// metric is not finite. It panics if the slices differ in length.
func WholeSetBootstrap(sampleIDs []string, left, right, relevant [][]int64, width int, newMetric func() WholeSetMetric, key string, opts stats.BootstrapOptions) (stats.CountsBootstrapResult, error) {
	if len(left) != len(sampleIDs) || len(right) != len(sampleIDs) || len(relevant) != len(sampleIDs) {
		panic(fmt.Sprintf("evaluate: WholeSetBootstrap of %d sample IDs with %d, %d and %d rows", len(sampleIDs), len(left), len(right), len(relevant)))
	}
	col := slices.Index(newMetric().Keys(), key)
	if col < 0 {
		return stats.CountsBootstrapResult{}, fmt.Errorf("%w %q: the whole-set metric has the keys %q", ErrBadMetric, key, newMetric().Keys())
	}
	var sides [2]*Batch
	for i, ranked := range [][][]int64{left, right} {
		src, err := NewInMemoryRankings(sampleIDs, ranked, relevant, width)
		if err != nil {
			return stats.CountsBootstrapResult{}, err
		}
		if sides[i], err = scoredRows(src); err != nil {
			return stats.CountsBootstrapResult{}, err
		}
	}
	// The units, each with its rows in the batches.
	unitOf := map[string]int{}
	var rowsOf [][]int
	for r, id := range sides[0].SampleIDs {
		u, ok := unitOf[id]
		if !ok {
			u = len(rowsOf)
			unitOf[id] = u
			rowsOf = append(rowsOf, nil)
		}
		rowsOf[u] = append(rowsOf[u], r)
	}
	newStatistic := func() stats.CountStatistic {
		ms := [2]WholeSetMetric{newMetric(), newMetric()}
		var draw [2]Batch
		return func(counts []int32) (l, r float64) {
			var out [2]float64
			for s, m := range ms {
				b := &draw[s]
				b.reset(sides[s].Width)
				for u, c := range counts {
					for range c {
						for _, row := range rowsOf[u] {
							b.appendRow(sides[s], row)
						}
					}
				}
				m.Reset()
				m.Update(b)
				out[s] = m.Aggregate()[col]
			}
			return out[0], out[1]
		}
	}
	return stats.PairedBootstrapCounts([]int{len(rowsOf)}, newStatistic, opts)
}

// scoredRows reads src to its end and returns its rows with relevant items
// in one batch, with their items.
func scoredRows(src *InMemoryRankings) (*Batch, error) {
	all := &Batch{Width: src.Width()}
	all.reset(src.Width())
	for {
		b, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		for r := range b.Len() {
			if b.Relevant[r] > 0 {
				all.appendRow(b, r)
			}
		}
	}
	if all.Len() == 0 {
		return nil, fmt.Errorf("%w: no row has relevant items, so there are no users to resample", stats.ErrTooFew)
	}
	return all, nil
}

// reset empties b for rows of the given width with integer items, keeping
// its storage.
func (b *Batch) reset(width int) {
	b.SampleIDs, b.First, b.Width = b.SampleIDs[:0], 0, width
	b.Hits, b.Relevant = b.Hits[:0], b.Relevant[:0]
	b.resetItems()
	if b.items.nums == nil {
		b.items.nums = []int64{}
	}
}

// appendRow appends row r of src, a batch with integer items (in-memory
// rankings) of b's width, to b.
func (b *Batch) appendRow(src *Batch, r int) {
	w := b.Width
	b.SampleIDs = append(b.SampleIDs, src.SampleIDs[r])
	b.Hits = append(b.Hits, src.Row(r)...)
	b.Relevant = append(b.Relevant, src.Relevant[r])
	b.items.nums = append(b.items.nums, src.items.nums[r*w:(r+1)*w]...)
	b.items.ranked = append(b.items.ranked, int32(src.Ranked(r)))
}
