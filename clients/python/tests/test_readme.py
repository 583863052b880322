"""Runs the README's worked example against the server: the training loop
that logs each epoch and gates on compare."""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import unittest

import verdict_client as vc

from .test_client import HAVE_SERVER, NO_SERVER, READER, URL, WRITER, unique

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def worked_example() -> str:
    """The Python code of the README's worked example."""
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    section = readme.split("## A worked example", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@unittest.skipUnless(HAVE_SERVER, NO_SERVER)
class WorkedExampleTest(unittest.TestCase):
    def run_example(self, baseline_level: float) -> subprocess.CompletedProcess:
        """Logs the baseline run at a level of ndcg@10, then runs the
        example in an experiment of its own."""
        exp = unique("readme")
        rng = random.Random(42)
        baseline = {
            f"u{user}": {"ndcg@10": baseline_level + rng.random() / 5, "recall@20": baseline_level + 0.1 + rng.random() / 5}
            for user in range(500)
        }
        vc.Client(URL, WRITER).log(exp, "als-64", "test", baseline)
        code = worked_example().replace('"movielens"', repr(exp))
        env = {**os.environ, "PYTHONPATH": HERE, "VERDICT_URL": URL, "VERDICT_TOKEN": WRITER}
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)

    def test_a_better_candidate_passes(self) -> None:
        out = self.run_example(0.25)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertIn("epoch 5: evaluation", out.stdout)
        self.assertIn("ndcg@10: als-128 beats als-64", out.stdout)

    def test_a_worse_candidate_fails(self) -> None:
        out = self.run_example(0.55)
        self.assertEqual(out.returncode, 1, out.stdout + out.stderr)
        self.assertIn("als-128 is distinguishably worse than als-64 on ndcg@10, recall@20", out.stderr)

    def test_a_reader_cannot_run_it(self) -> None:
        # The example logs: with a reader token it stops at the first epoch.
        env = {**os.environ, "PYTHONPATH": HERE, "VERDICT_URL": URL, "VERDICT_TOKEN": READER}
        out = subprocess.run([sys.executable, "-c", worked_example()], env=env, capture_output=True, text=True, timeout=120)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("HTTP 403 forbidden", out.stderr)
