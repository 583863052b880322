package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// TokenRole is what an API token may do. Each role may do what the roles
// before it may.
type TokenRole string

const (
	TokenReader TokenRole = "reader" // read runs, evaluations, comparisons
	TokenWriter TokenRole = "writer" // also log evaluations and record comparisons
	TokenAdmin  TokenRole = "admin"  // also create, list and revoke tokens
)

// Allows reports whether a token of role r may do what need requires.
func (r TokenRole) Allows(need TokenRole) bool { return r.rank() >= need.rank() && need.rank() > 0 }

func (r TokenRole) rank() int {
	switch r {
	case TokenReader:
		return 1
	case TokenWriter:
		return 2
	case TokenAdmin:
		return 3
	}
	return 0
}

// ParseTokenRole reads a role's name.
func ParseTokenRole(s string) (TokenRole, error) {
	if r := TokenRole(s); r.rank() > 0 {
		return r, nil
	}
	return "", fmt.Errorf("%w: a token's role is reader, writer or admin, not %q", ErrBadInput, s)
}

// NewToken is a token to create, as the front doors take it (package
// request).
type NewToken struct {
	Name       string `req:"name" required:"true" arg:"NAME" help:"who or what uses the token"`
	Role       string `req:"role" required:"true" arg:"ROLE" help:"what the token may do: read; read, log and compare; or that and manage tokens"`
	Experiment string `req:"experiment" short:"e" arg:"NAME" help:"limit the token to this experiment"`
}

// Choices lists the roles.
func (NewToken) Choices() map[string][]string {
	return map[string][]string{"role": {string(TokenReader), string(TokenWriter), string(TokenAdmin)}}
}

// Create creates the token, and returns it with its secret, shown once.
func (n NewToken) Create(ctx context.Context, s *Store) (*Token, string, error) {
	role, err := ParseTokenRole(n.Role)
	if err != nil {
		return nil, "", err
	}
	return s.CreateToken(ctx, n.Name, role, n.Experiment)
}

// Token is an API token as stored: never its secret.
type Token struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Role       TokenRole  `json:"role"`
	Experiment string     `json:"experiment,omitempty"` // empty: every experiment
	CreatedAt  time.Time  `json:"created_at"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
}

// ErrUnauthorized is returned by Authenticate for a token that is malformed,
// unknown, revoked or wrong. It says no more, so that a caller cannot tell
// which.
var ErrUnauthorized = errors.New("invalid or revoked token")

const tokenPrefix = "vdt_"

// CreateToken stores a new token and returns it with its secret, which
// exists nowhere else: only its SHA-256 is stored. experiment, when not
// empty, limits the token to that experiment.
func (s *Store) CreateToken(ctx context.Context, name string, role TokenRole, experiment string) (*Token, string, error) {
	if err := s.writable(); err != nil {
		return nil, "", err
	}
	if err := checkName("token name", name); err != nil || name == "" {
		if err == nil {
			err = errors.New("the token name is empty")
		}
		return nil, "", fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if role.rank() == 0 {
		_, err := ParseTokenRole(string(role))
		return nil, "", err
	}
	if experiment != "" {
		if err := checkName("experiment name", experiment); err != nil {
			return nil, "", fmt.Errorf("%w: %v", ErrBadInput, err)
		}
	}
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		return nil, "", err
	}
	enc := base64.RawURLEncoding.EncodeToString(secret)
	sum := sha256.Sum256([]byte(enc))
	t := &Token{Name: name, Role: role, Experiment: experiment}
	err := s.pool.QueryRow(ctx, `
		INSERT INTO api_tokens (name, role, experiment, secret_sha256)
		VALUES ($1, $2, nullif($3, ''), $4)
		RETURNING id, created_at`, name, string(role), experiment, sum[:]).Scan(&t.ID, &t.CreatedAt)
	if err != nil {
		return nil, "", fmt.Errorf("create token: %w", err)
	}
	return t, fmt.Sprintf("%s%d_%s", tokenPrefix, t.ID, enc), nil
}

// Authenticate returns the token whose secret presented is, or
// ErrUnauthorized. The secret's hash is compared in constant time.
func (s *Store) Authenticate(ctx context.Context, presented string) (*Token, error) {
	rest, ok := strings.CutPrefix(presented, tokenPrefix)
	if !ok {
		return nil, ErrUnauthorized
	}
	idText, secret, ok := strings.Cut(rest, "_")
	id, err := strconv.ParseInt(idText, 10, 32)
	if !ok || err != nil || id <= 0 || len(secret) != base64.RawURLEncoding.EncodedLen(32) {
		return nil, ErrUnauthorized
	}
	var (
		t      Token
		stored []byte
		exp    *string
		role   string
	)
	err = s.pool.QueryRow(ctx, `
		SELECT id, name, role, experiment, secret_sha256, created_at, revoked_at
		FROM api_tokens WHERE id = $1`, id).Scan(&t.ID, &t.Name, &role, &exp, &stored, &t.CreatedAt, &t.RevokedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, ErrUnauthorized
	}
	if err != nil {
		return nil, fmt.Errorf("check token: %w", err)
	}
	sum := sha256.Sum256([]byte(secret))
	if subtle.ConstantTimeCompare(sum[:], stored) != 1 || t.RevokedAt != nil {
		return nil, ErrUnauthorized
	}
	t.Role = TokenRole(role)
	if exp != nil {
		t.Experiment = *exp
	}
	return &t, nil
}

// ListTokens returns every token, revoked ones included, oldest first.
func (s *Store) ListTokens(ctx context.Context) ([]Token, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT id, name, role, coalesce(experiment, ''), created_at, revoked_at
		FROM api_tokens ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Token, error) {
		var t Token
		var role string
		err := r.Scan(&t.ID, &t.Name, &role, &t.Experiment, &t.CreatedAt, &t.RevokedAt)
		t.Role = TokenRole(role)
		return t, err
	})
}

// RevokeToken revokes token id at once: Authenticate refuses it from then
// on. Revoking a revoked token changes nothing; an unknown ID is
// ErrNotFound.
func (s *Store) RevokeToken(ctx context.Context, id int64) (*Token, error) {
	if err := s.writable(); err != nil {
		return nil, err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE api_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1`, id)
	if err != nil {
		return nil, fmt.Errorf("revoke token: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return nil, fmt.Errorf("token %d: %w", id, ErrNotFound)
	}
	list, err := s.ListTokens(ctx)
	if err != nil {
		return nil, err
	}
	for i := range list {
		if list[i].ID == id {
			return &list[i], nil
		}
	}
	return nil, fmt.Errorf("token %d: %w", id, ErrNotFound)
}
