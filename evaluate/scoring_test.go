package evaluate_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/evaluate"
	"github.com/verdict-ml/verdict/fingerprint"
	"github.com/verdict-ml/verdict/store"
)

var (
	_ store.Rows                = (*evaluate.Scoring)(nil)
	_ store.InputCounter        = (*evaluate.Scoring)(nil)
	_ store.TargetFingerprinter = (*evaluate.Scoring)(nil)
	_ store.UnitCounter         = (*evaluate.Scoring)(nil)
	_ store.DrawCounter         = (*evaluate.Scoring)(nil)
)

// memRankings hands out batches of width 2 built from hit patterns, reusing
// one Batch as the readers do.
type memRankings struct {
	rows [][]bool // hits per row
	rel  []int32
	ids  []string
	size int
	next int
	b    evaluate.Batch
	fp   *fingerprint.Set
}

func (m *memRankings) Next() (*evaluate.Batch, error) {
	if m.next >= len(m.rows) {
		return nil, io.EOF
	}
	end := min(m.next+m.size, len(m.rows))
	m.b = evaluate.Batch{First: int64(m.next), Width: 2}
	for r := m.next; r < end; r++ {
		m.b.SampleIDs = append(m.b.SampleIDs, m.ids[r])
		m.b.Hits = append(m.b.Hits, m.rows[r]...)
		m.b.Relevant = append(m.b.Relevant, m.rel[r])
	}
	m.next = end
	return &m.b, nil
}
func (m *memRankings) Width() int                    { return 2 }
func (m *memRankings) Targets() *fingerprint.Set     { return m.fp }
func (m *memRankings) Progress() (done, total int64) { return 0, 0 }
func (m *memRankings) Missing() (int, string)        { return 0, "" }
func (m *memRankings) Close() error                  { return nil }

func TestScoringKeepsInputOrder(t *testing.T) {
	t.Parallel()
	src := &memRankings{size: 3, fp: fingerprint.NewTargets()}
	for i := range 100 {
		src.ids = append(src.ids, fmt.Sprintf("u%d", i%40)) // IDs repeat: draws
		src.rows = append(src.rows, []bool{i%2 == 0, i%3 == 0})
		src.rel = append(src.rel, int32(i%4)) // every fourth row has no targets
	}
	ev, err := evaluate.NewEvaluator([]evaluate.Metric{evaluate.HitRate(1, 2)})
	require.NoError(t, err)
	s := ev.Start(context.Background(), src, 3)
	defer s.Close()
	// A consumer slower than the workers: were a batch's storage reused
	// before the cursor passed it, its rows would show a later batch's
	// values.
	s.OnBatch = func(int) { time.Sleep(2 * time.Millisecond) }
	var rows []int64
	draws := map[string]int64{}
	for s.Next() {
		row := s.Row()
		rows = append(rows, row)
		require.Equal(t, src.ids[row], s.SampleID())
		// hit_rate@1 is the first flag; hit_rate@2 either flag (by definition).
		want1, want2 := 0.0, 0.0
		if src.rows[row][0] {
			want1 = 1
		}
		if src.rows[row][0] || src.rows[row][1] {
			want2 = 1
		}
		require.Equal(t, []float64{want1, want2}, s.Values(), "row %d", row)
		require.Equal(t, draws[s.SampleID()], s.Draw())
		draws[s.SampleID()]++
	}
	require.NoError(t, s.Err())
	require.Len(t, rows, 75, "rows without targets are skipped")
	for i := 1; i < len(rows); i++ {
		require.Less(t, rows[i-1], rows[i], "input order")
	}
	require.Equal(t, int64(100), s.InputRows())
	require.Equal(t, int64(75), s.Summary().ScoredRows())
	// IDs u0, u4, ... u36 fall only on rows without targets (40 is a multiple of 4).
	require.Equal(t, int64(30), s.Summary().Units())
	// u1 is on rows 1, 41 and 81, all with targets; no ID has more.
	require.Equal(t, int64(3), s.EvalDraws())
}

// Draws count the scored rows of each sample ID in input order, whether the
// IDs come sorted, sorted until a repeat, or in no order.
func TestScoringDraws(t *testing.T) {
	t.Parallel()
	cases := []struct {
		ids   []string
		draws []int64
		most  int64 // EvalDraws
	}{
		{[]string{"a", "b", "c", "d"}, []int64{0, 0, 0, 0}, 1},
		{[]string{"a", "a", "b", "b", "b"}, []int64{0, 1, 0, 1, 2}, 3},
		{[]string{"a", "b", "c", "b", "a", "d", "a"}, []int64{0, 0, 0, 1, 1, 0, 2}, 3},
		{[]string{"c", "b", "a", "c", "e", "d", "e"}, []int64{0, 0, 0, 1, 0, 0, 1}, 2},
		{[]string{"b", "ba", "a", "b", "ba"}, []int64{0, 0, 0, 1, 1}, 2},
		{[]string{"8", "9", "10", "11", "10", "9"}, []int64{0, 0, 0, 0, 1, 1}, 2},
	}
	ev, err := evaluate.NewEvaluator([]evaluate.Metric{evaluate.HitRate(1)})
	require.NoError(t, err)
	for _, c := range cases {
		src := &memRankings{size: 2, ids: c.ids, fp: fingerprint.NewTargets()}
		for range c.ids {
			src.rows = append(src.rows, []bool{true, false})
			src.rel = append(src.rel, 1)
		}
		s := ev.Start(context.Background(), src, 2)
		var got []int64
		for s.Next() {
			got = append(got, s.Draw())
		}
		require.NoError(t, s.Err())
		require.Equal(t, c.draws, got, "IDs %q", c.ids)
		require.Equal(t, c.most, s.EvalDraws(), "IDs %q", c.ids)
		s.Close()
	}
}
