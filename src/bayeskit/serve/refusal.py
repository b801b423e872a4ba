"""The error of a request the server refuses (its own module: the readers of a request's
parts all raise it, and none of them imports another for it)."""

from __future__ import annotations

from ..errors import BayeskitError


class RequestError(BayeskitError, ValueError):
    """A request the server refuses; ``status`` is the HTTP status of the answer."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status
