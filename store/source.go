package store

// Rows is a stream of per-unit values in wide form: one row per (sample ID, draw)
// with one value per metric. The readers in package scores implement it for CSV,
// TSV, JSON Lines, Parquet and NumPy inputs; a Go program can implement it over
// anything it holds.
//
// Rows reports malformed input (ragged rows, non-numeric cells, a missing value)
// through Err, with an error that names the location. The store itself checks
// what is independent of the format: empty sample IDs, NaN and ±Inf, values out of
// float4 range, duplicate (sample ID, draw) pairs and empty input.
type Rows interface {
	// Metrics names the value columns, in the order Values returns them.
	Metrics() []string
	// HasDraw reports whether the input carries a draw column, that is whether
	// one sample ID may have several rows.
	HasDraw() bool
	// Next advances to the next row. It returns false at the end of the input
	// or on the first error; Err tells which.
	Next() bool
	// SampleID is the current row's sample ID.
	SampleID() string
	// Draw is the current row's draw number; 0 when the input has no draw column.
	Draw() int64
	// Values are the current row's values, one per metric. The slice may be
	// reused by the next call to Next.
	Values() []float64
	// Where locates the current row for error messages, for example
	// "scores.csv: line 12" or "scores.parquet: row 12".
	Where() string
	// Err is the error that stopped Next, or nil at a clean end of input.
	Err() error
}

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

// InputCounter is implemented by sources that do not log every row of their
// input, such as evaluations that skip rows without targets. InputRows is the
// number of rows the input had in all (n_rows), once Next has returned false.
type InputCounter interface {
	InputRows() int64
}

// TargetFingerprinter is implemented by sources that read the targets the
// values were scored against. TargetFingerprint is their fingerprint, once
// Next has returned false; it is recorded unless NewEvaluation names one.
type TargetFingerprinter interface {
	TargetFingerprint() string
}

// UnitCounter is implemented by sources that count their distinct sample IDs
// themselves. Units is that count (n_units) once Next has returned false; it
// spares the store a pass over the loaded rows when the source has draws.
type UnitCounter interface {
	Units() int64
}

// DrawCounter is implemented by sources that number the rows of each sample
// ID themselves. EvalDraws is the most rows any sample ID has, once Next has
// returned false; it spares the store counting them in the database, and is
// recorded as the evaluation's eval draws unless its protocol names them.
type DrawCounter interface {
	EvalDraws() int64
}
