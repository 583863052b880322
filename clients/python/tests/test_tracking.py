"""Tracking a training job with the client, against a real server: steps
named as RUN@STEP, params fixed once logged, and tags with values.

Like test_client, the tests need VERDICT_URL, VERDICT_TOKEN and
VERDICT_READER_TOKEN, which python_test.go sets.
"""

from __future__ import annotations

import os
import tempfile
import unittest
from typing import Dict

import verdict_client as vc

from .test_client import HAVE_SERVER, NO_SERVER, READER, URL, WRITER, unique


def epoch(e: int) -> Dict[str, Dict[str, float]]:
    """40 users' ndcg after epoch e: user i has (i % 4)/8 + e/8, so the
    mean is 3/16 + e/8 (the mean of 0, 1/8, 2/8 and 3/8 is 3/16); every
    value is exact in the single precision the server keeps."""
    return {f"u{i:02d}": {"ndcg": (i % 4) / 8 + e / 8} for i in range(40)}


@unittest.skipUnless(HAVE_SERVER, NO_SERVER)
class TrackingTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.c = vc.Client(URL, WRITER, backoff=0.05)
        cls.reader = vc.Client(URL, READER, backoff=0.05)

    def test_steps_compare_as_run_at_step(self) -> None:
        exp = unique("steps")
        one = self.c.log(exp, "mf", "test", epoch(1), step=1)
        two = self.c.log(exp, "mf", "test", epoch(2), step=2)
        self.assertNotEqual(one["evaluation_id"], two["evaluation_id"])

        got = self.reader.compare("mf@1", "mf@2", experiment=exp, metric="ndcg", record=False, seed=1)
        r = got["ndcg"]
        self.assertEqual(r["n"], 40)
        self.assertAlmostEqual(r["baseline_mean"], 3 / 16 + 1 / 8, delta=1e-12)
        self.assertAlmostEqual(r["candidate_mean"], 3 / 16 + 2 / 8, delta=1e-12)
        self.assertEqual(r["candidate_better"], 40, "every user gains 1/8")

        # The same step again: the same content is a retry, other content
        # a conflict that stores nothing.
        again = self.c.log(exp, "mf", "test", epoch(2), step=2)
        self.assertTrue(again["existing"])
        self.assertEqual(again["evaluation_id"], two["evaluation_id"])
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.log(exp, "mf", "test", epoch(3), step=2)
        self.assertEqual((cm.exception.status, cm.exception.code), (409, "conflict"))
        self.assertIn(f'already has evaluation {two["evaluation_id"]} on "test" at step 2', cm.exception.message)
        self.assertEqual(len(self.c.evaluations(exp, "mf")), 2)

        # log_file takes a step as well.
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "epoch3.csv")
            with open(path, "w") as f:
                f.write("sample_id,ndcg\n" + "".join(f"{k},{v['ndcg']}\n" for k, v in epoch(3).items()))
            three = self.c.log_file(exp, "mf", "test", path, step=3)
        got = self.reader.compare("mf@3", "mf", experiment=exp, metric="ndcg", record=False, seed=1)
        self.assertEqual(got["ndcg"]["n"], 40)
        self.assertAlmostEqual(got["ndcg"]["difference"]["estimate"], 0.0, delta=1e-12, msg="mf is its newest: mf@3")
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.compare("mf@1", "mf@9", experiment=exp, record=False)
        self.assertEqual(cm.exception.status, 404)
        self.assertIn("its steps are 1, 2, 3", cm.exception.message)
        self.assertNotEqual(three["evaluation_id"], two["evaluation_id"])

    def test_a_training_job_of_five_epochs(self) -> None:
        # What a training loop does: log after each of five epochs, then
        # compare epoch 3 with epoch 5, draw the curve, and read the run
        # with its metric columns. epoch(e) has mean 3/16 + e/8 over 40
        # users, every user gaining 1/8 an epoch.
        exp = unique("epochs")
        for e in range(1, 6):
            self.c.log(exp, "sasrec", "test", epoch(e), step=e, param={"lr": 0.01}, tag={"team": "recsys"})
        got = self.reader.compare("sasrec@3", "sasrec@5", experiment=exp, metric="ndcg", record=False, seed=1)
        r = got["ndcg"]
        self.assertEqual((r["n"], r["candidate_better"]), (40, 40))
        self.assertAlmostEqual(r["difference"]["estimate"], -2 / 8, delta=1e-12, msg="baseline - candidate")
        self.assertEqual(r["winner"], "candidate")
        self.assertIn("sasrec@5", r["verdict"])

        curve = self.reader.curve(exp, "sasrec", "ndcg", seed=1)
        points = curve["points"]
        self.assertEqual([p["step"] for p in points], [1, 2, 3, 4, 5])
        self.assertEqual([p["mean"] for p in points], [3 / 16 + e / 8 for e in range(1, 6)])
        for p in points:
            self.assertLessEqual(p["mean_ci_low"], p["mean"])
            self.assertGreaterEqual(p["mean_ci_high"], p["mean"])

        runs = self.reader.runs(exp, filter="tags.team = 'recsys' AND metrics.ndcg > 0.5")
        self.assertEqual([x["run"] for x in runs], ["sasrec"])
        self.assertEqual(runs[0]["metrics"], {"ndcg": 3 / 16 + 5 / 8}, "the newest step's mean")
        self.assertEqual(runs[0]["evaluations"], 5)
        self.assertEqual(self.reader.runs(exp, filter="metrics.ndcg > 0.9"), [])

    def test_runs_of_a_configuration_share_a_group(self) -> None:
        # Two seeds of one configuration: each run joins the group when
        # first logged; another group for a run is a conflict.
        exp = unique("groups")
        for seed in (1, 2):
            self.c.log(exp, f"cfg-a-{seed}", "test", epoch(seed), group="cfg-a")
        self.assertEqual([r["group"] for r in self.c.runs(exp, order_by="run")], ["cfg-a", "cfg-a"])
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.log(exp, "cfg-a-1", "test", epoch(3), group="cfg-b")
        self.assertEqual((cm.exception.status, cm.exception.code), (409, "conflict"))
        self.assertIn('run "cfg-a-1" belongs to group "cfg-a", and this log gives group "cfg-b"', cm.exception.message)
        self.assertEqual(len(self.c.evaluations(exp, "cfg-a-1")), 1, "nothing was stored")

    def test_configurations_compare_over_their_seeds(self) -> None:
        # cfg-a's two runs score as epochs 1 and 2, cfg-b's as 3 and 4, so
        # by hand: the group means are 3/8 and 5/8 (difference -1/4); the
        # run means of a group are 1/8 apart with no residual, so the seed
        # variance is 2(1/16)^2 = 1/128 and two runs of one configuration
        # differ by sqrt(2/128) = 1/8; every run of cfg-b beats every run
        # of cfg-a.
        exp = unique("seeds")
        for name, e, group in [("a1", 1, "cfg-a"), ("a2", 2, "cfg-a"), ("b1", 3, "cfg-b"), ("b2", 4, "cfg-b")]:
            self.c.log(exp, name, "test", epoch(e), group=group)
        got = self.reader.compare("cfg-a", "cfg-b", experiment=exp, groups=True, record=False)
        r = got["ndcg"]
        self.assertEqual(r["method"], "two-level-bootstrap")
        self.assertAlmostEqual(r["difference"]["estimate"], -0.25, delta=1e-12)
        s = r["seeds"]
        self.assertEqual(s["baseline_runs"], ["a1", "a2"])
        self.assertAlmostEqual(s["seed_variance"], 1 / 128, delta=1e-12)
        self.assertAlmostEqual(s["run_to_run_sd"], 1 / 8, delta=1e-12)
        self.assertEqual(s["p_candidate_run_better"], 1.0)
        self.assertFalse(s["seed_noise_dominates"])
        self.assertIn("A single run of cfg-b beats a single run of cfg-a in 100% of the 4 pairs of runs.", r["verdict"])
        lb = self.reader.leaderboard(exp, "ndcg", by_group=True)
        self.assertEqual([r["run"] for r in lb["rows"]], ["cfg-b", "cfg-a"])
        self.assertEqual(lb["rows"][1]["seeds"]["runs"], ["a1", "a2"])
        self.assertAlmostEqual(lb["rows"][1]["difference_to_reference"]["estimate"], 0.25, delta=1e-12)
        self.assertEqual(lb["rows"][1]["seeds"]["p_run_beats_reference"], 0.0)
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.compare("cfg-a", "cfg-c", experiment=exp, groups=True, record=False)
        self.assertEqual(cm.exception.status, 404)
        self.assertIn('no run of experiment', cm.exception.message)

    def test_a_changed_param_is_a_conflict(self) -> None:
        exp = unique("params")
        self.c.log(exp, "als", "test", epoch(1), param={"lr": 0.1, "opt": "adam"})
        self.c.log(exp, "als", "test", epoch(2), param=["lr=0.10", "factors=64"], step=2)
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.log(exp, "als", "test", epoch(3), param={"lr": 0.2, "epochs": 3}, step=3)
        self.assertEqual((cm.exception.status, cm.exception.code), (409, "conflict"))
        self.assertIn('param "lr" of run "als" is 0.1, and this log gives 0.2', cm.exception.message)
        # Nothing was stored: no evaluation, no new param.
        self.assertEqual(len(self.c.evaluations(exp, "als")), 2)
        (run,) = self.c.runs(exp)
        self.assertEqual(run["params"], {"lr": 0.1, "opt": "adam", "factors": 64})

    def test_tags_have_values_and_filter_runs(self) -> None:
        exp = unique("tags")
        self.c.log(exp, "als", "test", epoch(1), tag={"team": "recsys", "nightly": True})
        self.c.log(exp, "pop", "test", epoch(2), tag=["team=search", "baseline"])
        runs = {r["run"]: r for r in self.reader.runs(exp)}
        self.assertEqual(runs["als"]["tag_values"], {"team": "recsys", "nightly": "true"})
        self.assertEqual(runs["als"]["tags"], ["nightly", "team=recsys"])
        self.assertEqual(runs["pop"]["tag_values"], {"team": "search", "baseline": "true"})
        self.assertAlmostEqual(runs["pop"]["metrics"]["ndcg"], 3 / 16 + 2 / 8, delta=1e-12)

        def names(f: str):
            return [r["run"] for r in self.reader.runs(exp, filter=f, order_by="run")]

        self.assertEqual(names("tags.team = 'recsys'"), ["als"])
        self.assertEqual(names("tags.nightly = 'true'"), ["als"])
        self.assertEqual(names("tags.team = 'search' OR tags.baseline = 'true'"), ["pop"])

        # Tags are labels, and change: als moves to search.
        self.c.log(exp, "als", "test", epoch(3), tag={"team": "search"}, step=3)
        self.assertEqual(names("tags.team = 'search'"), ["als", "pop"])
        self.assertEqual(names("tags.nightly = 'true'"), ["als"], "the other tags stay")
        with self.assertRaisesRegex(ValueError, "holds no '='"):
            self.c.log(exp, "als", "test", epoch(3), tag={"a=b": "c"})


if __name__ == "__main__":
    unittest.main()
