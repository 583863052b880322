package store

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// The pushed-down queries, for tests and benchmarks that read their plans.
var (
	SummaryQuery     = summaryQuery
	SignedRanksQuery = signedRanksQuery
	DifferencesQuery = differencesQuery
	RankSumsQuery    = rankSumsQuery
	ValueSumsQuery   = valueSumsQuery

	DifferenceSumsQuery    = differenceSumsQuery
	TopDifferencesQuery    = topDifferencesQuery
	DifferenceBucketsQuery = differenceBucketsQuery
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

// StreamDifferencesBy is StreamDifferences in batches of batch units.
func (t *Tx) StreamDifferencesBy(ctx context.Context, s *Summary, seed uint64, batch int, fn func(hashes, hi, lo []int64) error) error {
	return t.streamDifferences(ctx, s, seed, batch, fn)
}
