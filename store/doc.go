// Package store is verdict's PostgreSQL layer: it connects, applies the embedded
// migrations, logs evaluations with their per-unit values, and reads runs and
// evaluations back.
//
// # Connecting
//
// Open takes a connection URL. ResolveURL decides which URL verdict uses
// (--database-url, VERDICT_DATABASE_URL, DATABASE_URL); when none is set the
// command line starts the embedded default cluster from package store/localpg
// and passes its URL here. Open migrates the schema on first use under a
// PostgreSQL advisory lock, so concurrent first connections are safe. A
// database whose schema is newer than this binary opens read-only: every write
// returns ErrSchemaTooNew.
//
// # Logging evaluations
//
// LogEvaluation streams rows from a Rows or LongRows source into the database
// in one transaction: either the whole evaluation becomes visible or nothing
// does. Each evaluation's per-unit values are written with a binary COPY into a
// fresh partition of unit_values, indexed after the load, and attached just
// before commit. Logging the same content again for the same run and
// evaluation set, or the same idempotency key, returns the existing
// evaluation instead of writing a second one.
//
// # What it does not do
//
// It does not parse files (package evaluate does), compute statistics (package
// stats) or render anything (package report). Nothing outside this package
// imports pgx: errors from the driver are translated here into the sentinel
// errors below.
package store
