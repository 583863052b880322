package scores

import (
	"bufio"
	"errors"
	"os"
	"strconv"
	"strings"
)

// Writer writes per-unit values in the wide CSV form that OpenScores reads:
// a header line of sample_id and the metric names, then a line per row with
// the sample ID and one value per metric. Values are written in the
// shortest decimal form that reads back as the same float64; fields are
// quoted where CSV needs it.
type Writer struct {
	f   *os.File
	w   *bufio.Writer
	buf []byte
	err error
}

// Create creates (or truncates) the file at path and writes the header for
// the metrics. The error is the *os.PathError of os.Create.
func Create(path string, metrics []string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, w: bufio.NewWriterSize(f, 1<<20)}
	b := append(w.buf[:0], "sample_id"...)
	for _, m := range metrics {
		b = appendCSVField(append(b, ','), m)
	}
	w.buf = append(b, '\n')
	_, w.err = w.w.Write(w.buf)
	return w, nil
}

// Write writes a row. A failure to write is kept and returned by Close.
func (w *Writer) Write(sampleID string, values []float64) {
	b := appendCSVField(w.buf[:0], sampleID)
	for _, v := range values {
		b = strconv.AppendFloat(append(b, ','), v, 'g', -1, 64)
	}
	w.buf = append(b, '\n')
	if w.err == nil {
		_, w.err = w.w.Write(w.buf)
	}
}

// Close flushes the rows and closes the file, and returns the first error
// of any write. Closing again does nothing.
func (w *Writer) Close() error {
	if w.f == nil {
		return nil
	}
	err := w.err
	if err == nil {
		err = w.w.Flush()
	}
	err = errors.Join(err, w.f.Close())
	w.f = nil
	return err
}

// appendCSVField appends s, quoted when CSV requires it: when it holds a
// comma, a quote or a line end.
func appendCSVField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	return append(append(b, '"'), strings.ReplaceAll(s, `"`, `""`)+`"`...)
}
