package dburl

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// ErrBadConnString means a database URL or connection string is not one pgx
// can read. SplitPassword and ConnStringError return it, wrapped with the
// redacted string and pgx's reason.
var ErrBadConnString = errors.New("not a valid PostgreSQL URL or connection string")

// ConnStringError is the error for conn, a connection string pgx cannot
// read, with err pgx's error: "database URL <conn redacted>: <ErrBadConnString>:
// <pgx's reason>". pgx's reason may quote a part of conn, and so of a
// malformed password in it (unexpected spaces found in "ss word@h"): quoted
// text that the redacted string does not show is left out.
func ConnStringError(conn string, err error) error {
	redacted := Redact(conn)
	var reason string
	if inner := errors.Unwrap(err); inner != nil {
		reason = inner.Error()
	} else if i := strings.LastIndex(err.Error(), "`: "); i >= 0 {
		// "cannot parse `<conn>`: invalid port"
		reason = err.Error()[i+3:]
	} else {
		return fmt.Errorf("database URL %s: %w", redacted, ErrBadConnString)
	}
	reason = quotedRE.ReplaceAllStringFunc(reason, func(q string) string {
		if strings.Contains(redacted, q[1:len(q)-1]) {
			return q
		}
		return `"…"`
	})
	return fmt.Errorf("database URL %s: %w: %s", redacted, ErrBadConnString, reason)
}

// quotedRE matches the quoted text in pgx's messages.
var quotedRE = regexp.MustCompile(`"[^"]*"`)
