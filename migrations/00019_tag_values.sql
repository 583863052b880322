-- Tags are KEY = VALUE labels: `--tag team=recsys` gives the run the tag
-- team with the value recsys, and a bare `--tag nightly` the tag nightly
-- with the value true. Unlike params, tags are mutable: a later log that
-- gives a tag another value replaces it.
--
-- runs.tag_values holds them, a JSON object of strings. runs.tags stays,
-- derived from it by verdict_tag_list and kept by verdict in the same
-- statement: KEY for a tag whose value is true, KEY=VALUE otherwise, sorted
-- byte by byte, so that queries and views that read runs.tags keep working.
--
-- A tag stored before this version becomes KEY = true, except one that
-- holds '=' after its first character: `team=recsys` logged as a bare tag
-- becomes team = recsys, which is what `--tag team=recsys` means from now
-- on, so old and new logs of one label agree. When several old tags of a
-- run split to the same key, the last in byte order wins. A run whose old
-- names break the limits of migration 7 is left as it was (no tag values)
-- until they are fixed.
--
-- Keys and values are at most 256 bytes and hold no control characters,
-- checked by verdict_tags_ok; keys hold no '=' (verdict refuses them).
-- Writers update tag_values when a run is logged again: every role that may
-- update runs.tags is granted that here, and `verdict db role create`
-- grants it to roles made from now on.
--
-- The view evaluation_overview gains tag_values.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION verdict_tag_list(tag_values jsonb) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT coalesce(array_agg(CASE WHEN t.value = 'true' THEN t.key ELSE t.key || '=' || t.value END
                              ORDER BY t.key COLLATE "C"), '{}')
    FROM jsonb_each_text(CASE WHEN jsonb_typeof(tag_values) = 'object' THEN tag_values ELSE '{}' END) AS t
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION verdict_tags_ok(tag_values jsonb) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT CASE WHEN jsonb_typeof(tag_values) = 'object' THEN
        coalesce((SELECT bool_and(jsonb_typeof(t.value) = 'string'
                                  AND octet_length(t.key) <= 256 AND t.key !~ E'[\\u0001-\\u001f\\u007f-\\u009f]'
                                  AND octet_length(t.value #>> '{}') <= 256
                                  AND (t.value #>> '{}') !~ E'[\\u0001-\\u001f\\u007f-\\u009f]')
                  FROM jsonb_each(tag_values) AS t), true)
    ELSE false END
$$;
-- +goose StatementEnd

ALTER TABLE runs ADD COLUMN tag_values jsonb NOT NULL DEFAULT '{}';

UPDATE runs r
SET tag_values = v.tag_values, tags = verdict_tag_list(v.tag_values)
FROM (
    SELECT r.id, jsonb_object_agg(p.key, p.value ORDER BY p.tag COLLATE "C") AS tag_values
    FROM runs r
    CROSS JOIN LATERAL unnest(r.tags) AS t (tag)
    CROSS JOIN LATERAL (
        SELECT t.tag,
               CASE WHEN strpos(t.tag, '=') > 1 THEN left(t.tag, strpos(t.tag, '=') - 1) ELSE t.tag END AS key,
               CASE WHEN strpos(t.tag, '=') > 1 THEN substr(t.tag, strpos(t.tag, '=') + 1) ELSE 'true' END AS value) p
    GROUP BY r.id
) v
WHERE v.id = r.id
  AND verdict_names_ok(r.tags) AND verdict_keys_ok(r.params)
  AND octet_length(r.name) <= 256 AND r.name !~ E'[\\u0001-\\u001f\\u007f-\\u009f]';

ALTER TABLE runs ADD CONSTRAINT runs_tag_values_limits CHECK (verdict_tags_ok(tag_values));

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
        EXECUTE format('GRANT UPDATE (tag_values) ON runs TO %s', g);
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
       e.classes,
       e.aggregates_only,
       e.step,
       r.tag_values
FROM evaluations e
JOIN runs r ON r.id = e.run_id
JOIN experiments x ON x.id = r.experiment_id
JOIN evaluation_sets s ON s.id = e.evaluation_set_id;

-- +goose Down
-- runs.tags keeps each tag as KEY or KEY=VALUE.
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
       e.aggregates_only,
       e.step
FROM evaluations e
JOIN runs r ON r.id = e.run_id
JOIN experiments x ON x.id = r.experiment_id
JOIN evaluation_sets s ON s.id = e.evaluation_set_id;
ALTER TABLE runs DROP COLUMN tag_values;
DROP FUNCTION verdict_tags_ok(jsonb);
DROP FUNCTION verdict_tag_list(jsonb);
