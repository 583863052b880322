-- The digest of the request that logged an evaluation under an idempotency
-- key: SHA-256, in hexadecimal, of its body and of the parameters that shape
-- the evaluation. A later log with the same key and the same digest is a
-- retry and gets the first evaluation; one with another digest is refused,
-- so that new data is never dropped in silence. Evaluations logged before
-- this version, or without a key, have none.

-- +goose Up
ALTER TABLE evaluations ADD COLUMN request_sha256 text
    CHECK (request_sha256 ~ '^[0-9a-f]{64}$');

-- +goose Down
ALTER TABLE evaluations DROP COLUMN request_sha256;
