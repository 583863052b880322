package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// setup opens a migrated store on a fresh database.
func setup(t *testing.T) (*store.Store, string) {
	t.Helper()
	url := storetest.NewDatabase(t)
	s, err := store.Open(context.Background(), url, store.Options{})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s, url
}

// memRows is an in-memory store.Rows.
type memRows struct {
	metrics []string
	hasDraw bool
	ids     []string
	draws   []int64
	vals    [][]float64
	i       int
}

func (r *memRows) Metrics() []string { return r.metrics }
func (r *memRows) HasDraw() bool     { return r.hasDraw }
func (r *memRows) Next() bool        { r.i++; return r.i <= len(r.ids) }
func (r *memRows) SampleID() string  { return r.ids[r.i-1] }
func (r *memRows) Values() []float64 { return r.vals[r.i-1] }
func (r *memRows) Where() string     { return fmt.Sprintf("mem: row %d", r.i) }
func (r *memRows) Err() error        { return nil }
func (r *memRows) Draw() int64 {
	if r.draws == nil {
		return 0
	}
	return r.draws[r.i-1]
}

// memLong is an in-memory store.LongRows.
type memLong struct {
	hasDraw bool
	ids     []string
	draws   []int64
	metrics []string
	vals    []float64
	i       int
}

func (r *memLong) HasDraw() bool          { return r.hasDraw }
func (r *memLong) Next() bool             { r.i++; return r.i <= len(r.ids) }
func (r *memLong) SampleID() string       { return r.ids[r.i-1] }
func (r *memLong) Metric() string         { return r.metrics[r.i-1] }
func (r *memLong) Value() float64         { return r.vals[r.i-1] }
func (r *memLong) Record() int64          { return int64(r.i) + 1 }
func (r *memLong) Where(rec int64) string { return fmt.Sprintf("mem.csv: line %d", rec) }
func (r *memLong) Err() error             { return nil }
func (r *memLong) Draw() int64 {
	if r.draws == nil {
		return 0
	}
	return r.draws[r.i-1]
}
