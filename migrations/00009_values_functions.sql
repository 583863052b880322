-- The tables that hold an evaluation's per-unit values are made, indexed,
-- attached and, for a killed log, dropped by the functions below, whoever
-- logs. They run with the rights of the role that migrated the database
-- (SECURITY DEFINER), which owns every table they make. A role that may log
-- but not alter the schema (`verdict db role create NAME --writer`) is given
-- EXECUTE on them and no CREATE anywhere: it can add an evaluation's values
-- through them, but it owns nothing it could drop or alter.
--
-- Each function builds table names from integers only. The caller gets
-- SELECT and INSERT on the tables it is loading, and loses INSERT when they
-- are attached, so a stored evaluation's values cannot be added to later.
-- The functions find verdict's tables through a search_path fixed to the
-- schema they were migrated into, with pg_temp last, so a caller's temporary
-- table cannot stand in for one of them. Only the role that migrated may
-- execute them until it grants that to another.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION verdict_units.values_columns(evaluation_id integer) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
    SELECT format('evaluation_id integer NOT NULL DEFAULT %1$s CONSTRAINT evaluation_id_fixed CHECK (evaluation_id = %1$s),
        sample_id text COLLATE "C" NOT NULL,
        draw smallint NOT NULL DEFAULT 0,
        vals real[] NOT NULL', evaluation_id)
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- check_new_values refuses an evaluation ID that was never allocated, or whose
-- evaluation is already stored, and a number of hash parts out of range.
CREATE FUNCTION verdict_units.check_new_values(evaluation_id integer, parts integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF evaluation_id IS NULL OR evaluation_id <= 0
       OR evaluation_id > (SELECT last_value FROM evaluations_id_seq) THEN
        RAISE EXCEPTION 'evaluation ID % was not allocated', evaluation_id USING ERRCODE = '22023';
    END IF;
    IF EXISTS (SELECT 1 FROM evaluations e WHERE e.id = evaluation_id) THEN
        RAISE EXCEPTION 'evaluation % is already stored', evaluation_id USING ERRCODE = '22023';
    END IF;
    IF parts IS NULL OR parts < 1 OR parts > 64 THEN
        RAISE EXCEPTION 'an evaluation''s values are split into 1 to 64 parts, not %', parts USING ERRCODE = '22023';
    END IF;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- create_values creates verdict_units.unit_values_<id>, partitioned by hash
-- of sample ID into parts when parts > 1, in the caller's transaction.
CREATE FUNCTION verdict_units.create_values(evaluation_id integer, parts integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    t text := format('verdict_units.%I', 'unit_values_' || evaluation_id);
BEGIN
    PERFORM verdict_units.check_new_values(evaluation_id, parts);
    EXECUTE format('CREATE TABLE %s (%s) %s', t, verdict_units.values_columns(evaluation_id),
                   CASE WHEN parts > 1 THEN 'PARTITION BY HASH (sample_id)' ELSE '' END);
    EXECUTE format('GRANT SELECT, INSERT ON %s TO %I', t, session_user);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- create_values_part creates hash part k of evaluation_id's values,
-- verdict_units.unit_values_<id>_p<k>, and records it in
-- unattached_unit_values in the same transaction.
CREATE FUNCTION verdict_units.create_values_part(evaluation_id integer, parts integer, k integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    part text := format('unit_values_%s_p%s', evaluation_id, k);
BEGIN
    PERFORM verdict_units.check_new_values(evaluation_id, parts);
    IF k IS NULL OR k < 0 OR k >= parts THEN
        RAISE EXCEPTION 'part % is not one of 0 to %', k, parts - 1 USING ERRCODE = '22023';
    END IF;
    EXECUTE format('CREATE TABLE verdict_units.%I (%s)', part, verdict_units.values_columns(evaluation_id));
    INSERT INTO unattached_unit_values (table_name, evaluation_id) VALUES (part, create_values_part.evaluation_id);
    EXECUTE format('GRANT SELECT, INSERT ON verdict_units.%I TO %I', part, session_user);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- index_values adds the primary key to evaluation_id's values, or to its
-- hash part k when k is not null.
CREATE FUNCTION verdict_units.index_values(evaluation_id integer, k integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    t text := 'unit_values_' || evaluation_id || coalesce('_p' || k, '');
BEGIN
    IF EXISTS (SELECT 1 FROM evaluations e WHERE e.id = evaluation_id) THEN
        RAISE EXCEPTION 'evaluation % is already stored', evaluation_id USING ERRCODE = '22023';
    END IF;
    EXECUTE format('ALTER TABLE verdict_units.%I ADD PRIMARY KEY (evaluation_id, sample_id, draw)', t);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- attach_values_parts attaches evaluation_id's parts to its values and
-- deletes their records in unattached_unit_values.
CREATE FUNCTION verdict_units.attach_values_parts(evaluation_id integer, parts integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    part text;
BEGIN
    PERFORM verdict_units.check_new_values(evaluation_id, parts);
    FOR k IN 0 .. parts - 1 LOOP
        part := format('unit_values_%s_p%s', evaluation_id, k);
        EXECUTE format('ALTER TABLE verdict_units.%I ATTACH PARTITION verdict_units.%I FOR VALUES WITH (MODULUS %s, REMAINDER %s)',
                       'unit_values_' || evaluation_id, part, parts, k);
        EXECUTE format('REVOKE INSERT ON verdict_units.%I FROM %I', part, session_user);
    END LOOP;
    DELETE FROM unattached_unit_values u WHERE u.evaluation_id = attach_values_parts.evaluation_id;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- attach_values attaches evaluation_id's values to their group of 100
-- evaluations under unit_values, creating the group with its first
-- evaluation; the evaluation must be stored in the same transaction. An
-- advisory lock ('vgrp', group) keeps two first evaluations of a group from
-- both creating it. Both attachments take a SHARE UPDATE EXCLUSIVE lock on
-- the parent, which readers do not conflict with.
CREATE FUNCTION verdict_units.attach_values(evaluation_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    g integer := evaluation_id / 100;
    grp text := format('verdict_units.%I', 'unit_values_g' || g);
    t text := format('verdict_units.%I', 'unit_values_' || evaluation_id);
BEGIN
    IF NOT EXISTS (SELECT 1 FROM evaluations e WHERE e.id = evaluation_id) THEN
        RAISE EXCEPTION 'evaluation % is not stored', evaluation_id USING ERRCODE = '22023';
    END IF;
    PERFORM pg_advisory_xact_lock(1986491760, g); -- 'vgrp'
    IF to_regclass(grp) IS NULL THEN
        -- Created, then attached: CREATE TABLE ... PARTITION OF would lock
        -- unit_values against its readers until the commit.
        EXECUTE format('CREATE TABLE %s (LIKE unit_values INCLUDING DEFAULTS) PARTITION BY LIST (evaluation_id)', grp);
        EXECUTE format('ALTER TABLE unit_values ATTACH PARTITION %s FOR VALUES IN (%s)', grp,
                       (SELECT string_agg(i::text, ', ') FROM generate_series(g * 100, g * 100 + 99) AS i));
    END IF;
    EXECUTE format('ALTER TABLE %s ATTACH PARTITION %s FOR VALUES IN (%s)', grp, t, evaluation_id);
    EXECUTE format('REVOKE INSERT ON %s FROM %I', t, session_user);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
-- drop_unattached drops the parts of evaluation_id recorded as not attached,
-- unless the log that loads them still runs: it holds the advisory lock
-- ('verd', evaluation_id) until it commits. A table that is attached is never
-- dropped, whatever the records say. It returns how many it dropped.
CREATE FUNCTION verdict_units.drop_unattached(evaluation_id integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    part text;
    dropped integer := 0;
BEGIN
    IF NOT pg_try_advisory_xact_lock(1986359908, evaluation_id) THEN -- 'verd'
        RETURN 0;
    END IF;
    -- Read after the lock: a log that committed meanwhile deleted its records
    -- with the attachment.
    FOR part IN DELETE FROM unattached_unit_values u WHERE u.evaluation_id = drop_unattached.evaluation_id RETURNING u.table_name LOOP
        IF part !~ '^unit_values_[0-9]+_p[0-9]+$' THEN
            CONTINUE;
        END IF;
        IF EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = to_regclass(format('verdict_units.%I', part)) AND NOT c.relispartition) THEN
            EXECUTE format('DROP TABLE verdict_units.%I', part);
            dropped := dropped + 1;
        END IF;
    END LOOP;
    RETURN dropped;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
DO $$
DECLARE
    schema text := (SELECT c.relnamespace::regnamespace::text FROM pg_class c WHERE c.oid = 'evaluations'::regclass);
    f regprocedure;
BEGIN
    FOR f IN SELECT p.oid::regprocedure FROM pg_proc p WHERE p.pronamespace = 'verdict_units'::regnamespace LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %s, pg_temp', f, schema);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION verdict_units.drop_unattached(integer);
DROP FUNCTION verdict_units.attach_values(integer);
DROP FUNCTION verdict_units.attach_values_parts(integer, integer);
DROP FUNCTION verdict_units.index_values(integer, integer);
DROP FUNCTION verdict_units.create_values_part(integer, integer, integer);
DROP FUNCTION verdict_units.create_values(integer, integer);
DROP FUNCTION verdict_units.check_new_values(integer, integer);
DROP FUNCTION verdict_units.values_columns(integer);
