-- Evaluations without per-unit values, and debug rows.
--
-- An evaluation logged with `verdict evaluate --no-per-user` or `verdict log
-- --aggregates-only` keeps its means and counts but no per-unit rows: it has
-- no table under unit_values, and aggregates_only is true. It shows in
-- leaderboards and run listings, but it cannot be paired.
--
-- Aggregates may also hold whole-set metrics (catalogue coverage, say):
-- computed over the whole evaluation, they have a mean but no per-unit
-- value, so they are keys of aggregates that metrics does not list.
--
-- evaluation_debug_rows keeps the few users `verdict evaluate --debug-users`
-- spelled out: their top-K items and scores, targets, hit ranks and metric
-- values, as one JSON array per evaluation, of at most 1 MiB (the store
-- refuses more). It goes with its evaluation.

-- +goose Up
ALTER TABLE evaluations ADD COLUMN aggregates_only boolean NOT NULL DEFAULT false;

CREATE TABLE evaluation_debug_rows (
    evaluation_id integer PRIMARY KEY REFERENCES evaluations (id) ON DELETE CASCADE,
    rows          jsonb NOT NULL CHECK (jsonb_typeof(rows) = 'array')
);

-- +goose Down
DROP TABLE evaluation_debug_rows;
ALTER TABLE evaluations DROP COLUMN aggregates_only;
