-- Each run's newest evaluation (leaderboards, run search on metrics) is the
-- first entry of this index for the run, so finding it reads one row per run
-- rather than sorting all of them.

-- +goose Up
CREATE INDEX evaluations_run_newest_idx ON evaluations (run_id, created_at DESC, id DESC);

-- +goose Down
DROP INDEX evaluations_run_newest_idx;
