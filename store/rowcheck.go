package store

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// wideChecker reads a Rows source and checks every row: sample ID, draw,
// adjacent duplicates, and values that a real (float4) cannot hold. It runs
// in its own goroutine, ahead of the summaries and the encoding, and hands
// over rows in batches.
type wideChecker struct {
	rows    Rows
	metrics int
	err     error // the first problem; read it after the batches channel closes

	n        int64 // rows checked
	prevID   []byte
	prevDraw int64
}

// rowBatch is a run of checked rows.
type rowBatch struct {
	ids   []byte // the sample IDs, end to end
	ends  []int  // where each ID ends in ids
	draws []int64
	vals  []float32 // metrics values per row
}

func (b *rowBatch) reset() {
	b.ids, b.ends, b.draws, b.vals = b.ids[:0], b.ends[:0], b.draws[:0], b.vals[:0]
}

// id returns the sample ID of row i without copying.
func (b *rowBatch) id(i int) []byte {
	start := 0
	if i > 0 {
		start = b.ends[i-1]
	}
	return b.ids[start:b.ends[i]]
}

const batchRows = 1024

// batches checks rows in a goroutine and sends them in batches. The channel
// closes at the end of the input, at the first problem (left in c.err) or
// when ctx is done. Batches received must be returned on free for reuse.
func (c *wideChecker) batches(ctx context.Context) (full <-chan *rowBatch, free chan<- *rowBatch) {
	out := make(chan *rowBatch, 4)
	pool := make(chan *rowBatch, 6)
	for range cap(pool) {
		pool <- &rowBatch{}
	}
	go func() {
		defer close(out)
		for {
			var b *rowBatch
			select {
			case b = <-pool:
			case <-ctx.Done():
				return
			}
			b.reset()
			for len(b.ends) < batchRows && c.check(b) {
			}
			if len(b.ends) > 0 {
				select {
				case out <- b:
				case <-ctx.Done():
					return
				}
			}
			if len(b.ends) < batchRows {
				return // end of input, or c.err
			}
		}
	}()
	return out, pool
}

// check reads the next row into b. It returns false at the end of the input
// or on the first problem, which it leaves in c.err.
func (c *wideChecker) check(b *rowBatch) bool {
	r := c.rows
	if !r.Next() {
		c.err = r.Err()
		return false
	}
	id := r.SampleID()
	if err := checkSampleID(id); err != nil {
		c.err = &InputError{Where: r.Where(), Problem: err.Error()}
		return false
	}
	draw := r.Draw()
	if draw < 0 || draw > math.MaxInt16 {
		c.err = &InputError{Where: r.Where(), SampleID: id, Column: "draw", Problem: fmt.Sprintf("draw %d is outside 0..%d", draw, math.MaxInt16)}
		return false
	}
	// Adjacent duplicates are the common case (sorted input) and can be
	// located exactly; others are caught by the primary key.
	if c.n > 0 && draw == c.prevDraw && string(c.prevID) == id {
		c.err = &DuplicateError{Where: r.Where(), SampleID: id, Draw: draw, HasDraw: r.HasDraw()}
		return false
	}
	vals := r.Values()
	if len(vals) != c.metrics {
		panic(fmt.Sprintf("store: Rows.Values returned %d values for %d metrics", len(vals), c.metrics))
	}
	for i, v := range vals {
		f, problem := toReal(v)
		if problem != "" {
			c.err = &InputError{Where: r.Where(), SampleID: id, Column: r.Metrics()[i], Problem: problem}
			b.vals = b.vals[:len(b.ends)*c.metrics]
			return false
		}
		b.vals = append(b.vals, f)
	}
	c.prevID = append(c.prevID[:0], id...)
	c.prevDraw = draw
	b.ids = append(b.ids, id...)
	b.ends = append(b.ends, len(b.ids))
	b.draws = append(b.draws, draw)
	c.n++
	return true
}

func checkSampleID(id string) error {
	switch {
	case id == "":
		return errors.New("empty sample ID")
	case len(id) > maxSampleIDBytes:
		return fmt.Errorf("sample ID is %d bytes long; at most %d are allowed", len(id), maxSampleIDBytes)
	case strings.IndexByte(id, 0) >= 0:
		return errors.New("sample ID contains a NUL byte")
	case !utf8.ValidString(id):
		return fmt.Errorf("sample ID %s is not valid UTF-8", namePreview(id))
	}
	return nil
}

// toReal converts a value to the stored float4, or says why it cannot: the
// readers refuse the same values, and these checks hold every other source
// (a program using the library, a request to a server) to the same rules.
func toReal(v float64) (float32, string) {
	switch {
	case math.IsNaN(v):
		return 0, "value is NaN"
	case math.IsInf(v, 0):
		return 0, fmt.Sprintf("value is %v", v)
	case math.Abs(v) > math.MaxFloat32:
		return 0, fmt.Sprintf("value %g is out of range for a real (float4)", v)
	case v != 0 && float32(v) == 0:
		return 0, fmt.Sprintf("value %g is too small for a real (float4), which would store 0", v)
	}
	return float32(v), ""
}

// maxNameBytes bounds the names of experiments, runs, evaluation sets,
// metrics, tags and params, and idempotency keys: far more than
// anyone types, and little enough that a name pasted by mistake (a file, a
// column of values) is refused rather than stored and then printed by every
// report. Migration 7 sets the same limits in the schema.
const maxNameBytes = 256

// checkName returns what is wrong with a name of the given kind ("run
// name", "tag", ...), or nil: more than maxNameBytes bytes, invalid UTF-8,
// or a control character (Unicode category Cc: C0, DEL and C1, ESC among
// them), which a terminal would act on when a report prints the name. The
// error names the kind, quotes the start of the name with its control
// characters escaped, and says how long it is; it does not wrap ErrBadInput,
// so that callers can place it.
func checkName(kind, name string) error {
	if len(name) > maxNameBytes {
		return fmt.Errorf("the %s %s is %d bytes long; at most %d are allowed", kind, namePreview(name), len(name), maxNameBytes)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("the %s %s is not valid UTF-8", kind, namePreview(name))
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return fmt.Errorf("the %s %s contains the control character %U", kind, namePreview(name), r)
		}
	}
	return nil
}

// namePreview quotes the first 40 bytes of a name, cut at a character
// boundary, and marks a cut with an ellipsis.
func namePreview(name string) string {
	const most = 40
	if len(name) <= most {
		return fmt.Sprintf("%q", name)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", name[:cut])
}
