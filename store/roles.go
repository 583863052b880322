package store

import (
	"context"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// RoleKind is what a role made by CreateRole may do.
type RoleKind string

const (
	// Reader may SELECT verdict's tables and views, and nothing else.
	Reader RoleKind = "reader"
	// Writer may also log evaluations and record comparisons, through
	// INSERT on the tables that hold them and the functions that make an
	// evaluation's per-unit tables (migration 9). It owns nothing, so it can
	// drop, alter, update or delete nothing, and a stored evaluation's values
	// cannot be added to.
	Writer RoleKind = "writer"
)

var (
	// ErrRoleExists is returned by CreateRole when the name belongs to a
	// role verdict did not make as that kind.
	ErrRoleExists = errors.New("role already exists")

	// ErrRoleName is returned by CreateRole for a name PostgreSQL would
	// refuse or truncate.
	ErrRoleName = errors.New("invalid role name")
)

// roleComment marks the roles CreateRole makes, so that running it again
// updates one of them but never touches a role someone else made.
func roleComment(kind RoleKind) string { return "verdict " + string(kind) }

// RoleResult says what CreateRole did.
type RoleResult struct {
	Name    string
	Kind    RoleKind
	Updated bool // the role existed, made by verdict as Kind; its grants were applied again
	// Password is whether the role has a password set by this call.
	Password bool
}

// CreateRole creates a login role of the given kind on the database, or
// applies the grants again to one CreateRole made before, which a migration
// that adds tables needs. The grants cover the tables that exist and, through
// default privileges, those that the roles owning verdict's tables and
// functions create later. A non-empty password is set as a SCRAM-SHA-256
// verifier computed here, so that the password itself never reaches the
// server, its logs or pg_stat_activity. The connected user needs CREATEROLE
// and the right to grant on verdict's tables: the role that migrated, or a
// superuser.
func (s *Store) CreateRole(ctx context.Context, name string, kind RoleKind, password string) (*RoleResult, error) {
	if err := s.writable(); err != nil {
		return nil, err
	}
	if kind != Reader && kind != Writer {
		return nil, fmt.Errorf("%w: a role is a reader or a writer, not %q", ErrRoleName, kind)
	}
	if err := checkRoleName(name); err != nil {
		return nil, err
	}
	res := &RoleResult{Name: name, Kind: kind, Password: password != ""}
	err := s.transact(ctx, func(tx pgx.Tx) error {
		var comment *string
		err := tx.QueryRow(ctx, `SELECT shobj_description(oid, 'pg_authid') FROM pg_roles WHERE rolname = $1`, name).Scan(&comment)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		case comment == nil || *comment != roleComment(kind):
			return fmt.Errorf("%w: %q was not made by verdict as a %s", ErrRoleExists, name, kind)
		default:
			res.Updated = true
		}
		role := pgx.Identifier{name}.Sanitize()
		var stmts []string
		if !res.Updated {
			stmts = append(stmts,
				`CREATE ROLE `+role+` LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS`,
				`COMMENT ON ROLE `+role+` IS `+quoteLiteral(roleComment(kind)))
		}
		if password != "" {
			v, err := scramVerifier(password)
			if err != nil {
				return err
			}
			stmts = append(stmts, `ALTER ROLE `+role+` PASSWORD `+quoteLiteral(v))
		}
		var schema, tableOwner, funcOwner, db string
		if err := tx.QueryRow(ctx, `
			SELECT c.relnamespace::regnamespace::text, c.relowner::regrole::text,
			       (SELECT p.proowner::regrole::text FROM pg_proc p
			        WHERE p.oid = 'verdict_units.create_values(integer, integer)'::regprocedure),
			       quote_ident(current_database())
			FROM pg_class c WHERE c.oid = 'evaluations'::regclass`).Scan(&schema, &tableOwner, &funcOwner, &db); err != nil {
			return fmt.Errorf("find verdict's schema: %w", err)
		}
		stmts = append(stmts,
			`GRANT CONNECT ON DATABASE `+db+` TO `+role,
			`GRANT USAGE ON SCHEMA `+schema+`, verdict_units TO `+role,
			`GRANT SELECT ON ALL TABLES IN SCHEMA `+schema+` TO `+role,
			`GRANT SELECT ON ALL TABLES IN SCHEMA verdict_units TO `+role,
			`ALTER DEFAULT PRIVILEGES FOR ROLE `+tableOwner+` IN SCHEMA `+schema+` GRANT SELECT ON TABLES TO `+role,
			`ALTER DEFAULT PRIVILEGES FOR ROLE `+funcOwner+` IN SCHEMA verdict_units GRANT SELECT ON TABLES TO `+role)
		if kind == Writer {
			stmts = append(stmts,
				`GRANT INSERT ON experiments, runs, evaluation_sets, evaluations, evaluation_debug_rows, sample_labels, comparisons TO `+role,
				// A run logged again merges its params, tags and commit.
				`GRANT UPDATE (params, tags, tag_values, git_commit, config_group) ON runs TO `+role,
				// A comparison under an online FDR procedure spends from
				// its experiment's ledger.
				`GRANT INSERT, UPDATE (state, tests, updated_at) ON fdr_ledgers TO `+role,
				`GRANT USAGE ON ALL SEQUENCES IN SCHEMA `+schema+` TO `+role,
				`GRANT EXECUTE ON FUNCTION verdict_units.create_values(integer, integer),
					verdict_units.create_values_part(integer, integer, integer),
					verdict_units.index_values(integer, integer),
					verdict_units.attach_values_parts(integer, integer),
					verdict_units.attach_values(integer),
					verdict_units.drop_unattached(integer),
					verdict_units.create_predictions(integer),
					verdict_units.index_predictions(integer),
					verdict_units.attach_predictions(integer) TO `+role)
		}
		for _, stmt := range stmts {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("role %s: %w", name, redactPassword(err))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// checkRoleName refuses a name PostgreSQL would truncate (over 63 bytes),
// one it reserves (pg_...), and one that is empty, not UTF-8 or holds a
// control character.
func checkRoleName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%w: the name is empty", ErrRoleName)
	case len(name) > 63:
		return fmt.Errorf("%w: %d bytes; PostgreSQL keeps at most 63", ErrRoleName, len(name))
	case !utf8.ValidString(name):
		return fmt.Errorf("%w: the name is not UTF-8", ErrRoleName)
	case strings.HasPrefix(strings.ToLower(name), "pg_"):
		return fmt.Errorf("%w: names starting with pg_ are reserved by PostgreSQL", ErrRoleName)
	}
	for _, r := range name {
		if r < 0x20 || r >= 0x7f && r < 0xa0 {
			return fmt.Errorf("%w: %q holds a control character", ErrRoleName, name)
		}
	}
	return nil
}

// quoteLiteral quotes s as an SQL string literal. CREATE and ALTER ROLE take
// no parameters.
func quoteLiteral(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// redactPassword keeps a verifier out of an error: PostgreSQL quotes no
// statement in its messages, but a wrapped error may carry the SQL.
func redactPassword(err error) error {
	if i := strings.Index(err.Error(), "SCRAM-SHA-256$"); i >= 0 {
		return errors.New(err.Error()[:i] + "[verifier]")
	}
	return err
}

// scramIterations is the iteration count PostgreSQL uses by default
// (scram_iterations, PostgreSQL 16).
const scramIterations = 4096

// scramVerifier returns the SCRAM-SHA-256 verifier PostgreSQL stores for
// password, with a random 16-byte salt: "SCRAM-SHA-256$<iterations>:<salt>$
// <StoredKey>:<ServerKey>" (RFC 5802, RFC 7677). The password is used as
// its bytes: pgx, which verdict connects with, does not apply SASLprep, so
// a password that SASLprep would change works with verdict and may not with
// libpq's clients.
func scramVerifier(password string) (string, error) {
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	return scramVerifierSalted(password, salt, scramIterations)
}

func scramVerifierSalted(password string, salt []byte, iterations int) (string, error) {
	salted, err := pbkdf2.Key(sha256.New, password, salt, iterations, sha256.Size)
	if err != nil {
		return "", err
	}
	mac := func(key []byte, msg string) []byte {
		h := hmac.New(sha256.New, key)
		h.Write([]byte(msg))
		return h.Sum(nil)
	}
	stored := sha256.Sum256(mac(salted, "Client Key"))
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf("SCRAM-SHA-256$%d:%s$%s:%s", iterations, b64(salt), b64(stored[:]), b64(mac(salted, "Server Key"))), nil
}
