package store

import (
	"context"
	"io"
	"os"

	"github.com/verdict-ml/verdict/store/localpg"
)

// Locate finds the database verdict uses: ResolveURL's explicit URL (from
// flag, $VERDICT_DATABASE_URL or $DATABASE_URL), or else the embedded
// default cluster under localpg.DefaultHome(), started, or created on
// first use, with what it does told to notices. source says where the URL
// came from, for `verdict db status`.
func Locate(ctx context.Context, flag string, notices io.Writer) (url, source string, err error) {
	if url, source = ResolveURL(flag); url != "" {
		return url, source, nil
	}
	cl := localpg.New(localpg.DefaultHome())
	cl.Notices = notices
	if url, err = cl.Ensure(ctx); err != nil {
		return "", "", err
	}
	return url, "embedded default in " + cl.Home(), nil
}

// OpenLocated opens, and on first use migrates, the database Locate finds.
// For the embedded default it first connects straight away, which is all a
// running cluster needs, and only on failure starts (or creates) it.
func OpenLocated(ctx context.Context, flag string, notices io.Writer, opts Options) (*Store, error) {
	if url, _ := ResolveURL(flag); url == "" {
		cl := localpg.New(localpg.DefaultHome())
		if err := cl.CheckHome(); err != nil {
			return nil, err
		}
		if st, err := Open(ctx, cl.URL(), opts); err == nil {
			return st, nil
		}
	}
	url, _, err := Locate(ctx, flag, notices)
	if err != nil {
		return nil, err
	}
	return Open(ctx, url, opts)
}

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
