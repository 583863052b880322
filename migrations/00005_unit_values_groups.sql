-- Evaluations' partitions are attached to unit_values in groups of 100
-- consecutive evaluation IDs: unit_values has one partition per group,
-- verdict_units.unit_values_g<N> for IDs 100·N to 100·N+99, itself
-- partitioned by evaluation. Attaching a partition makes PostgreSQL load the
-- list of its new parent's partitions, so with one level that cost grew with
-- every evaluation ever logged (0.2 s a log at 10,000); now it is bounded by
-- the group's 100. verdict creates a group with its first evaluation.
--
-- Evaluations logged before this version stay attached to unit_values
-- directly. So that no group's IDs can belong to one of them, the next
-- evaluation ID moves up to a multiple of 100 when there are any.

-- +goose Up
SELECT setval(pg_get_serial_sequence('evaluations', 'id'),
              (pg_sequence_last_value(pg_get_serial_sequence('evaluations', 'id')::regclass) + 100) / 100 * 100,
              false)
WHERE EXISTS (SELECT 1 FROM pg_inherits WHERE inhparent = 'unit_values'::regclass);

-- +goose Down
-- Every grouped evaluation goes back to unit_values directly, and the groups
-- are dropped.
-- +goose StatementBegin
DO $$
DECLARE
    grp    regclass;
    leaves regclass[];
    bounds text[];
BEGIN
    FOR grp IN
        SELECT c.oid::regclass
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'unit_values'::regclass AND c.relname ~ '^unit_values_g[0-9]+$'
    LOOP
        SELECT coalesce(array_agg(c.oid::regclass), '{}'), coalesce(array_agg(pg_get_expr(c.relpartbound, c.oid)), '{}')
        INTO leaves, bounds
        FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = grp;
        FOR k IN 1 .. cardinality(leaves) LOOP
            EXECUTE format('ALTER TABLE %s DETACH PARTITION %s', grp, leaves[k]);
        END LOOP;
        EXECUTE format('DROP TABLE %s', grp);
        FOR k IN 1 .. cardinality(leaves) LOOP
            EXECUTE format('ALTER TABLE unit_values ATTACH PARTITION %s %s', leaves[k], bounds[k]);
        END LOOP;
    END LOOP;
END $$;
-- +goose StatementEnd
