-- Online FDR control over an experiment's comparison history (`verdict
-- compare --fdr`). Each experiment tested under a procedure has one ledger
-- row: the procedure, its parameters and its state after the tests so far
-- (the number of tests, which ones rejected, the alpha-wealth). A
-- comparison locks the row, takes the level for each of its tests from the
-- state, and saves the new state in the transaction that records it, so
-- two concurrent comparisons never spend the same wealth. Each recorded
-- comparison keeps the procedure, its test's number in the experiment's
-- stream, the level it was held to, the wealth before and after, and
-- whether the procedure rejected. Writers insert and update ledgers
-- (`verdict db role create` grants it; run it again for roles made before
-- this version).

-- +goose Up
CREATE TABLE fdr_ledgers (
    experiment_id integer PRIMARY KEY REFERENCES experiments (id),
    method        text NOT NULL,
    alpha         double precision NOT NULL CHECK (alpha > 0 AND alpha < 1),
    w0            double precision NOT NULL CHECK (w0 >= 0 AND w0 < 1),
    state         jsonb NOT NULL,
    tests         integer NOT NULL DEFAULT 0 CHECK (tests >= 0),
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE comparisons
    ADD COLUMN fdr_method text,
    ADD COLUMN fdr_test integer CHECK (fdr_test > 0),
    ADD COLUMN fdr_level double precision,
    ADD COLUMN fdr_rejected boolean,
    ADD COLUMN fdr_wealth_before double precision,
    ADD COLUMN fdr_wealth_after double precision,
    ADD CONSTRAINT comparisons_fdr_complete CHECK ((fdr_method IS NULL) = (fdr_test IS NULL)
        AND (fdr_method IS NULL) = (fdr_level IS NULL) AND (fdr_method IS NULL) = (fdr_rejected IS NULL));

CREATE OR REPLACE VIEW comparison_history AS
SELECT c.id AS comparison_id,
       c.created_at,
       lx.name AS experiment,
       ls.name AS evaluation_set,
       c.metric,
       c.left_evaluation_id AS baseline_evaluation_id,
       lr.name AS baseline_run,
       c.right_evaluation_id AS candidate_evaluation_id,
       rr.name AS candidate_run,
       c.method,
       c.n,
       c.left_mean AS baseline_mean,
       c.right_mean AS candidate_mean,
       c.estimate AS difference,
       c.ci_low,
       c.ci_high,
       c.p_value,
       c.p_adjusted,
       c.adjustment,
       c.distinguishable,
       CASE c.winner WHEN 'left' THEN 'baseline' WHEN 'right' THEN 'candidate' END AS winner,
       c.lower_is_better,
       c.wins,
       c.losses,
       c.ties,
       c.verdict,
       c.seed,
       c.resamples,
       c.software_version,
       c.statistic,
       c.n_required,
       c.fdr_method,
       c.fdr_test,
       c.fdr_level,
       c.fdr_rejected,
       c.fdr_wealth_before,
       c.fdr_wealth_after
FROM comparisons c
JOIN evaluations le ON le.id = c.left_evaluation_id
JOIN runs lr ON lr.id = le.run_id
JOIN experiments lx ON lx.id = lr.experiment_id
JOIN evaluation_sets ls ON ls.id = le.evaluation_set_id
JOIN evaluations re ON re.id = c.right_evaluation_id
JOIN runs rr ON rr.id = re.run_id;

-- +goose Down
DROP VIEW comparison_history;
CREATE VIEW comparison_history AS
SELECT c.id AS comparison_id,
       c.created_at,
       lx.name AS experiment,
       ls.name AS evaluation_set,
       c.metric,
       c.left_evaluation_id AS baseline_evaluation_id,
       lr.name AS baseline_run,
       c.right_evaluation_id AS candidate_evaluation_id,
       rr.name AS candidate_run,
       c.method,
       c.n,
       c.left_mean AS baseline_mean,
       c.right_mean AS candidate_mean,
       c.estimate AS difference,
       c.ci_low,
       c.ci_high,
       c.p_value,
       c.p_adjusted,
       c.adjustment,
       c.distinguishable,
       CASE c.winner WHEN 'left' THEN 'baseline' WHEN 'right' THEN 'candidate' END AS winner,
       c.lower_is_better,
       c.wins,
       c.losses,
       c.ties,
       c.verdict,
       c.seed,
       c.resamples,
       c.software_version,
       c.statistic,
       c.n_required
FROM comparisons c
JOIN evaluations le ON le.id = c.left_evaluation_id
JOIN runs lr ON lr.id = le.run_id
JOIN experiments lx ON lx.id = lr.experiment_id
JOIN evaluation_sets ls ON ls.id = le.evaluation_set_id
JOIN evaluations re ON re.id = c.right_evaluation_id
JOIN runs rr ON rr.id = re.run_id;
ALTER TABLE comparisons
    DROP CONSTRAINT comparisons_fdr_complete,
    DROP COLUMN fdr_wealth_after,
    DROP COLUMN fdr_wealth_before,
    DROP COLUMN fdr_rejected,
    DROP COLUMN fdr_level,
    DROP COLUMN fdr_test,
    DROP COLUMN fdr_method;
DROP TABLE fdr_ledgers;
