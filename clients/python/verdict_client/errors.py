"""The errors the client raises."""

from __future__ import annotations

from typing import Optional


class VerdictError(Exception):
    """An error of the verdict API, or of the client's use of it.

    For an answer of the server that is not 2xx, ``status`` is the HTTP
    status, and ``code`` and ``message`` come from the server's error body
    ``{"error": {"code": ..., "message": ...}}``: for bad input (status
    422), the message names the line and sample, as ``verdict log`` does.
    For a problem found before any request (no URL, no token), ``status`` is
    None.
    """

    def __init__(self, message: str, *, status: Optional[int] = None, code: Optional[str] = None) -> None:
        super().__init__(message)
        self.status: Optional[int] = status
        self.code: Optional[str] = code
        self.message: str = message

    def __str__(self) -> str:
        if self.status is not None:
            return f"HTTP {self.status} {self.code}: {self.message}"
        if self.code:
            return f"{self.code}: {self.message}"
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status!r}, code={self.code!r}, message={self.message!r})"


class VerdictConnectionError(VerdictError):
    """No answer from the server: it could not be reached, or the connection
    failed, and retrying did not help (or was not safe, for a request that
    may have been acted on and has no idempotency key). ``status`` is None,
    ``code`` is ``"connection_error"``, and ``__cause__`` is the last
    underlying error."""

    def __init__(self, message: str) -> None:
        super().__init__(message, code="connection_error")
