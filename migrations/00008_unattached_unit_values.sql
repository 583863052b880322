-- A log over several connections loads an evaluation's values into hash
-- parts, verdict_units.unit_values_<id>_p<k>, each created, loaded and
-- committed by its own connection, then attached in the transaction that
-- logs the evaluation. Each part is recorded here in the transaction that
-- creates it, and its record is deleted in the one that attaches it. A
-- record that outlives its log therefore names a part that a killed log
-- committed and never attached: verdict drops those parts when it next opens
-- the database, finding them with one query on this table, which is empty
-- but while such a log runs.
--
-- Parts left by logs before this version are recorded too, so that they are
-- dropped in the same way.

-- +goose Up
CREATE TABLE unattached_unit_values (
    table_name    text PRIMARY KEY,
    evaluation_id integer NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

INSERT INTO unattached_unit_values (table_name, evaluation_id)
SELECT c.relname, (regexp_match(c.relname, '^unit_values_([0-9]+)_p[0-9]+$'))[1]::integer
FROM pg_class c
WHERE c.relnamespace = 'verdict_units'::regnamespace
  AND c.relkind = 'r'
  AND NOT c.relispartition
  AND c.relname ~ '^unit_values_[0-9]+_p[0-9]+$';

-- +goose Down
DROP TABLE unattached_unit_values;
