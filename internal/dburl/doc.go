// Package dburl reads PostgreSQL connection strings, database URLs
// (postgres://user:password@host/db?sslmode=disable) and keyword/value
// strings (host=h password='a b'), the way pgx and libpq do, to keep their
// passwords out of sight: Redact hides them for logs, errors and
// `verdict db url`, and SplitPassword takes the password out for a program
// whose command line every user of the machine can see.
//
// It does not connect, nor decide which database verdict uses: package
// store does both.
package dburl
