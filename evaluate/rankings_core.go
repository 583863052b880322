package evaluate

import (
	"io"

	"github.com/verdict-ml/verdict/fingerprint"
	"github.com/verdict-ml/verdict/internal/input"
)

// readerCore is what a ranking reader holds whatever its format: the
// options it was opened with, the batch it fills, the stamps that match its
// predictions against a row's targets, the targets' fingerprint, the memory
// it holds, and what Run asks of it (keepTargets, dropItems).
// NumPyRankings, TableRankings and TRECRankings embed it; each reads its
// format into it a row, or a batch of rows, at a time.
//
// A format that names items by text interns them: names holds the ID of
// each index, and a row's relevant items are indices into it.
type readerCore struct {
	width     int // rank positions per row
	batchSize int
	validate  bool
	held      heldMemory
	meter     input.Meter // the input's bytes, for Progress

	stamps itemStamps
	names  []string         // the ID of each interned item
	fp     *fingerprint.Set // the targets of the rows returned so far
	found  []string         // a row's relevant items, by ID
	b      *Batch           // the batch being filled
	row    int64            // rows returned so far
	err    error            // the error that ended the stream, io.EOF at its end

	// missing counts the rows of samples with targets that the
	// predictions do not have; missingText says what they are.
	missing     int
	missingText string

	keep    *debugSelector // the rows whose targets to keep, or nil
	noItems bool           // leave the items off the batches
}

// newReaderCore returns the core of a reader opened with opts, with an
// empty fingerprint and a batch to fill.
func newReaderCore(opts RankingOptions) readerCore {
	return readerCore{
		validate:  !opts.SkipValidation,
		batchSize: opts.batchSize(),
		held:      newHeld(opts.maxHeld()),
		fp:        fingerprint.NewTargets(),
		b:         new(Batch),
	}
}

func (c *readerCore) keepTargets(sel *debugSelector) { c.keep = sel }
func (c *readerCore) dropItems()                     { c.noItems = true }

// itemName is the ID of an interned item.
func (c *readerCore) itemName(i int32) string { return c.names[i] }

// Width is the number of rank positions of each row's hits.
func (c *readerCore) Width() int { return c.width }

// Targets is the fingerprint of the targets of the rows returned so far.
func (c *readerCore) Targets() *fingerprint.Set { return c.fp }

// Progress reports the bytes of the input read so far and their total.
func (c *readerCore) Progress() (done, total int64) { return c.meter.Progress() }

// Missing is the number of samples with targets that the predictions do
// not have, each scored as a row with no hits, and what they are
// (Rankings.Missing); 0 and "" for NumPy, whose every row has predictions.
func (c *readerCore) Missing() (rows int, what string) { return c.missing, c.missingText }

// next fills the batch with up to batchSize rows, calling addRow until it
// reports no more, and returns it, or io.EOF when it has no rows. The first
// error, io.EOF included, ends the stream.
func (c *readerCore) next(addRow func() (more bool, err error)) (*Batch, error) {
	if c.err != nil {
		return nil, c.err
	}
	b := c.b
	b.First, b.Width = c.row, c.width
	b.SampleIDs, b.Hits, b.Relevant = b.SampleIDs[:0], b.Hits[:0], b.Relevant[:0]
	b.resetItems()
	for b.Len() < c.batchSize {
		more, err := addRow()
		if err != nil {
			c.err = err
			return nil, err
		}
		if !more {
			break
		}
	}
	if b.Len() == 0 {
		c.err = io.EOF
		c.meter.Finish()
		return nil, io.EOF
	}
	return b, nil
}

// startRow appends a row for sample id with the interned relevant items,
// distinct, to the batch: it stamps them for isTarget, adds them to the
// fingerprint, keeps them when the debug selection asks for the row, and
// returns the row's hits, all false, for the caller to set. endRow ends it.
func (c *readerCore) startRow(id string, relevant []int32) (hits []bool) {
	b := c.b
	c.stamps.newRow()
	for _, it := range relevant {
		c.stamps.addTarget(it)
	}
	c.addTargets(id, relevant)
	if c.keep != nil {
		keepRow(b, c.keep, b.Len(), id, relevant, c.itemName)
	}
	b.SampleIDs = append(b.SampleIDs, id)
	b.Relevant = append(b.Relevant, int32(len(relevant)))
	n := len(b.Hits)
	b.Hits = append(b.Hits, make([]bool, c.width)...)
	return b.Hits[n:]
}

// addTargets adds sample id's interned relevant items to the fingerprint;
// a sample without any adds nothing.
func (c *readerCore) addTargets(id string, relevant []int32) {
	if len(relevant) == 0 {
		return
	}
	found := c.found[:0]
	for _, it := range relevant {
		found = append(found, c.names[it])
	}
	c.fp.AddTargets([]byte(id), found)
	c.found = found
}

// endRow ends the row that startRow began, whose first ranked predictions
// the caller has put on the batch unless noItems: it adds the empty
// positions up to the width, with scores of 0 when the batch has scores.
func (c *readerCore) endRow(ranked int, scores bool) {
	c.row++
	if c.noItems {
		return
	}
	it := &c.b.items
	for range c.width - ranked {
		it.appendText(nil)
		if scores {
			it.scores = append(it.scores, 0)
		}
	}
	it.ranked = append(it.ranked, int32(ranked))
}
