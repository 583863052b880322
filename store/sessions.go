package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// A session is a browser signed in to `verdict serve`'s web view with a
// token. Its ID, 32 random bytes in base64url, is a secret the browser
// holds in a cookie; the database keeps only its SHA-256, the token it
// signed in with and when it expires. A session is valid only while its
// token is: revoking the token ends its sessions.

// sessionIDLen is the length of a session ID: 32 bytes, base64url.
var sessionIDLen = base64.RawURLEncoding.EncodedLen(32)

// CreateSession stores a new session of token tokenID, valid until expires,
// and returns its ID, which exists nowhere else. On the way it deletes the
// sessions that have expired and those of revoked tokens. An unknown or
// revoked token is ErrUnauthorized.
func (s *Store) CreateSession(ctx context.Context, tokenID int64, expires time.Time) (string, error) {
	if err := s.writable(); err != nil {
		return "", err
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	id := base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(id))
	err := s.transact(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `
			DELETE FROM web_sessions
			WHERE expires_at <= now()
			   OR token_id IN (SELECT id FROM api_tokens WHERE revoked_at IS NOT NULL)`); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `
			INSERT INTO web_sessions (id_sha256, token_id, expires_at)
			SELECT $1, id, $3 FROM api_tokens WHERE id = $2 AND revoked_at IS NULL`, sum[:], tokenID, expires)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return ErrUnauthorized
		}
		return nil
	})
	if errors.Is(err, ErrUnauthorized) {
		return "", err
	}
	if err != nil {
		return "", fmt.Errorf("create session: %w", err)
	}
	return id, nil
}

// SessionToken returns the token of session id and when the session
// expires, while the session is valid: known, not expired, not ended, and
// its token not revoked. Anything else is ErrUnauthorized, which says no
// more.
func (s *Store) SessionToken(ctx context.Context, id string) (*Token, time.Time, error) {
	if len(id) != sessionIDLen {
		return nil, time.Time{}, ErrUnauthorized
	}
	sum := sha256.Sum256([]byte(id))
	var (
		t       Token
		role    string
		exp     *string
		expires time.Time
	)
	err := s.pool.QueryRow(ctx, `
		SELECT t.id, t.name, t.role, t.experiment, t.created_at, ws.expires_at
		FROM web_sessions ws JOIN api_tokens t ON t.id = ws.token_id
		WHERE ws.id_sha256 = $1 AND ws.expires_at > now() AND t.revoked_at IS NULL`, sum[:]).
		Scan(&t.ID, &t.Name, &role, &exp, &t.CreatedAt, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, time.Time{}, ErrUnauthorized
	}
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("check session: %w", err)
	}
	t.Role = TokenRole(role)
	if exp != nil {
		t.Experiment = *exp
	}
	return &t, expires, nil
}

// EndSession deletes session id, so that it is refused from then on. An
// unknown or ended session is no error.
func (s *Store) EndSession(ctx context.Context, id string) error {
	if err := s.writable(); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(id))
	if _, err := s.pool.Exec(ctx, `DELETE FROM web_sessions WHERE id_sha256 = $1`, sum[:]); err != nil {
		return fmt.Errorf("end session: %w", err)
	}
	return nil
}
