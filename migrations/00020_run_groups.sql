-- Groups: a run may belong to a group, the configuration it trains with one
-- of several seeds (verdict log --group cfg-a). The runs of a group are
-- compared with another group's by a test that counts the seeds' variance
-- as well as the users'. A run's group is fixed once logged, as its params
-- are: a run is one training of one configuration.

-- +goose Up
ALTER TABLE runs ADD COLUMN config_group text;
ALTER TABLE runs ADD CONSTRAINT runs_config_group_limits
    CHECK (config_group IS NULL OR verdict_names_ok(ARRAY[config_group]));
CREATE INDEX runs_config_group_idx ON runs (experiment_id, config_group) WHERE config_group IS NOT NULL;
-- Roles that may log (they may update a run's tags) may set a group.
-- +goose StatementBegin
DO $$
DECLARE
    g regrole;
BEGIN
    FOR g IN
        SELECT DISTINCT a.grantee::regrole
        FROM pg_attribute att, aclexplode(att.attacl) AS a
        WHERE att.attrelid = 'runs'::regclass AND att.attname = 'tags'
          AND a.privilege_type = 'UPDATE' AND a.grantee <> 0
    LOOP
        EXECUTE format('GRANT UPDATE (config_group) ON runs TO %s', g);
    END LOOP;
END
$$;
-- +goose StatementEnd

-- +goose Down
DROP INDEX runs_config_group_idx;
ALTER TABLE runs DROP CONSTRAINT runs_config_group_limits;
ALTER TABLE runs DROP COLUMN config_group;
