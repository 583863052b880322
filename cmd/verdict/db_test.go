package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
	require.Contains(t, res.stdout, "1  00001_schema_v1.sql                   pending")
	require.Contains(t, res.stdout, "2  00002_comparison_history.sql          pending")
	require.Contains(t, res.stdout, "3  00003_sample_labels.sql               pending")
	require.Contains(t, res.stdout, "4  00004_evaluations_newest_per_run.sql  pending")
	require.Contains(t, res.stdout, "5  00005_unit_values_groups.sql          pending")
	require.Contains(t, res.stdout, "database is at version 0 of 5: run 'verdict migrate'")

	res = runVerdict(t, url, "migrate")
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, "applied 5 migration(s); schema is at version 5\n", res.stdout)

	res = runVerdict(t, url, "migrate")
	require.Equal(t, "schema is up to date at version 5\n", res.stdout)

	res = runVerdict(t, url, "migrate", "status")
	require.Regexp(t, `1  00001_schema_v1.sql                   \d{4}-\d\d-\d\d`, res.stdout)
	require.Contains(t, res.stdout, "database is up to date at version 5")

	res = runVerdict(t, url, "db", "status")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "(from --database-url)")
	require.Contains(t, res.stdout, "connection:  ok\nschema:      version 5 (up to date)\n")
}

func TestDBPsqlRunsOnTheSameDatabase(t *testing.T) {
	t.Parallel()
	url := storetest.NewDatabase(t)
	out, err := verdictCmd(t, "--database-url", url, "db", "psql", "--", "-tA", "-c", "SELECT count(*) FROM evaluations").CombinedOutput()
	require.NoError(t, err, string(out))
	require.Equal(t, "0", strings.TrimSpace(string(out)), "psql sees verdict's migrated schema")
}
