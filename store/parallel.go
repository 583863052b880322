package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"
)

// advisoryLockSpace is the first key of the advisory locks verdict takes on
// evaluation IDs ('verd').
const advisoryLockSpace = 0x76657264

// loadBuckets splits the rows of c among l.buckets hash partitions of the
// evaluation's partition and loads each over its own connection, in its own
// transaction: create, COPY, build the primary key. The partitions commit
// together once every one is complete, and are attached to l.table in tx, the
// transaction that logs the evaluation. Until then they belong to no table,
// so an interrupted log leaves nothing visible.
//
// Each partition is recorded in unattached_unit_values in the transaction
// that creates it, and tx deletes the records when it attaches them; tx also
// holds an advisory lock on the evaluation ID while it runs. A record whose
// lock is free thus names a partition that will never be attached:
// dropUnattached drops it: the caller's when tx does not commit, and Open's
// clean-up (collectOrphansInBackground) those of a log that was killed.
func (s *Store) loadBuckets(ctx context.Context, tx pgx.Tx, l *load, c *wideChecker) error {
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1, $2)`, advisoryLockSpace, l.id); err != nil {
		return fmt.Errorf("lock evaluation %d: %w", l.id, err)
	}
	s.collectOrphans(ctx)

	n := l.buckets
	g, gctx := errgroup.WithContext(ctx)
	chans := make([]chan []byte, n)
	for k := range chans {
		chans[k] = make(chan []byte, 4)
	}

	var inputErr error
	g.Go(func() error {
		inputErr = l.produceChunks(gctx, c, chans)
		return inputErr
	})

	leaves := make([]string, n)
	conns := make([]*pgxpool.Conn, n)
	txs := make([]pgx.Tx, n)
	defer func() {
		for k := range conns {
			if txs[k] != nil {
				_ = txs[k].Rollback(context.WithoutCancel(ctx)) // no-op after commit
			}
			if conns[k] != nil {
				conns[k].Release()
			}
		}
	}()
	for k := range n {
		name := fmt.Sprintf("unit_values_%d_p%d", l.id, k)
		leaves[k] = pgx.Identifier{"verdict_units", name}.Sanitize()
		g.Go(func() error {
			conn, err := s.pool.Acquire(gctx)
			if err != nil {
				return err
			}
			conns[k] = conn
			ltx, err := conn.Begin(gctx)
			if err != nil {
				return err
			}
			txs[k] = ltx
			if _, err := ltx.Exec(gctx, `SELECT verdict_units.create_values_part($1, $2, $3)`, l.id, n, k); err != nil {
				return fmt.Errorf("create partition %d: %w", k, err)
			}
			src := &chanReader{ch: chans[k], ctx: gctx}
			if _, err := ltx.Conn().PgConn().CopyFrom(gctx, src, l.copySQL(leaves[k])); err != nil {
				return fmt.Errorf("load partition %d: %w", k, err)
			}
			// The parts already build their keys side by side; parallel
			// workers on top would only contend for the same cores.
			if _, err := ltx.Exec(gctx, `SET LOCAL maintenance_work_mem = '256MB'; SET LOCAL max_parallel_maintenance_workers = 0; SAVEPOINT before_pk`); err != nil {
				return err
			}
			if _, err := ltx.Exec(gctx, `SELECT verdict_units.index_values($1, $2)`, l.id, k); err != nil {
				if isUniqueViolation(err) {
					return (&load{table: leaves[k]}).duplicate(gctx, ltx, l.hasDraw)
				}
				return fmt.Errorf("index partition %d: %w", k, err)
			}
			return nil
		})
	}
	if err := preferInputError(g.Wait(), inputErr); err != nil {
		return err
	}
	if l.rows == 0 {
		return nil // reported by the caller; the partitions roll back
	}

	// Commit the partitions together; from here on they must be dropped if
	// the evaluation does not commit.
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make([]error, n)
	for k := range n {
		wg.Go(func() {
			errs[k] = txs[k].Commit(ctx)
			if errs[k] == nil {
				mu.Lock()
				l.leaves = append(l.leaves, leaves[k])
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("commit partitions: %w", err)
	}
	if _, err := tx.Exec(ctx, `SELECT verdict_units.attach_values_parts($1, $2)`, l.id, n); err != nil {
		return fmt.Errorf("attach partitions: %w", err)
	}
	return nil
}

// collectOrphans drops the partitions that logs killed between committing
// them and committing their evaluation left behind. It is best effort; a
// failure only leaves the garbage for next time.
func (s *Store) collectOrphans(ctx context.Context) {
	for _, id := range s.unattached(ctx) {
		s.dropUnattached(ctx, id)
	}
}

// collectOrphansInBackground looks for partitions that killed logs left,
// with one query on a table that is empty but while a log over several
// connections runs, and drops any it finds in a goroutine that Close waits
// for, so that opening the store takes no longer.
func (s *Store) collectOrphansInBackground(ctx context.Context) {
	ids := s.unattached(ctx)
	if len(ids) == 0 {
		return
	}
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	s.background.Go(func() {
		defer cancel()
		for _, id := range ids {
			s.dropUnattached(bg, id)
		}
	})
}

// unattached returns the evaluation IDs that have partitions recorded as
// not attached: those of logs in progress, and those of killed logs.
func (s *Store) unattached(ctx context.Context) []int64 {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT evaluation_id FROM unattached_unit_values`)
	if err != nil {
		return nil
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil
	}
	return ids
}

// dropUnattached drops the partitions of evaluation id recorded as not
// attached, unless the log that loads them still runs (holds the
// evaluation's advisory lock); verdict_units.drop_unattached (migration 9)
// never drops a table that is attached, whatever the records say. It is best effort: it waits for no lock longer
// than a second, and a failure leaves the partitions for next time. It
// returns how many it dropped.
func (s *Store) dropUnattached(ctx context.Context, id int64) int {
	var dropped int
	err := s.transact(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '1s'`); err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT verdict_units.drop_unattached($1)`, id).Scan(&dropped)
	})
	if err != nil {
		return 0
	}
	return dropped
}
