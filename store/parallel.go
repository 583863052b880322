package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"sync"

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
// so an interrupted log leaves nothing visible; tx holds an advisory lock on
// the evaluation ID so that collectOrphans can tell a live load from a dead
// one, and the caller drops the partitions if tx does not commit.
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
		leaves[k] = pgx.Identifier{"verdict_units", fmt.Sprintf("unit_values_%d_p%d", l.id, k)}.Sanitize()
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
			if _, err := ltx.Exec(gctx, fmt.Sprintf(`CREATE TABLE %s (%s)`, leaves[k], l.columns())); err != nil {
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
			if _, err := ltx.Exec(gctx, fmt.Sprintf(`ALTER TABLE %s ADD PRIMARY KEY (evaluation_id, sample_id, draw)`, leaves[k])); err != nil {
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
	for k := range n {
		if _, err := tx.Exec(ctx, fmt.Sprintf(`ALTER TABLE %s ATTACH PARTITION %s FOR VALUES WITH (MODULUS %d, REMAINDER %d)`,
			l.table, leaves[k], n, k)); err != nil {
			return fmt.Errorf("attach partition %d: %w", k, err)
		}
	}
	return nil
}

var leafName = regexp.MustCompile(`^unit_values_([0-9]+)_p[0-9]+$`)

// collectOrphans drops hash partitions that a killed log committed but never
// attached: tables of verdict_units that belong to no table and whose
// evaluation ID no live session holds the advisory lock on. It is best
// effort; a failure only leaves the garbage for next time.
func (s *Store) collectOrphans(ctx context.Context) {
	rows, err := s.pool.Query(ctx, `
		SELECT c.relname
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'verdict_units' AND c.relkind = 'r' AND NOT c.relispartition`)
	if err != nil {
		return
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return
	}
	for _, name := range names {
		m := leafName.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		id, err := strconv.ParseInt(m[1], 10, 32)
		if err != nil {
			continue
		}
		_ = s.transact(ctx, func(tx pgx.Tx) error {
			var free bool
			if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1, $2)`, advisoryLockSpace, id).Scan(&free); err != nil || !free {
				return err
			}
			_, err := tx.Exec(ctx, `DROP TABLE IF EXISTS `+pgx.Identifier{"verdict_units", name}.Sanitize())
			return err
		})
	}
}

// dropTables drops tables by sanitized name, best effort.
func (s *Store) dropTables(ctx context.Context, names []string) {
	for _, n := range names {
		_, _ = s.pool.Exec(ctx, `DROP TABLE IF EXISTS `+n)
	}
}
