package evaluate

import (
	"io"
	"slices"
	"strconv"

	"github.com/verdict-ml/verdict/fingerprint"
	"github.com/verdict-ml/verdict/internal/input"
)

// InMemoryRankings serves rankings a Go program holds in memory: for each
// sample, its ranked item IDs (best first) and its relevant item IDs. It is
// the Rankings behind `verdict demo`, and a way to evaluate a model without
// writing files.
type InMemoryRankings struct {
	ids      []string
	ranked   [][]int64
	relevant [][]int64
	width    int
	next     int
	batch    Batch
	fp       *fingerprint.Set
	set      map[int64]bool
	text     []string
	keep     *debugSelector // the rows whose targets to keep, or nil
	noItems  bool           // leave the items off the batches
}

func (m *InMemoryRankings) keepTargets(sel *debugSelector) { m.keep = sel }
func (m *InMemoryRankings) dropItems()                     { m.noItems = true }

// NewInMemoryRankings checks the rankings and returns them as a Rankings.
// width is the number of rank positions kept per row (the metrics' required
// k); 0 means the longest ranking. A ranking may be shorter than width; an
// item ranked twice in a row is an error wrapping ErrBadInput. Relevant items
// may repeat: each counts once.
func NewInMemoryRankings(sampleIDs []string, ranked, relevant [][]int64, width int) (*InMemoryRankings, error) {
	if len(ranked) != len(sampleIDs) || len(relevant) != len(sampleIDs) {
		return nil, input.Location{}.Errorf(ErrBadInput, "%d sample IDs, %d rankings and %d target rows", len(sampleIDs), len(ranked), len(relevant))
	}
	longest := 0
	for r, row := range ranked {
		longest = max(longest, len(row))
		seen := make(map[int64]bool, len(row))
		for _, it := range row {
			if seen[it] {
				return nil, rowAt("", int64(r), sampleIDs[r]).Errorf(ErrBadInput, "item %d is ranked twice", it)
			}
			seen[it] = true
		}
	}
	if width <= 0 {
		width = longest
	}
	return &InMemoryRankings{ids: sampleIDs, ranked: ranked, relevant: relevant, width: width,
		fp: fingerprint.NewTargets(), set: map[int64]bool{}}, nil
}

// Next returns the next batch of up to 1024 rows, or io.EOF.
func (m *InMemoryRankings) Next() (*Batch, error) {
	if m.next >= len(m.ids) {
		return nil, io.EOF
	}
	end := min(m.next+1024, len(m.ids))
	b := &m.batch
	b.SampleIDs, b.First, b.Width = m.ids[m.next:end], int64(m.next), m.width
	b.Hits = slices.Grow(b.Hits[:0], (end-m.next)*m.width)[:(end-m.next)*m.width]
	clear(b.Hits)
	b.Relevant = b.Relevant[:0]
	b.resetItems()
	for r := m.next; r < end; r++ {
		clear(m.set)
		m.text = m.text[:0]
		for _, it := range m.relevant[r] {
			if !m.set[it] {
				m.set[it] = true
				m.text = append(m.text, strconv.FormatInt(it, 10))
			}
		}
		if m.keep != nil {
			keepRow(b, m.keep, r-m.next, m.ids[r], m.text, func(s string) string { return s })
		}
		b.Relevant = append(b.Relevant, int32(len(m.set)))
		if len(m.set) > 0 {
			m.fp.AddTargets([]byte(m.ids[r]), m.text)
		}
		hits := b.Row(r - m.next)
		ranked := m.ranked[r][:min(len(m.ranked[r]), m.width)]
		for i, it := range ranked {
			hits[i] = m.set[it]
		}
		if !m.noItems {
			b.items.nums = append(b.items.nums, ranked...)
			b.items.nums = append(b.items.nums, make([]int64, m.width-len(ranked))...)
			b.items.ranked = append(b.items.ranked, int32(len(ranked)))
		}
	}
	m.next = end
	return b, nil
}

// Width is the number of rank positions per row.
func (m *InMemoryRankings) Width() int { return m.width }

// Targets is the fingerprint of the targets served so far.
func (m *InMemoryRankings) Targets() *fingerprint.Set { return m.fp }

// Progress counts rows: there are no bytes to read.
func (m *InMemoryRankings) Progress() (done, total int64) {
	return int64(m.next), int64(len(m.ids))
}

// Missing is 0 and "": every sample has its ranking.
func (m *InMemoryRankings) Missing() (rows int, what string) { return 0, "" }

// Close does nothing.
func (m *InMemoryRankings) Close() error { return nil }
