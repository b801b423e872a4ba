"""POST /check is routed past Starlette's layers (bayeskit.serve.answers.CheckRoute): its
answers, refusals and failures are the ones Starlette's route gives for the same request
(reached here under a root_path, which the short route leaves to Starlette)."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from bayeskit.serve import ServeConfig, create_app
from bayeskit.serve.scoring import Scorer

from .conftest import SPAMMY


def exchange(app: Any, body: bytes, headers: Any = (), *, root: str = "", method: str = "POST"):
    """(status, headers, body, exception raised by the app) of one request to /check; under
    ``root`` (a root_path) Starlette routes it. ``routed``: whether Starlette's router saw
    it (it names the route in the scope)."""
    path = f"{root}/check"
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": root,
        "query_string": b"",
        "headers": [(b"host", b"localhost"), *headers],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    raised = None
    try:
        asyncio.run(app(scope, receive, send))
    except Exception as exc:  # what the server would log
        raised = exc
    start = next(m for m in sent if m["type"] == "http.response.start")
    answer = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    exchange.routed = "route" in scope  # type: ignore[attr-defined]
    return start["status"], start["headers"], answer, raised


@pytest.fixture
def app(model_copy, sms_file):
    served = create_app(ServeConfig(model=str(model_copy(sms_file)), max_body_bytes=4096))
    yield served
    served.service.state.close()


REQUESTS = {
    "a message": (SPAMMY.encode(), []),
    "a JSON body": (
        json.dumps({"text": SPAMMY}).encode(),
        [(b"content-type", b"application/json")],
    ),
    "a compressed body": (b"\x1f\x8b...", [(b"content-encoding", b"gzip")]),
    "two content types": (
        b"hi",
        [(b"content-type", b"text/plain"), (b"content-type", b"text/html")],
    ),
    "a body too large": (b"free " * 1000, []),
    "a length that is no number": (b"hi", [(b"content-length", b"12x")]),
}


STATUS = {
    "a message": 200,
    "a JSON body": 415,
    "a compressed body": 415,
    "two content types": 400,
    "a body too large": 413,
    "a length that is no number": 400,
}


@pytest.mark.parametrize("what", list(REQUESTS))
def test_a_check_is_answered_as_starlettes_route_answers_it(app, what):
    body, headers = REQUESTS[what]
    short = exchange(app, body, headers)
    assert not exchange.routed  # type: ignore[attr-defined]
    routed = exchange(app, body, headers, root="/x")
    assert exchange.routed  # type: ignore[attr-defined]
    assert short == routed
    assert short[3] is None
    assert short[0] == STATUS[what]


def test_a_failed_check_is_answered_logged_and_raised_as_before(app, monkeypatch, caplog):
    def broken(self, doc, *, words=False):
        raise RuntimeError("a bug")

    monkeypatch.setattr(Scorer, "check", broken)
    with caplog.at_level(logging.ERROR, logger="bayeskit.serve"):
        status, headers, body, raised = exchange(app, SPAMMY.encode())
    assert status == 500
    assert json.loads(body) == {
        "error": "internal error (RuntimeError); the server keeps serving, and the model is "
        "unchanged"
    }
    assert isinstance(raised, RuntimeError)  # raised again, for the server's own log
    assert any("POST /check failed" in r.getMessage() and r.exc_info for r in caplog.records)
    routed = exchange(app, SPAMMY.encode(), root="/x")
    assert (routed[0], routed[1], routed[2], type(routed[3])) == (
        status,
        headers,
        body,
        RuntimeError,
    )


def test_a_model_that_cannot_check_is_refused_as_before(model_copy, categories_file):
    served = create_app(ServeConfig(model=str(model_copy(categories_file))))
    try:
        short = exchange(served, b"a message")
        assert short == exchange(served, b"a message", root="/x")
        assert short[0] == 400
        assert "reads tables" in json.loads(short[2])["error"]
    finally:
        served.service.state.close()


def test_other_methods_and_paths_are_still_routed_by_starlette(app):
    status, _, body, _ = exchange(app, b"", method="GET")
    assert exchange.routed  # type: ignore[attr-defined]
    assert status == 405
    assert json.loads(body)["error"] == "GET is not allowed on /check; use POST"
