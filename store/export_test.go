package store

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// The pushed-down queries, for tests and benchmarks that read their plans.
var (
	SummaryQuery     = summaryQuery
	ReplicatesQuery  = replicatesQuery
	ReplicateGroups  = replicateGroups
	SignedRanksQuery = signedRanksQuery
)

// RunMeansColumnsBy is RunMeansColumns in queries of up to perQuery values.
func (s *Store) RunMeansColumnsBy(ctx context.Context, ms []RunMean, perQuery int64) ([]string, [][]float64, error) {
	return s.runMeansColumnsBy(ctx, ms, perQuery)
}

// NoJIT is Tx.noJIT.
func (t *Tx) NoJIT(ctx context.Context) error { return t.noJIT(ctx) }

// Lines runs sql in the transaction and returns its one text column.
func (t *Tx) Lines(ctx context.Context, sql string, args ...any) ([]string, error) {
	rows, err := t.tx.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
