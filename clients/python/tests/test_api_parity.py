"""The client's methods against the server's own description of its API.

The test fetches GET /api/v1/openapi.json from the live server and holds
every client method that wraps a route to that route's parameters, by
name (with inspect.signature): a query parameter the route has and the
method lacks fails, and so does a keyword argument of the method that is
no parameter of the route, save a few the client keeps for itself
(CLIENT_ONLY, BODY_ARGS, PATH_ARGS, SET_BY_CLIENT below). Every route of the API
must be wrapped by some method (ROUTES), except those not_wrapped
exempts.
"""

from __future__ import annotations

import http.client
import inspect
import os
import re
import tempfile
import unittest
from typing import Any, Dict, List, Set, Tuple
from unittest import mock

import verdict_client as vc
from verdict_client.transport import Response

from .test_client import HAVE_SERVER, NO_SERVER, URL, WRITER, np, pd

# The route (HTTP method, OpenAPI path) each client method sends; a method
# with two sends one or the other (record=True is POST, record=False GET),
# and must take the parameters of both.
ROUTES: Dict[str, List[Tuple[str, str]]] = {
    "health": [("GET", "/healthz")],
    "openapi": [("GET", "/api/v1/openapi.json")],
    "experiments": [("GET", "/api/v1/experiments")],
    "log": [("POST", "/api/v1/evaluations")],
    "log_file": [("POST", "/api/v1/evaluations")],
    "evaluate": [("POST", "/api/v1/evaluate")],
    "runs": [("GET", "/api/v1/runs")],
    "runs_frame": [("GET", "/api/v1/runs")],
    "curve": [("GET", "/api/v1/curve")],
    "evaluations": [("GET", "/api/v1/evaluations")],
    "evaluation": [("GET", "/api/v1/evaluations/{id}")],
    "leaderboard": [("GET", "/api/v1/leaderboard")],
    "compare": [("GET", "/api/v1/compare"), ("POST", "/api/v1/compare")],
    "rank": [("GET", "/api/v1/rank"), ("POST", "/api/v1/rank")],
    "diff": [("GET", "/api/v1/diff")],
    "history": [("GET", "/api/v1/history")],
    "comparison": [("GET", "/api/v1/comparisons/{id}")],
}

def not_wrapped(method: str, path: str) -> bool:
    """The routes a client method need not wrap: the health check, which
    is public (and wrapped anyway, by health), the web pages, HTML for a
    browser, /metrics, Prometheus' text, and the tokens, which an
    administrator manages with `verdict token`."""
    return (
        path == "/healthz"
        or not path.startswith("/api/")
        or path == "/metrics"
        or path == "/api/v1/tokens"
        or path.startswith("/api/v1/tokens/")
    )


# Keyword arguments of the client's own, in any method: the
# Idempotency-Key header (checked against the header below), whether a
# comparison is recorded (POST) or not (GET), a per-call timeout.
CLIENT_ONLY: Set[str] = {"idempotency_key", "record", "timeout"}

# The client's names of the data a method sends as the request's body:
# the part scores of log's multipart body is per_user (or, for log_file,
# the file at path), which log also sends alone, as the whole body. Every
# part of a multipart/form-data body that openapi.json declares must be an
# argument, by its own name unless renamed here.
BODY_ARGS: Dict[str, Dict[str, str]] = {
    "log": {"scores": "per_user"},
    "log_file": {"scores": "path"},
}

# The client's names of path parameters: evaluation(evaluation_id) is
# GET /api/v1/evaluations/{id}.
PATH_ARGS: Dict[str, Dict[str, str]] = {
    "evaluation": {"id": "evaluation_id"},
    "comparison": {"id": "comparison_id"},
}

# Query parameters a method sets itself rather than taking them, and why.
SET_BY_CLIENT: Dict[str, Dict[str, str]] = {
    # log encodes per_user itself (NDJSON or NPZ), and its Content-Type
    # tells the server the format; log_file takes it.
    "log": {"input_format": "the body's encoding, chosen by the client and told by its Content-Type"},
}

_HEADER_ARGS = {"Idempotency-Key": "idempotency_key"}


def operations(doc: Dict[str, Any]) -> Dict[Tuple[str, str], Dict[str, Any]]:
    """openapi.json's operations by (HTTP method, path)."""
    ops = {}
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if method in ("get", "post", "put", "patch", "delete") and isinstance(op, dict):
                ops[(method.upper(), path)] = op
    return ops


def multipart_parts(op: Dict[str, Any]) -> Set[str]:
    """The parts of an operation's multipart/form-data body."""
    content = (op.get("requestBody") or {}).get("content") or {}
    schema = (content.get("multipart/form-data") or {}).get("schema") or {}
    return set((schema.get("properties") or {}).keys())


def keyword_args(method: str) -> Dict[str, inspect.Parameter]:
    """The client method's arguments that can be given by keyword."""
    sig = inspect.signature(getattr(vc.Client, method))
    return {
        name: p
        for name, p in sig.parameters.items()
        if name != "self" and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    }


@unittest.skipUnless(HAVE_SERVER, NO_SERVER)
class APIParityTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.doc = vc.Client(URL, WRITER).openapi()
        cls.ops = operations(cls.doc)

    def test_every_api_route_is_wrapped(self) -> None:
        mapped = {route for routes in ROUTES.values() for route in routes}
        unmapped = sorted(r for r in self.ops if r not in mapped and not not_wrapped(*r))
        listing = "\n".join(f"  {m:<12} {h} {p}" for m, routes in ROUTES.items() for h, p in routes)
        self.assertEqual(
            unmapped, [],
            f"routes of openapi.json that no client method wraps: {unmapped}; add a method and map it in ROUTES, "
            f"which maps:\n{listing}",
        )

    def test_every_mapped_route_exists(self) -> None:
        for method, routes in ROUTES.items():
            self.assertTrue(hasattr(vc.Client, method), f"ROUTES maps Client.{method}, which does not exist")
            for route in routes:
                self.assertIn(route, self.ops, f"Client.{method} is mapped to {route}, which openapi.json does not list")

    def test_every_public_method_is_mapped(self) -> None:
        public = {n for n, f in inspect.getmembers(vc.Client, inspect.isfunction) if not n.startswith("_")}
        self.assertEqual(sorted(public - set(ROUTES)), [], "client methods that ROUTES does not map to a route")

    def test_methods_take_exactly_the_routes_parameters(self) -> None:
        for method, routes in ROUTES.items():
            for http, path in routes:
                with self.subTest(method=method, route=f"{http} {path}"):
                    self.assertTrue(hasattr(vc.Client, method), f"no method Client.{method}")
                    self.check(method, keyword_args(method), http, path, self.ops[(http, path)])

    def check(self, method: str, args: Dict[str, inspect.Parameter], http: str, path: str, op: Dict[str, Any]) -> None:
        """Fails, saying every difference, unless the client method's
        keyword arguments are the route's parameters."""
        set_by_client = SET_BY_CLIENT.get(method, {})
        path_args = PATH_ARGS.get(method, {})
        parts = multipart_parts(op)
        body_args = BODY_ARGS.get(method, {})
        allowed = set(CLIENT_ONLY) | set(body_args.values()) | {body_args.get(part, part) for part in parts}
        missing, defaults = [], []
        for p in op.get("parameters", []):
            name, where = p["name"], p["in"]
            if where == "header":
                arg = _HEADER_ARGS.get(name)
                if arg is not None and arg not in args:
                    missing.append(f"{arg} (header {name})")
                continue
            if where == "path":
                arg = path_args.get(name, name)
                if arg not in args:
                    missing.append(f"{arg} (path parameter {{{name}}})")
                allowed.add(arg)
                continue
            if name in set_by_client:
                continue
            allowed.add(name)
            if name not in args:
                missing.append(name)
                continue
            # The server's defaults hold: an optional parameter is None
            # (not given) unless the caller gives it, or the client
            # requires it; a parameter the route requires has no default.
            default = args[name].default
            if p.get("required"):
                if default is not inspect.Parameter.empty:
                    defaults.append(f"{name}={default!r} (the route requires it: want no default)")
            elif default is not None and default is not inspect.Parameter.empty:
                server = p.get("schema", {}).get("default")
                said = f", whose default is {server!r}" if server is not None else ""
                defaults.append(f"{name}={default!r} (want None, which leaves it to the server{said})")
        for part in sorted(parts):
            arg = body_args.get(part, part)
            if arg not in args:
                missing.append(f"{arg} (the part {part} of the multipart body)")
        extra = sorted(a for a in args if a not in allowed)
        problems = []
        if missing:
            problems.append(f"Client.{method} lacks parameters of {http} {path}: {', '.join(missing)}")
        if extra:
            problems.append(f"Client.{method} takes arguments that are no parameters of {http} {path}: {', '.join(extra)}")
        if defaults:
            problems.append(f"Client.{method}'s defaults differ from {http} {path}'s: {', '.join(defaults)}")
        if problems:
            self.fail("\n".join(problems))

    def test_names_are_snake_case(self) -> None:
        for (http, path), op in self.ops.items():
            if not_wrapped(http, path):
                continue
            for p in op.get("parameters", []):
                if p["in"] == "query":
                    self.assertRegex(p["name"], re.compile(r"^[a-z][a-z0-9_]*$"), f"{http} {path}")

    def test_a_mismatch_is_found(self) -> None:
        # The check itself: a method without a route's parameter, and one
        # with an argument the route lacks, both fail.
        op = {"parameters": [{"name": "experiment", "in": "query", "required": True, "schema": {"type": "string"}},
                             {"name": "brand_new", "in": "query", "required": False, "schema": {"type": "string"}}]}

        def fake(self, experiment, invented=None): ...

        args = {n: p for n, p in inspect.signature(fake).parameters.items() if n != "self"}
        with self.assertRaisesRegex(AssertionError, "lacks parameters of GET /api/v1/fake: brand_new"):
            self.check("fake", args, "GET", "/api/v1/fake", op)
        args_ok = dict(args)
        args_ok["brand_new"] = inspect.Parameter("brand_new", inspect.Parameter.KEYWORD_ONLY, default=None)
        with self.assertRaisesRegex(AssertionError, "takes arguments that are no parameters of GET /api/v1/fake: invented"):
            self.check("fake", args_ok, "GET", "/api/v1/fake", op)

    def test_each_argument_is_sent_under_its_own_name(self) -> None:
        # Every API parameter a method takes, given, is sent as the query
        # parameter of that name, to one of the method's routes: a typo in
        # the query the method builds fails here rather than as the
        # server's 422 for an unknown parameter.
        with tempfile.TemporaryDirectory() as d:
            scores = os.path.join(d, "scores.csv")
            with open(scores, "w") as f:
                f.write("sample_id,x\nu1,1\n")
            data: Dict[str, Dict[str, Any]] = {
                "log": {"per_user": {"u1": {"x": 1.0}}},
                "log_file": {"path": scores},
                "evaluation": {"evaluation_id": 7},
                "comparison": {"comparison_id": 7},
            }
            if np is not None:
                data["evaluate"] = {"items": np.array([[0, 1]]), "targets": np.array([[1, 0]])}
            for method, routes in ROUTES.items():
                if method == "evaluate" and np is None or method == "runs_frame" and pd is None:
                    continue
                for record in ((True, False) if "record" in keyword_args(method) else (None,)):
                    with self.subTest(method=method, record=record):
                        self.check_sent(method, routes, data.get(method, {}), record)

    def check_sent(self, method: str, routes: List[Tuple[str, str]], data: Dict[str, Any], record: Any) -> None:
        args = keyword_args(method)
        params: Dict[str, Dict[str, Any]] = {}
        for http_method, path in routes:
            for p in self.ops[(http_method, path)].get("parameters", []):
                if p["in"] == "query" and p["name"] in args:
                    params[p["name"]] = p
        kwargs: Dict[str, Any] = dict(data)
        for name, p in params.items():
            kwargs[name] = example(name, p.get("schema", {}))
        if "labels" in args and "predictions" in kwargs:
            kwargs["predictions"] = False  # labels do not go with predictions; sent all the same
        if "labels" in args:
            kwargs["labels"] = {"u1": 1}
        if record is not None:
            kwargs["record"] = record
        if method in ("compare", "diff", "rank"):
            kwargs["experiment"] = "e"  # runs by name
        sent: List[Tuple[str, str, List[Tuple[str, str]], Dict[str, str]]] = []

        def request(http_method: str, path: str, query: List[Tuple[str, str]], headers: Dict[str, str], body: Any = None,
                    idempotent: bool = False) -> Response:
            if body is not None:
                b"".join(body.chunks())
            sent.append((http_method, path, query, headers))
            return Response(200, "OK", http.client.HTTPMessage(), b"[]")

        c = vc.Client("http://127.0.0.1:9", "t")
        with mock.patch.object(c._transport, "request", side_effect=request):
            getattr(c, method)(**kwargs)
        ((http_method, path, query, headers),) = sent
        route = next(
            ((h, p) for h, p in routes if h == http_method and re.fullmatch(re.sub(r"\{[a-z_]+\}", "[^/]+", p), path)), None
        )
        self.assertIsNotNone(route, f"Client.{method} sent {http_method} {path}, not one of {routes}")
        declared = {p["name"] for p in self.ops[route].get("parameters", []) if p["in"] == "query"}
        names = {name for name, _ in query}
        self.assertEqual(sorted(names - declared), [], f"Client.{method} sent parameters {http_method} {path} does not take")
        self.assertEqual(sorted((declared & set(params)) - names), [], f"Client.{method} did not send parameters it was given")
        if any(p["in"] == "header" and p["name"] == "Idempotency-Key" for p in self.ops[route].get("parameters", [])):
            if not kwargs.get("no_log"):
                self.assertIn("Idempotency-Key", headers)


def example(name: str, schema: Dict[str, Any]) -> Any:
    """A value of a parameter's type, to send."""
    if schema.get("type") == "array":
        if name in ("param", "meta"):
            return ["k=1"]
        return ["a", "b"]
    if schema.get("enum"):
        return schema["enum"][0]
    return {"integer": 1, "number": 0.5, "boolean": True}.get(schema.get("type", ""), "x")


if __name__ == "__main__":
    unittest.main()
