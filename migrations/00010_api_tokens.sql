-- Tokens of `verdict serve`'s HTTP API. A token is "vdt_<id>_<secret>";
-- only the SHA-256 of its secret is stored, so this table gives no one a
-- token. The secret is 32 random bytes: a hash without a salt or a slow
-- function is enough for a secret with 256 bits of entropy.
--
-- role is what the token may do: a reader reads, a writer also logs and
-- records comparisons, an admin also manages tokens. A token with an
-- experiment reads and writes that experiment only.

-- +goose Up
CREATE TABLE api_tokens (
    id            integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name          text NOT NULL CHECK (octet_length(name) BETWEEN 1 AND 256 AND name !~ E'[\\u0001-\\u001f\\u007f-\\u009f]'),
    role          text NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
    experiment    text CHECK (octet_length(experiment) BETWEEN 1 AND 256),
    secret_sha256 bytea NOT NULL CHECK (octet_length(secret_sha256) = 32),
    created_at    timestamptz NOT NULL DEFAULT now(),
    revoked_at    timestamptz
);

-- +goose Down
DROP TABLE api_tokens;
