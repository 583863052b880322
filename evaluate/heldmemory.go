package evaluate

import (
	"fmt"

	"github.com/verdict-ml/verdict/internal/input"
)

// DefaultMaxHeldBytes is the memory, as the readers estimate it, that a
// TREC or table reader holds at most unless RankingOptions.MaxHeldBytes
// says otherwise: 2 GiB. Real evaluations hold far less: the qrels of MS
// MARCO's passage ranking (532,761 judgements) about 110 MiB, and a
// targets table of a million users with ten items each about 250 MiB
// while it is read, 150 MiB after.
const DefaultMaxHeldBytes = 2 << 30

// defaultMaxHeld is the bound when RankingOptions.MaxHeldBytes is 0, and
// that of FingerprintTargets, which takes no options. It is a variable so
// that tests can make it small.
var defaultMaxHeld int64 = DefaultMaxHeldBytes

// maxHeld returns the bound on the memory a reader holds.
func (o RankingOptions) maxHeld() int64 {
	if o.MaxHeldBytes < 0 {
		panic("evaluate: negative RankingOptions.MaxHeldBytes")
	}
	if o.MaxHeldBytes == 0 {
		return defaultMaxHeld
	}
	return o.MaxHeldBytes
}

// heldMemory estimates the memory that a reader holds of its input, so
// that an input that would take more than the bound is refused with a
// message at the line where it passed the bound, instead of the process
// dying for want of memory: a few megabytes of gzip can expand to hundreds
// of millions of short, distinct qrels lines. A reader adds the cost of
// each entry as it keeps it, and checks the total at each line or record.
//
// The estimate counts what stays reachable. A slice counts by its capacity,
// which the reader sees grow; the rest by the per-entry costs below, in
// bytes on a 64-bit platform, beside the bytes of the IDs kept. The arrays
// that a slice or map leaves behind as it grows are garbage and not
// counted: with the garbage collector's default headroom, the heap may
// reach about twice the bound, a little more while a large slice grows.
type heldMemory struct {
	n, max int64
}

// Per-entry costs, beside the bytes of the IDs. With them the estimate was
// 0.95 to 1.07 times the heap that the readers keep live (HeapAlloc of
// runtime.MemStats after a collection) for inputs of a million lines of
// short IDs: qrels of distinct documents, of distinct queries and of few
// of either, runs read whole with 2 and with 100,000 queries, one query
// of a grouped run, targets tables of distinct and of few items, and
// predictions of distinct samples and of one sample.
const (
	// heldMapEntry is an entry of a map keyed by a string, with a value of
	// at most 8 bytes: a slot of 24 bytes and a control byte, in tables
	// that Go keeps 7/16 to 7/8 full (29 to 57 bytes; a map[string]int32
	// of 0.6 to 1 million entries took 36 to 53), and the rounding of the
	// key's bytes up to an allocation size class.
	heldMapEntry = 56
	// heldStamp is an item's entry in itemStamps' array, 4 bytes, which
	// grows with the items the rows touch up to maxDenseItems.
	heldStamp = 4
	// heldQrelsQuery is a query of the qrels: its qrelsQuery (48 bytes)
	// and its entry in byQuery. Its pointer in queries, and its relevant
	// documents, count by capacity.
	heldQrelsQuery = 48 + heldMapEntry
	// heldQrelsDoc is a relevant document of the qrels: its entry in docs
	// and its stamp. Its name in names counts by capacity.
	heldQrelsDoc = heldMapEntry + heldStamp
	// heldRunQuery is a query of a run read whole: its runQuery (64
	// bytes) and its entry in byID. Its pointer in whole, and its
	// documents, count by capacity.
	heldRunQuery = 64 + heldMapEntry
	// heldItem is an item of a table: its entry in items and its stamp.
	// Its name in names counts by capacity.
	heldItem = heldMapEntry + heldStamp
	// heldSample is a sample of a targets table: its entry in bySamp, and
	// its count and fill position while the lines are sorted by sample
	// (4 bytes each). Its tableSample counts by capacity.
	heldSample = heldMapEntry + 8
	// heldTargetLine is a line of a targets table in related (4 bytes),
	// which is allocated whole once the lines are read. The sample and
	// item of each line, while they are read, count by capacity.
	heldTargetLine = 4
)

func newHeld(max int64) heldMemory { return heldMemory{max: max} }

// add counts n more bytes held; n < 0 counts bytes no longer held.
func (h *heldMemory) add(n int) { h.n += int64(n) }

// over reports whether what is held has passed the bound.
func (h *heldMemory) over() bool { return h.n > h.max }

// refuse returns the error for an input held past the bound at at. The
// problem says what passed the bound, given by %s, and what to do.
func (h *heldMemory) refuse(at input.Location, problem string) error {
	return at.Errorf(ErrBadInput, "%s", fmt.Sprintf(problem, input.ByteSize(h.max)))
}

// grown is the bytes by which a slice of elements of size bytes grew
// from capacity before to capacity after.
func grown(before, after, size int) int { return (after - before) * size }
