-- Names are at most 256 bytes and hold no control characters (Unicode
-- category Cc: U+0001-U+001F, U+007F-U+009F; PostgreSQL text holds no NUL).
-- That covers the names of experiments, runs, evaluation sets, metrics
-- (evaluations.metrics and lower_is_better), tags and params (the keys of
-- runs.params), and idempotency keys. verdict refuses such names before
-- writing; these constraints hold every other writer to the same rules.
--
-- The constraints are NOT VALID: they apply to every row written or updated
-- from now on, but the migration neither scans nor refuses names stored
-- before. `ALTER TABLE ... VALIDATE CONSTRAINT` checks the old rows once
-- they are cleaned up.
--
-- The checks of arrays and of params need a function each. Their bodies use
-- only pg_catalog, so they do not depend on the caller's search_path. The
-- patterns are E'' strings, read the same whatever standard_conforming_strings
-- says.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION verdict_names_ok(names text[]) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(bool_and(octet_length(n) <= 256 AND n !~ E'[\\u0001-\\u001f\\u007f-\\u009f]'), true)
    FROM unnest(names) AS n
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION verdict_keys_ok(obj jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN jsonb_typeof(obj) = 'object' THEN
        coalesce((SELECT bool_and(octet_length(k) <= 256 AND k !~ E'[\\u0001-\\u001f\\u007f-\\u009f]')
                  FROM jsonb_object_keys(obj) AS k), true)
    ELSE true END
$$;
-- +goose StatementEnd

ALTER TABLE experiments ADD CONSTRAINT experiments_name_limits
    CHECK (octet_length(name) <= 256 AND name !~ E'[\\u0001-\\u001f\\u007f-\\u009f]') NOT VALID;
ALTER TABLE runs ADD CONSTRAINT runs_name_limits
    CHECK (octet_length(name) <= 256 AND name !~ E'[\\u0001-\\u001f\\u007f-\\u009f]') NOT VALID;
ALTER TABLE runs ADD CONSTRAINT runs_tags_limits CHECK (verdict_names_ok(tags)) NOT VALID;
ALTER TABLE runs ADD CONSTRAINT runs_params_limits CHECK (verdict_keys_ok(params)) NOT VALID;
ALTER TABLE evaluation_sets ADD CONSTRAINT evaluation_sets_name_limits
    CHECK (octet_length(name) <= 256 AND name !~ E'[\\u0001-\\u001f\\u007f-\\u009f]') NOT VALID;
ALTER TABLE evaluations ADD CONSTRAINT evaluations_metrics_limits
    CHECK (verdict_names_ok(metrics) AND verdict_names_ok(lower_is_better)) NOT VALID;
ALTER TABLE evaluations ADD CONSTRAINT evaluations_idempotency_key_limits
    CHECK (octet_length(idempotency_key) <= 256 AND idempotency_key !~ E'[\\u0001-\\u001f\\u007f-\\u009f]') NOT VALID;

-- +goose Down
ALTER TABLE evaluations DROP CONSTRAINT evaluations_idempotency_key_limits;
ALTER TABLE evaluations DROP CONSTRAINT evaluations_metrics_limits;
ALTER TABLE evaluation_sets DROP CONSTRAINT evaluation_sets_name_limits;
ALTER TABLE runs DROP CONSTRAINT runs_params_limits;
ALTER TABLE runs DROP CONSTRAINT runs_tags_limits;
ALTER TABLE runs DROP CONSTRAINT runs_name_limits;
ALTER TABLE experiments DROP CONSTRAINT experiments_name_limits;
DROP FUNCTION verdict_keys_ok(jsonb);
DROP FUNCTION verdict_names_ok(text[]);
