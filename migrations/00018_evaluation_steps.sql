-- Steps: an evaluation may name the point of training it was taken at (an
-- epoch, a global step, a build number), so that a run logged during
-- training is a curve rather than a single point. Evaluations logged before
-- this version, and any logged without one, have no step (NULL).
--
-- verdict stores at most one evaluation per run, evaluation set name and
-- step: a second log of the same step with other content is refused, while
-- a retry (the same content, or the same idempotency key) returns the first.
-- A run still stands for its newest evaluation; RUN@STEP names the one at a
-- step. The index serves "a run's evaluations on a set, by step".
--
-- The views gain step.

-- +goose Up
ALTER TABLE evaluations ADD COLUMN step bigint;

CREATE INDEX evaluations_run_step_idx ON evaluations (run_id, evaluation_set_id, step)
    WHERE step IS NOT NULL;

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
       e.aggregates_only,
       e.step
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
       e.aggregates_only,
       e.step
FROM evaluations e
JOIN runs r ON r.id = e.run_id
JOIN experiments x ON x.id = r.experiment_id
JOIN evaluation_sets s ON s.id = e.evaluation_set_id
CROSS JOIN LATERAL jsonb_object_keys(e.aggregates) AS m (metric);

-- +goose Down
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
       e.classes,
       e.aggregates_only
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
       e.created_at,
       NOT (m.metric = ANY (e.metrics)) AS whole_set,
       e.aggregates_only
FROM evaluations e
JOIN runs r ON r.id = e.run_id
JOIN experiments x ON x.id = r.experiment_id
JOIN evaluation_sets s ON s.id = e.evaluation_set_id
CROSS JOIN LATERAL jsonb_object_keys(e.aggregates) AS m (metric);
DROP INDEX evaluations_run_step_idx;
ALTER TABLE evaluations DROP COLUMN step;
