"""runs with their metrics, runs_frame and curve, against the server."""

from __future__ import annotations

import math
import unittest

import verdict_client as vc

from .test_client import HAVE_SERVER, NO_SERVER, URL, WRITER, pd, unique


@unittest.skipUnless(HAVE_SERVER, NO_SERVER)
class RunsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.c = vc.Client(URL, WRITER, backoff=0.05)
        cls.exp = unique("runs")
        # knn's newest evaluation: ndcg 0.25, 0.5, 0.75, 1 (mean 0.625),
        # recall 0.5 for all; pop's: ndcg 0.25 for all (mean 0.25).
        cls.c.log(cls.exp, "knn", "test", {f"u{i}": {"ndcg": 0.1, "recall": 0.1} for i in range(4)}, param={"k": 50}, tag=["nightly"])
        cls.c.log(cls.exp, "knn", "test", {f"u{i}": {"ndcg": (i + 1) / 4, "recall": 0.5} for i in range(4)}, param={"k": 50}, tag=["nightly"])
        cls.c.log(cls.exp, "pop", "test", {f"u{i}": {"ndcg": 0.25} for i in range(4)}, param={"lr": 0.01})

    def test_runs_have_the_newest_evaluations_means(self) -> None:
        runs = {r["run"]: r for r in self.c.runs(self.exp, metrics=["ndcg", "recall"])}
        self.assertEqual(sorted(runs), ["knn", "pop"])
        self.assertAlmostEqual(runs["knn"]["metrics"]["ndcg"], 0.625, places=6)
        self.assertAlmostEqual(runs["knn"]["metrics"]["recall"], 0.5, places=6)
        self.assertAlmostEqual(runs["pop"]["metrics"]["ndcg"], 0.25, places=6)
        self.assertNotIn("recall", runs["pop"]["metrics"])
        ordered = self.c.runs(self.exp, order_by="metrics.ndcg desc", metrics="ndcg")
        self.assertEqual([r["run"] for r in ordered], ["knn", "pop"])

    @unittest.skipIf(pd is None, "pandas is not installed")
    def test_runs_frame(self) -> None:
        df = self.c.runs_frame(self.exp, order_by="metrics.ndcg desc")
        self.assertIsInstance(df, pd.DataFrame)
        self.assertEqual(list(df["run"]), ["knn", "pop"])
        for col in ("run_id", "experiment", "created_at", "params.k", "params.lr", "tags.nightly", "metrics.ndcg", "metrics.recall"):
            self.assertIn(col, df.columns)
        self.assertLess(list(df.columns).index("params.k"), list(df.columns).index("tags.nightly"))
        self.assertLess(list(df.columns).index("tags.nightly"), list(df.columns).index("metrics.ndcg"))
        knn, pop = df.iloc[0], df.iloc[1]
        self.assertAlmostEqual(knn["metrics.ndcg"], 0.625, places=6)
        self.assertAlmostEqual(pop["metrics.ndcg"], 0.25, places=6)
        self.assertTrue(math.isnan(pop["metrics.recall"]), "pop has no recall")
        self.assertEqual(knn["params.k"], 50)
        self.assertEqual(knn["tags.nightly"], "true")
        self.assertTrue(pd.isna(pop["tags.nightly"]))
        self.assertEqual(str(df["created_at"].dtype), "datetime64[ns, UTC]")
        self.assertEqual(df["metrics.ndcg"].dtype, float)

        empty = self.c.runs_frame(unique("none"))
        self.assertEqual(len(empty), 0)
        self.assertIn("run", empty.columns)


@unittest.skipUnless(HAVE_SERVER, NO_SERVER)
class CurveTest(unittest.TestCase):
    def test_curve(self) -> None:
        c = vc.Client(URL, WRITER, backoff=0.05)
        exp = unique("curve")
        # User i has (i + 1)/8 + step/8 at steps 1, 2 and 3 (logged out of
        # order): means 7/16, 9/16 and 11/16; multiples of 1/16 are exact in
        # the single precision the server keeps.
        for step in (3, 1, 2):
            c.log(exp, "a", "test", {f"u{i}": {"ndcg": (i + 1) / 8 + step / 8} for i in range(4)}, step=step)
        c.log(exp, "a", "test", {f"u{i}": {"ndcg": 1.0} for i in range(4)})  # no step: no point
        got = c.curve(exp, "a", "ndcg", confidence=0.9, resamples=500, seed=3)
        self.assertEqual(got["evaluation_set"], "test")
        self.assertEqual(got["runs"], ["a"])
        self.assertEqual([p["step"] for p in got["points"]], [1, 2, 3])
        self.assertEqual([p["mean"] for p in got["points"]], [7 / 16, 9 / 16, 11 / 16])
        # The bootstrap of the four values with resamples=500, seed=3 at
        # 90%, as compare.Curve draws it (the same at every door): each
        # resampled mean is a multiple of 1/32, and the 5% and 95%
        # quantiles are the mean minus and plus 1/8.
        self.assertEqual(
            [(p["mean_ci_low"], p["mean_ci_high"]) for p in got["points"]],
            [(5 / 16, 9 / 16), (7 / 16, 11 / 16), (9 / 16, 13 / 16)],
        )
        self.assertEqual(got, c.curve(exp, ["a"], "ndcg", eval_set="test", confidence=0.9, resamples=500, seed=3))
        with self.assertRaises(vc.VerdictError) as cm:
            c.curve(exp, "a", "recall")
        self.assertEqual(cm.exception.status, 422)
        self.assertIn("has recall", str(cm.exception))


if __name__ == "__main__":
    unittest.main()

