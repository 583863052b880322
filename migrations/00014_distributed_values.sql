-- A database on a Citus coordinator can hold its per-unit values on the
-- workers (`verdict db distribute`): unit_values is then a Citus table
-- distributed by sample_id, and every evaluation's table is a co-located
-- distributed table attached to unit_values directly, so that pairing two
-- evaluations by sample ID joins shard with shard on each worker. Citus
-- distributes a partitioned table of one level only: there are no groups of
-- 100 evaluations and no hash parts on a distributed database (Citus
-- already writes the shards in parallel). Every other table stays the
-- coordinator's own.
--
-- distributed() says whether the database is distributed; on a server
-- without Citus it is false. create_values then refuses parts > 1 and
-- distributes the table it creates, co-located with unit_values, in the
-- caller's transaction, so that the rows of the COPY stream through the
-- coordinator to the shards; attach_values attaches the evaluation's table
-- to unit_values itself. On a server that is not distributed they do what
-- migration 9's did.
--
-- Citus refuses, in one transaction, to reach a shard as one role after
-- another role changed it. The functions run as the role that migrated; a
-- writer's COPY runs as the writer. So for a caller other than that role,
-- create_values leaves the table on the coordinator, the caller loads and
-- indexes it there, and attach_values distributes it (Citus copies the rows
-- to the shards) just before attaching it: the same result, one copy more.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION verdict_units.distributed() RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
DECLARE
    d boolean;
BEGIN
    IF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
        RETURN false; -- no Citus
    END IF;
    -- Dynamic: the catalog is not there to plan against without Citus.
    EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1)'
        INTO d USING to_regclass('unit_values');
    RETURN d;
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION verdict_units.create_values(evaluation_id integer, parts integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    t text := format('verdict_units.%I', 'unit_values_' || evaluation_id);
    d boolean := verdict_units.distributed();
BEGIN
    PERFORM verdict_units.check_new_values(evaluation_id, parts);
    IF d AND parts > 1 THEN
        RAISE EXCEPTION 'unit_values is distributed: an evaluation''s values are loaded in one part, not %', parts
            USING ERRCODE = '22023';
    END IF;
    EXECUTE format('CREATE TABLE %s (%s) %s', t, verdict_units.values_columns(evaluation_id),
                   CASE WHEN parts > 1 THEN 'PARTITION BY HASH (sample_id)' ELSE '' END);
    IF d AND session_user = current_user THEN
        -- The caller runs as this function's owner: its COPY may reach the
        -- shards this makes.
        EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, colocate_with => %L)', t, 'sample_id', 'unit_values');
    END IF;
    EXECUTE format('GRANT SELECT, INSERT ON %s TO %I', t, session_user);
END
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION verdict_units.attach_values(evaluation_id integer) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    g integer := evaluation_id / 100;
    grp text := format('verdict_units.%I', 'unit_values_g' || g);
    t text := format('verdict_units.%I', 'unit_values_' || evaluation_id);
    done boolean;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM evaluations e WHERE e.id = evaluation_id) THEN
        RAISE EXCEPTION 'evaluation % is not stored', evaluation_id USING ERRCODE = '22023';
    END IF;
    IF verdict_units.distributed() THEN
        EXECUTE 'SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1)'
            INTO done USING to_regclass(t);
        IF NOT done THEN
            -- Loaded on the coordinator by a caller other than the owner.
            EXECUTE format('SELECT pg_catalog.create_distributed_table(%L, %L, colocate_with => %L)', t, 'sample_id', 'unit_values');
            EXECUTE format('SELECT pg_catalog.truncate_local_data_after_distributing_table(%L)', t);
        END IF;
        -- Citus distributes one level of partitions: no group.
        EXECUTE format('ALTER TABLE unit_values ATTACH PARTITION %s FOR VALUES IN (%s)', t, evaluation_id);
        EXECUTE format('REVOKE INSERT ON %s FROM %I', t, session_user);
        RETURN;
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
DO $$
DECLARE
    schema text := (SELECT c.relnamespace::regnamespace::text FROM pg_class c WHERE c.oid = 'evaluations'::regclass);
    f regprocedure;
BEGIN
    FOREACH f IN ARRAY ARRAY['verdict_units.distributed()'::regprocedure,
                             'verdict_units.create_values(integer, integer)'::regprocedure,
                             'verdict_units.attach_values(integer)'::regprocedure] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %s, pg_temp', f, schema);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- migration 9's create_values and attach_values again. A distributed
-- database keeps its layout: a log there then fails until it is migrated up.
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION verdict_units.create_values(evaluation_id integer, parts integer) RETURNS void
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
CREATE OR REPLACE FUNCTION verdict_units.attach_values(evaluation_id integer) RETURNS void
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
DO $$
DECLARE
    schema text := (SELECT c.relnamespace::regnamespace::text FROM pg_class c WHERE c.oid = 'evaluations'::regclass);
    f regprocedure;
BEGIN
    FOREACH f IN ARRAY ARRAY['verdict_units.create_values(integer, integer)'::regprocedure,
                             'verdict_units.attach_values(integer)'::regprocedure] LOOP
        EXECUTE format('ALTER FUNCTION %s SET search_path = %s, pg_temp', f, schema);
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC', f);
    END LOOP;
END
$$;
-- +goose StatementEnd

DROP FUNCTION verdict_units.distributed();
