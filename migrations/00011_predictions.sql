-- Classifier predictions: per sample, its label and each model's score (a
-- binary classifier's score, or one probability per class), in double
-- precision, logged with `verdict log --predictions`. An evaluation of
-- predictions keeps its rows here instead of in unit_values, and its
-- aggregates hold the metrics computed over all of them (AUC, log loss, ...),
-- which are not means of per-unit values.
--
-- Storage follows unit_values: a partition per evaluation,
-- verdict_units.predictions_<id>, created and loaded in the transaction that
-- logs it, indexed on (evaluation_id, sample_id) so that pairing two
-- evaluations is an index join, and attached in groups of 100 consecutive
-- evaluation IDs, verdict_units.predictions_g<id / 100>, just before the
-- transaction commits. The functions below make, index and attach the
-- partitions with the rights of the role that migrated, as migration 9's do
-- for unit_values; writers get EXECUTE on them (`verdict db role create`).
--
-- An evaluation set fingerprinted by its labels has fingerprint_kind
-- 'labels': the digest covers each sample ID with its label, and the class
-- names, so two models scored against different labels are refused.

-- +goose Up
ALTER TABLE evaluation_sets DROP CONSTRAINT evaluation_sets_fingerprint_kind_check;
ALTER TABLE evaluation_sets ADD CONSTRAINT evaluation_sets_fingerprint_kind_check
    CHECK (fingerprint_kind IN ('targets', 'samples', 'labels'));

ALTER TABLE evaluations
    ADD COLUMN task text CHECK (task IN ('binary', 'multiclass')),
    ADD COLUMN classes text[],
    ADD COLUMN threshold double precision,
    ADD COLUMN ece_bins integer CHECK (ece_bins > 0),
    ADD CONSTRAINT evaluations_task_classes CHECK ((task IS NULL) = (classes IS NULL)
        AND (task IS NULL OR cardinality(classes) >= 2));

CREATE TABLE predictions (
    evaluation_id integer NOT NULL,
    sample_id     text COLLATE "C" NOT NULL,
    label         smallint NOT NULL,
    scores        double precision[] NOT NULL,
    PRIMARY KEY (evaluation_id, sample_id)
) PARTITION BY LIST (evaluation_id);

-- +goose StatementBegin
-- create_predictions creates verdict_units.predictions_<id>, without its
-- primary key (index_predictions adds it after the load), in the caller's
-- transaction.
CREATE FUNCTION verdict_units.create_predictions(evaluation_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    t text := format('verdict_units.%I', 'predictions_' || evaluation_id);
BEGIN
    PERFORM verdict_units.check_new_values(evaluation_id, 1);
    EXECUTE format('CREATE TABLE %s (
        evaluation_id integer NOT NULL DEFAULT %2$s CONSTRAINT evaluation_id_fixed CHECK (evaluation_id = %2$s),
        sample_id text COLLATE "C" NOT NULL,
        label smallint NOT NULL,
        scores double precision[] NOT NULL)', t, evaluation_id);
    EXECUTE format('GRANT SELECT, INSERT ON %s TO %I', t, session_user);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- index_predictions adds the primary key to evaluation_id's predictions.
CREATE FUNCTION verdict_units.index_predictions(evaluation_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM evaluations e WHERE e.id = evaluation_id) THEN
        RAISE EXCEPTION 'evaluation % is already stored', evaluation_id USING ERRCODE = '22023';
    END IF;
    EXECUTE format('ALTER TABLE verdict_units.%I ADD PRIMARY KEY (evaluation_id, sample_id)', 'predictions_' || evaluation_id);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- attach_predictions attaches evaluation_id's predictions to their group of
-- 100 evaluations under predictions, as attach_values does for unit_values;
-- the evaluation must be stored in the same transaction.
CREATE FUNCTION verdict_units.attach_predictions(evaluation_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    g integer := evaluation_id / 100;
    grp text := format('verdict_units.%I', 'predictions_g' || g);
    t text := format('verdict_units.%I', 'predictions_' || evaluation_id);
BEGIN
    IF NOT EXISTS (SELECT 1 FROM evaluations e WHERE e.id = evaluation_id) THEN
        RAISE EXCEPTION 'evaluation % is not stored', evaluation_id USING ERRCODE = '22023';
    END IF;
    PERFORM pg_advisory_xact_lock(1886545511, g); -- 'pgrp'
    IF to_regclass(grp) IS NULL THEN
        EXECUTE format('CREATE TABLE %s (LIKE predictions INCLUDING DEFAULTS) PARTITION BY LIST (evaluation_id)', grp);
        EXECUTE format('ALTER TABLE predictions ATTACH PARTITION %s FOR VALUES IN (%s)', grp,
                       (SELECT string_agg(i::text, ', ') FROM generate_series(g * 100, g * 100 + 99) AS i));
    END IF;
    EXECUTE format('ALTER TABLE %s ATTACH PARTITION %s FOR VALUES IN (%s)', grp, t, evaluation_id);
    EXECUTE format('REVOKE INSERT ON %s FROM %I', t, session_user);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    schema text := (SELECT c.relnamespace::regnamespace::text FROM pg_class c WHERE c.oid = 'evaluations'::regclass);
    f regprocedure;
BEGIN
    FOREACH f IN ARRAY ARRAY['verdict_units.create_predictions(integer)'::regprocedure,
                             'verdict_units.index_predictions(integer)'::regprocedure,
                             'verdict_units.attach_predictions(integer)'::regprocedure] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %s, pg_temp', f, schema);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
END
$$;
-- +goose StatementEnd

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
       e.classes
FROM evaluations e
JOIN runs r ON r.id = e.run_id
JOIN experiments x ON x.id = r.experiment_id
JOIN evaluation_sets s ON s.id = e.evaluation_set_id;

-- +goose Down
-- Evaluations of predictions go with their predictions: the comparisons
-- that name them, then the evaluations, then the table with its partitions.
DELETE FROM comparisons c USING evaluations e
WHERE e.task IS NOT NULL AND e.id IN (c.left_evaluation_id, c.right_evaluation_id);
DELETE FROM evaluations WHERE task IS NOT NULL;
DELETE FROM evaluation_sets s WHERE s.fingerprint_kind = 'labels'
    AND NOT EXISTS (SELECT 1 FROM evaluations e WHERE e.evaluation_set_id = s.id);
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
       r.experiment_id
FROM evaluations e
JOIN runs r ON r.id = e.run_id
JOIN experiments x ON x.id = r.experiment_id
JOIN evaluation_sets s ON s.id = e.evaluation_set_id;
DROP TABLE predictions;
DROP FUNCTION verdict_units.attach_predictions(integer);
DROP FUNCTION verdict_units.index_predictions(integer);
DROP FUNCTION verdict_units.create_predictions(integer);
ALTER TABLE evaluations
    DROP CONSTRAINT evaluations_task_classes,
    DROP COLUMN ece_bins,
    DROP COLUMN threshold,
    DROP COLUMN classes,
    DROP COLUMN task;
ALTER TABLE evaluation_sets DROP CONSTRAINT evaluation_sets_fingerprint_kind_check;
ALTER TABLE evaluation_sets ADD CONSTRAINT evaluation_sets_fingerprint_kind_check
    CHECK (fingerprint_kind IN ('targets', 'samples'));
