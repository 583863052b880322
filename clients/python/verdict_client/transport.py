"""HTTP requests to a verdict server, with retries, over http.client.

Each request opens its own connection, so a Client may be shared between
threads. A body is sent from an iterator of byte chunks: with a known length
it goes with Content-Length, otherwise with chunked transfer encoding, so a
large body is never held whole in memory.
"""

from __future__ import annotations

import http.client
import json
import random
import ssl
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from .errors import VerdictConnectionError, VerdictError

# Statuses a gateway answers when it could not reach the server, or the
# server when it is starting or stopping: retried when retrying is safe.
RETRY_STATUSES = frozenset({502, 503, 504})


@dataclass
class Body:
    """A request body that can be sent again on a retry.

    ``chunks`` returns a fresh iterator of the body's bytes each time it is
    called. ``length`` is the body's size when known (sent as
    Content-Length), or None for chunked transfer encoding. ``close``
    releases what the body holds (temporary files).
    """

    content_type: str
    chunks: Callable[[], Iterable[bytes]]
    length: Optional[int] = None
    close: Callable[[], None] = field(default=lambda: None)


@dataclass
class Response:
    """A server's answer."""

    status: int
    reason: str
    headers: http.client.HTTPMessage
    data: bytes

    def json(self) -> object:
        """The body decoded as JSON."""
        return json.loads(self.data.decode("utf-8"))

    def error(self) -> VerdictError:
        """The VerdictError that this (non-2xx) answer stands for."""
        code, message = f"http_{self.status}", ""
        try:
            err = self.json()["error"]  # type: ignore[index]
            code, message = str(err["code"]), str(err["message"])
        except (ValueError, KeyError, TypeError):
            # Not the API's error body: a proxy's page, say.
            text = self.data.decode("utf-8", "replace").strip()
            message = text[:500] if text else self.reason
            if 300 <= self.status < 400 and self.headers.get("Location"):
                message = f"the server redirects to {self.headers['Location']}: give the client that URL"
        return VerdictError(message, status=self.status, code=code)


class _NotSent(Exception):
    """The request failed before the server could have acted on it: the
    connection was not made, or the body was not sent whole."""


class _NoAnswer(Exception):
    """The request was sent whole, but no answer came back."""


class Transport:
    """Sends requests to one server, retrying failed connections.

    A request is retried, after a growing pause, when the connection could
    not be made or broke before the request was sent whole, since the server
    cannot have acted on it. When the request was sent but no answer came
    (a reset, a timeout), and for the statuses of RETRY_STATUSES, it is
    retried only when ``idempotent``: a GET, or a POST with an
    Idempotency-Key. A 4xx is never retried.
    """

    def __init__(self, url: str, *, timeout: float, retries: int, backoff: float, user_agent: str) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise VerdictError(f"the server URL {url!r} is not an http:// or https:// URL with a host", code="bad_url")
        self.url = url
        self.scheme = parts.scheme
        self.host = parts.hostname
        try:
            self.port = parts.port
        except ValueError as e:
            raise VerdictError(f"the server URL {url!r}: {e}", code="bad_url") from None
        # A path the server is mounted under, e.g. https://example.com/verdict.
        self.prefix = urllib.parse.quote(parts.path.rstrip("/"), safe="/%:@!$&'()*+,;=~")
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.backoff = backoff
        self.user_agent = user_agent
        self._ssl = ssl.create_default_context() if self.scheme == "https" else None

    def request(
        self,
        method: str,
        path: str,
        query: List[Tuple[str, str]],
        headers: Dict[str, str],
        body: Optional[Body] = None,
        idempotent: bool = False,
    ) -> Response:
        """Sends a request and returns the answer, whatever its status.

        It raises VerdictConnectionError when no answer came, after the
        retries that are safe.
        """
        target = self.prefix + path
        if query:
            target += "?" + urllib.parse.urlencode(query)
        headers = {"User-Agent": self.user_agent, "Accept": "application/json", **headers}
        if body is not None:
            headers["Content-Type"] = body.content_type
            if body.length is None:
                headers["Transfer-Encoding"] = "chunked"
            else:
                headers["Content-Length"] = str(body.length)
        elif method in ("POST", "PUT", "PATCH"):
            headers["Content-Length"] = "0"
        attempts = self.retries + 1
        last: Optional[BaseException] = None
        for attempt in range(attempts):
            if attempt > 0:
                time.sleep(self._pause(attempt))
            try:
                resp = self._once(method, target, headers, body)
            except _NotSent as e:
                last = e.__cause__
                continue
            except _NoAnswer as e:
                last = e.__cause__
                if idempotent:
                    continue
                raise VerdictConnectionError(
                    f"{method} {self._where(path)}: the request was sent but no answer came ({last}); "
                    "it was not retried, since it may have been acted on"
                ) from last
            if resp.status in RETRY_STATUSES and idempotent and attempt + 1 < attempts and not _read_only(resp):
                last = resp.error()
                continue
            return resp
        raise VerdictConnectionError(
            f"{method} {self._where(path)}: no answer after {attempts} attempt{'s' if attempts > 1 else ''}: {last}"
        ) from last

    def _where(self, path: str) -> str:
        return f"{self.scheme}://{self.host}{':' + str(self.port) if self.port else ''}{self.prefix}{path}"

    def _pause(self, attempt: int) -> float:
        """The pause before retry number attempt (1, 2, ...): exponential,
        at most 30 s, with jitter so that many clients do not retry at
        once."""
        return min(30.0, self.backoff * 2 ** (attempt - 1)) * random.uniform(0.5, 1.0)

    def _connection(self) -> http.client.HTTPConnection:
        if self._ssl is not None:
            return http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout, context=self._ssl)
        return http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)

    def _once(self, method: str, target: str, headers: Dict[str, str], body: Optional[Body]) -> Response:
        """One attempt on a new connection."""
        conn = self._connection()
        try:
            try:
                conn.connect()
            except ssl.SSLError as e:
                # A certificate that does not verify will not on a retry.
                raise VerdictConnectionError(f"TLS with {self.host}: {e}") from e
            except OSError as e:
                raise _NotSent() from e
            conn.putrequest(method, target, skip_accept_encoding=True)
            for k, v in headers.items():
                conn.putheader(k, v)
            resp = None
            try:
                conn.endheaders()
                if body is not None:
                    _send_body(conn, body)
            except (OSError, http.client.HTTPException) as e:
                # The server may have answered before reading the whole
                # body (a 401, a 413) and closed: read its answer if it did.
                resp = _early_response(conn, min(self.timeout, 5.0))
                if resp is None:
                    raise _NotSent() from e
            if resp is None:
                try:
                    r = conn.getresponse()
                    resp = Response(r.status, r.reason, r.headers, r.read())
                except (OSError, http.client.HTTPException) as e:
                    raise _NoAnswer() from e
            return resp
        finally:
            conn.close()


def _send_body(conn: http.client.HTTPConnection, body: Body) -> None:
    """Sends the body's chunks. An error of the body's iterator (bad data in
    a generator) propagates as it is; an error of the connection as
    OSError."""
    chunked = body.length is None
    it: Iterator[bytes] = iter(body.chunks())
    while True:
        try:
            chunk = next(it)
        except StopIteration:
            break
        except OSError as e:
            # Reading the body's own file failed: not the connection's
            # fault, and not worth a retry.
            raise VerdictError(f"reading the request's body: {e}", code="body_error") from e
        if not chunk:
            continue
        if chunked:
            conn.send(b"%X\r\n" % len(chunk) + chunk + b"\r\n")
        else:
            conn.send(chunk)
    if chunked:
        conn.send(b"0\r\n\r\n")


def _early_response(conn: http.client.HTTPConnection, wait: float) -> Optional[Response]:
    """The answer the server sent before the request's body was sent whole,
    or None. It waits at most wait seconds for one to start."""
    try:
        if conn.sock is not None:
            conn.sock.settimeout(wait)
        r = conn.getresponse()
        return Response(r.status, r.reason, r.headers, r.read())
    except (OSError, http.client.HTTPException):
        return None


def _read_only(resp: Response) -> bool:
    """A 503 that says the server cannot write (its schema is newer than it
    knows): retrying will not change it."""
    return resp.status == 503 and resp.error().code == "read_only"
