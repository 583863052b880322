-- The comparison history shows the test statistic and the sample-size hint
-- each comparison recorded: the t, z, W+ or chi² the p-value came from, and
-- the units a gap of the observed size would need (NULL where the method
-- gives none). New columns go at the end, so the view is replaced in place.

-- +goose Up
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
       c.n_required
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
       c.software_version
FROM comparisons c
JOIN evaluations le ON le.id = c.left_evaluation_id
JOIN runs lr ON lr.id = le.run_id
JOIN experiments lx ON lx.id = lr.experiment_id
JOIN evaluation_sets ls ON ls.id = le.evaluation_set_id
JOIN evaluations re ON re.id = c.right_evaluation_id
JOIN runs rr ON rr.id = re.run_id;
