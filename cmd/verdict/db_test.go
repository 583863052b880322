package main

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/migrations"
	"github.com/verdict-ml/verdict/store/storetest"
)

func TestDatabaseURLPasswordIsRedacted(t *testing.T) {
	t.Parallel()
	url := "postgres://ann:s3cret@127.0.0.1:1/verdict?sslmode=disable&connect_timeout=2"

	res := runVerdict(t, url, "db", "url")
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "postgres://ann:xxxxx@127.0.0.1:1/verdict?sslmode=disable&connect_timeout=2\n", res.stdout)

	res = runVerdict(t, url, "db", "url", "--show-password")
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, url+"\n", res.stdout)

	// Nothing listens on port 1: the errors name the server, never the password.
	for _, args := range [][]string{{"runs"}, {"db", "status"}, {"migrate"}} {
		res = runVerdict(t, url, args...)
		require.Equal(t, 2, res.code, "%v", args)
		out := res.stdout + res.stderr
		require.NotContains(t, out, "s3cret", "%v", args)
		require.Contains(t, out, "127.0.0.1", "%v", args)
	}

	res = runVerdict(t, "host=127.0.0.1 port=1 user=ann password='s3cret' dbname=verdict", "db", "url")
	require.Equal(t, "host=127.0.0.1 port=1 user=ann password=xxxxx dbname=verdict\n", res.stdout)
}

func TestMigrateAndStatus(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)

	res := runVerdict(t, url, "migrate", "status")
	require.Equal(t, 0, res.code, res.stderr)
	// Every migration file is listed, pending, in order.
	files, err := fs.Glob(migrations.FS, "*.sql")
	require.NoError(t, err)
	n := len(files)
	for i, f := range files {
		require.Regexp(t, fmt.Sprintf(`(?m)^ +%d  %s +pending$`, i+1, regexp.QuoteMeta(f)), res.stdout)
	}
	require.Contains(t, res.stdout, fmt.Sprintf("database is at version 0 of %d: run 'verdict migrate'", n))

	res = runVerdict(t, url, "migrate")
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, fmt.Sprintf("applied %d migration(s); schema is at version %d\n", n, n), res.stdout)

	res = runVerdict(t, url, "migrate")
	require.Equal(t, fmt.Sprintf("schema is up to date at version %d\n", n), res.stdout)

	res = runVerdict(t, url, "migrate", "status")
	require.Regexp(t, `1  00001_schema_v1.sql +\d{4}-\d\d-\d\d`, res.stdout)
	require.Contains(t, res.stdout, fmt.Sprintf("database is up to date at version %d", n))

	res = runVerdict(t, url, "db", "status")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "(from --database-url)")
	require.Contains(t, res.stdout, fmt.Sprintf("connection:  ok\nschema:      version %d (up to date)\n", n))
}

func TestDBPsqlRunsOnTheSameDatabase(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	out, err := verdictCmd(t, "--database-url", url, "db", "psql", "--", "-tA", "-c", "SELECT count(*) FROM evaluations").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "0", strings.TrimSpace(string(out)), "psql sees verdict's migrated schema")
}
