package store

import (
	"context"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store/storetest"
)

// TestScramVerifierMatchesPostgreSQL has the test server compute the
// verifiers of some passwords (CREATE ROLE ... PASSWORD, with
// password_encryption = scram-sha-256) and computes them again here with the
// same salt and iteration count.
func TestScramVerifierMatchesPostgreSQL(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, storetest.NewDatabase(t))
	require.NoError(t, err)
	defer conn.Close(ctx)
	for i, password := range []string{"secret", "pa'ss word#%2F@", "ünïcode-ß", strings.Repeat("x", 500)} {
		role := fmt.Sprintf("verdict_scram_%d", i)
		_, err := conn.Exec(ctx, fmt.Sprintf(`SET password_encryption = 'scram-sha-256'; CREATE ROLE %s PASSWORD %s`, role, quoteLiteral(password)))
		require.NoError(t, err)
		var stored string
		require.NoError(t, conn.QueryRow(ctx, `SELECT rolpassword FROM pg_authid WHERE rolname = $1`, role).Scan(&stored))
		_, err = conn.Exec(ctx, `DROP ROLE `+role)
		require.NoError(t, err)

		// SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>
		head, _, ok := strings.Cut(strings.TrimPrefix(stored, "SCRAM-SHA-256$"), "$")
		require.True(t, ok, stored)
		iter, salt, _ := strings.Cut(head, ":")
		n, err := strconv.Atoi(iter)
		require.NoError(t, err)
		rawSalt, err := base64.StdEncoding.DecodeString(salt)
		require.NoError(t, err)
		got, err := scramVerifierSalted(password, rawSalt, n)
		require.NoError(t, err)
		require.Equal(t, stored, got, "password %q", password)
	}
	v, err := scramVerifier("secret")
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(v, "SCRAM-SHA-256$4096:"), v)
}
