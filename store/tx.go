package store

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Tx is a transaction in which a comparison reads its evaluations, pairs
// them and records its results, so that what is recorded is what was read.
type Tx struct {
	tx pgx.Tx
	s  *Store
}

// InTx runs fn in a transaction, committed when fn returns nil.
func (s *Store) InTx(ctx context.Context, fn func(*Tx) error) error {
	return s.transact(ctx, func(tx pgx.Tx) error { return fn(&Tx{tx: tx, s: s}) })
}

// transact runs fn in a transaction: it commits when fn returns nil and rolls
// back otherwise, even when ctx was cancelled.
func (s *Store) transact(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
