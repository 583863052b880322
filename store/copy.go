package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sync/errgroup"
)

// copyHeader is the binary COPY signature, flags and header extension length.
const copyHeader = "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// chunkSize is how many bytes of COPY payload go to a loading connection at a
// time.
const chunkSize = 256 << 10

// copyIn streams the rows of c into the evaluation's partition over tx. A
// goroutine checks and encodes rows ahead of the connection, so that the
// parsing here and the loading in the server overlap.
func (l *load) copyIn(ctx context.Context, tx pgx.Tx, c *wideChecker) error {
	g, gctx := errgroup.WithContext(ctx)
	ch := make(chan []byte, 8)
	var inputErr error
	g.Go(func() error {
		inputErr = l.produceChunks(gctx, c, []chan []byte{ch})
		return inputErr
	})
	g.Go(func() error {
		_, err := tx.Conn().PgConn().CopyFrom(gctx, &chanReader{ch: ch, ctx: gctx}, l.copySQL(l.table))
		if err != nil {
			return fmt.Errorf("load per-unit values: %w", err)
		}
		return nil
	})
	return preferInputError(g.Wait(), inputErr)
}

// preferInputError picks, of the errors of a load, the one about the input:
// it explains the others, which are cancellations.
func preferInputError(err, inputErr error) error {
	if inputErr != nil && errors.Is(inputErr, ErrBadInput) {
		return inputErr
	}
	return err
}

// copySQL is the COPY statement that loads table.
func (l *load) copySQL(table string) string {
	cols := "sample_id, vals"
	if l.hasDraw {
		cols = "sample_id, draw, vals"
	}
	return fmt.Sprintf(`COPY %s (%s) FROM STDIN (FORMAT binary, FREEZE)`, table, cols)
}

// produceChunks takes the rows c checked, folds them into the evaluation's
// summaries (sums, fingerprint, content digest), and encodes each as binary
// COPY payload into chunks sent on one channel per partition: the partition
// PostgreSQL would pick for the row's sample ID when there are several. It
// closes the channels after the last chunk and returns c's error, or the
// context's if the loading side gave up.
func (l *load) produceChunks(ctx context.Context, c *wideChecker, chans []chan []byte) error {
	n := uint64(len(chans))
	bufs := make([][]byte, n)
	for k := range bufs {
		bufs[k] = append(make([]byte, 0, chunkSize+4096), copyHeader...)
	}
	send := func(k int) error {
		select {
		case chans[k] <- bufs[k]:
			bufs[k] = make([]byte, 0, chunkSize+4096)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	full, free := c.batches(ctx)
	m := len(l.metrics)
	for b := range full {
		for i := range b.ends {
			id, draw, vals := b.id(i), b.draws[i], b.vals[i*m:(i+1)*m]
			for j, v := range vals {
				l.sums[j].Add(float64(v))
			}
			if l.sampleFingerprint {
				l.samples.AddSample(id)
			}
			l.content.Row(id, draw, vals)
			k := 0
			if n > 1 {
				k = int(hashPartition(id, n))
			}
			bufs[k] = appendRow(bufs[k], id, draw, l.hasDraw, vals)
			if len(bufs[k]) >= chunkSize {
				if err := send(k); err != nil {
					return err
				}
			}
			l.rows++
			if l.progress != nil && l.rows&0xffff == 0 {
				l.progress(l.rows)
			}
		}
		free <- b
	}
	// The channel closed: at the end, at c's first problem, or because ctx
	// is done; the checker wrote c.err before closing it.
	if c.err != nil {
		return c.err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	for k := range bufs {
		bufs[k] = append(bufs[k], 0xff, 0xff) // trailer
		if err := send(k); err != nil {
			return err
		}
		close(chans[k])
	}
	return nil
}

// chanReader reads the chunks sent on ch as one stream.
type chanReader struct {
	ch  <-chan []byte
	ctx context.Context
	cur []byte
}

func (r *chanReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		select {
		case b, ok := <-r.ch:
			if !ok {
				return 0, io.EOF
			}
			r.cur = b
		case <-r.ctx.Done():
			return 0, r.ctx.Err()
		}
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}

const float4OID = 700

// appendRow appends one binary COPY tuple: sample_id, [draw,] vals.
func appendRow(b []byte, id []byte, draw int64, hasDraw bool, vals []float32) []byte {
	if hasDraw {
		b = binary.BigEndian.AppendUint16(b, 3)
	} else {
		b = binary.BigEndian.AppendUint16(b, 2)
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(id)))
	b = append(b, id...)
	if hasDraw {
		b = binary.BigEndian.AppendUint32(b, 2)
		b = binary.BigEndian.AppendUint16(b, uint16(draw))
	}
	// One-dimensional real[]: ndim, has-nulls, element type, length, lower bound.
	b = binary.BigEndian.AppendUint32(b, uint32(20+8*len(vals)))
	b = binary.BigEndian.AppendUint32(b, 1)
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, float4OID)
	b = binary.BigEndian.AppendUint32(b, uint32(len(vals)))
	b = binary.BigEndian.AppendUint32(b, 1)
	for _, v := range vals {
		b = binary.BigEndian.AppendUint32(b, 4)
		b = binary.BigEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

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
