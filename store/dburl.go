package store

import (
	"net/url"
	"os"
	"regexp"
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

var keywordPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// Redact hides the password in a database URL or keyword/value connection
// string, for logs, errors and `verdict db url`.
func Redact(s string) string {
	if u, err := url.Parse(s); err == nil && u.Scheme != "" {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
		}
		return u.String()
	}
	return keywordPassword.ReplaceAllString(s, "${1}xxxxx")
}
