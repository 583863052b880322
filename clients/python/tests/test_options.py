"""The options of compare, rank, diff, history and leaderboard, as the
client passes them to a real server: each reaches the server by its API
name, and the server's answer (or its refusal) comes back."""

from __future__ import annotations

import unittest
from typing import Dict

import verdict_client as vc

from .test_client import HAVE_SERVER, NO_SERVER, READER, URL, WRITER, unique


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


if __name__ == "__main__":
    unittest.main()
