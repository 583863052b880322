package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/internal/dburl"
	"github.com/verdict-ml/verdict/store/localpg"
	"github.com/verdict-ml/verdict/store/storetest"
)

// passwordRole creates a superuser role with a password, makes the test
// server ask it for that password, and returns its name and password. The
// rules that ask go at the head of the server's pg_hba.conf, which the test
// reads and writes through the server as its superuser, so that the file
// need be neither on this machine nor readable by this user:
// pg_read_binary_file reads it, and lo_export writes it.
func passwordRole(t *testing.T) (role, password string) {
	t.Helper()
	ctx := context.Background()
	admin := storetest.ServerURL(t)
	role = fmt.Sprintf("verdict_psql_%d", os.Getpid())
	// ':' and '\' need escaping in a password file, the rest in a URL.
	password = `pa ss:w@rd/\x'?#%`
	conn, err := pgx.Connect(ctx, admin)
	require.NoError(t, err)
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `SET password_encryption = 'scram-sha-256'`)
	require.NoError(t, err)
	var create string
	require.NoError(t, conn.QueryRow(ctx, `SELECT format('CREATE ROLE %I LOGIN SUPERUSER PASSWORD %L', $1::text, $2::text)`,
		role, password).Scan(&create))
	_, err = conn.Exec(ctx, create)
	require.NoError(t, err)
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, admin)
		require.NoError(t, err)
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `DROP ROLE `+pgx.Identifier{role}.Sanitize())
		require.NoError(t, err)
	})

	var hbaFile string
	var hba []byte
	require.NoError(t, conn.QueryRow(ctx, `SELECT current_setting('hba_file'), pg_read_binary_file(current_setting('hba_file'))`).Scan(&hbaFile, &hba),
		"read the test server's pg_hba.conf, as its superuser, to make it ask %s for its password", role)
	rules := fmt.Sprintf("local all %[1]s scram-sha-256\nhost all %[1]s all scram-sha-256\n", role)
	writeHBA(t, conn, hbaFile, append([]byte(rules), hba...))
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, admin)
		require.NoError(t, err)
		defer conn.Close(ctx)
		writeHBA(t, conn, hbaFile, hba)
	})
	// The server reloads its configuration in the background.
	cfg, err := pgx.ParseConfig(admin)
	require.NoError(t, err)
	cfg.User, cfg.Password = role, "wrong"
	require.Eventually(t, func() bool {
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil {
			c.Close(ctx)
		}
		var pgErr *pgconn.PgError
		return errors.As(err, &pgErr) && pgErr.Code == "28P01" // invalid_password
	}, 10*time.Second, 20*time.Millisecond, "the server asks %s for its password", role)
	return role, password
}

// writeHBA writes content to the server's pg_hba.conf at path, through a
// large object that the rollback removes, and has the server reload it.
func writeHBA(t *testing.T, conn *pgx.Conn, path string, content []byte) {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var lo uint32
	require.NoError(t, tx.QueryRow(ctx, `SELECT lo_from_bytea(0, $1)`, content).Scan(&lo))
	_, err = tx.Exec(ctx, `SELECT lo_export($1, $2)`, lo, path)
	require.NoError(t, err, "write %s as a superuser of the server", path)
	require.NoError(t, tx.Rollback(ctx))
	_, err = conn.Exec(ctx, `SELECT pg_reload_conf()`)
	require.NoError(t, err)
}

func TestDBPsqlKeepsPasswordOutOfArgs(t *testing.T) {
	role, password := passwordRole(t)
	db := storetest.NewDatabase(t)
	u, err := url.Parse(db)
	require.NoError(t, err)
	q := u.Query()
	q.Del("user")
	u.RawQuery = q.Encode()
	u.User = url.UserPassword(role, password)
	inUserInfo := u.String()
	u.User = url.User(role)
	q.Set("password", password)
	// libpq and pgx decode %20, not +.
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	inQuery := u.String()
	cfg, err := pgconn.ParseConfig(db)
	require.NoError(t, err)
	quote := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace
	keywords := fmt.Sprintf("host='%s' port=%d dbname='%s' user='%s' password='%s'",
		quote(cfg.Host), cfg.Port, quote(cfg.Database), quote(role), quote(password))

	psql, err := localpg.FindPsql()
	require.NoError(t, err)
	tests := []struct {
		name string
		url  string
	}{
		{name: "password in the user info", url: inUserInfo},
		{name: "password in the query", url: inQuery},
		{name: "keyword/value", url: keywords},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extra := []string{"-w", "-tA", "-c", "SELECT current_user"}
			conn, got, err := dburl.SplitPassword(tt.url)
			require.NoError(t, err)
			args := append([]string{conn}, extra...)
			require.Equal(t, password, got)
			require.Equal(t, extra, args[1:])
			for _, a := range args {
				for _, secret := range []string{password, url.QueryEscape(password), url.PathEscape(password), "w@rd", "w%40rd"} {
					require.NotContains(t, a, secret)
				}
			}

			// psql connects, as the role, with the password verdict hands it.
			res := runVerdict(t, tt.url, append([]string{"db", "psql", "--"}, extra...)...)
			require.Equal(t, 0, res.code, res.stderr)
			require.Equal(t, role+"\n", res.stdout)
			require.NotContains(t, res.stderr, password)

			// Given the same arguments but not the password, psql
			// cannot connect: the password only travels beside them.
			cmd := exec.Command(psql, args...)
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "PGPASSWORD=") && !strings.HasPrefix(kv, "PGPASSFILE=") {
					cmd.Env = append(cmd.Env, kv)
				}
			}
			cmd.Env = append(cmd.Env, "PGPASSFILE=/nonexistent/verdict-test-pgpass")
			out, err := cmd.CombinedOutput()
			require.Error(t, err, string(out))
			require.Contains(t, string(out), "password")
		})
	}

	// psql's exit status is verdict's.
	res := runVerdict(t, inUserInfo, "db", "psql", "--", "-w", "-v", "ON_ERROR_STOP=1", "-c", "SELECT 1/0")
	require.Equal(t, 1, res.code, res.stderr)
	require.Contains(t, res.stderr, "division by zero")
}
