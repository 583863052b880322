// Package runfilter is the run search language of `verdict runs --filter`,
// the API's runs endpoint and the web view: a filter such as
//
//	params.lr < 0.01 AND (tags.nightly = 'true' OR run LIKE 'als-%') AND metrics.ndcg@20 >= 0.3
//
// and an order key such as "metrics.ndcg@20 desc". It lexes and parses them
// into an expression tree (Filter, Order) and renders the tree as
// parameterised SQL.
//
// It does not know the schema: the SQL of each operand (run, params.NAME,
// ...) and the query's placeholders come from a Columns the caller
// supplies, which package store does. Nor does it run queries.
//
// # Language
//
// Operands are the attributes run, created and git_commit, and params.NAME
// (a run parameter), tags.NAME (the value of the run's tag NAME: 'true'
// for a tag logged without a value, 'false' when the run has no tag NAME;
// compared with a number, the value if it is a number, else NULL) and
// metrics.NAME (the mean of NAME in the run's newest evaluation, on the
// evaluation set the query names, or any). Operators are = != < <= >
// >= LIKE ILIKE and IN (...), combined with AND, OR, NOT and parentheses;
// values are single-quoted strings (” for a quote) and numbers. Keywords are
// case-insensitive. NOT binds tightest, then AND, then OR. The expression
// compiles to parameterised SQL: no text of the user's ever becomes SQL
// text.
//
// created, the time the run was first logged, compares with times: a date
// ('2026-11-01', midnight in the local time zone), a date and time
// ('2026-11-01T09:30:00', local; '2026-11-01T09:30:00Z' or any RFC 3339
// time) or an age, a whole number of days, hours or minutes before now
// (-7d, -12h, -30m; quoted or not, with or without the minus), so that
// created > -7d selects the runs of the last week. Any other value is an
// error that gives its column. With LIKE and ILIKE, created is text in UTC,
// 2026-11-01T09:30:00.
//
// An order key is an operand, then optionally asc or desc (default asc).
//
// # Errors
//
// Every error of Parse wraps ErrBadFilter, and every error of ParseOrder
// wraps ErrBadOrder; each gives the column (1-based) where the expression
// went wrong.
package runfilter
