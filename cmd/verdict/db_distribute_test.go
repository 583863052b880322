package main

import (
	"context"
	"fmt"
	"net"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store/storetest"
)

// citusWorkers are the URLs of the database at coord on each Citus worker,
// with the shards shown in pg_class (Citus hides them from other clients).
func citusWorkers(t *testing.T, coord string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, coord)
	require.NoError(t, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT nodename, nodeport FROM pg_dist_node WHERE noderole = 'primary' AND groupid <> 0`)
	require.NoError(t, err)
	var urls []string
	for rows.Next() {
		var host string
		var port int
		require.NoError(t, rows.Scan(&host, &port))
		u, err := neturl.Parse(coord)
		require.NoError(t, err)
		u.Host = net.JoinHostPort(host, strconv.Itoa(port))
		u.RawQuery = "sslmode=disable&citus.show_shards_for_app_name_prefixes=*"
		urls = append(urls, u.String())
	}
	require.NoError(t, rows.Err())
	require.Len(t, urls, 2)
	return urls
}

// TestDBDistribute distributes a database with `verdict db distribute`,
// again (a no-op), and refuses a server without Citus.
func TestDBDistribute(t *testing.T) {
	t.Parallel()
	plain := storetest.NewDatabase(t)
	res := runVerdict(t, plain, "db", "distribute")
	require.Equal(t, exitError, res.code)
	require.Contains(t, res.stderr, "CREATE EXTENSION citus")

	url := storetest.Citus(t)
	csv := writeFile(t, "scores.csv", "sample_id,a,b\nu1,1,0.5\nu2,0,0.25\n")
	res = runVerdict(t, url, "log", "-e", "e", "-r", "before", "-s", "test", "--connections", "2", csv)
	require.Equal(t, 0, res.code, res.stderr)
	res = runVerdict(t, url, "db", "distribute", "--shards", "4")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "distributed by sample ID: 1 evaluations' per-unit values (2 rows) in 4 shards on 2 worker nodes")
	require.Contains(t, res.stdout, "rewrote 1 stored in hash parts")
	res = runVerdict(t, url, "db", "distribute")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stdout, "already distributed, nothing changed")
}

// TestLogKilledMidCopyOnADistributedDatabaseLeavesNothing kills a real
// `verdict log` process with SIGKILL while its rows stream through a Citus
// coordinator to the workers' shards: no node keeps a table, a shard or a
// prepared transaction of it.
func TestLogKilledMidCopyOnADistributedDatabaseLeavesNothing(t *testing.T) {
	t.Parallel()
	url := storetest.Citus(t)
	ctx := context.Background()
	res := runVerdict(t, url, "db", "distribute", "--shards", "4")
	require.Equal(t, 0, res.code, res.stderr)
	workers := citusWorkers(t, url)

	fifo := filepath.Join(t.TempDir(), "scores.csv")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	cmd := verdictCmd(t, "--database-url", url, "log", "-e", "e", "-r", "killed", "-s", "test", fifo)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintln(w, "sample_id,a,b")
	require.NoError(t, err)
	var b strings.Builder
	for i := range 50_000 {
		fmt.Fprintf(&b, "u%07d,%d,0.5\n", i, i%2)
	}
	_, err = w.WriteString(b.String())
	require.NoError(t, err)

	// Wait until rows of this COPY have reached a worker's shards.
	var wconns []*pgx.Conn
	for _, wu := range workers {
		c, err := pgx.Connect(ctx, wu)
		require.NoError(t, err)
		defer c.Close(ctx)
		wconns = append(wconns, c)
	}
	copied := func() bool {
		for _, c := range wconns {
			var n int64
			err := c.QueryRow(ctx, `SELECT coalesce(sum(tuples_processed), 0)::bigint FROM pg_stat_progress_copy`).Scan(&n)
			if err == nil && n > 0 {
				return true
			}
		}
		return false
	}
	require.Eventually(t, copied, 30*time.Second, 20*time.Millisecond, "no rows reached the workers")

	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	w.Close()

	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	require.Eventually(t, func() bool {
		var n int
		err := conn.QueryRow(ctx, `
			SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND application_name = 'verdict'`).Scan(&n)
		return err == nil && n == 0
	}, 30*time.Second, 10*time.Millisecond, "the killed session lingers")
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM evaluations`))
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM runs`))
	require.Equal(t, 0, queryInt(t, url, `SELECT count(*) FROM unit_values`))
	ours := `SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'verdict_units'`
	require.Equal(t, 0, queryInt(t, url, ours))
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM pg_dist_partition`), "only unit_values is distributed")
	require.Equal(t, 4, queryInt(t, url, `SELECT count(*) FROM pg_dist_shard`), "only unit_values has shards")
	count := func(c *pgx.Conn, q string) int64 {
		var n int64
		if err := c.QueryRow(ctx, q).Scan(&n); err != nil {
			return -1
		}
		return n
	}
	require.Eventually(t, func() bool {
		if count(conn, `SELECT count(*) FROM (SELECT recover_prepared_transactions()) r`) != 1 ||
			count(conn, `SELECT count(*) FROM pg_prepared_xacts`) != 0 {
			return false
		}
		for _, c := range wconns {
			if count(c, ours) != 0 || count(c, `SELECT count(*) FROM pg_prepared_xacts`) != 0 {
				return false
			}
		}
		return true
	}, 30*time.Second, 50*time.Millisecond, "a node keeps a table or a prepared transaction of the killed log")

	// And the same log, unhindered, goes through.
	csv := writeFile(t, "scores.csv", "sample_id,a,b\nu1,1,0.5\n")
	res = runVerdict(t, url, "log", "-e", "e", "-r", "killed", "-s", "test", csv)
	require.Equal(t, 0, res.code, res.stderr)
	require.Equal(t, 1, queryInt(t, url, `SELECT count(*) FROM unit_values`))
}
