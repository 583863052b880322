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
			l.content.row(id, draw, vals)
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
