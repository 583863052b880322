package store

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/verdict-ml/verdict/internal/dburl"
	"github.com/verdict-ml/verdict/runfilter"
)

var (
	// ErrNotFound is returned by the Get and Find functions when no row matches.
	ErrNotFound = errors.New("not found")

	// ErrSchemaTooNew is returned by every write when the database's schema was
	// migrated by a newer verdict than this one. Open wraps it in a
	// *SchemaVersionError that says which versions it found and expected.
	ErrSchemaTooNew = errors.New("database schema is newer than this verdict")

	// ErrBadInput is wrapped by every error LogEvaluation returns for input the
	// user can fix: a NaN, an empty sample ID, a duplicate (sample ID, draw), no
	// rows. The command line maps it to exit code 2.
	ErrBadInput = errors.New("bad input")

	// ErrNotComparable is returned by Pair, UnitMatrix and RunMeansColumns
	// when evaluations were scored against different targets (or different
	// evaluation sets) and the caller did not ask for the units they share.
	ErrNotComparable = errors.New("evaluations are not comparable")

	// ErrUnknownMetric is returned by Pair and UnitMatrix when an evaluation
	// lacks the metric; the message lists the metrics it has.
	ErrUnknownMetric = errors.New("unknown metric")

	// ErrNoUnits is returned by Pair, UnitMatrix and the other readers of
	// per-unit values for an evaluation logged with its aggregates only, and
	// for a whole-set metric: there is no per-unit value to pair.
	ErrNoUnits = errors.New("no per-unit values")

	// ErrSeveralEvalSets is returned by LatestEvaluation when a run has
	// evaluations on several evaluation sets and none was named; the message
	// lists them.
	ErrSeveralEvalSets = errors.New("several evaluation sets")

	// ErrNotCitus is returned by Distribute when the database has no citus
	// extension.
	ErrNotCitus = errors.New("the database has no citus extension: run CREATE EXTENSION citus in it on the coordinator " +
		"and on every worker, and register the workers with citus_add_node (docs/scale-out.md)")

	// ErrNoWorkers is returned by Distribute when the Citus coordinator has
	// no active worker node to hold the shards.
	ErrNoWorkers = errors.New("the Citus coordinator has no active worker nodes: register them with citus_add_node (https://docs.citusdata.com)")

	// ErrConflict is returned by LogEvaluation, LogEvaluationLong,
	// LogAggregates and LogPredictions when the log contradicts what is
	// stored, and nothing is written: an idempotency key already holds an
	// evaluation logged by a request with another digest
	// (NewEvaluation.RequestDigest; an *IdempotencyConflictError), a param
	// the run has is given another value (a *ParamConflictError), or the
	// run already has an evaluation on the set at the step, with other
	// content (a *StepConflictError).
	ErrConflict = errors.New("conflict")

	// ErrSchemaOutdated is returned by Distribute when the database schema
	// is older than this verdict's: it must be migrated first.
	ErrSchemaOutdated = errors.New("database schema is older than this verdict")

	// ErrBadFilter is wrapped by the errors SearchRuns returns for a
	// malformed filter; it is runfilter.ErrBadFilter.
	ErrBadFilter = runfilter.ErrBadFilter

	// ErrBadOrder is wrapped by the errors SearchRuns returns for a
	// malformed order; it is runfilter.ErrBadOrder, which errors.Is also
	// matches with ErrBadFilter.
	ErrBadOrder = runfilter.ErrBadOrder

	// ErrBadConnString is wrapped by the error Open returns for a URL or
	// connection string pgx cannot read; it is dburl.ErrBadConnString.
	ErrBadConnString = dburl.ErrBadConnString
)

// SchemaVersionError reports a database migrated past the versions this
// binary knows. It wraps ErrSchemaTooNew.
type SchemaVersionError struct {
	Found, Known int64
}

func (e *SchemaVersionError) Error() string {
	return fmt.Sprintf("database schema is at version %d, but this verdict knows versions up to %d: upgrade verdict before writing to this database", e.Found, e.Known)
}

func (e *SchemaVersionError) Unwrap() error { return ErrSchemaTooNew }

// InputError is a problem with one row of the input, located for the user. It
// wraps ErrBadInput.
type InputError struct {
	Where    string // "scores.csv: line 12"; empty when the whole input is at fault
	SampleID string // empty when unknown
	Column   string // the metric or field; empty when the whole row is at fault
	Problem  string
}

func (e *InputError) Error() string {
	msg := e.Where
	if e.SampleID != "" {
		msg = strings.TrimSpace(msg + fmt.Sprintf(" (sample %q)", e.SampleID))
	}
	if e.Column != "" {
		if msg != "" {
			msg += ", "
		}
		msg += fmt.Sprintf("column %q", e.Column)
	}
	if msg != "" {
		msg += ": "
	}
	return msg + e.Problem
}

func (e *InputError) Unwrap() error { return ErrBadInput }

// IdempotencyConflictError reports an idempotency key reused with other
// content: the key already holds evaluation EvaluationID of the run. It
// wraps ErrConflict.
type IdempotencyConflictError struct {
	Key          string
	Run          string
	EvaluationID int64
}

func (e *IdempotencyConflictError) Error() string {
	return fmt.Sprintf("idempotency key %q already holds evaluation %d of run %s, logged with other content; nothing was stored: "+
		"use a key that is unique to the content (a retry must send the same body and parameters)", e.Key, e.EvaluationID, namePreview(e.Run))
}

func (e *IdempotencyConflictError) Unwrap() error { return ErrConflict }

// namePreview quotes the first 40 bytes of a name, cut at a character
// boundary, and marks a cut with an ellipsis.
func namePreview(name string) string {
	const most = 40
	if len(name) <= most {
		return fmt.Sprintf("%q", name)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", name[:cut])
}
