package dburl

import "strings"

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
