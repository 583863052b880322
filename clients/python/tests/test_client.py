"""Tests of verdict_client against a real verdict server.

They read VERDICT_URL, VERDICT_TOKEN (a writer token) and
VERDICT_READER_TOKEN from the environment, as clients/python/python_test.go
sets them when it starts a server for them:

    go test ./clients/python -count=1 -v

The tests of NumPy, pandas and SciPy input are skipped when those are missing;
python_test.go reports each skip, and fails on one where CI promised them.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import tempfile
import threading
import unittest
import urllib.parse
import uuid
from typing import Dict, List, Optional
from unittest import mock

import verdict_client as vc

try:
    import numpy as np
except ImportError:
    np = None
try:
    import pandas as pd
except ImportError:
    pd = None
try:
    import scipy.sparse as sparse
except ImportError:
    sparse = None

URL = os.environ.get("VERDICT_URL", "")
WRITER = os.environ.get("VERDICT_TOKEN", "")
READER = os.environ.get("VERDICT_READER_TOKEN", "")
HAVE_SERVER = bool(URL and WRITER and READER)
NO_SERVER = "set VERDICT_URL, VERDICT_TOKEN and VERDICT_READER_TOKEN (go test ./clients/python runs these tests with a server)"


def unique(prefix: str) -> str:
    """A name no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


class Proxy:
    """A TCP proxy on a loopback port in front of the server, that records
    what each connection sends and can break connections on purpose.

    mode "refuse" closes the first ``n`` connections as soon as they are
    accepted, before any byte reaches the server. mode "lose_answer" passes
    the first ``n`` requests on, and closes their connections as soon as the
    server starts answering, without passing the answer on: the server did
    the work, and the client never hears of it.
    """

    def __init__(self, target: str, mode: Optional[str] = None, n: int = 1) -> None:
        parts = urllib.parse.urlsplit(target)
        self.target = (parts.hostname, parts.port)
        self.mode, self.n = mode, n
        self.sent: List[bytes] = []  # what each connection sent, up to 1 MiB
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.url = "http://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.threads: List[threading.Thread] = []
        self.closing = False
        self.accepter = threading.Thread(target=self._accept, daemon=True)
        self.accepter.start()

    def __enter__(self) -> "Proxy":
        return self

    def __exit__(self, *exc: object) -> None:
        # Closing a listening socket does not wake a thread in accept():
        # a last connection does.
        self.closing = True
        socket.create_connection(self.sock.getsockname(), timeout=5).close()
        self.accepter.join(5)
        self.sock.close()
        for t in list(self.threads):
            t.join(5)

    @property
    def connections(self) -> int:
        with self.lock:
            return len(self.sent)

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.closing:
                conn.close()
                return
            with self.lock:
                i = len(self.sent)
                self.sent.append(b"")
            t = threading.Thread(target=self._handle, args=(conn, i), daemon=True)
            self.threads.append(t)
            t.start()

    def _handle(self, conn: socket.socket, i: int) -> None:
        broken = self.mode is not None and i < self.n
        if broken and self.mode == "refuse":
            conn.close()
            return
        up = socket.create_connection(self.target)
        forward = threading.Thread(target=self._forward, args=(conn, up, i), daemon=True)
        forward.start()
        try:
            while True:
                data = up.recv(65536)
                if not data or broken:
                    break  # with lose_answer, the answer has begun: drop it
                conn.sendall(data)
        except OSError:
            pass
        finally:
            for s in (conn, up):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
            forward.join(5)
            conn.close()
            up.close()

    def _forward(self, conn: socket.socket, up: socket.socket, i: int) -> None:
        try:
            while True:
                data = conn.recv(65536)
                if not data:
                    up.shutdown(socket.SHUT_WR)
                    return
                with self.lock:
                    if len(self.sent[i]) < 1 << 20:
                        self.sent[i] += data
                up.sendall(data)
        except OSError:
            pass

    def headers(self, i: int) -> Dict[str, str]:
        """The headers of the request of connection i, names in lower case."""
        head = self.sent[i].split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
        return {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in head)}


def free_port() -> int:
    """A loopback port nothing listens on."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class ConfigTest(unittest.TestCase):
    """What the client checks before any request."""

    def test_url_and_token_come_from_the_environment(self) -> None:
        with mock.patch.dict(os.environ, {}, clear=True):
            with self.assertRaises(vc.VerdictError) as cm:
                vc.Client()
            self.assertEqual(cm.exception.code, "no_url")
            self.assertIn("VERDICT_URL", str(cm.exception))
            self.assertIsNone(cm.exception.status)
            with self.assertRaises(vc.VerdictError) as cm:
                vc.Client(url="http://127.0.0.1:1")
            self.assertEqual(cm.exception.code, "no_token")
            self.assertIn("VERDICT_TOKEN", str(cm.exception))
        with mock.patch.dict(os.environ, {"VERDICT_URL": "http://example.invalid:8080/", "VERDICT_TOKEN": "vdt_secret"}):
            c = vc.Client()
            self.assertEqual(c.url, "http://example.invalid:8080")
            self.assertNotIn("vdt_secret", repr(c))

    def test_a_bad_url_is_refused(self) -> None:
        with self.assertRaises(vc.VerdictError) as cm:
            vc.Client(url="localhost:8080", token="t")
        self.assertEqual(cm.exception.code, "bad_url")

    def test_error_shows_status_code_and_message(self) -> None:
        e = vc.VerdictError('body: line 2 (sample "u2"), column "x": value is NaN', status=422, code="invalid_input")
        self.assertEqual(str(e), 'HTTP 422 invalid_input: body: line 2 (sample "u2"), column "x": value is NaN')
        self.assertIn("status=422", repr(e))

    def test_no_server_is_a_connection_error_after_retries(self) -> None:
        c = vc.Client(url="http://127.0.0.1:%d" % free_port(), token="t", retries=2, backoff=0.01)
        with self.assertRaises(vc.VerdictConnectionError) as cm:
            c.runs()
        self.assertIsInstance(cm.exception, vc.VerdictError)
        self.assertIn("3 attempts", str(cm.exception))
        self.assertIsInstance(cm.exception.__cause__, ConnectionRefusedError)

    def test_bad_input_is_refused_before_sending(self) -> None:
        c = vc.Client(url="http://127.0.0.1:%d" % free_port(), token="t", retries=0)
        with self.assertRaises(TypeError):
            c.log("e", "r", "test", [("u1", 0.5)])
        with self.assertRaisesRegex(ValueError, "key 'a=b'"):
            c.log("e", "r", "test", {"u1": {"x": 1}}, param={"a=b": 1})


@unittest.skipUnless(HAVE_SERVER, NO_SERVER)
class ServerTest(unittest.TestCase):
    """The client against the server."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.c = vc.Client(URL, WRITER, backoff=0.05)
        cls.reader = vc.Client(URL, READER, backoff=0.05)

    def run_evaluations(self, experiment: str, run: str) -> int:
        """How many evaluations a run has."""
        (r,) = [r for r in self.c.runs(experiment) if r["run"] == run]
        return r["evaluations"]

    def test_health(self) -> None:
        self.assertEqual(self.c.health()["status"], "ok")

    def test_log_file_streams_a_file_as_it_is(self) -> None:
        exp = unique("file")
        with tempfile.TemporaryDirectory() as d:
            csv = os.path.join(d, "scores.csv")
            with open(csv, "w") as f:
                f.write("sample_id,ndcg@10\nu1,0.5\nu2,0.25\n")
            got = self.c.log_file(exp, "csv", "test", csv, tag="nightly")
            self.assertEqual(got["aggregates"], {"ndcg@10": 0.375})
            nd = os.path.join(d, "scores.ndjson")
            with open(nd, "w") as f:
                f.write('{"sample_id": "u1", "x": 1}\n{"sample_id": "u2", "x": 0}\n')
            self.assertEqual(self.c.log_file(exp, "nd", "test", nd)["aggregates"], {"x": 0.5})
            bad = os.path.join(d, "bad.csv")
            with open(bad, "w") as f:
                f.write("sample_id,x\nu1,1\nu1,0\n")
            with self.assertRaises(vc.VerdictError) as cm:
                self.c.log_file(exp, "bad", "test", bad)
            self.assertEqual(cm.exception.status, 422)
            self.assertIn("line 3", cm.exception.message)
            with self.assertRaises(ValueError):
                self.c.log_file(exp, "x", "test", os.path.join(d, "scores.txt"))

    def test_log_a_dict_streams_ndjson(self) -> None:
        exp = unique("dict")
        per_user = {f"u{i:05d}": {"ndcg@10": (i % 4) / 4, "loss": float(i % 3)} for i in range(5000)}
        with Proxy(URL) as p:
            c = vc.Client(p.url, WRITER)
            got = c.log(
                exp,
                "als",
                "test",
                per_user,
                param={"lr": 0.01, "factors": 64, "model": "als", "version": "1.10", "layers": [64, 32], "warm": True},
                tag=["nightly", "gpu"],
                lower_is_better="loss",
                meta={"note": "first", "fold": "3"},
                git_commit="0123abcd",
            )
            h = p.headers(0)
        self.assertEqual(h["transfer-encoding"], "chunked")
        self.assertNotIn("content-length", h)
        self.assertEqual(h["content-type"], "application/x-ndjson")
        uuid.UUID(h["idempotency-key"])  # made for the call
        self.assertFalse(got["existing"])
        self.assertEqual(got["n_units"], 5000)
        self.assertAlmostEqual(got["aggregates"]["ndcg@10"], 0.375, places=6)
        self.assertEqual(sorted(got["metrics"]), ["loss", "ndcg@10"])

        (run,) = self.c.runs(exp)
        self.assertEqual(
            run["params"], {"lr": 0.01, "factors": 64, "model": "als", "version": "1.10", "layers": [64, 32], "warm": True}
        )
        self.assertEqual(sorted(run["tags"]), ["gpu", "nightly"])
        self.assertEqual(run["git_commit"], "0123abcd")
        ev = self.c.evaluation(got["evaluation_id"])
        self.assertEqual(ev["metadata"], {"note": "first", "fold": "3"})
        self.assertEqual(ev["lower_is_better"], ["loss"])

    def test_log_columns_and_draws(self) -> None:
        exp = unique("columns")
        got = self.c.log(exp, "lists", "test", {"sample_id": ["a", "b", 7], "hit": [True, False, True]})
        self.assertAlmostEqual(got["aggregates"]["hit"], 2 / 3, places=6)
        got = self.c.log(exp, "draws", "test", {("a", 0): {"x": 1.0}, ("a", 1): {"x": 0.0}, ("b", 0): {"x": 1.0}})
        self.assertEqual((got["n_rows"], got["n_units"]), (3, 2))

    def test_the_same_idempotency_key_and_content_returns_the_first_evaluation(self) -> None:
        exp = unique("key")
        first = self.c.log(exp, "r", "test", {"u1": {"x": 0.5}, "u2": {"x": 1.0}}, idempotency_key="epoch-3")
        again = self.c.log(exp, "r", "test", {"u1": {"x": 0.5}, "u2": {"x": 1.0}}, idempotency_key="epoch-3")
        self.assertFalse(first["existing"])
        self.assertTrue(again["existing"])
        self.assertEqual(again["evaluation_id"], first["evaluation_id"])
        self.assertEqual(again["aggregates"], first["aggregates"])
        self.assertEqual(self.run_evaluations(exp, "r"), 1)

    def test_the_same_idempotency_key_with_other_content_is_a_conflict(self) -> None:
        # New values under a key that already holds others are refused, not
        # dropped in silence: nothing is stored, and the error names the key
        # and the evaluation it holds.
        exp = unique("key")
        first = self.c.log(exp, "r", "test", {"u1": {"x": 0.5}, "u2": {"x": 1.0}}, idempotency_key="epoch-3")
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.log(exp, "r", "test", {"u1": {"x": 0.25}, "u2": {"x": 0.0}}, idempotency_key="epoch-3")
        self.assertEqual((cm.exception.status, cm.exception.code), (409, "conflict"))
        self.assertIn('"epoch-3"', cm.exception.message)
        self.assertIn(f"evaluation {first['evaluation_id']}", cm.exception.message)
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.log(exp, "r", "test", {"u1": {"x": 0.5}, "u2": {"x": 1.0}}, idempotency_key="epoch-3", tag=["rerun"])
        self.assertEqual(cm.exception.code, "conflict", "other parameters are other content")
        self.assertEqual(self.run_evaluations(exp, "r"), 1)
        (run,) = self.c.runs(exp)
        self.assertEqual(run["tags"], [])
        self.assertEqual(self.c.evaluation(first["evaluation_id"])["aggregates"], first["aggregates"])

    def test_a_refused_connection_is_retried(self) -> None:
        exp = unique("refused")
        with Proxy(URL, mode="refuse", n=2) as p:
            c = vc.Client(p.url, WRITER, retries=3, backoff=0.05)
            got = c.log(exp, "r", "test", {"u1": {"x": 0.5}, "u2": {"x": 1.0}})
            self.assertEqual(p.connections, 3)
        self.assertFalse(got["existing"])
        self.assertEqual(self.run_evaluations(exp, "r"), 1)

    def test_a_lost_answer_is_retried_without_storing_twice(self) -> None:
        # The first attempt is stored, but its answer never arrives: the
        # retry carries the same generated key, so it gets the evaluation
        # the first stored rather than a second one.
        exp = unique("lost")
        with Proxy(URL, mode="lose_answer") as p:
            c = vc.Client(p.url, WRITER, retries=2, backoff=0.05)
            got = c.log(exp, "r", "test", {"u1": {"x": 0.5}, "u2": {"x": 1.0}})
            self.assertEqual(p.connections, 2)
            keys = {p.headers(0)["idempotency-key"], p.headers(1)["idempotency-key"]}
        self.assertEqual(len(keys), 1, "both attempts carry the same key")
        self.assertTrue(got["existing"])
        self.assertEqual(self.run_evaluations(exp, "r"), 1)

    def test_a_recorded_compare_is_retried_without_recording_twice(self) -> None:
        # Recording a comparison carries a generated idempotency key: when
        # its answer is lost, the retry gets the first answer and the
        # history holds the comparison once.
        exp = unique("record")
        self.c.log(exp, "a", "test", {"u1": {"x": 0.5}, "u2": {"x": 1.0}, "u3": {"x": 0.0}})
        self.c.log(exp, "b", "test", {"u1": {"x": 0.25}, "u2": {"x": 1.0}, "u3": {"x": 0.5}})
        with Proxy(URL, mode="lose_answer") as p:
            c = vc.Client(p.url, WRITER, retries=3, backoff=0.05)
            got = c.compare("a", "b", experiment=exp)
            self.assertEqual(p.connections, 2)
            keys = {p.headers(0)["idempotency-key"], p.headers(1)["idempotency-key"]}
        self.assertEqual(len(keys), 1, "both attempts carry the same key")
        self.assertEqual(list(got), ["x"])
        self.assertEqual(len(self.c.history(exp)), 1)
        # A read is retried.
        with Proxy(URL, mode="lose_answer") as p:
            got = vc.Client(p.url, READER, backoff=0.05).compare("a", "b", experiment=exp, record=False)
            self.assertEqual(p.connections, 2)
        self.assertEqual(list(got), ["x"])

    def test_a_nan_is_refused_with_its_line_and_sample(self) -> None:
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.log(unique("nan"), "r", "test", {"u1": {"x": 0.5}, "u2": {"x": float("nan")}, "u3": {"x": 1.0}})
        e = cm.exception
        self.assertEqual((e.status, e.code), (422, "invalid_input"))
        self.assertIn("line 2", e.message)
        self.assertIn('sample "u2"', e.message)
        self.assertIn("NaN", e.message)
        self.assertIn("HTTP 422 invalid_input", str(e))

    def test_a_duplicate_sample_is_refused_with_its_line(self) -> None:
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.log(unique("dup"), "r", "test", {"sample_id": ["u1", "u2", "u1"], "x": [0.5, 1.0, 0.0]})
        e = cm.exception
        self.assertEqual((e.status, e.code), (422, "invalid_input"))
        self.assertIn("line 3", e.message)
        self.assertIn('sample "u1"', e.message)

    def test_bad_data_found_while_streaming_stores_nothing(self) -> None:
        # The body is encoded as it is sent: a value that is no number is
        # found with much of the body already sent, and the request is
        # abandoned, not finished.
        exp = unique("abort")
        per_user = {f"u{i}": {"x": 0.5} for i in range(50_000)}
        per_user["u40000"] = {"x": "0.5"}
        with self.assertRaisesRegex(TypeError, "'u40000', metric 'x': '0.5' is text, not a number"):
            self.c.log(exp, "r", "test", per_user)
        self.assertEqual(self.c.runs(exp), [])

    def test_a_reader_token_may_not_log(self) -> None:
        exp = unique("reader")
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.log(exp, "r", "test", {"u1": {"x": 0.5}})
        self.assertEqual((cm.exception.status, cm.exception.code), (403, "forbidden"))
        self.assertIn("writer", cm.exception.message)
        # A body far larger than the server reads before it refuses still
        # gets the server's answer, not a broken pipe.
        big = {f"user-{i:07d}": {"ndcg@10": 0.5, "recall@20": 0.25} for i in range(100_000)}
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.log(exp, "r", "test", big)
        self.assertEqual(cm.exception.status, 403)
        self.assertEqual(self.c.runs(exp), [])

    def test_no_token_or_a_wrong_one_is_401(self) -> None:
        parts = urllib.parse.urlsplit(URL)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            conn.request("GET", "/api/v1/runs")
            resp = conn.getresponse()
            body = json.loads(resp.read())
        finally:
            conn.close()
        self.assertEqual(resp.status, 401)
        self.assertEqual(body["error"]["code"], "unauthorized")
        with self.assertRaises(vc.VerdictError) as cm:
            vc.Client(URL, "vdt_not-a-token").runs()
        self.assertEqual((cm.exception.status, cm.exception.code), (401, "unauthorized"))
        self.assertIn("invalid or revoked", cm.exception.message)

    def test_not_found(self) -> None:
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.evaluation(987654321)
        self.assertEqual((cm.exception.status, cm.exception.code), (404, "not_found"))

    def test_compare_leaderboard_history(self) -> None:
        exp = unique("compare")
        n = 300
        base = {f"u{i}": {"ndcg": (i % 10) / 10, "loss": 1 + (i % 7) / 7} for i in range(n)}
        cand = {f"u{i}": {"ndcg": min(1.0, (i % 10) / 10 + 0.1 + (i % 3) / 50), "loss": 1 + (i % 7) / 7 + (i % 5) / 100} for i in range(n)}
        base_id = self.c.log(exp, "base", "test", base, lower_is_better=["loss"])["evaluation_id"]
        cand_id = self.c.log(exp, "cand", "test", cand, lower_is_better=["loss"])["evaluation_id"]

        got = self.c.compare("base", "cand", experiment=exp, metric="ndcg", seed=1)
        self.assertIsInstance(got, dict)
        self.assertEqual(list(got), ["ndcg"])
        r = got["ndcg"]
        self.assertEqual(r["winner"], "candidate")
        self.assertTrue(r["distinguishable"])
        self.assertIsInstance(r["verdict"], str)
        self.assertIn("cand beats base on ndcg", r["verdict"])
        self.assertIsInstance(r["comparison_id"], int)
        self.assertEqual(self.c.comparison(r["comparison_id"])["metric"], "ndcg")

        # Unrecorded, with a reader; by evaluation ID; two metrics, the
        # loss decided lower-is-better: the candidate's loss is worse.
        with self.assertRaisesRegex(ValueError, "evaluation ID"):
            self.reader.compare("base", cand_id, experiment=exp)
        both = self.reader.compare(base_id, cand_id, metric=["ndcg", "loss"], record=False, seed=1)
        self.assertEqual(sorted(both), ["loss", "ndcg"])
        self.assertTrue(both["loss"]["lower_is_better"])
        self.assertEqual(both["loss"]["winner"], "baseline")
        self.assertIsNone(both["loss"]["comparison_id"])
        with self.assertRaises(vc.VerdictError) as cm:
            self.reader.compare("base", "cand", experiment=exp)
        self.assertEqual(cm.exception.status, 403)

        lb = self.reader.leaderboard(exp, "ndcg", seed=1)
        self.assertEqual([row["run"] for row in lb["rows"]], ["cand", "base"])
        self.assertEqual(lb["rows"][0]["rank"], 1)
        self.assertEqual(len(self.c.leaderboard(exp, "ndcg", limit=1)["rows"]), 1)

        hist = self.reader.history(experiment=exp)
        self.assertEqual([h["comparison_id"] for h in hist], [r["comparison_id"]])
        self.assertEqual(hist[0]["winner"], "candidate")
        self.assertEqual(self.c.history(experiment=exp, metric="loss"), [])
        self.assertEqual(len(self.c.history(experiment=exp, run="cand", limit=5)), 1)

        d = self.reader.diff("base", "cand", "ndcg", experiment=exp, worst=3)
        self.assertEqual(len(d["top"]), 3)
        ranked = self.reader.rank(["base", "cand"], "ndcg", experiment=exp, record=False)
        self.assertEqual(ranked["runs"][0]["name"], "cand")
        self.assertIn(exp, [e["name"] for e in self.reader.experiments()])
        self.assertEqual(self.reader.openapi()["openapi"], "3.1.0")

    @unittest.skipUnless(np is not None, "numpy is not installed")
    def test_log_numpy_arrays(self) -> None:
        exp = unique("numpy")
        ids = np.arange(1000, 1100)
        values = (np.arange(100) % 4 / 4).astype(np.float32)
        with Proxy(URL) as p:
            got = vc.Client(p.url, WRITER).log(exp, "arrays", "test", {"sample_id": ids, "ndcg@10": values, "file": values * 2})
            h = p.headers(0)
        self.assertEqual(h["content-type"], "application/x-npz")
        self.assertNotIn("transfer-encoding", h)
        self.assertGreater(int(h["content-length"]), 100 * 4)
        self.assertEqual(got["n_units"], 100)
        self.assertAlmostEqual(got["aggregates"]["ndcg@10"], 0.375, places=6)
        self.assertAlmostEqual(got["aggregates"]["file"], 0.75, places=6)

        # Integer IDs pair with the same IDs logged as text.
        rec = np.zeros(100, dtype=[("sample_id", "U8"), ("ndcg@10", "f8"), ("hit", "?")])
        rec["sample_id"] = [str(i) for i in ids]
        rec["ndcg@10"] = values + 0.25
        rec["hit"] = np.arange(100) % 2 == 0
        got = self.c.log(exp, "structured", "test", rec)
        self.assertAlmostEqual(got["aggregates"]["hit"], 0.5, places=6)
        cmp = self.c.compare("arrays", "structured", experiment=exp, metric="ndcg@10", record=False)
        self.assertEqual(cmp["ndcg@10"]["n"], 100)

        with self.assertRaises(vc.VerdictError) as cm:
            self.c.log(exp, "nan", "test", {"sample_id": ids, "x": np.where(ids == 1004, np.nan, 1.0)})
        self.assertEqual(cm.exception.status, 422)
        self.assertIn('row 5 (sample "1004")', cm.exception.message)

    @unittest.skipUnless(pd is not None, "pandas is not installed")
    def test_log_a_dataframe(self) -> None:
        exp = unique("pandas")
        df = pd.DataFrame({"sample_id": [f"u{i}" for i in range(50)], "ndcg@10": [(i % 5) / 5 for i in range(50)]})
        df["recall@20"] = df["ndcg@10"] / 2
        got = self.c.log(exp, "column", "test", df)
        self.assertEqual(got["n_units"], 50)
        self.assertAlmostEqual(got["aggregates"]["ndcg@10"], 0.4, places=6)
        self.assertAlmostEqual(got["aggregates"]["recall@20"], 0.2, places=6)

        # The index as sample IDs, and pandas' nullable dtypes.
        indexed = df.set_index("sample_id")
        indexed["hits"] = pd.array([i % 2 for i in range(50)], dtype="Int64")
        got = self.c.log(exp, "index", "test", indexed)
        self.assertEqual(got["n_units"], 50)
        self.assertAlmostEqual(got["aggregates"]["hits"], 0.5, places=6)
        cmp = self.c.compare("column", "index", experiment=exp, metric="ndcg@10", record=False)
        self.assertEqual(cmp["ndcg@10"]["n"], 50, "the index's IDs pair with the column's")

        missing = indexed.copy()
        missing["hits"] = missing["hits"].astype("Float64")
        missing.loc["u7", "hits"] = pd.NA
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.log(exp, "missing", "test", missing)
        self.assertEqual(cm.exception.status, 422)
        self.assertIn('sample "u7"', cm.exception.message)

        with self.assertRaisesRegex(ValueError, "'model'"):
            self.c.log(exp, "text", "test", df.assign(model="als"))

    @unittest.skipUnless(np is not None, "numpy is not installed")
    def test_evaluate_numpy_rankings(self) -> None:
        exp = unique("evaluate")
        # 5 users, their top 3 of 6 items; user d has no relevant item.
        items = np.array([[0, 1, 2], [3, 4, 5], [1, 0, 5], [2, 3, 4], [5, 4, 3]], dtype=np.int32)
        scores = np.array([[3.0, 2.0, 1.0]] * 5)
        relevant = [[1], [0], [1, 5], [], [3]]

        class CSR:
            """A CSR matrix built by hand, as SciPy would hold it."""

            format = "csr"
            shape = (5, 6)
            indptr = np.cumsum([0] + [len(r) for r in relevant])
            indices = np.array([i for r in relevant for i in r], dtype=np.int32)
            data = np.ones(len(indices), dtype=np.float32)

        ids = np.array(["a", "b", "c", "d", "e"])
        got = self.c.evaluate(
            exp, "top3", "test", items, CSR(), scores=scores, sample_ids=ids, metrics=["hit_rate@3", "precision@3"],
            param={"k": 3}, tag="ranking",
        )
        self.assertIsInstance(got["evaluation_id"], int)
        self.assertEqual((got["n_rows"], got["n_scored_rows"]), (5, 4))
        self.assertAlmostEqual(got["aggregates"]["hit_rate@3"], 0.75, places=6)
        self.assertAlmostEqual(got["aggregates"]["precision@3"], 1 / 3, places=6)
        self.assertEqual(self.c.runs(exp)[0]["params"], {"k": 3})
        same_key = self.c.evaluate(exp, "keyed", "test", items, CSR(), metrics="hit_rate@3", idempotency_key="k1")
        again = self.c.evaluate(exp, "keyed", "test", items, CSR(), metrics="hit_rate@3", idempotency_key="k1")
        self.assertTrue(again.get("existing"))
        self.assertEqual(again["evaluation_id"], same_key["evaluation_id"])
        with self.assertRaises(vc.VerdictError) as cm:
            self.c.evaluate(exp, "keyed", "test", items[::-1].copy(), CSR(), metrics="hit_rate@3", idempotency_key="k1")
        self.assertEqual((cm.exception.status, cm.exception.code), (409, "conflict"), "other items under the key")

        # The same targets as a dense matrix, and as paths to files.
        dense = np.zeros((5, 6))
        for row, cols in enumerate(relevant):
            dense[row, cols] = 1
        again = self.c.evaluate(exp, "top3", "test", items, dense, sample_ids=ids, metrics="hit_rate@3,precision@3", no_log=True)
        self.assertIsNone(again["evaluation_id"])
        self.assertEqual(again["aggregates"], got["aggregates"])
        self.assertEqual(again["fingerprint"], got["fingerprint"])

        with tempfile.TemporaryDirectory() as d:
            np.save(os.path.join(d, "items.npy"), items)
            targets = os.path.join(d, "targets.npz")
            if sparse is not None:
                sparse.save_npz(targets, sparse.csr_matrix(dense))
            else:
                np.savez(targets, format=np.array(b"csr"), shape=np.array([5, 6]), indptr=CSR.indptr, indices=CSR.indices, data=CSR.data)
            from_files = self.c.evaluate(
                exp, "files", "test", os.path.join(d, "items.npy"), targets, sample_ids=ids, metrics=["hit_rate@3", "precision@3"]
            )
        self.assertEqual(from_files["aggregates"], got["aggregates"])
        self.assertEqual(from_files["fingerprint"], got["fingerprint"])

        with self.assertRaises(vc.VerdictError) as cm:
            self.c.evaluate(exp, "bad", "test", items[:4], CSR(), metrics="hit_rate@3")
        self.assertEqual(cm.exception.status, 422)
        self.assertIn("targets", cm.exception.message)

    @unittest.skipUnless(sparse is not None, "scipy is not installed")
    def test_evaluate_scipy_targets(self) -> None:
        items = np.array([[0, 1], [1, 0]])
        targets = sparse.csc_matrix(np.array([[1, 0], [1, 0]]))  # converted to CSR
        got = self.c.evaluate(unique("scipy"), "r", "test", items, targets, metrics="hit_rate@1", no_log=True)
        self.assertAlmostEqual(got["aggregates"]["hit_rate@1"], 0.5, places=6)

    def test_evaluate_trec(self) -> None:
        # A TREC run and its qrels, as verdict evaluate --trec-run reads
        # them. q1 ranks d1 (relevant) then d2; q2 ranks d3 then d4
        # (relevant): hit_rate@1 is (1 + 0) / 2.
        with tempfile.TemporaryDirectory() as d:
            run, qrels = os.path.join(d, "run.txt"), os.path.join(d, "qrels.txt")
            with open(run, "w") as f:
                f.write("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d3 1 2.0 t\nq2 Q0 d4 2 1.0 t\n")
            with open(qrels, "w") as f:
                f.write("q1 0 d1 1\nq2 0 d4 1\n")
            got = self.c.evaluate(None, None, None, trec_run=run, trec_qrels=qrels, metrics="hit_rate@1,2", no_log=True)
        self.assertAlmostEqual(got["aggregates"]["hit_rate@1"], 0.5, places=9)
        self.assertAlmostEqual(got["aggregates"]["hit_rate@2"], 1.0, places=9)

    @unittest.skipUnless(np is not None, "numpy is not installed")
    def test_evaluate_without_metrics_takes_the_defaults(self) -> None:
        # No metrics: calibrated_recall and ndcg at the full width of the
        # predictions (3), as verdict evaluate without --metrics. User 0
        # has item 2 relevant at rank 3: recall 1 of min(1, 3) = 1, ndcg
        # 1/log2(4) = 0.5; user 1 has items 0 and 1 at ranks 1 and 2 of
        # its top 3: calibrated recall 2/2 = 1, ndcg 1.
        items = np.array([[5, 4, 2], [0, 1, 3]], dtype=np.int32)

        class CSR:
            """The targets as a CSR matrix built by hand, as SciPy holds it."""

            format = "csr"
            shape = (2, 6)
            indptr = np.array([0, 1, 3])
            indices = np.array([2, 0, 1], dtype=np.int32)
            data = np.ones(3, dtype=np.float32)

        got = self.c.evaluate(unique("defaults"), "r", "test", items, CSR(), no_log=True)
        self.assertEqual(sorted(got["metrics"]), ["calibrated_recall@3", "ndcg@3"])
        self.assertAlmostEqual(got["aggregates"]["calibrated_recall@3"], 1.0, places=9)
        self.assertAlmostEqual(got["aggregates"]["ndcg@3"], (0.5 + 1.0) / 2, places=6)


if __name__ == "__main__":
    unittest.main()
