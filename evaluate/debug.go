package evaluate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/verdict-ml/verdict/store"
)

// ErrBadDebug is wrapped by the error of Run for a debug selection it
// cannot honour: both a count and sample IDs, a negative count, or more
// than MaxDebugRows rows. The message says which.
var ErrBadDebug = errors.New("bad debug selection")

// MaxDebugRows bounds the rows a debug selection may ask for. With
// MaxDebugItems and MaxDebugTargets it bounds the debug rows whatever the
// input; when they are logged, the store keeps those that fit in
// store.MaxDebugBytes.
const MaxDebugRows = 1000

// MaxDebugTargets bounds the relevant items a debug row lists; its
// TargetCount has them all.
const MaxDebugTargets = 100

// MaxDebugItems bounds the rank positions a debug row describes: its items,
// their scores and its hit ranks are those of the first min(k,
// MaxDebugItems) positions, k the evaluation's required k.
const MaxDebugItems = 1000

// DebugSelection says which scored rows (rows with targets) Run describes
// in detail, in Result.Debug: the first First of them, or those of
// SampleIDs. The zero value selects none.
type DebugSelection struct {
	// First selects the first First rows with targets, in input order.
	First int
	// SampleIDs selects, for each of these sample IDs, its first row with
	// targets, wherever it is in the input. A sample ID repeated here
	// counts once. Those that no row with targets has are reported in
	// Result.DebugMissing, not as an error.
	SampleIDs []string
}

func (d DebugSelection) empty() bool { return d.First == 0 && len(d.SampleIDs) == 0 }

// check returns an error wrapping ErrBadDebug when d asks for too much or
// for both kinds of selection.
func (d DebugSelection) check() error {
	switch {
	case d.First < 0:
		return fmt.Errorf("%w: %d rows; give a positive number", ErrBadDebug, d.First)
	case d.First > 0 && len(d.SampleIDs) > 0:
		return fmt.Errorf("%w: both the first %d rows and %d sample IDs; give one or the other", ErrBadDebug, d.First, len(d.SampleIDs))
	case d.First > MaxDebugRows:
		return fmt.Errorf("%w: %d rows, more than the %d that debug output holds", ErrBadDebug, d.First, MaxDebugRows)
	case len(d.SampleIDs) > MaxDebugRows:
		return fmt.Errorf("%w: %d sample IDs, more than the %d that debug output holds", ErrBadDebug, len(d.SampleIDs), MaxDebugRows)
	}
	return nil
}

// DebugRow describes one scored row in detail. It is the store's type,
// so that the rows Run describes are those the store keeps and reads back
// (store.DebugRow says what each field holds).
type DebugRow = store.DebugRow

// debugSelector applies a DebugSelection to the rows with targets, taken in
// input order. Two selectors of one selection choose the same rows: the
// reader's, which keeps the targets of the rows it chooses, and, for a
// source that cannot keep them, the scoring's.
type debugSelector struct {
	first int             // rows still to take, when selecting the first rows
	ids   map[string]bool // the sample IDs not taken yet, when selecting by ID
	order []string        // the sample IDs as given, for the missing ones
}

func newDebugSelector(d DebugSelection) *debugSelector {
	s := &debugSelector{first: d.First}
	if len(d.SampleIDs) > 0 {
		s.ids = make(map[string]bool, len(d.SampleIDs))
		for _, id := range d.SampleIDs {
			if !s.ids[id] {
				s.ids[id] = true
				s.order = append(s.order, id)
			}
		}
	}
	return s
}

// take reports whether the row with targets of sample id, the next in
// input order, is selected.
func (s *debugSelector) take(id string) bool {
	if s.ids == nil {
		if s.first > 0 {
			s.first--
			return true
		}
		return false
	}
	if s.ids[id] {
		delete(s.ids, id)
		return true
	}
	return false
}

// missing lists the sample IDs selected that no row with targets had, in
// the order given.
func (s *debugSelector) missing() []string {
	var out []string
	for _, id := range s.order {
		if s.ids[id] {
			out = append(out, id)
		}
	}
	return out
}

// targetKeeper is a source that can keep the relevant items of the rows a
// selector chooses, on the batches (Batch.targetsOf). keepTargets is called
// before the first Next.
type targetKeeper interface {
	keepTargets(sel *debugSelector)
}

// itemDropper is a source that can leave the predicted items and scores off
// its batches, when nothing reads them. dropItems is called before the
// first Next.
type itemDropper interface {
	dropItems()
}

// keepRow adds the relevant items of row r of b to the batch, at most
// MaxDebugTargets of them, if sel selects the row.
func keepRow[T any](b *Batch, sel *debugSelector, r int, id string, relevant []T, name func(T) string) {
	if sel == nil || len(relevant) == 0 || !sel.take(id) {
		return
	}
	items := make([]string, 0, min(len(relevant), MaxDebugTargets))
	for _, it := range relevant[:min(len(relevant), MaxDebugTargets)] {
		items = append(items, name(it))
	}
	b.kept = append(b.kept, keptTargets{r: r, items: items})
}

// debugRows collects the debug rows of a scoring.
type debugRows struct {
	sel  *debugSelector // nil when the source selects (targetKeeper)
	src  *debugSelector // the source's, when it selects
	keys []string
	k    int // items listed per row
	rows []DebugRow
}

// add describes the selected rows of b, with their values vals (row-major,
// one per key).
func (d *debugRows) add(b *Batch, vals []float64) {
	if d.sel == nil {
		for _, kt := range b.kept {
			d.addRow(b, kt.r, vals, kt.items)
		}
		return
	}
	for r := range b.Len() {
		if b.Relevant[r] > 0 && d.sel.take(b.SampleIDs[r]) {
			d.addRow(b, r, vals, nil)
		}
	}
}

func (d *debugRows) addRow(b *Batch, r int, vals []float64, targets []string) {
	nk := len(d.keys)
	row := DebugRow{
		SampleID:    b.SampleIDs[r],
		Row:         b.First + int64(r),
		Targets:     targets,
		TargetCount: int(b.Relevant[r]),
		HitRanks:    []int{},
		Values:      make(map[string]float64, nk),
	}
	if targets == nil {
		row.Targets, _ = b.targetsOf(r)
	}
	k := min(d.k, b.Width)
	for i, hit := range b.Row(r)[:k] {
		if hit {
			row.HitRanks = append(row.HitRanks, i+1)
		}
	}
	if b.HasItems() {
		n := min(b.Ranked(r), k)
		row.Items = make([]string, n)
		for i := range n {
			row.Items[i] = b.Item(r, i)
		}
		if b.HasScores() {
			row.Scores = make([]float64, n)
			for i := range n {
				s, _ := b.Score(r, i)
				if math.IsNaN(s) || math.IsInf(s, 0) {
					// Unvalidated input: JSON has no such numbers.
					row.Scores = nil
					break
				}
				row.Scores[i] = s
			}
		}
	}
	for j, key := range d.keys {
		row.Values[key] = vals[r*nk+j]
	}
	d.rows = append(d.rows, row)
}

// missing lists the sample IDs asked for that no row with targets had.
func (d *debugRows) missing() []string {
	if d.sel != nil {
		return d.sel.missing()
	}
	return d.src.missing()
}

// stored returns the JSON array of the leading debug rows whose JSON fits
// in store.MaxDebugBytes, and how many rows that is: what the store keeps
// with a logged evaluation.
func (d *debugRows) stored() (json.RawMessage, int) {
	var (
		out = []byte{'['}
		n   int
	)
	for _, row := range d.rows {
		b, err := json.Marshal(row)
		if err != nil {
			panic("evaluate: debug row: " + err.Error()) // only finite values, strings and ints
		}
		if len(out)+len(b)+2 > store.MaxDebugBytes {
			break
		}
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
		n++
	}
	return append(out, ']'), n
}
