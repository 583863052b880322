package dburl

import (
	"regexp"
	"strings"
)

// mask replaces a password.
const mask = "xxxxx"

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
			// The value runs to the next '&': net/url, and so pgx,
			// splits a query on '&' alone, and a '?' is the value's.
			if end = strings.IndexByte(s, '&'); end < 0 {
				end = len(s)
			}
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
