// Package store is verdict's PostgreSQL layer: it connects, applies the embedded
// migrations, logs evaluations with their per-unit values, and reads runs and
// evaluations back.
//
// # Connecting
//
// Open takes a connection URL. ResolveURL decides which URL verdict uses
// (--database-url, VERDICT_DATABASE_URL, DATABASE_URL); when none is set,
// Locate starts the embedded default cluster of package store/localpg and
// returns its URL, and OpenLocated does both for a front end. Open migrates the schema on first use under a
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
// It does not parse files (packages scores and evaluate do), compute
// statistics (package stats), decide anything (package compare) or render
// anything (package report). Nor does it read the run search language:
// package runfilter parses a filter and renders it with the SQL of the
// operands that SearchRuns supplies; or read connection strings: package
// internal/dburl redacts them. Its errors name no command-line flags: a front
// end adds its own hint. Nothing above this package imports pgx (only
// internal/dburl below it, for pgconn's parser of connection strings):
// errors from the driver are translated here into the sentinel errors
// below.
package store
