package main

import (
	"fmt"
	"io/fs"
	neturl "net/url"
	"os"
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

// TestDBRoleCreate makes a writer and a reader with the command line and
// uses each as a team would: the writer logs and compares, the reader
// lists runs and is refused a log.
func TestDBRoleCreate(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	as := func(role string) string {
		u, err := neturl.Parse(url)
		require.NoError(t, err)
		q := u.Query()
		q.Set("user", role)
		u.RawQuery = q.Encode()
		return u.String()
	}
	writer, reader := fmt.Sprintf("verdict_cli_writer_%d", os.Getpid()), fmt.Sprintf("verdict_cli_reader_%d", os.Getpid())
	t.Cleanup(func() {
		for _, role := range []string{writer, reader} {
			if queryInt(t, url, `SELECT count(*) FROM pg_roles WHERE rolname = $1`, role) == 1 {
				storetest.Exec(t, url, fmt.Sprintf(`DROP OWNED BY %[1]s; DROP ROLE %[1]s`, role))
			}
		}
	})

	cmd := verdictCmd(t, "--database-url", url, "db", "role", "create", writer, "--writer", "--password-stdin")
	cmd.Stdin = strings.NewReader("s3cret-pw\n")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), "created role "+writer+", a writer: it can read, log evaluations and record comparisons, and cannot drop, alter, update or delete.")
	require.Contains(t, string(out), "Its password is set, stored as a SCRAM-SHA-256 verifier.")
	require.NotContains(t, string(out), "s3cret")
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM pg_authid WHERE rolname = $1 AND rolpassword LIKE 'SCRAM-SHA-256$%' AND NOT rolsuper AND NOT rolcreaterole`, writer))

	res := runVerdict(t, url, "db", "role", "create", reader, "--reader")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "created role "+reader+", a reader: it can read verdict's tables and views, and nothing else.")
	require.Contains(t, res.stdout, "It has no password")

	csv := "sample_id,ndcg@10\nu1,0.5\nu2,0.25\nu3,0\nu4,1\n"
	for _, run := range []string{"a", "b"} {
		res = runVerdict(t, as(writer), "log", "-e", "team", "-r", run, "-s", "test", writeFile(t, run+".csv", csv))
		require.Equal(t, 0, res.code, res.stderr)
	}
	res = runVerdict(t, as(writer), "compare", "-e", "team", "a", "b", "--metric", "ndcg@10")
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM comparisons`))

	res = runVerdict(t, as(reader), "runs", "-e", "team", "--format", "csv")
	require.Equal(t, 0, res.code, res.stderr)
	require.Len(t, strings.Split(strings.TrimSpace(res.stdout), "\n"), 3, res.stdout)
	for _, args := range [][]string{
		{"compare", "-e", "team", "a", "b", "--metric", "ndcg@10", "--no-record"},
		{"leaderboard", "-e", "team", "--metric", "ndcg@10"},
		{"history"},
	} {
		res = runVerdict(t, as(reader), args...)
		require.Equal(t, 0, res.code, "%v: %s", args, res.stderr)
	}
	res = runVerdict(t, as(reader), "log", "-e", "team", "-r", "c", "-s", "test", writeFile(t, "c.csv", csv))
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "permission denied")
	require.Equal(t, 2, queryInt(t, url, `SELECT count(*) FROM evaluations`))

	for _, args := range [][]string{
		{"db", "role", "create", "x"},
		{"db", "role", "create", "x", "--reader", "--writer"},
		{"db", "role", "create", "--reader"},
	} {
		res = runVerdict(t, url, args...)
		require.Equal(t, 2, res.code, "%v", args)
		require.Contains(t, res.stderr, "usage: verdict db role create NAME --reader|--writer", "%v", args)
	}
	res = runVerdict(t, url, "db", "role", "create", "pg_mine", "--reader")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "invalid role name: names starting with pg_ are reserved by PostgreSQL")
	res = runVerdict(t, url, "db", "role", "create", writer, "--reader")
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "role already exists")
}
