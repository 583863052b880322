package dburl

import (
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

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
		return "", "", ConnStringError(conn, err)
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
