package store

import (
	"context"
	"fmt"
)

// Distributed reports whether the database's per-unit values are a Citus
// distributed table (`verdict db distribute`): the pairing and resampling
// queries of summary.go then run on the workers, shard by shard. On a
// server without Citus it is false.
func (s *Store) Distributed(ctx context.Context) (bool, error) {
	var d bool
	err := s.pool.QueryRow(ctx, `
		SELECT to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL
		   AND EXISTS (SELECT 1 FROM pg_catalog.pg_class WHERE oid = to_regclass('unit_values'))`).Scan(&d)
	if err != nil || !d {
		return false, err
	}
	// A separate query: pg_dist_partition exists only with Citus.
	err = s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = 'unit_values'::regclass)`).Scan(&d)
	if err != nil {
		return false, fmt.Errorf("read Citus metadata: %w", err)
	}
	return d, nil
}
