"""The options of compare, rank, diff, history and leaderboard, as the
client passes them to a real server: each reaches the server by its API
name, and the server's answer (or its refusal) comes back."""

from __future__ import annotations

import gzip
import os
import tempfile
import unittest
from typing import Dict

import verdict_client as vc

from .test_client import HAVE_SERVER, NO_SERVER, READER, URL, WRITER, Proxy, np, unique


def scores(n: int, shift: float, loss_shift: float = 0.0) -> Dict[str, Dict[str, float]]:
    """n users' ndcg (shifted up by shift) and loss (lower is better,
    shifted up by loss_shift)."""
    return {
        f"u{i}": {
            "ndcg": min(1.0, (i % 10) / 10 + shift + (i % 3) / 50),
            "loss": 1 + (i % 7) / 7 + loss_shift + (i % 5) / 100,
        }
        for i in range(n)
    }


@unittest.skipUnless(HAVE_SERVER, NO_SERVER)
class OptionsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.c = vc.Client(URL, WRITER, backoff=0.05)
        cls.reader = vc.Client(URL, READER, backoff=0.05)

    def experiment(self) -> str:
        """A new experiment of two runs: cand beats base on ndcg, and is
        worse on loss (lower is better)."""
        exp = unique("options")
        self.c.log(exp, "base", "test", scores(300, 0.0), lower_is_better="loss")
        self.c.log(exp, "cand", "test", scores(300, 0.1, loss_shift=0.05), lower_is_better="loss")
        return exp

    def assertInvalid(self, cm: unittest.case._AssertRaisesContext, *phrases: str) -> None:
        e = cm.exception
        self.assertEqual((e.status, e.code), (422, "invalid_input"), str(e))
        for p in phrases:
            self.assertIn(p, e.message)

    def test_fdr_records_each_test_in_the_experiments_stream(self) -> None:
        exp = self.experiment()
        got = self.c.compare("base", "cand", experiment=exp, metric=["ndcg", "loss"], seed=1, fdr="lond", fdr_alpha=0.1)
        self.assertEqual(list(got), ["ndcg", "loss"])
        for i, (metric, r) in enumerate(got.items(), start=1):
            with self.subTest(metric=metric):
                self.assertIsInstance(r["comparison_id"], int, "an fdr comparison is recorded")
                f = r["fdr"]
                self.assertEqual((f["method"], f["fdr"], f["test"]), ("lond", 0.1, i))
                self.assertIsInstance(f["level"], float)
                self.assertIsInstance(f["rejected"], bool)
        self.assertTrue(got["ndcg"]["fdr"]["rejected"], "cand's ndcg is far better")

        # history(fdr=True): where the stream stands, and each comparison's test.
        hist = self.reader.history(experiment=exp, fdr=True)
        self.assertEqual((hist["ledger"]["method"], hist["ledger"]["fdr"], hist["ledger"]["tests"]), ("lond", 0.1, 2))
        self.assertEqual(sorted(h["fdr_test"] for h in hist["comparisons"]), [1, 2])
        self.assertEqual(sorted(h["comparison_id"] for h in hist["comparisons"]), sorted(r["comparison_id"] for r in got.values()))
        # Without fdr, history is the plain list.
        self.assertIsInstance(self.reader.history(experiment=exp), list)

        # The next comparison is the stream's next test.
        again = self.c.compare("base", "cand", experiment=exp, metric="ndcg", seed=2, fdr="lond", fdr_alpha=0.1)
        self.assertEqual(again["ndcg"]["fdr"]["test"], 3)

    def test_fdr_is_refused_where_it_cannot_apply(self) -> None:
        exp = self.experiment()
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.compare("base", "cand", experiment=exp, fdr="lond", record=False)
        self.assertInvalid(cm, "fdr", "recorded")
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.compare("base", "cand", experiment=exp, fdr_alpha=0.1)
        self.assertInvalid(cm, "fdr_alpha goes with fdr")
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.compare("base", "cand", experiment=exp, fdr="lond", adjust="holm")
        self.assertInvalid(cm, "fdr replaces adjust")
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.compare("base", "cand", experiment=exp, fdr="no-such-procedure")
        self.assertInvalid(cm, "fdr", "no-such-procedure")
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.history(fdr=True)
        self.assertInvalid(cm, "fdr", "experiment")
        self.assertEqual(self.c.history(experiment=exp), [], "nothing refused was recorded")

    def test_fail_on_marks_each_metric(self) -> None:
        exp = self.experiment()
        plain = self.reader.compare("base", "cand", experiment=exp, metric=["ndcg", "loss"], seed=1, record=False)
        self.assertNotIn("fails_gate", plain["ndcg"], "no gate, no fails_gate")

        gated = self.reader.compare("base", "cand", experiment=exp, metric=["ndcg", "loss"], seed=1, record=False, fail_on="regression")
        self.assertEqual(gated["loss"]["winner"], "baseline", "cand's loss is higher: worse")
        self.assertIs(gated["loss"]["fails_gate"], True)
        self.assertEqual(gated["ndcg"]["winner"], "candidate")
        self.assertIs(gated["ndcg"]["fails_gate"], False, "an improvement is no regression")

        any_change = self.c.compare("base", "cand", experiment=exp, metric=["ndcg", "loss"], seed=1, fail_on="difference")
        self.assertIs(any_change["ndcg"]["fails_gate"], True)
        self.assertIs(any_change["loss"]["fails_gate"], True)

        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.compare("base", "cand", experiment=exp, record=False, fail_on="improvement")
        self.assertInvalid(cm, "fail_on", "regression", "difference")

    def test_decide_at_needs_rope(self) -> None:
        exp = self.experiment()
        for c, record in ((self.reader, False), (self.c, True)):
            with self.subTest(record=record):
                with self.assertRaises(vc.VerdictError) as cm:
                    c.compare("base", "cand", experiment=exp, decide_at=0.9, record=record)
                self.assertInvalid(cm, "decide_at is the Bayesian correlated t's threshold, which needs rope")
        self.assertEqual(self.c.history(experiment=exp), [])

    def test_rope_and_decide_at_on_k_fold_evaluations(self) -> None:
        exp = unique("kfold")
        kfold = dict(protocol="kfold", folds=10, n_train=900, n_test=100)
        self.c.log(exp, "base", "cv", {f"fold{i}": {"acc": 0.80 + (i % 3) / 100} for i in range(10)}, **kfold)
        self.c.log(exp, "cand", "cv", {f"fold{i}": {"acc": 0.83 + (i % 4) / 100} for i in range(10)}, **kfold)
        got = self.reader.compare("base", "cand", experiment=exp, record=False, rope=0.005, decide_at=0.9)
        r = got["acc"]
        self.assertEqual(r["method"], "corrected-t", "k-fold evaluations are compared with the corrected t")
        self.assertEqual((r["bayes"]["rope"], r["bayes"]["decide_at"]), (0.005, 0.9))
        self.assertIn(r["bayes"]["decision"], ("candidate_better", "baseline_better", "equivalent", "undecided"))

    def test_margin_decides_each_metric_and_gates(self) -> None:
        exp = self.experiment()
        kw = dict(experiment=exp, metric=["ndcg", "loss"], seed=1, record=False)
        got = self.reader.compare("base", "cand", margin=["ndcg=0.5", "loss=0.01"], fail_on="unproven-non-inferiority", **kw)
        self.assertEqual((got["ndcg"]["margin"], got["loss"]["margin"]), (0.5, 0.01))
        self.assertEqual(got["ndcg"]["margin_decision"], "superior", "cand is better on ndcg")
        self.assertEqual(got["loss"]["margin_decision"], "inferior", "cand's loss is higher by about 0.05, beyond 0.01")
        self.assertIs(got["ndcg"]["fails_gate"], False)
        self.assertIs(got["loss"]["fails_gate"], True)
        w = got["loss"]["margin_test"]["worse_by"]
        self.assertGreater(w["ci_low"], 0.01, "the one-sided bound of how much worse lies beyond the margin")
        self.assertIn("cand is inferior to base on loss", got["loss"]["verdict"])
        wide = self.reader.compare("base", "cand", margin=1.0, fail_on="regression-beyond-margin", **kw)
        self.assertEqual(wide["loss"]["margin_decision"], "equivalent")
        self.assertIs(wide["loss"]["fails_gate"], False)
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.compare("base", "cand", margin="recall=0.1", **kw)
        self.assertInvalid(cm, "recall is not a metric of this comparison")
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.compare("base", "cand", fail_on="unproven-non-inferiority", **kw)
        self.assertInvalid(cm, "decides against a practical margin")

    def test_statistics_options_reach_the_server(self) -> None:
        exp = self.experiment()
        kw = dict(experiment=exp, metric="ndcg", record=False, method="bootstrap", resamples=300, seed=7, confidence=0.9, alpha=0.01)
        a = self.reader.compare("base", "cand", resampling="poisson", no_stratify=True, **kw)["ndcg"]
        b = self.reader.compare("base", "cand", resampling="poisson", no_stratify=True, **kw)["ndcg"]
        self.assertEqual(a["difference"], b["difference"], "the same seed gives the same answer")
        self.assertEqual(a["difference"]["confidence"], 0.9)
        self.assertIn("poisson", a["method"])
        m = self.reader.compare("base", "cand", resampling="multinomial", **kw)["ndcg"]
        self.assertNotIn("poisson", m["method"])
        self.assertEqual(m["difference"]["estimate"], a["difference"]["estimate"], "the estimate does not resample")
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.compare("base", "cand", resampling="sometimes", **kw)
        self.assertInvalid(cm, "resampling", "sometimes")

        both = self.reader.compare("base", "cand", experiment=exp, record=False, seed=1, adjust="bonferroni")
        self.assertEqual(sorted(both), ["loss", "ndcg"])

    def test_rank_across_eval_sets(self) -> None:
        exp = unique("across")
        for k, s in enumerate(["s1", "s2", "s3", "s4", "s5"]):
            for j, run in enumerate(["a", "b", "c"]):
                self.c.log(exp, run, s, {f"u{i}": {"acc": 0.5 + 0.1 * j + 0.01 * k + (i % 3) / 100} for i in range(20)})
        got = self.reader.rank(["a", "b", "c"], "acc", experiment=exp, across_eval_sets=True, record=False)
        self.assertEqual(got["n_units"], 5, "each evaluation set is a block")
        self.assertEqual([r["name"] for r in got["runs"]], ["c", "b", "a"])
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.rank(["a", "b"], "acc", experiment=exp, eval_set="s1", across_eval_sets=True, record=False)
        self.assertInvalid(cm, "across_eval_sets", "eval_set")
        # One run name alone is a list of one, which rank refuses.
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.rank("a", "acc", experiment=exp, eval_set="s1", record=False)
        self.assertInvalid(cm, "at least two")

    def test_diff_worst_or_best(self) -> None:
        exp = self.experiment()
        worst = self.reader.diff("base", "cand", "ndcg", experiment=exp)
        self.assertEqual(len(worst["top"]), 10, "the server's default")
        best = self.reader.diff("base", "cand", "ndcg", experiment=exp, best=2)
        self.assertEqual(len(best["top"]), 2)
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.diff("base", "cand", "ndcg", experiment=exp, worst=2, best=2)
        self.assertInvalid(cm, "worst and best")

    def test_leaderboard_limit_defaults_to_the_servers(self) -> None:
        exp = unique("board")
        for j in range(12):
            self.c.log(exp, f"r{j:02d}", "test", {f"u{i}": {"acc": 0.5 + j / 100 + (i % 3) / 100} for i in range(10)})
        self.assertEqual(len(self.reader.leaderboard(exp, "acc", seed=1)["rows"]), 10)
        self.assertEqual(len(self.reader.leaderboard(exp, "acc", limit=0, seed=1)["rows"]), 12)
        self.assertEqual(len(self.reader.leaderboard(exp, "acc", limit=3, seed=1)["rows"]), 3)

    def test_list_evaluations(self) -> None:
        exp = unique("evals")
        first = self.c.log(exp, "a", "test", {"u1": {"x": 1.0}, "u2": {"x": 0.0}})
        second = self.c.log(exp, "b", "valid", {"u1": {"x": 1.0}, "u2": {"x": 1.0}})
        got = self.reader.evaluations(experiment=exp)
        self.assertEqual([e["evaluation_id"] for e in got], [second["evaluation_id"], first["evaluation_id"]], "newest first")
        self.assertEqual([e["evaluation_id"] for e in self.reader.evaluations(experiment=exp, run="a")], [first["evaluation_id"]])
        self.assertEqual([e["evaluation_id"] for e in self.reader.evaluations(experiment=exp, eval_set="valid")], [second["evaluation_id"]])
        self.assertEqual(len(self.reader.evaluations(experiment=exp, limit=1)), 1)

    def test_key_values_as_strings(self) -> None:
        exp = unique("kv")
        logged = self.c.log(exp, "r", "test", {"u1": {"x": 1.0}}, param=["lr=0.01", "model=als"], tag="a", meta="epoch=3")
        (run,) = self.c.runs(exp)
        self.assertEqual(run["params"], {"lr": 0.01, "model": "als"})
        self.assertEqual(self.c.evaluation(logged["evaluation_id"])["metadata"], {"epoch": 3})
        with self.assertRaisesRegex(ValueError, "want KEY=VALUE"):
            self.c.log(exp, "r", "test", {"u1": {"x": 1.0}}, param="lr")

    def test_an_unknown_parameter_is_refused(self) -> None:
        # The client cannot send one (Python refuses the keyword); the
        # server refuses one sent by hand, and names the parameters.
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader._call("GET", "/api/v1/runs", [("experimnet", "x")])
        self.assertInvalid(cm, "unknown parameter experimnet", "experiment")
        with self.assertRaises(TypeError):
            self.reader.runs(experimnet="x")  # type: ignore[call-arg]



@unittest.skipUnless(HAVE_SERVER, NO_SERVER)
class LogOptionsTest(unittest.TestCase):
    """log's and evaluate's options: labels, predictions, aggregates only,
    the input format, and evaluate's coverage and debugging."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.c = vc.Client(URL, WRITER, backoff=0.05)

    def test_labels_go_with_the_scores_for_delong(self) -> None:
        exp = unique("labels")
        labels = {f"s{i}": int(i % 2 == 0) for i in range(60)}
        base = {f"s{i}": {"score": (0.6 if labels[f"s{i}"] else 0.4) + (i % 7) / 20} for i in range(60)}
        cand = {f"s{i}": {"score": (0.7 if labels[f"s{i}"] else 0.3) + (i % 5) / 20} for i in range(60)}
        with Proxy(URL) as p:
            first = vc.Client(p.url, WRITER).log(exp, "base", "test", base, labels=labels, idempotency_key="base-1")
            h = p.headers(0)
        self.assertTrue(h["content-type"].startswith("multipart/form-data; boundary="), h["content-type"])
        again = self.c.log(exp, "base", "test", base, labels=labels, idempotency_key="base-1")
        self.assertTrue(again["existing"], "the same scores and labels under the same key are a retry")
        self.assertEqual(again["evaluation_id"], first["evaluation_id"])

        # Labels from a CSV file, with the scores from a file.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "labels.csv")
            with open(path, "w") as f:
                f.write("sample_id,label\n" + "".join(f"{k},{v}\n" for k, v in labels.items()))
            scores_path = os.path.join(d, "cand.jsonl")
            with open(scores_path, "w") as f:
                f.write("".join(f'{{"sample_id": "{k}", "score": {v["score"]}}}\n' for k, v in cand.items()))
            self.c.log_file(exp, "cand", "test", scores_path, labels=path)
        got = self.c.compare("base", "cand", experiment=exp, metric="score", method="delong", record=False)
        self.assertEqual(got["score"]["method"], "delong")

        with self.assertRaises(ValueError):
            self.c.log(exp, "bad", "test", base, labels={"s0": 2})
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.log(exp, "pred", "test", {"s0": {"label": 1, "score": 0.5}}, predictions=True, labels={"s0": 1})
        self.assertEqual((cm.exception.status, cm.exception.code), (422, "invalid_input"))
        self.assertIn("labels", cm.exception.message)

    def test_predictions_are_scored_by_the_server(self) -> None:
        exp = unique("predictions")
        preds = {f"s{i}": {"label": i % 2, "score": (i % 10) / 10} for i in range(100)}
        # Positive at 0.5: scores 0.5..0.9; at 0.75: 0.8 and 0.9.
        default = self.c.log(exp, "half", "test", preds, predictions=True)
        strict = self.c.log(exp, "strict", "test", preds, predictions=True, threshold=0.75, bins=5)
        self.assertIn("accuracy", default["metrics"])
        self.assertIn("ece", default["metrics"])
        self.assertNotEqual(default["aggregates"]["accuracy"], strict["aggregates"]["accuracy"])
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.log(exp, "r", "test", {"s0": {"x": 1.0}}, threshold=0.5)
        self.assertEqual(cm.exception.code, "invalid_input")
        self.assertIn("threshold does not apply without predictions", cm.exception.message)

    def test_aggregates_only(self) -> None:
        exp = unique("aggonly")
        got = self.c.log(exp, "a", "test", {"u1": {"x": 1.0}, "u2": {"x": 0.0}}, aggregates_only=True)
        self.assertEqual(got["aggregates"], {"x": 0.5})
        self.assertTrue(self.c.evaluation(got["evaluation_id"])["aggregates_only"])

    def test_log_file_input_format_and_gzip(self) -> None:
        exp = unique("format")
        with tempfile.TemporaryDirectory() as d:
            plain = os.path.join(d, "scores.out")
            with open(plain, "w") as f:
                f.write("sample_id\tx\nu1\t1\nu2\t0\n")
            with self.assertRaisesRegex(ValueError, "input_format="):
                self.c.log_file(exp, "tsv", "test", plain)
            self.assertEqual(self.c.log_file(exp, "tsv", "test", plain, input_format="tsv")["aggregates"], {"x": 0.5})
            gz = os.path.join(d, "scores.csv.gz")
            with gzip.open(gz, "wt") as f:
                f.write("sample_id,x\nu1,1\nu2,1\n")
            self.assertEqual(self.c.log_file(exp, "gz", "test", gz)["aggregates"], {"x": 1.0})
            with self.assertRaises(vc.VerdictError) as cm:
                self.c.log_file(exp, "bad", "test", plain, input_format="xlsx")
            self.assertEqual(cm.exception.code, "invalid_input")
            self.assertIn("input_format", cm.exception.message)

    @unittest.skipUnless(np is not None, "numpy is not installed")
    def test_evaluate_coverage_and_debugging(self) -> None:
        exp = unique("coverage")
        items = np.array([[0, 1], [1, 2], [0, 2], [1, 0]], dtype=np.int32)
        targets = np.zeros((4, 10))
        targets[0, 1] = targets[1, 5] = targets[2, 0] = targets[3, 3] = 1
        ids = np.array(["a", "b", "c", "d"])
        got = self.c.evaluate(exp, "r", "test", items, targets, sample_ids=ids, metrics=["hit_rate@2", "coverage@2"],
                              no_log=True, catalogue_size=20)
        self.assertAlmostEqual(got["aggregates"]["hit_rate@2"], 0.5, places=6)
        cov = self.c.evaluate(exp, "r", "test", items, targets, sample_ids=ids, metrics="coverage@2", no_log=True)
        self.assertNotEqual(got["aggregates"].get("coverage@2"), cov["aggregates"].get("coverage@2"),
                            "coverage is of 20 items, then of the targets' 10 columns")
        means = self.c.evaluate(exp, "means", "test", items, targets, sample_ids=ids, metrics="hit_rate@2", no_per_user=True)
        self.assertIsInstance(means["evaluation_id"], int)
        self.assertTrue(self.c.evaluation(means["evaluation_id"])["aggregates_only"])
        first = self.c.evaluate(exp, "r", "test", items, targets, sample_ids=ids, metrics="hit_rate@2", no_log=True, debug_users=1)
        self.assertEqual(len(first["debug_rows"]), 1)
        chosen = self.c.evaluate(exp, "r", "test", items, targets, sample_ids=ids, metrics="hit_rate@2", no_log=True,
                                 debug_sample_ids=["c", "d"])
        self.assertEqual(len(chosen["debug_rows"]), 2)
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.evaluate(exp, "r", "test", items, targets, metrics="hit_rate@2", no_log=True, no_per_user=True)
        self.assertEqual(cm.exception.code, "invalid_input")
        self.assertIn("no_per_user", cm.exception.message)


if __name__ == "__main__":
    unittest.main()
