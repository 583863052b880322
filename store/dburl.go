package store

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// URL sources, in the order ResolveURL consults them.
const (
	SourceFlag     = "--database-url"
	SourceVerdict  = "VERDICT_DATABASE_URL"
	SourceDatabase = "DATABASE_URL"
)

// ResolveURL picks the explicit database URL verdict should use: the flag
// value, then $VERDICT_DATABASE_URL, then $DATABASE_URL. It returns "" when
// none is set, meaning the embedded default.
func ResolveURL(flag string) (dbURL, source string) {
	if flag != "" {
		return flag, SourceFlag
	}
	for _, env := range []string{SourceVerdict, SourceDatabase} {
		if v := os.Getenv(env); v != "" {
			return v, env
		}
	}
	return "", ""
}

// mask replaces a password.
const mask = "xxxxx"

// ErrBadConnString means a database URL or connection string is not one pgx
// can read. SplitPassword returns it, wrapped with the redacted string and
// pgx's reason.
var ErrBadConnString = errors.New("not a valid PostgreSQL URL or connection string")

// Redact hides every password in a database URL
// (postgres://user:password@host/db?password=...) or keyword/value connection
// string (host=h password='a b'), for logs, errors and `verdict db url`. It
// reads the string the way pgx and libpq do, and leaves the rest as written.
//
// A string they reject may still hold a password: one with an unescaped
// space, '/', '?' or '@', say. Redact then hides more rather than less: in
// anything that starts with a scheme (postgres://, postgresql://, in any
// case), everything from the first ':' to the last '@' that is not inside a
// query parameter, and every password= parameter; in a keyword/value string,
// everything after the first password=.
func Redact(s string) string {
	if m := schemeRE.FindString(s); m != "" {
		return m + redactURL(s[len(m):])
	}
	return redactKeywords(s)
}

// schemeRE matches what Redact takes for the start of a URL.
var schemeRE = regexp.MustCompile(`^\s*[A-Za-z][A-Za-z0-9+.:\-]*://`)

// redactURL redacts p, a URL without its "scheme://".
func redactURL(p string) string {
	sh, ok := shapeURI(p, true)
	if !ok {
		return redactBrokenURL(p)
	}
	var b strings.Builder
	if sh.password.end > sh.password.start {
		b.WriteString(p[:sh.password.start])
		b.WriteString(mask)
	} else {
		b.WriteString(p[:sh.password.end])
	}
	rest := p[sh.password.end:]
	if sh.query < 0 {
		b.WriteString(rest)
		return b.String()
	}
	q := sh.query - sh.password.end
	b.WriteString(rest[:q])
	b.WriteString(maskParams(rest[q:]))
	return b.String()
}

// redactBrokenURL redacts p, a URL without its "scheme://" that pgx rejects
// or that is ambiguous: it masks from the first ':' to the last '@' that
// is not inside a query parameter (an unescaped '@', '/' or '?' in a password
// makes pgx's '@' come too early), then every password parameter after it.
func redactBrokenURL(p string) string {
	at := userinfoEnd(p)
	var b strings.Builder
	rest := p
	if at >= 0 {
		if colon := strings.IndexByte(p[:at], ':'); colon >= 0 {
			b.WriteString(p[:colon+1])
			b.WriteString(mask)
			b.WriteByte('@')
		} else {
			b.WriteString(p[:at+1])
		}
		rest = p[at+1:]
	}
	b.WriteString(maskParams(rest))
	return keywordPasswordRE.ReplaceAllString(b.String(), "${1}"+mask)
}

// queryPairRE matches a query parameter whose value may hold an '@'.
var queryPairRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.%\-]*=[^=&?]*$`)

// userinfoEnd returns the index of the '@' that ends a broken URL's
// userinfo, or -1: the last '@' that is not inside a query parameter, and
// never one before the '@' pgx itself would take.
func userinfoEnd(p string) int {
	pgxAt := -1
	if i := strings.IndexAny(p, "@/"); i >= 0 && p[i] == '@' {
		pgxAt = i
	}
	for at := strings.LastIndexByte(p, '@'); at > pgxAt; at = strings.LastIndexByte(p[:at], '@') {
		sep := strings.LastIndexAny(p[:at], "?&")
		if sep <= pgxAt {
			return at
		}
		end := len(p)
		if i := strings.IndexByte(p[at:], '&'); i >= 0 {
			end = at + i
		}
		if !queryPairRE.MatchString(p[sep+1 : end]) {
			return at
		}
	}
	return pgxAt
}

// keywordPasswordRE matches a password in keyword/value form.
var keywordPasswordRE = regexp.MustCompile(`(?i)((?:^|[\s?&;])(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&]*)`)

// maskParams masks the value of every password and sslpassword parameter in
// s, a URL's query: the key is percent-decoded as pgx does, so
// pass%77ord=... counts.
func maskParams(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "?&")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+1])
		s = s[i+1:]
		end := strings.IndexAny(s, "?&")
		if end < 0 {
			end = len(s)
		}
		key, _, hasValue := strings.Cut(s[:end], "=")
		if hasValue && isPasswordKey(decodeLenient(key)) {
			b.WriteString(key + "=" + mask)
			s = s[end:]
		}
	}
}

// isPasswordKey reports whether a parameter holds a secret: password or
// sslpassword, in any case.
func isPasswordKey(key string) bool {
	key = strings.TrimSpace(key)
	return strings.EqualFold(key, "password") || strings.EqualFold(key, "sslpassword")
}

// redactKeywords redacts a keyword/value connection string.
func redactKeywords(s string) string {
	pairs, ok := parseKeywords(s)
	if !ok {
		// Everything after the first password= may be part of it.
		if loc := keywordPasswordRE.FindStringSubmatchIndex(s); loc != nil {
			return s[:loc[3]] + mask
		}
		return s
	}
	var b strings.Builder
	last := 0
	for _, p := range pairs {
		val := s[p.value:p.end]
		switch {
		case isPasswordKey(p.key):
			val = mask
			if p.end < len(s) && !strings.ContainsRune(spaces, rune(s[p.end])) {
				// 'a'b=c is two pairs; xxxxxb=c would be one.
				val += " "
			}
		case schemeRE.MatchString(strings.TrimPrefix(val, "'")):
			// libpq reads a URL in dbname as a connection string.
			if inner, ok := strings.CutPrefix(val, "'"); ok {
				val = "'" + Redact(strings.TrimSuffix(inner, "'")) + "'"
			} else {
				val = Redact(val)
			}
		default:
			continue
		}
		b.WriteString(s[last:p.value])
		b.WriteString(val)
		last = p.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// SplitPassword returns conn, a database URL or keyword/value connection
// string, without its password, and the password pgx would use: the one in
// the URL's user info, a password parameter, or a password keyword, the last
// one given. password is empty when conn holds none, and rest is then conn.
// A program started with rest on its command line, where ps shows it to
// every user of the machine, needs the password given another way: psql
// reads it from a password file.
//
// It returns an error wrapping ErrBadConnString when pgx cannot read conn.
func SplitPassword(conn string) (rest, password string, err error) {
	cfg, err := pgconn.ParseConfig(conn)
	if err != nil {
		return "", "", connStringError(conn, err)
	}
	found := false
	if p, ok := strings.CutPrefix(conn, "postgres://"); ok {
		rest, found = splitURL("postgres://", p)
	} else if p, ok := strings.CutPrefix(conn, "postgresql://"); ok {
		rest, found = splitURL("postgresql://", p)
	} else {
		rest, found = splitKeywords(conn)
	}
	if !found {
		return conn, "", nil
	}
	return rest, cfg.Password, nil
}

// connStringError is the error for conn, a connection string pgx cannot
// read, with err pgx's error: "database URL <conn redacted>: <ErrBadConnString>:
// <pgx's reason>". pgx's reason may quote a part of conn, and so of a
// malformed password in it (unexpected spaces found in "ss word@h"): quoted
// text that the redacted string does not show is left out.
func connStringError(conn string, err error) error {
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

// splitURL removes the password from p, a URL after its scheme that pgx
// accepts, and reports whether there was one.
func splitURL(scheme, p string) (rest string, found bool) {
	sh, ok := shapeURI(p, false)
	if !ok {
		return scheme + p, false
	}
	var b strings.Builder
	b.WriteString(scheme)
	if sh.hasPassword {
		// user:password@ becomes user@.
		b.WriteString(p[:sh.password.start-1])
		found = sh.password.end > sh.password.start
	} else {
		b.WriteString(p[:sh.password.end])
	}
	tail := p[sh.password.end:]
	if sh.query < 0 {
		b.WriteString(tail)
		return b.String(), found
	}
	q := sh.query - sh.password.end
	b.WriteString(tail[:q])
	var kept []string
	for pair := range strings.SplitSeq(tail[q+1:], "&") {
		key, _, _ := strings.Cut(pair, "=")
		if k, _ := uriDecode(key); k == "password" {
			found = true
			continue
		}
		if pair != "" {
			kept = append(kept, pair)
		}
	}
	if len(kept) > 0 {
		b.WriteString("?" + strings.Join(kept, "&"))
	}
	return b.String(), found
}

// splitKeywords removes every password keyword from a keyword/value
// connection string that pgx accepts, and reports whether there was one.
func splitKeywords(s string) (rest string, found bool) {
	pairs, ok := parseKeywords(s)
	if !ok {
		return s, false
	}
	var b strings.Builder
	last := 0
	for i, p := range pairs {
		if p.key != "password" {
			continue
		}
		found = true
		b.WriteString(s[last:p.start])
		last = len(s)
		if i+1 < len(pairs) {
			last = pairs[i+1].start
		}
	}
	b.WriteString(s[last:])
	return strings.TrimRight(b.String(), spaces), found
}

// span is a part of a string, from start to end.
type span struct{ start, end int }

// uriShape says where a connection URI, without its "scheme://", keeps its
// passwords.
type uriShape struct {
	// password is the user info's password: empty, at the end of the user
	// name, when there is none; start and end 0 without user info.
	password span
	// hasPassword says the user info has a ':', password.start-1.
	hasPassword bool
	// query is the index of the '?' that starts the query, -1 if none.
	query int
}

// shapeURI reads p, a connection URI without its "scheme://", as pgx's and
// libpq's parsers do (pgconn's parse_url.go, libpq's conninfo_uri_parse). The
// user info ends at the first '@' before any '/', and the password at the
// first ':' in it. ok is false when they reject p or when a port is not a
// number, and, with strict, when an '@' sits outside the user info and the
// query values: then an unescaped '@' in the password may have ended it
// early.
func shapeURI(p string, strict bool) (sh uriShape, ok bool) {
	sh.query = -1
	if strings.IndexByte(p, 0) >= 0 {
		return sh, false
	}
	i := 0
	if at := strings.IndexAny(p, "@/"); at >= 0 && p[at] == '@' {
		user, password, hasPassword := strings.Cut(p[:at], ":")
		sh.password = span{len(user), len(user)}
		if hasPassword {
			sh.password, sh.hasPassword = span{len(user) + 1, at}, true
		}
		if !decodable(user) || !decodable(password) {
			return sh, false
		}
		i = at + 1
	}
	for {
		if i < len(p) && p[i] == '[' {
			end := strings.IndexByte(p[i:], ']')
			if end <= 1 {
				return sh, false
			}
			if host := p[i+1 : i+end]; !decodable(host) || strict && strings.Contains(host, "@") {
				return sh, false
			}
			i += end + 1
			if i < len(p) && !strings.ContainsRune(":/?,", rune(p[i])) {
				return sh, false
			}
		} else {
			end := indexAnyFrom(p, i, ":/?,")
			if host := p[i:end]; !decodable(host) || strict && strings.Contains(host, "@") {
				return sh, false
			}
			i = end
		}
		if i < len(p) && p[i] == ':' {
			end := indexAnyFrom(p, i+1, "/?,")
			port, ok := uriDecode(p[i+1 : end])
			if !ok || strings.Trim(port, "0123456789") != "" {
				return sh, false
			}
			i = end
		}
		if i == len(p) || p[i] != ',' {
			break
		}
		i++
	}
	if i < len(p) && p[i] == '/' {
		end := indexAnyFrom(p, i+1, "?")
		if db := p[i+1 : end]; !decodable(db) || strict && strings.Contains(db, "@") {
			return sh, false
		}
		i = end
	}
	if i < len(p) && p[i] == '?' {
		sh.query = i
		for params := p[i+1:]; params != ""; {
			var pair string
			pair, params, _ = strings.Cut(params, "&")
			key, value, found := strings.Cut(pair, "=")
			if !found || strings.Contains(value, "=") || !decodable(key) || !decodable(value) {
				return sh, false
			}
		}
	}
	return sh, true
}

// indexAnyFrom returns the index of the first of chars in s from i on, or
// len(s).
func indexAnyFrom(s string, i int, chars string) int {
	if j := strings.IndexAny(s[i:], chars); j >= 0 {
		return i + j
	}
	return len(s)
}

// uriDecode percent-decodes a URI component as pgx and libpq do: leading and
// trailing spaces are dropped, inner ones and %00 are refused, and '%' must
// start two hex digits.
func uriDecode(raw string) (string, bool) {
	raw = strings.Trim(raw, " ")
	if strings.Contains(raw, " ") {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] != '%' {
			b.WriteByte(raw[i])
			continue
		}
		if i+2 >= len(raw) {
			return "", false
		}
		hi, ok1 := unhex(raw[i+1])
		lo, ok2 := unhex(raw[i+2])
		if !ok1 || !ok2 || hi<<4|lo == 0 {
			return "", false
		}
		b.WriteByte(hi<<4 | lo)
		i += 2
	}
	return b.String(), true
}

func decodable(raw string) bool {
	_, ok := uriDecode(raw)
	return ok
}

// decodeLenient percent-decodes what it can and keeps the rest.
func decodeLenient(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		if raw[i] == '%' && i+2 < len(raw) {
			hi, ok1 := unhex(raw[i+1])
			lo, ok2 := unhex(raw[i+2])
			if ok1 && ok2 {
				b.WriteByte(hi<<4 | lo)
				i += 2
				continue
			}
		}
		b.WriteByte(raw[i])
	}
	return b.String()
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// spaces are what separates keyword/value pairs.
const spaces = " \t\n\r\v\f"

// kvPair is one keyword=value of a connection string.
type kvPair struct {
	key string
	// start is where the keyword starts; value and end bound the value as
	// written, quotes included.
	start, value, end int
}

// parseKeywords splits a keyword/value connection string as pgx's and
// libpq's parsers do: a value is quoted with single quotes or ends at a space,
// and a backslash escapes the character after it. ok is false when they
// reject s; pairs then holds those read before the error.
func parseKeywords(s string) (pairs []kvPair, ok bool) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, false
	}
	i := skipSpaces(s, 0)
	for i < len(s) {
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			return pairs, false
		}
		eq += i
		key := strings.Trim(s[i:eq], spaces)
		if key == "" || strings.ContainsAny(key, spaces) {
			return pairs, false
		}
		p := kvPair{key: key, start: i, value: skipSpaces(s, eq+1)}
		j := p.value
		if j < len(s) && s[j] == '\'' {
			for j++; j < len(s) && s[j] != '\''; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return pairs, false
			}
			j++
		} else {
			for ; j < len(s) && !strings.ContainsRune(spaces, rune(s[j])); j++ {
				if s[j] == '\\' {
					j++
				}
			}
			j = min(j, len(s))
		}
		p.end = j
		pairs = append(pairs, p)
		i = skipSpaces(s, j)
	}
	return pairs, true
}

func skipSpaces(s string, i int) int {
	for i < len(s) && strings.ContainsRune(spaces, rune(s[i])) {
		i++
	}
	return i
}
