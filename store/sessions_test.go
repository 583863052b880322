package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/verdict-ml/verdict/store"
)

// TestSessionsLastUntilEndedExpiredOrRevoked: a session gives its token
// back until it is ended, until it expires, or until its token is revoked;
// only the session ID's hash is stored; another Store on the same database
// (a restarted server) finds the session.
func TestSessionsLastUntilEndedExpiredOrRevoked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, url := setup(t)
	tok, _, err := s.CreateToken(ctx, "browser", store.TokenReader, "movies")
	require.NoError(t, err)
	later := time.Now().Add(time.Hour)

	id, err := s.CreateSession(ctx, tok.ID, later)
	require.NoError(t, err)
	require.Regexp(t, `^[A-Za-z0-9_-]{43}$`, id)
	got, expires, err := s.SessionToken(ctx, id)
	require.NoError(t, err)
	require.Equal(t, tok.ID, got.ID)
	require.Equal(t, store.TokenReader, got.Role)
	require.Equal(t, "movies", got.Experiment)
	require.WithinDuration(t, later, expires, time.Millisecond)
	require.Zero(t, count(t, url, `SELECT count(*) FROM web_sessions WHERE position(convert_to('`+id+`', 'UTF8') in id_sha256) > 0`),
		"the session ID is not stored")

	// Another Store on the same database: the session is there.
	again, err := store.Open(ctx, url, store.Options{})
	require.NoError(t, err)
	defer again.Close()
	_, _, err = again.SessionToken(ctx, id)
	require.NoError(t, err)

	// Unknown, malformed, ended, expired: the same error.
	for _, bad := range []string{"", "x", id[:42] + map[bool]string{true: "A", false: "B"}[id[42] != 'A'], id + "A"} {
		_, _, err := s.SessionToken(ctx, bad)
		require.ErrorIs(t, err, store.ErrUnauthorized, "%q", bad)
	}
	ended, err := s.CreateSession(ctx, tok.ID, later)
	require.NoError(t, err)
	require.NoError(t, s.EndSession(ctx, ended))
	_, _, err = s.SessionToken(ctx, ended)
	require.ErrorIs(t, err, store.ErrUnauthorized)
	require.NoError(t, s.EndSession(ctx, ended), "ending it again is no error")
	expired, err := s.CreateSession(ctx, tok.ID, time.Now().Add(-time.Minute))
	require.NoError(t, err)
	_, _, err = s.SessionToken(ctx, expired)
	require.ErrorIs(t, err, store.ErrUnauthorized)

	// Revoking the token ends its sessions; a revoked or unknown token
	// starts none. A new session sweeps the dead ones away.
	_, err = s.RevokeToken(ctx, tok.ID)
	require.NoError(t, err)
	_, _, err = s.SessionToken(ctx, id)
	require.ErrorIs(t, err, store.ErrUnauthorized)
	_, err = s.CreateSession(ctx, tok.ID, later)
	require.ErrorIs(t, err, store.ErrUnauthorized)
	_, err = s.CreateSession(ctx, 424242, later)
	require.ErrorIs(t, err, store.ErrUnauthorized)
	other, _, err := s.CreateToken(ctx, "other", store.TokenWriter, "")
	require.NoError(t, err)
	_, err = s.CreateSession(ctx, other.ID, later)
	require.NoError(t, err)
	require.Equal(t, 1, count(t, url, `SELECT count(*) FROM web_sessions`), "the revoked token's and the expired sessions are gone")
}
