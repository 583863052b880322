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
-- refuses more). It goes with its evaluation. Writers insert into it: run
-- `verdict db role create` again for writer roles made before this version.

-- The views gain aggregates_only; evaluation_metrics lists whole-set
-- metrics too, with whole_set true.

-- +goose Up
ALTER TABLE evaluations ADD COLUMN aggregates_only boolean NOT NULL DEFAULT false;

CREATE OR REPLACE VIEW evaluation_overview AS
SELECT e.id AS evaluation_id,
       x.name AS experiment,
       r.name AS run,
       s.name AS evaluation_set,
       s.fingerprint,
       s.fingerprint_kind,
       e.metrics,
       e.aggregates,
       e.n_rows,
       e.n_scored_rows,
       e.n_units,
       e.required_k,
       e.protocol,
       e.cutoffs,
       r.params,
       r.tags,
       r.git_commit,
       e.metadata,
       e.created_at,
       e.run_id,
       e.evaluation_set_id,
       r.experiment_id,
       e.task,
       e.classes,
       e.aggregates_only
FROM evaluations e
JOIN runs r ON r.id = e.run_id
JOIN experiments x ON x.id = r.experiment_id
JOIN evaluation_sets s ON s.id = e.evaluation_set_id;

CREATE OR REPLACE VIEW evaluation_metrics AS
SELECT e.id AS evaluation_id,
       x.name AS experiment,
       r.name AS run,
       s.name AS evaluation_set,
       m.metric,
       (e.aggregates ->> m.metric)::double precision AS mean,
       m.metric = ANY (e.lower_is_better) AS lower_is_better,
       e.n_units,
       e.created_at,
       NOT (m.metric = ANY (e.metrics)) AS whole_set,
       e.aggregates_only
FROM evaluations e
JOIN runs r ON r.id = e.run_id
JOIN experiments x ON x.id = r.experiment_id
JOIN evaluation_sets s ON s.id = e.evaluation_set_id
CROSS JOIN LATERAL jsonb_object_keys(e.aggregates) AS m (metric);

CREATE TABLE evaluation_debug_rows (
    evaluation_id integer PRIMARY KEY REFERENCES evaluations (id) ON DELETE CASCADE,
    rows          jsonb NOT NULL CHECK (jsonb_typeof(rows) = 'array')
);

-- +goose Down
DROP TABLE evaluation_debug_rows;
DROP VIEW evaluation_overview;
CREATE VIEW evaluation_overview AS
SELECT e.id AS evaluation_id,
       x.name AS experiment,
       r.name AS run,
       s.name AS evaluation_set,
       s.fingerprint,
       s.fingerprint_kind,
       e.metrics,
       e.aggregates,
       e.n_rows,
       e.n_scored_rows,
       e.n_units,
       e.required_k,
       e.protocol,
       e.cutoffs,
       r.params,
       r.tags,
       r.git_commit,
       e.metadata,
       e.created_at,
       e.run_id,
       e.evaluation_set_id,
       r.experiment_id,
       e.task,
       e.classes
FROM evaluations e
JOIN runs r ON r.id = e.run_id
JOIN experiments x ON x.id = r.experiment_id
JOIN evaluation_sets s ON s.id = e.evaluation_set_id;
DROP VIEW evaluation_metrics;
CREATE VIEW evaluation_metrics AS
SELECT e.id AS evaluation_id,
       x.name AS experiment,
       r.name AS run,
       s.name AS evaluation_set,
       m.metric,
       (e.aggregates ->> m.metric)::double precision AS mean,
       m.metric = ANY (e.lower_is_better) AS lower_is_better,
       e.n_units,
       e.created_at
FROM evaluations e
JOIN runs r ON r.id = e.run_id
JOIN experiments x ON x.id = r.experiment_id
JOIN evaluation_sets s ON s.id = e.evaluation_set_id
CROSS JOIN LATERAL unnest(e.metrics) AS m (metric);
ALTER TABLE evaluations DROP COLUMN aggregates_only;
