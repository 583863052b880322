package evaluate

import "github.com/verdict-ml/verdict/fingerprint"

// Batch is a run of ranked rows ready to be scored: for each row, which of
// its top predictions are relevant, and how many relevant items it has. The
// input readers build batches from predictions and targets; the metrics read
// them. A batch's hit matrix is computed once and shared by every metric.
type Batch struct {
	// SampleIDs identifies the rows. The same ID may appear on several rows
	// (several evaluation draws of one user).
	SampleIDs []string
	// First is the input position (0-based row index) of the batch's first
	// row.
	First int64
	// Width is the number of rank positions Hits holds per row.
	Width int
	// Hits has len(SampleIDs)*Width flags, row-major: Hits[r*Width+i] is
	// true when the item at rank i+1 of row r is relevant. Positions past the
	// end of a row's predictions are false.
	Hits []bool
	// Relevant is R, the number of distinct relevant items of each row. Zero
	// marks a row without targets: it keeps its place, so values stay aligned
	// with sample IDs, but no mean counts it.
	Relevant []int32
}

// Len is the number of rows.
func (b *Batch) Len() int { return len(b.SampleIDs) }

// Row returns the hit flags of row r, best rank first.
func (b *Batch) Row(r int) []bool { return b.Hits[r*b.Width : (r+1)*b.Width] }

// Rankings is a stream of batches read from predictions and targets.
type Rankings interface {
	// Next returns the next batch, or io.EOF after the last one. The batch
	// is valid until the following call. Input problems are errors wrapping
	// ErrBadInput that name the row index and sample ID.
	Next() (*Batch, error)
	// Width is the number of predictions per row (K).
	Width() int
	// Targets is the fingerprint of the targets read so far: complete once
	// Next has returned io.EOF.
	Targets() *fingerprint.Set
	// Progress reports bytes of input consumed and their total, for a
	// progress bar; cheap and safe from another goroutine.
	Progress() (done, total int64)
	Close() error
}
