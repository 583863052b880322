package store

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/verdict-ml/verdict/stats"
)

// LongRows is a stream of per-unit values in long form: one (sample ID, draw,
// metric, value) record per line. The store pivots it to wide form inside the
// database, so the input may come in any order and memory use stays flat.
type LongRows interface {
	// HasDraw reports whether the input carries a draw column.
	HasDraw() bool
	// Next advances to the next record; false at the end or on error.
	Next() bool
	SampleID() string
	// Draw is 0 when the input has no draw column.
	Draw() int64
	Metric() string
	Value() float64
	// Record is the current record's position in the input, 1-based, in the
	// unit Where formats (a line number for text, a row number otherwise).
	Record() int64
	// Where formats a record position for error messages, for example
	// Where(12) == "scores.csv: line 12".
	Where(record int64) string
	Err() error
}

// pivotLong stages a long source in a temporary table, checks that every
// (sample ID, draw) has exactly one value per metric, and pivots it into the
// evaluation's partition.
func (l *load) pivotLong(ctx context.Context, tx pgx.Tx, rows LongRows, lowerIsBetter []string) error {
	if _, err := tx.Exec(ctx, `
		CREATE TEMPORARY TABLE verdict_long_stage (
			rec       bigint NOT NULL,
			sample_id text COLLATE "C" NOT NULL,
			draw      smallint NOT NULL,
			metric    smallint NOT NULL,
			value     real NOT NULL
		) ON COMMIT DROP`); err != nil {
		return fmt.Errorf("stage long input: %w", err)
	}
	l.long = true
	enc := &longEncoder{rows: rows, load: l, index: map[string]int{}}
	enc.buf = append(enc.buf, copyHeader...)
	_, err := tx.Conn().PgConn().CopyFrom(ctx, enc, `COPY verdict_long_stage FROM STDIN (FORMAT binary)`)
	if enc.err != nil {
		return enc.err
	}
	if err != nil {
		return fmt.Errorf("stage long input: %w", err)
	}
	if enc.records == 0 {
		return nil // l.rows == 0: reported as "no rows"
	}
	if err := checkMetricNames(l.metrics, lowerIsBetter); err != nil {
		return err
	}

	// A value given twice for the same unit and metric.
	var id string
	var draw, metric int64
	var first, second int64
	err = tx.QueryRow(ctx, `
		SELECT sample_id, draw, metric, min(rec), max(rec)
		FROM verdict_long_stage
		GROUP BY sample_id, draw, metric
		HAVING count(*) > 1
		ORDER BY min(rec)
		LIMIT 1`).Scan(&id, &draw, &metric, &first, &second)
	if err == nil {
		return &InputError{Where: rows.Where(second), SampleID: id, Column: l.metrics[metric],
			Problem: fmt.Sprintf("value given twice (first at %s)", rows.Where(first))}
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("check long input: %w", err)
	}

	// A unit missing some metric.
	var present []int16
	err = tx.QueryRow(ctx, `
		SELECT sample_id, min(rec), array_agg(metric ORDER BY metric)
		FROM verdict_long_stage
		GROUP BY sample_id, draw
		HAVING count(*) < $1
		ORDER BY min(rec)
		LIMIT 1`, len(l.metrics)).Scan(&id, &first, &present)
	if err == nil {
		var missing []string
		for i, m := range l.metrics {
			if !slices.Contains(present, int16(i)) {
				missing = append(missing, m)
			}
		}
		return &InputError{Where: rows.Where(first), SampleID: id, Column: missing[0],
			Problem: fmt.Sprintf("value missing: the sample has no %s", strings.Join(quoteAll(missing), ", "))}
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("check long input: %w", err)
	}

	tag, err := tx.Exec(ctx, fmt.Sprintf(`
		INSERT INTO %s (sample_id, draw, vals)
		SELECT sample_id, draw, array_agg(value ORDER BY metric)
		FROM verdict_long_stage
		GROUP BY sample_id, draw`, l.table))
	if err != nil {
		return fmt.Errorf("pivot long input: %w", err)
	}
	l.rows = tag.RowsAffected()

	// Distinct sample IDs feed the fingerprint in distinctSamples; the content
	// digest covers the records in input order.
	return nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// longEncoder turns a LongRows source into a binary COPY payload for the
// staging table.
type longEncoder struct {
	rows    LongRows
	load    *load
	index   map[string]int
	buf     []byte
	off     int
	done    bool
	err     error
	records int64
}

func (e *longEncoder) Read(p []byte) (int, error) {
	for len(e.buf)-e.off < len(p) && !e.done && e.err == nil {
		if e.off > 0 {
			e.buf = append(e.buf[:0], e.buf[e.off:]...)
			e.off = 0
		}
		for i := 0; i < 256 && !e.done && e.err == nil; i++ {
			e.next()
		}
	}
	if e.err != nil {
		return 0, e.err
	}
	n := copy(p, e.buf[e.off:])
	e.off += n
	if n == 0 && e.done {
		return 0, io.EOF
	}
	return n, nil
}

func (e *longEncoder) next() {
	r := e.rows
	if !r.Next() {
		if err := r.Err(); err != nil {
			e.err = err
			return
		}
		e.buf = binary.BigEndian.AppendUint16(e.buf, 0xffff)
		e.done = true
		return
	}
	l := e.load
	rec := r.Record()
	id := r.SampleID()
	if err := checkSampleID(id); err != nil {
		e.err = &InputError{Where: r.Where(rec), Problem: err.Error()}
		return
	}
	draw := r.Draw()
	if draw < 0 || draw > math.MaxInt16 {
		e.err = &InputError{Where: r.Where(rec), SampleID: id, Column: "draw", Problem: fmt.Sprintf("draw %d is outside 0..%d", draw, math.MaxInt16)}
		return
	}
	name := r.Metric()
	m, ok := e.index[name]
	if !ok {
		if strings.TrimSpace(name) == "" {
			e.err = &InputError{Where: r.Where(rec), SampleID: id, Column: "metric", Problem: "empty metric name"}
			return
		}
		if err := checkName("metric name", name); err != nil {
			e.err = &InputError{Where: r.Where(rec), SampleID: id, Column: "metric", Problem: err.Error()}
			return
		}
		if len(l.metrics) == maxMetrics {
			e.err = &InputError{Where: r.Where(rec), SampleID: id, Column: "metric", Problem: fmt.Sprintf("more than %d distinct metrics", maxMetrics)}
			return
		}
		m = len(l.metrics)
		e.index[name] = m
		l.metrics = append(l.metrics, name)
		l.sums = append(l.sums, stats.CompensatedSum{})
	}
	f, problem := toReal(r.Value())
	if problem != "" {
		e.err = &InputError{Where: r.Where(rec), SampleID: id, Column: name, Problem: problem}
		return
	}
	l.sums[m].Add(float64(f))
	l.content.Row([]byte(name+"\x00"+id), draw, []float32{f})
	e.records++

	b := e.buf
	b = binary.BigEndian.AppendUint16(b, 5)
	b = binary.BigEndian.AppendUint32(b, 8)
	b = binary.BigEndian.AppendUint64(b, uint64(rec))
	b = binary.BigEndian.AppendUint32(b, uint32(len(id)))
	b = append(b, id...)
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint16(b, uint16(draw))
	b = binary.BigEndian.AppendUint32(b, 2)
	b = binary.BigEndian.AppendUint16(b, uint16(m))
	b = binary.BigEndian.AppendUint32(b, 4)
	b = binary.BigEndian.AppendUint32(b, math.Float32bits(f))
	e.buf = b
	if l.progress != nil && e.records&0xffff == 0 {
		l.progress(e.records)
	}
}
