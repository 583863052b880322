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

	"github.com/verdict-ml/verdict/store"
	"github.com/verdict-ml/verdict/store/localpg"
	"github.com/verdict-ml/verdict/store/storetest"
)

// passwordRole creates a superuser role with a password and returns its
// name and password. When the test server's pg_hba.conf is at hand, as it is
// for the embedded cluster, which trusts its local users, the role is made to
// give its password; requiresPassword says whether the server asks for it.
func passwordRole(t *testing.T) (role, password string, requiresPassword bool) {
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
	require.NoError(t, conn.QueryRow(ctx, `SELECT current_setting('hba_file')`).Scan(&hbaFile))
	hba, err := os.ReadFile(hbaFile)
	if err != nil {
		t.Logf("pg_hba.conf is not at hand (%v): the server decides whether %s gives its password", err, role)
		return role, password, false
	}
	rules := fmt.Sprintf("local all %[1]s scram-sha-256\nhost all %[1]s all scram-sha-256\n", role)
	require.NoError(t, os.WriteFile(hbaFile, append([]byte(rules), hba...), 0))
	reload := func() {
		_, err := conn.Exec(ctx, `SELECT pg_reload_conf()`)
		require.NoError(t, err)
	}
	reload()
	t.Cleanup(func() {
		require.NoError(t, os.WriteFile(hbaFile, hba, 0))
		conn, err := pgx.Connect(ctx, admin)
		require.NoError(t, err)
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `SELECT pg_reload_conf()`)
		require.NoError(t, err)
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
	return role, password, true
}

func TestDBPsqlKeepsPasswordOutOfArgs(t *testing.T) {
	role, password, requiresPassword := passwordRole(t)
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
			conn, got, err := store.SplitPassword(tt.url)
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

			if requiresPassword {
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
			}
		})
	}

	// psql's exit status is verdict's.
	res := runVerdict(t, inUserInfo, "db", "psql", "--", "-w", "-v", "ON_ERROR_STOP=1", "-c", "SELECT 1/0")
	require.Equal(t, 1, res.code, res.stderr)
	require.Contains(t, res.stderr, "division by zero")
}
