"""How the service answers: JSON bodies, the in-flight limit, and ``POST /check`` routed
without Starlette's per-request layers.

A check is the request a mail system sends for every message, thousands a second. Through
Starlette it crossed the app, its two exception middlewares, the router (a pattern tried per
route until ``/check``), the route and two more wrappers, each an ``await`` and a closure: a
tenth of what the app spent on a check. :class:`CheckRoute` hands a ``POST /check`` to its
endpoint directly and answers an exception as Starlette would with the same handlers (a
refusal by its handler, anything else by the handler of :class:`Exception`, then raised
again for the server's log); every other request, and a check under a ``root_path``, goes
through Starlette. The middlewares around the app (:class:`~.headers.AnswerHeaders`,
:class:`~.hosts.HostCheck`, :class:`InFlightLimit`) see every request as before.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CheckRoute", "InFlightLimit", "error", "json_answer"]

# The standard library's encoder, for what orjson declines (made once: json.dumps makes one
# per call when given settings). Text escaped to ASCII: a lone surrogate, which orjson
# refuses, has no UTF-8 bytes.
_ENCODE_NULLS = json.JSONEncoder(separators=(",", ":")).encode
#: orjson writes a check's answer (two dozen floats) in ~2 µs where the standard library's
#: encoder took ~23, a twentieth of what the server spent on a check. It writes NaN and
#: infinities as null, as :func:`_finite` does; numpy's scalars as their values; keys that
#: are not text as their text, as the standard library does.
_ORJSON_OPTIONS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def json_answer(content: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """``content`` as a compact JSON answer (UTF-8, not escaped to ASCII; NaN and infinities,
    as an unsmoothed model's log-odds can be, as null)."""
    try:
        body: bytes | str = orjson.dumps(content, option=_ORJSON_OPTIONS)
    except TypeError:  # what orjson declines (an integer beyond 64 bits, a lone surrogate)
        body = _ENCODE_NULLS(_finite(content))  # (null for NaN and infinities, as orjson)
    return Response(body, status, headers, media_type="application/json")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def error(message: str, status: int, headers: dict[str, str] | None = None) -> Response:
    """A refusal: ``{"error": message}`` with ``status``."""
    return json_answer({"error": message}, status, headers)


class InFlightLimit:
    """Back-pressure: beyond ``limit`` requests being served at once, answer 503 at once
    (with Retry-After) instead of queueing without bound."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit, self.active = app, limit, 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.active >= self.limit:
            response = error(
                f"the server is busy ({self.active} requests in progress); retry shortly",
                503,
                {"Retry-After": "1"},
            )
            await response(scope, receive, send)
            return
        self.active += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.active -= 1


Endpoint = Callable[[Request], Awaitable[Response]]
Handler = Callable[[Request, Exception], Awaitable[Response]]


class CheckRoute:
    """ASGI middleware answering ``POST /check`` by ``endpoint`` itself, the other requests
    by ``app`` (a Starlette app built with ``handlers``, whose :class:`Exception` handler
    answers what no other handles); see the module docstring."""

    def __init__(self, app: ASGIApp, endpoint: Endpoint, handlers: Mapping[Any, Handler]) -> None:
        self.app, self.endpoint = app, endpoint
        self.handlers = {k: v for k, v in handlers.items() if k is not Exception}
        self.failed = handlers[Exception]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["path"] != "/check"
            or scope["method"] != "POST"
            or scope.get("root_path")
        ):
            await self.app(scope, receive, send)
            return
        started = False

        async def sender(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        request = Request(scope, receive, send)
        try:
            try:
                response = await self.endpoint(request)
                await response(scope, receive, sender)
            except Exception as exc:  # as Starlette's route answers it
                handler = next(
                    (self.handlers[c] for c in type(exc).__mro__ if c in self.handlers), None
                )
                if handler is None:
                    raise
                if started:
                    raise RuntimeError(
                        "Caught handled exception, but response already started."
                    ) from exc
                await (await handler(request, exc))(scope, receive, sender)
                exc.__traceback__ = None  # (an exception raised again keeps no old frames)
        except Exception as exc:  # as Starlette's ServerErrorMiddleware answers it
            response = await self.failed(Request(scope), exc)
            if not started:
                await response(scope, receive, send)
            raise
