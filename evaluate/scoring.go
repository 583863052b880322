package evaluate

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"sync"
)

// Scoring runs an Evaluator over a Rankings source. One goroutine reads
// batches in input order, several score them, and the results come back in
// input order, either row by row (Next, for logging and per-user output) or
// all at once (Drain, when only the aggregates are wanted).
//
// A Scoring is a store.Rows over the rows with targets, with the metric keys
// as columns, so an evaluation can be logged while it is computed; it also
// reports the input's row count (store.InputCounter), its units
// (store.UnitCounter), the most rows of one unit (store.DrawCounter) and
// the targets' fingerprint (store.TargetFingerprinter). Rows that repeat a sample ID (an
// evaluation protocol with several draws per user) get draw numbers 0, 1, ...
// in input order.
type Scoring struct {
	// OnBatch, when not nil, is called with the row count of each scored
	// batch, in input order, by the goroutine calling Next or Drain. Set
	// it before the first of those calls.
	OnBatch func(rows int)

	e      *Evaluator
	cfg    scoringConfig
	src    Rankings
	ctx    context.Context
	cancel context.CancelFunc
	order  chan chan scored
	done   chan struct{}
	// free takes back the batches and values the cursor has passed, for
	// the workers to reuse, when nothing else keeps them (no debug rows,
	// no whole-set metrics): an evaluation allocates a few batches, not
	// one per batch of rows.
	free    chan scored
	recycle bool

	mu        sync.Mutex
	summaries []*Summary
	readErr   error

	// The row cursor.
	cur   scored
	r     int
	err   error
	ended bool
	draw  int64
	total *Summary // the merged summaries, once the scoring ended cleanly

	// Draw numbering. While the sample IDs of scored rows arrive strictly
	// increasing (sorted input: by length, then bytes, so that integer IDs
	// count too) none can repeat, so they only get their hashes kept, in
	// order. The first ID out of order turns those into counts, and every
	// later row goes through them.
	seed    maphash.Seed
	draws   map[uint64]int64 // nil while the IDs are increasing
	inOrder []uint64
	lastID  string
	most    int64 // the most rows of one sample ID so far
}

type scored struct {
	b    *Batch
	vals []float64
	err  error
}

// scoringConfig is what a Scoring does besides the per-user metrics, on
// the goroutine that consumes the batches, in input order.
type scoringConfig struct {
	wholeSet []WholeSetMetric
	debug    *debugRows
	// end, when not nil, is called once when the last batch has been
	// consumed without error; an error it returns ends the scoring.
	end func() error
}

// Start begins scoring src with e on workers goroutines (at least 1). Call
// Next or Drain to consume the results, and Close when done.
func (e *Evaluator) Start(ctx context.Context, src Rankings, workers int) *Scoring {
	return e.start(ctx, src, workers, scoringConfig{})
}

func (e *Evaluator) start(ctx context.Context, src Rankings, workers int, cfg scoringConfig) *Scoring {
	workers = max(workers, 1)
	ctx, cancel := context.WithCancel(ctx)
	for _, m := range cfg.wholeSet {
		m.Reset()
	}
	// The batches keep their items for the whole-set metrics, and for the
	// debug rows: all of them when the scoring selects the rows, those
	// with rows the source selected otherwise.
	allItems := len(cfg.wholeSet) > 0 || cfg.debug != nil && cfg.debug.sel != nil
	keptItems := cfg.debug != nil
	s := &Scoring{
		e: e, cfg: cfg, src: src, ctx: ctx, cancel: cancel,
		order: make(chan chan scored, 2*workers),
		done:  make(chan struct{}),
		seed:  maphash.MakeSeed(),
		free:  make(chan scored, 2*workers+2),
		// The whole-set metrics and the debug rows may keep a batch;
		// nothing keeps one otherwise after the cursor passes it.
		recycle: len(cfg.wholeSet) == 0 && cfg.debug == nil,
	}
	type job struct {
		b    *Batch
		vals []float64 // storage to reuse, or nil
		out  chan scored
	}
	jobs := make(chan job, workers)
	var wg sync.WaitGroup
	for range workers {
		sum := e.NewSummary()
		s.summaries = append(s.summaries, sum)
		wg.Go(func() {
			for j := range jobs {
				vals, err := e.Score(j.b, j.vals)
				if err == nil {
					sum.Add(j.b, vals)
				}
				j.out <- scored{b: j.b, vals: vals, err: err}
			}
		})
	}
	go func() {
		defer close(s.done)
		defer wg.Wait()
		defer close(jobs)
		defer close(s.order)
		for {
			b, err := src.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					s.mu.Lock()
					s.readErr = err
					s.mu.Unlock()
				}
				return
			}
			out := make(chan scored, 1)
			var reuse scored
			select {
			case reuse = <-s.free:
			default:
			}
			j := job{b: copyBatch(reuse.b, b, allItems || keptItems && len(b.kept) > 0), vals: reuse.vals, out: out}
			select {
			case s.order <- out:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	return s
}

// copyBatch copies what a reader may overwrite on its next call: the
// predicted items too when items is true, and the targets kept for debug
// rows. It copies into dst's storage when dst is not nil, where only the
// slices it sets here may have any.
func copyBatch(dst, b *Batch, items bool) *Batch {
	c := &Batch{}
	if dst != nil {
		c.SampleIDs, c.Hits, c.Relevant = dst.SampleIDs[:0], dst.Hits[:0], dst.Relevant[:0]
	}
	c.SampleIDs = append(c.SampleIDs, b.SampleIDs...)
	c.First, c.Width = b.First, b.Width
	c.Hits = append(c.Hits, b.Hits...)
	c.Relevant = append(c.Relevant, b.Relevant...)
	if items {
		c.copyItems(b)
	}
	if len(b.kept) > 0 {
		c.kept = append([]keptTargets(nil), b.kept...)
	}
	return c
}

// nextBatch waits for the next scored batch in input order; false at the end
// or on an error, which it records.
func (s *Scoring) nextBatch() bool {
	if s.ended {
		return false
	}
	out, ok := <-s.order
	if !ok {
		s.ended = true
		<-s.done
		s.mu.Lock()
		s.err = s.readErr
		s.mu.Unlock()
		if s.err == nil && s.cfg.end != nil {
			s.err = s.cfg.end()
		}
		return false
	}
	res := <-out
	if res.err != nil {
		s.ended, s.err = true, res.err
		s.cancel()
		return false
	}
	for _, m := range s.cfg.wholeSet {
		m.Update(res.b)
	}
	if s.cfg.debug != nil {
		s.cfg.debug.add(res.b, res.vals)
	}
	if s.recycle && s.cur.b != nil {
		select {
		case s.free <- s.cur:
		default:
		}
	}
	s.cur, s.r = res, -1
	if s.OnBatch != nil {
		s.OnBatch(res.b.Len())
	}
	return true
}

// Drain consumes every remaining batch without visiting rows, and returns
// the first error.
func (s *Scoring) Drain() error {
	for s.nextBatch() {
	}
	return s.err
}

// Next advances to the next row with targets.
func (s *Scoring) Next() bool {
	for {
		if s.cur.b != nil {
			for s.r+1 < s.cur.b.Len() {
				s.r++
				if s.cur.b.Relevant[s.r] > 0 {
					s.draw = s.drawOf(s.cur.b.SampleIDs[s.r])
					s.most = max(s.most, s.draw+1)
					return true
				}
			}
		}
		if !s.nextBatch() {
			return false
		}
	}
}

// drawOf numbers the rows of id: 0 for its first scored row, 1 for the
// next, and so on.
func (s *Scoring) drawOf(id string) int64 {
	h := maphash.String(s.seed, id)
	if s.draws == nil {
		if len(s.inOrder) == 0 || len(id) > len(s.lastID) || len(id) == len(s.lastID) && id > s.lastID {
			s.inOrder = append(s.inOrder, h)
			s.lastID = id
			return 0
		}
		s.draws = make(map[uint64]int64, 2*len(s.inOrder))
		for _, seen := range s.inOrder {
			s.draws[seen] = 1
		}
		s.inOrder = nil
	}
	d := s.draws[h]
	s.draws[h] = d + 1
	return d
}

// Metrics is the evaluator's keys, the columns of Values.
func (s *Scoring) Metrics() []string { return s.e.Keys() }

// HasDraw is true: a sample ID may come back on several rows.
func (s *Scoring) HasDraw() bool { return true }

// SampleID is the current row's sample ID.
func (s *Scoring) SampleID() string { return s.cur.b.SampleIDs[s.r] }

// Draw numbers the current row among the rows of its sample ID, from 0.
func (s *Scoring) Draw() int64 { return s.draw }

// Row is the current row's 0-based position in the input.
func (s *Scoring) Row() int64 { return s.cur.b.First + int64(s.r) }

// Values are the current row's values, one per key, valid until the next
// call of Next: their storage is reused.
func (s *Scoring) Values() []float64 {
	nk := len(s.e.Keys())
	return s.cur.vals[s.r*nk : (s.r+1)*nk]
}

// Where locates the current row.
func (s *Scoring) Where() string {
	return fmt.Sprintf("row %d (sample %q)", s.Row(), s.SampleID())
}

// Err is the error that ended the scoring, if any.
func (s *Scoring) Err() error { return s.err }

// Summary merges the workers' aggregates: complete once Next has returned
// false or Drain has returned.
func (s *Scoring) Summary() *Summary {
	if s.total != nil {
		return s.total
	}
	total := s.e.NewSummary()
	for _, sum := range s.summaries {
		total.Merge(sum)
	}
	if s.ended && s.err == nil {
		// The workers are done: the merge is final, and callers asking for
		// the rows, the units and the means should not each redo it.
		s.total = total
	}
	return total
}

// InputRows is the number of rows read, with targets or without.
func (s *Scoring) InputRows() int64 { return s.Summary().Rows() }

// Units is the number of distinct sample IDs among the rows with targets.
func (s *Scoring) Units() int64 { return s.Summary().Units() }

// EvalDraws is the most rows with targets that one sample ID has among the
// rows Next returned: 1 when no sample ID repeats (store.DrawCounter).
func (s *Scoring) EvalDraws() int64 { return s.most }

// TargetFingerprint is the fingerprint of the targets read.
func (s *Scoring) TargetFingerprint() string { return s.src.Targets().Sum() }

// Close stops the scoring early if it is still running and waits for its
// goroutines.
func (s *Scoring) Close() {
	s.cancel()
	for range s.order {
	}
	<-s.done
}
