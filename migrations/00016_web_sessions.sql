-- Sessions of `verdict serve`'s web view. A browser signs in once with a
-- token and then holds a session ID, 32 random bytes, in a cookie; only the
-- ID's SHA-256 is stored, so reading this table gives no one a session.
-- Kept here rather than in the server's memory, sessions outlive a restart
-- of the server and are shared by servers of the same database.
--
-- A session is valid until expires_at, until its browser signs out (its row
-- is deleted), and only while its token is not revoked: every request
-- checks the token's revoked_at through token_id. Expired sessions and
-- those of revoked tokens are deleted when a new session starts.

-- +goose Up
CREATE TABLE web_sessions (
    id_sha256  bytea PRIMARY KEY CHECK (octet_length(id_sha256) = 32),
    token_id   integer NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);
CREATE INDEX web_sessions_expires_at ON web_sessions (expires_at);
CREATE INDEX web_sessions_token_id ON web_sessions (token_id);

-- +goose Down
DROP TABLE web_sessions;
