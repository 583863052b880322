"""Checks of the package's metadata, without installing it (no network)."""

from __future__ import annotations

import os
import sys
import unittest

import verdict_client

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@unittest.skipUnless(sys.version_info >= (3, 11), "tomllib needs Python 3.11")
class PyprojectTest(unittest.TestCase):
    def test_pyproject_describes_the_package(self) -> None:
        import tomllib

        with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
            meta = tomllib.load(f)
        self.assertEqual(meta["build-system"]["build-backend"], "setuptools.build_meta")
        project = meta["project"]
        self.assertEqual(project["name"], "verdict-client")
        self.assertEqual(project["requires-python"], ">=3.9")
        self.assertEqual(project.get("dependencies", []), [], "the client needs the standard library alone")
        self.assertEqual(meta["tool"]["setuptools"]["packages"], ["verdict_client"])
        self.assertEqual(
            meta["tool"]["setuptools"]["dynamic"]["version"]["attr"], "verdict_client._version.__version__"
        )
        self.assertTrue(os.path.exists(os.path.join(HERE, project["readme"])))
        self.assertTrue(os.path.exists(os.path.join(HERE, "verdict_client", "py.typed")))


class ImportTest(unittest.TestCase):
    def test_importing_loads_neither_numpy_nor_pandas(self) -> None:
        import subprocess

        code = "import sys, verdict_client; print(sorted(m for m in ('numpy', 'pandas', 'scipy') if m in sys.modules))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": HERE})
        self.assertEqual(out.stdout.strip(), "[]")
        self.assertRegex(verdict_client.__version__, r"^\d+\.\d+\.\d+")
