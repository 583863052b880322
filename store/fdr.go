package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// Ledger is an experiment's online FDR ledger: the procedure its
// comparison history is tested under, and the procedure's state after the
// tests so far, as the procedure's own JSON.
type Ledger struct {
	Experiment string
	Method     string
	Alpha, W0  float64
	State      []byte
	// Tests counts the tests in the ledger.
	Tests     int
	CreatedAt time.Time
	UpdatedAt time.Time
	// New reports a ledger that LockLedger made: nothing is stored until
	// SaveLedger.
	New bool
}

// FDRRecord is a comparison's test in its experiment's online FDR stream.
type FDRRecord struct {
	Method string
	// Test is the test's 1-based position in the experiment's stream.
	Test                      int
	Level                     float64
	Rejected                  bool
	WealthBefore, WealthAfter float64
}

// LockLedger returns experiment's ledger, locked until the transaction
// ends: another transaction that locks it waits, and then reads the state
// this one saved. An experiment without a ledger gets a new one with
// method, alpha and w0, and fresh (the procedure's initial state); one
// with a ledger keeps its own, which the caller compares with what it was
// asked for. The experiment must exist.
func (t *Tx) LockLedger(ctx context.Context, experiment, method string, alpha, w0 float64, fresh []byte) (*Ledger, error) {
	if err := t.s.writable(); err != nil {
		return nil, err
	}
	l := &Ledger{Experiment: experiment}
	// A concurrent first comparison inserts too; ON CONFLICT waits for it
	// and then leaves its row, which the locking read below returns.
	tag, err := t.tx.Exec(ctx, `
		INSERT INTO fdr_ledgers (experiment_id, method, alpha, w0, state)
		SELECT id, $2, $3, $4, $5 FROM experiments WHERE name = $1
		ON CONFLICT (experiment_id) DO NOTHING`, experiment, method, alpha, w0, string(fresh))
	if err != nil {
		return nil, fmt.Errorf("online FDR ledger of %s: %w", namePreview(experiment), err)
	}
	l.New = tag.RowsAffected() == 1
	err = scanLedger(t.tx.QueryRow(ctx, ledgerQuery+` FOR UPDATE OF l`, experiment), l)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: experiment %s", ErrNotFound, namePreview(experiment))
	}
	return l, err
}

// SaveLedger stores the ledger's new state and test count, in the
// transaction that locked it.
func (t *Tx) SaveLedger(ctx context.Context, l *Ledger) error {
	_, err := t.tx.Exec(ctx, `
		UPDATE fdr_ledgers l SET state = $2, tests = $3, updated_at = now()
		FROM experiments x
		WHERE x.id = l.experiment_id AND x.name = $1`, l.Experiment, string(l.State), l.Tests)
	if err != nil {
		return fmt.Errorf("online FDR ledger of %s: %w", namePreview(l.Experiment), err)
	}
	return nil
}

// GetLedger returns experiment's ledger without locking it, or ErrNotFound
// when its history was never tested under an online procedure.
func (s *Store) GetLedger(ctx context.Context, experiment string) (*Ledger, error) {
	l := &Ledger{Experiment: experiment}
	err := scanLedger(s.pool.QueryRow(ctx, ledgerQuery, experiment), l)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: experiment %s has no online FDR ledger: none of its comparisons was tested under an online procedure", ErrNotFound, namePreview(experiment))
	}
	return l, err
}

// ledgerQuery reads the ledger of the experiment named $1.
const ledgerQuery = `
	SELECT l.method, l.alpha, l.w0, l.state::text, l.tests, l.created_at, l.updated_at
	FROM fdr_ledgers l JOIN experiments x ON x.id = l.experiment_id
	WHERE x.name = $1`

// scanLedger reads ledgerQuery's row into l; ErrNotFound for none.
func scanLedger(row pgx.Row, l *Ledger) error {
	var state string
	err := row.Scan(&l.Method, &l.Alpha, &l.W0, &state, &l.Tests, &l.CreatedAt, &l.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("online FDR ledger of %s: %w", namePreview(l.Experiment), err)
	}
	l.State = []byte(state)
	return nil
}
