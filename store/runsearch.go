package store

import (
	"context"
	"fmt"

	"github.com/verdict-ml/verdict/runfilter"
)

// RunQuery is a run search: runs of Experiment ("" for all) matching Filter,
// ordered by OrderBy (an operand of the filter language, then optionally
// asc or desc; default: newest first), at most Limit (0 for no limit).
// The language of Filter and OrderBy is package runfilter's.
// metrics.NAME reads the newest evaluation on EvalSet, or on any set, and
// so does Run.Metrics.
type RunQuery struct {
	Experiment string `req:"experiment" short:"e" arg:"NAME" help:"only runs of this experiment"`
	EvalSet    string `req:"eval_set" short:"s" arg:"NAME" help:"evaluation set that metrics.NAME reads"`
	Filter     string `req:"filter" short:"f" arg:"EXPR" help:"only runs matching EXPR, e.g. params.lr < 0.01 AND tags.nightly = 'true'"`
	OrderBy    string `req:"order_by" arg:"KEY" help:"order by KEY [asc|desc], e.g. \"metrics.ndcg@20 desc\" (default: newest first)"`
	Limit      int    `req:"limit" short:"n" arg:"N" help:"at most N runs; 0 for all (default: all, but 50 in the command line's table and Markdown)"`
	// Metrics are the metrics a table of the runs shows, beside those the
	// filter and the order name; JSON and CSV show every metric. SearchRuns
	// does not read it.
	Metrics []string `req:"metrics" arg:"METRIC" help:"metrics a table shows as columns, each the newest evaluation's mean (repeatable or comma-separated; default: those --filter and --order-by name; JSON and CSV show every one)"`
}

// SearchRuns returns the runs a query selects. A malformed filter returns
// an error wrapping ErrBadFilter, a malformed order one wrapping ErrBadOrder
// (which errors.Is also matches with ErrBadFilter); both name the column.
func (s *Store) SearchRuns(ctx context.Context, q RunQuery) ([]Run, error) {
	f, err := runfilter.Parse(q.Filter)
	if err != nil {
		return nil, err
	}
	b := &sqlBuilder{args: []any{q.Experiment, q.EvalSet}, evalSet: 2}
	where := f.SQL(b)
	order := "r.created_at DESC, r.id DESC"
	if q.OrderBy != "" {
		key, err := runfilter.ParseOrder(q.OrderBy)
		if err != nil {
			return nil, err
		}
		order = key.SQL(b) + ", r.id"
	}
	limit := "ALL"
	if q.Limit > 0 {
		limit = b.Param(q.Limit)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+runColumns("$2::text")+`
		FROM runs r JOIN experiments x ON x.id = r.experiment_id
		WHERE ($1::text = '' OR x.name = $1::text) AND $2::text IS NOT NULL AND `+where+`
		ORDER BY `+order+`
		LIMIT `+limit, b.args...)
	if err != nil {
		return nil, fmt.Errorf("search runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("search runs: %w", err)
		}
		out = append(out, *r)
	}
	return out, rows.Err()
}

// sqlBuilder collects the parameters of a run search's SQL, and renders
// the operands of its filter and order as SQL: it is the
// runfilter.Columns of SearchRuns.
type sqlBuilder struct {
	args    []any
	evalSet int // parameter number of the evaluation set name
}

// Param adds v to the arguments and returns its placeholder.
func (b *sqlBuilder) Param(v any) string {
	b.args = append(b.args, v)
	return fmt.Sprintf("$%d", len(b.args))
}

// Column is the operand's SQL expression on runs r, read as as.
func (b *sqlBuilder) Column(o runfilter.Operand, as runfilter.Type) string {
	numeric := as == runfilter.Number
	switch o.Kind {
	case runfilter.Run:
		return "r.name"
	case runfilter.GitCommit:
		return "coalesce(r.git_commit, '')"
	case runfilter.Created:
		if as == runfilter.Text {
			return createdText
		}
		return "r.created_at"
	case runfilter.Params:
		k := b.Param(o.Name)
		if numeric {
			return fmt.Sprintf("(CASE WHEN jsonb_typeof(r.params -> %s::text) = 'number' THEN (r.params ->> %s::text)::double precision END)", k, k)
		}
		return fmt.Sprintf("(r.params ->> %s::text)", k)
	case runfilter.Tags:
		k := b.Param(o.Name)
		if numeric {
			return fmt.Sprintf(`(CASE WHEN (r.tag_values ->> %s::text) ~ '^\s*[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$'
				THEN (r.tag_values ->> %s::text)::double precision END)`, k, k)
		}
		return fmt.Sprintf("coalesce(r.tag_values ->> %s::text, 'false')", k)
	case runfilter.Metrics:
		k := b.Param(o.Name)
		expr := fmt.Sprintf(`(SELECT (e.aggregates ->> %s::text)::double precision
			FROM evaluations e JOIN evaluation_sets s ON s.id = e.evaluation_set_id
			WHERE e.run_id = r.id AND ($%d::text = '' OR s.name = $%d::text) AND e.aggregates ? %s::text
			ORDER BY e.created_at DESC, e.id DESC LIMIT 1)`, k, b.evalSet, b.evalSet, k)
		if numeric {
			return expr
		}
		return "(" + expr + ")::text"
	}
	panic("store: unknown operand " + string(o.Kind))
}

// createdText is created as text, for LIKE and ILIKE.
const createdText = `to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS')`
