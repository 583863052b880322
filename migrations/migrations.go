// Package migrations holds verdict's database schema as goose SQL migrations,
// embedded in the binary. Package store applies them; this package only ships
// the files. docs/schema.md explains every table and view they create.
package migrations

import "embed"

// FS holds the numbered goose migrations (00001_*.sql, ...).
//
//go:embed *.sql
var FS embed.FS
