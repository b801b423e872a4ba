"""The HTTP API (a Starlette app): MLflow's scoring contract, the spam API and the page.

Routes (the user guide, "The service", shows requests and answers):

``GET /`` the page; ``GET /ping``, ``/health``, ``/version``, ``/metadata``;
``POST /invocations`` (MLflow: JSON ``dataframe_split`` / ``dataframe_records`` /
``instances`` / ``inputs``, or ``text/csv``); ``POST /check`` (one message: text or a raw
e-mail); ``POST /verdict`` (a spam filter's verdict and score of one message, as one line of
text: what ``bayeskit filter --server`` asks); ``POST /learn/{label}`` and
``POST /unlearn/{label}`` (bearer token).

A request whose Host header names none of the server's names is refused (421) before any
route sees it (see .hosts: DNS rebinding).

Every refusal is a JSON ``{"error": ...}`` with a 4xx status; the server keeps serving.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import html
import json
import logging
import os
import re
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass
from importlib import resources
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Match, Route
from starlette.types import ASGIApp, Scope

from .._version import __version__
from ..contract import contract_of
from ..errors import BayeskitError
from ..io.model_file import FORMAT_VERSION
from .answers import CheckRoute, InFlightLimit, error, json_answer
from .colouring import shown_units
from .headers import AnswerHeaders
from .hosts import HostCheck
from .inputs import (
    MAX_JSON_DEPTH,
    RequestError,
    column_names,
    invocation_input,
    message_input,
    reads_text,
)
from .scoring import Scorer, plain
from .state import LearnError, ModelState, Snapshot, digest_of, label_names, outcome
from .supervised import stop_with_supervisor
from .turns import Turns

__all__ = ["CONFIG_ENV", "ServeConfig", "app_from_environment", "create_app", "learning_off"]

log = logging.getLogger("bayeskit.serve")
CONFIG_ENV = "BAYESKIT_SERVE_CONFIG"
API_VERSION = 1
_BIG_BODY = 1 << 16  # bodies above this are scored off the event loop


@dataclass(frozen=True)
class ServeConfig:
    """How one server runs (``bayeskit serve --help`` describes each setting)."""

    model: str
    token_file: str | None = None
    workers: int = 1
    max_body_bytes: int = 4 * 2**20
    max_header_bytes: int = 64 * 2**10
    timeout: float = 10.0
    max_in_flight: int = 256
    save_interval: float = 10.0
    #: the address the server listens on (one of the names it answers to: see .hosts)
    host: str = "127.0.0.1"
    #: more names it answers to (``--allow-host``): NAME, NAME:PORT, or * for any
    allow_hosts: tuple[str, ...] = ()

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ServeConfig:
        settings = json.loads(text)
        settings["allow_hosts"] = tuple(settings.get("allow_hosts", ()))
        return cls(**settings)


_TOKEN_HINT = (
    "for example the output of: python -c 'import secrets; print(secrets.token_urlsafe())'"
)


def read_token(path: str) -> str:
    """The bearer token: the first line of the token file, which must not be empty."""
    try:
        with open(path, encoding="utf-8") as f:
            token = f.readline(4096).strip()
    except UnicodeDecodeError as exc:
        raise BayeskitError(
            f"{path}: the token file is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at "
            f"offset {exc.start}); {_TOKEN_HINT}"
        ) from None
    if len(token) < 8 or not token.isprintable():
        raise BayeskitError(
            f"{path}: the token file must hold a token of at least 8 characters on its first "
            f"line, printable ones; {_TOKEN_HINT}"
        )
    if not token.isascii():
        # HTTP clients send header bytes as they please (curl: UTF-8; Python's http.client:
        # latin-1), so a token outside ASCII would match for some clients and not others.
        odd = next(c for c in token if not c.isascii())
        raise BayeskitError(
            f"{path}: the token holds {odd!r}, a character outside ASCII, which HTTP clients "
            f"send in different encodings; use ASCII letters, digits and punctuation, "
            f"{_TOKEN_HINT}"
        )
    return token


def learning_off(config: ServeConfig, has_token: bool) -> str:
    """Why this server cannot learn (every reason, and what to do), or "" when it can."""
    reasons, remedies = [], []
    if not has_token:
        reasons.append(
            "this server was started without --token-file, so nothing can change the model"
        )
        remedies.append("--token-file FILE")
    if config.workers > 1:
        # One copy of the model per process: a message learned by one worker would be missing
        # from the others' answers, and their journals would interleave in one file.
        reasons.append(
            f"it runs {config.workers} worker processes, each with its own copy of the model, "
            "so a message learned by one would be missing from the others' answers"
        )
        remedies.append("--workers 1")
    if not reasons:
        return ""
    return (
        f"learning is off: {'; and '.join(reasons)}. Checks and predictions work as usual; to "
        f"learn, restart it with {' and '.join(remedies)}"
    )


class Service:
    """The endpoints, over one :class:`ModelState`."""

    def __init__(self, config: ServeConfig, say: Callable[[str], object] | None = None) -> None:
        self.config = config
        self.token = read_token(config.token_file) if config.token_file else None
        self.token_digest = hashlib.sha256((self.token or "").encode("utf-8")).digest()
        self.learning_off = learning_off(config, self.token is not None)
        self.state = ModelState(
            config.model,
            learning=not self.learning_off,
            save_interval=config.save_interval,
            say=say or _on_stderr,
        )
        if self.state.cannot_learn and not self.learning_off:
            self.learning_off = f"learning is off: {self.state.cannot_learn}"
        self.missing = csv_missing_markers(config.model)
        # /check, /verdict and /invocations take turns in rounds of about half a millisecond,
        # so that a learn begins within a round of its arrival (see .turns)
        self.turns = Turns()
        title = html.escape(page_title(self.state.snapshot.described))
        # the title and heading only: the script and style keep the text _PAGE_HEADERS hash
        self.page = _PAGE.replace("<title>bayeskit model</title>", f"<title>{title}</title>")
        self.page = self.page.replace("<h1>bayeskit model</h1>", f"<h1>{title}</h1>")

    # ------------------------------------------------------------------ plumbing
    async def body(self, request: Request) -> bytes:
        """The request body, refused past the size limit (413) or the time limit (408)."""
        limit = self.config.max_body_bytes
        types = request.headers.getlist("content-type")
        if len(types) > 1:
            # RFC 9110, section 5.3: Content-Type is one value; of two, which is meant is not
            # known (the first was used, whatever the second said)
            raise RequestError(
                f"the request has {len(types)} Content-Type headers "
                f"({', '.join(map(repr, types))}); send one"
            )
        coding = request.headers.get("content-encoding", "identity").strip().lower()
        if coding not in ("identity", ""):
            # RFC 9110, section 8.4: a content coding the server does not decode is a 415
            # (read as it is, a gzipped body was "not valid UTF-8", a plain one labelled
            # gzip was answered)
            raise RequestError(
                f"Content-Encoding {coding!r} is not accepted; this server reads bodies as "
                "they are: send the body uncompressed (Content-Encoding: identity, or none)",
                status=415,
            )
        declared = request.headers.get("content-length")
        if declared is not None:
            if not declared.isdigit():
                raise RequestError(f"Content-Length {declared!r} is not a number")
            if int(declared) > limit:
                raise RequestError(
                    f"the body is {int(declared)} bytes; this server accepts at most {limit} "
                    "(bayeskit serve --max-body)",
                    status=413,
                )
        chunks: list[bytes] = []
        size = 0
        # A deadline that cancels this task (asyncio.timeout, which needs Python 3.11; a
        # wait_for would cost a task per request).
        task = asyncio.current_task()
        assert task is not None
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            task.cancel()

        deadline = asyncio.get_running_loop().call_later(self.config.timeout, expire)
        try:
            # the ASGI messages read as Request.stream reads them, without its generator
            more = True
            while more:
                message = await request.receive()
                if message["type"] == "http.disconnect":
                    raise ClientDisconnect()
                chunk = message.get("body", b"")
                more = bool(message.get("more_body", False))
                size += len(chunk)
                if size > limit:
                    raise RequestError(
                        f"the body exceeds {limit} bytes (bayeskit serve --max-body)", status=413
                    )
                chunks.append(chunk)
        except asyncio.CancelledError:
            if not expired:
                raise
            raise RequestError(
                f"the body did not arrive within {self.config.timeout:g} s", status=408
            ) from None
        finally:
            deadline.cancel()
        return b"".join(chunks)

    def text_snapshot(self) -> Snapshot:
        """The current snapshot (read once per request), which must hold a text model."""
        snap = self.state.snapshot
        if snap.scorer is None:
            name = type(snap.model).__name__
            if reads_text(snap.model):
                raise RequestError(
                    f"this server's model ({name}) reads text, but its classes are mixtures "
                    "of components that /check cannot explain term by term: send the text to "
                    'POST /invocations as {"inputs": ["the text"]}'
                )
            raise RequestError(
                f"this server's model ({name}) reads tables, not messages: use POST /invocations"
            )
        return snap

    def authorize(self, request: Request) -> None:
        if self.learning_off:
            raise RequestError(self.learning_off, status=403)
        given_all = request.headers.getlist("authorization")
        if len(given_all) > 1:  # a field sent once (RFC 9110, section 11.6.2)
            raise RequestError(f"the request has {len(given_all)} Authorization headers; send one")
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        # Digests of equal length: the comparison's time tells neither the token nor its length.
        ok = scheme.lower() == "bearer" and hmac.compare_digest(
            hashlib.sha256(given.strip().encode("utf-8", "replace")).digest(), self.token_digest
        )
        if not ok:
            raise HTTPException(
                401,
                "learning needs the server's token: send Authorization: Bearer <token>",
                {"WWW-Authenticate": 'Bearer realm="bayeskit"'},
            )

    # ------------------------------------------------------------------ endpoints
    async def index(self, request: Request) -> Response:
        return HTMLResponse(self.page, headers=_PAGE_HEADERS)

    async def ping(self, request: Request) -> Response:
        return Response("\n", media_type="text/plain")

    async def health(self, request: Request) -> Response:
        return json_answer({"status": "ok", "pid": os.getpid(), **self.state.status()})

    async def version(self, request: Request) -> Response:
        return json_answer(
            {"bayeskit": __version__, "api": API_VERSION, "model_format": FORMAT_VERSION}
        )

    async def metadata(self, request: Request) -> Response:
        return json_answer(self._metadata())

    def _metadata(self) -> dict[str, Any]:
        from ..io.describe import describe

        snap = self.state.snapshot
        model = snap.described  # the model, or the estimator a wrapper declares it wraps
        counts = getattr(model, "class_count_", None)
        out: dict[str, Any] = {
            "estimator": type(snap.model).__name__,
            "description": describe(snap.model),
            "classes": [plain(c) for c in snap.model.classes_.tolist()],
            "class_count": None,
            "training_rows": None,
            "model_file": os.path.basename(self.state.path),
            "title": page_title(model),
        }
        if counts is not None:
            counts = np.asarray(counts, dtype=np.float64)
            out["class_count"] = {
                str(plain(c)): float(n) for c, n in zip(model.classes_, counts, strict=True)
            }
            out["training_rows"] = float(counts.sum())
        if snap.model is not model:
            out["wraps"] = describe(model)
        if contract_of(model).input == "documents":
            vectorizer = model.vectorizer
            out["mode"] = "text"
            out["analyzer"] = "word" if vectorizer is None else str(vectorizer.analyzer)
            out["vocabulary_size"] = len(model.get_feature_names_out())
            out["colouring"] = shown_units(vectorizer or model.default_vectorizer())
            inner = model.model
            out["families"] = [
                "multinomial" if inner is None else type(inner).__name__.removesuffix("NB").lower()
            ]
            if contract_of(model).decision == "spam":
                out["spam"] = {
                    "spam_label": plain(model.spam_label),
                    "ham_label": plain(model.ham_label),
                    "ham_cutoff": model.ham_cutoff,
                    "spam_cutoff": model.spam_cutoff,
                    "lost_ham_cost": model.lost_ham_cost,
                    "passed_spam_cost": model.passed_spam_cost,
                }
        elif reads_text(model):  # a text model whose parts it does not declare
            out["mode"] = "text"
            out["colouring"] = None
        else:
            out["mode"] = "table"
            out["features"] = column_names(model)
            chosen = getattr(model, "feature_families_", None)
            families = getattr(model, "families_", None)
            out["families"] = (
                {str(k): str(v) for k, v in chosen.items()}
                if chosen is not None
                else [family.name for family in families]
                if families is not None
                else None
            )
        out["learning"] = {
            "enabled": not self.learning_off,
            "reason": self.learning_off or None,
            **self.state.status(snap),  # the snapshot of the counts above
        }
        out["limits"] = {
            "max_body_bytes": self.config.max_body_bytes,
            "max_header_bytes": self.config.max_header_bytes,
            "max_json_depth": MAX_JSON_DEPTH,
            "max_in_flight": self.config.max_in_flight,
            "timeout": self.config.timeout,
        }
        return out

    async def invocations(self, request: Request) -> Response:
        body = await self.body(request)
        if len(body) > _BIG_BODY:
            return await self._invocations(request, body)
        await self.turns.take()
        try:
            return await self._invocations(request, body)
        finally:
            self.turns.give_back()

    async def _invocations(self, request: Request, body: bytes) -> Response:
        snap = self.state.snapshot
        model = snap.model
        asked = _query_flag(request, "probabilities")
        # the columns and their kinds are the described model's (a wrapper's estimator)
        args = (body, request.headers.get("content-type", ""), snap.described, asked)
        if len(body) > _BIG_BODY:
            # reading a large body (a wide or long table's JSON) is off the event loop too:
            # on it, every other request, learns included, waited for the parse
            X, proba = await asyncio.to_thread(invocation_input, *args, missing=self.missing)
            predictions = await asyncio.to_thread(_predictions, model, X, proba)
        else:
            X, proba = invocation_input(*args, missing=self.missing)
            predictions = _predictions(model, X, proba)
        return json_answer({"predictions": predictions})

    async def check(self, request: Request) -> Response:
        self.text_snapshot()  # a model that cannot check: refused before the body is read
        body = await self.body(request)
        # most checks have no query string: not parsed then
        words = bool(request.scope.get("query_string")) and request.query_params.get(
            "words", ""
        ) in ("1", "true")
        if len(body) > _BIG_BODY:
            snap = self.text_snapshot()
            doc, scorer = self._message(request, body, snap)
            result = await asyncio.to_thread(scorer.check, doc, words=words)
        else:
            await self.turns.take()
            try:
                snap = self.text_snapshot()  # the newest, learns made while it waited too
                doc, scorer = self._message(request, body, snap)
                result = scorer.check(doc, words=words)
            finally:
                self.turns.give_back()
        # (a server that has learned nothing, as every one with --workers N: no digest)
        result["learned_as"] = snap.learned.get(digest_of(doc)) if snap.learned else None
        return json_answer(result)

    @staticmethod
    def _message(request: Request, body: bytes, snap: Snapshot) -> tuple[str | bytes, Scorer]:
        scorer = snap.scorer
        assert scorer is not None
        return message_input(body, request.headers.get("content-type", ""), snap.described), scorer

    async def verdict(self, request: Request) -> Response:
        """A spam filter's verdict and ``P(spam|x)`` of one message as one line of text,
        ``"spam 0.9871…"`` (the float's shortest repr), or ``"unsure - REASON"`` from a filter
        that has learned one class only: all a mail filter needs, without the reasons and the
        JSON of /check (``bayeskit filter --server`` reads it with the
        standard library's socket alone)."""
        snap = self.text_snapshot()
        scorer = snap.scorer
        assert scorer is not None
        if scorer.spam is None:
            raise RequestError(
                f"this server's model ({type(snap.model).__name__}) is not a spam filter: "
                "use POST /check"
            )
        body = await self.body(request)
        doc = message_input(body, request.headers.get("content-type", ""), snap.described)
        if scorer.one_class is not None:
            # unsure of every message, with no score: its P(spam) says only the class it knows
            return Response(
                f"unsure - the filter has learned {scorer.one_class} only\n",
                media_type="text/plain",
            )
        if len(body) > _BIG_BODY or not scorer.table_ready:  # the first builds the table
            p_spam, verdict = await asyncio.to_thread(scorer.verdict, doc)
        else:
            await self.turns.take()
            try:
                p_spam, verdict = scorer.verdict(doc)
            finally:
                self.turns.give_back()
        return Response(f"{verdict} {p_spam!r}\n", media_type="text/plain")

    async def learn(self, request: Request) -> Response:
        return await self._change(request, unlearn=False)

    async def unlearn(self, request: Request) -> Response:
        return await self._change(request, unlearn=True)

    async def _change(self, request: Request, *, unlearn: bool) -> Response:
        self.authorize(request)
        model = self.text_snapshot().model
        label = request.path_params["label"]
        names = label_names(model)
        if label not in names:
            raise RequestError(
                f"unknown label {label!r}; this model's labels are {', '.join(map(repr, names))}"
            )
        body = await self.body(request)
        doc = message_input(body, request.headers.get("content-type", ""), model)
        if not doc.strip():  # would be learned as a message of no words: only the prior moves
            raise RequestError(
                f"an empty message (the body is empty or white space): nothing "
                f"{'unlearned' if unlearn else 'learned'}, the model is unchanged; send the "
                "message as the body"
            )
        # The model update runs here, in the event loop, as a check does (a thread would
        # wait for the interpreter lock while the loop runs checks); a large message's off
        # the loop, as a large check's, and any while one is under way there (the loop
        # would wait for it).
        if len(body) > _BIG_BODY or self.state.busy:
            future = await asyncio.to_thread(self.state.submit, doc, label, unlearn=unlearn)
        else:
            future = self.state.submit(doc, label, unlearn=unlearn)
        result = await outcome(future)
        described = self.state.snapshot.described
        result["class_count"] = {
            str(plain(c)): float(n)
            for c, n in zip(described.classes_, described.class_count_, strict=True)
        }
        return json_answer(result)


_PAGE = resources.files("bayeskit.serve").joinpath("assets/index.html").read_text("utf-8")


def inline_hashes(page: str, tag: str) -> str:
    """The Content-Security-Policy sources of ``page``'s inline ``<tag>`` elements: the
    sha256 of each one's text, base64 (CSP Level 3, "hash-source"), so that the browser runs
    that script and applies that style and no other (an injected one, were there any)."""
    found = re.findall(rf"<{tag}>(.*?)</{tag}>", page, flags=re.DOTALL)
    assert found, f"the page has no <{tag}>"
    return " ".join(
        "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"
        for text in found
    )


_PAGE_HEADERS = {
    # The page is self-contained: nothing may load from anywhere else, and only its own
    # script and style (by their hashes: no 'unsafe-inline') run.
    "Content-Security-Policy": f"default-src 'none'; script-src {inline_hashes(_PAGE, 'script')}; "
    f"style-src {inline_hashes(_PAGE, 'style')}; connect-src 'self'; img-src data:; "
    "form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


def page_title(model: Any) -> str:
    """What the page calls the served model: a spam filter, a text classifier (a model that
    reads text) or a classifier of table rows."""
    if reads_text(model):
        return (
            "bayeskit spam filter"
            if contract_of(model).decision == "spam"
            else "bayeskit text classifier"
        )
    return "bayeskit classifier"


_YES, _NO = ("1", "true", "yes"), ("", "0", "false", "no")


def _query_flag(request: Request, name: str) -> bool:
    """A query parameter that is true or false (``?probabilities=true``); another value is
    refused, naming it (a misspelled ``ture`` would otherwise answer labels alone)."""
    if not request.scope.get("query_string"):
        return False
    value = request.query_params.get(name, "")
    if value.lower() in _YES:
        return True
    if value.lower() in _NO:
        return False
    raise RequestError(
        f"the query's {name}={value!r} is neither true nor false; accepted: "
        "true, yes, 1, false, no or 0"
    )


def _predictions(model: Any, X: Any, proba: bool) -> list[Any]:
    labels = [plain(v) for v in model.predict(X).tolist()]
    if not proba:
        return labels
    P = model.predict_proba(X)
    names = [f"p_{plain(c)}" for c in model.classes_.tolist()]
    verdicts = model.classify(X).tolist() if contract_of(model).decision == "spam" else None
    out = []
    for i, label in enumerate(labels):
        row: dict[str, Any] = {"label": label}
        if verdicts is not None:
            row["verdict"] = verdicts[i]
        row.update({name: float(p) for name, p in zip(names, P[i], strict=True)})
        out.append(row)
    return out


def csv_missing_markers(path: str) -> list[str]:
    """The field values a ``text/csv`` body reads as missing: as ``bayeskit train`` read the
    model's training data (stored in the model file), else the usual markers (NA, NaN,
    null…, :data:`~bayeskit.io.readers.DEFAULT_MISSING`)."""
    from ..io.model_file import load_reading
    from ..io.readers import missing_markers

    reading = load_reading(path) or {}
    return missing_markers(reading.get("missing") or (), reading.get("default_missing", True))


def _on_stderr(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def create_app(config: ServeConfig, say: Callable[[str], object] | None = None) -> ASGIApp:
    """The ASGI app serving ``config.model`` (loaded, and its journal replayed, now; a long
    replay says how far it is through ``say``, by default on standard error)."""
    service = Service(config, say)

    async def refused(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status", 400)
        # A body that did not arrive in time is still owed: what the client sends later
        # would be read as the next request, so the connection ends with the answer.
        headers = {"Connection": "close"} if status == 408 else None
        if status == 507:  # the disk is full: learning works again once there is room
            headers = {"Retry-After": "30"}
        message = str(exc)
        row, detail = getattr(exc, "row", None), getattr(exc, "detail", None)
        if row is not None and detail:  # a model's refusal of a value: the request's row from 1
            message = f"row {row + 1}: {detail}"
        return error(" ".join(message.split()), status, headers)

    async def failed(request: Request, exc: Exception) -> Response:
        # A bug: logged with its traceback, answered as every other error is (JSON).
        log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
        return error(
            f"internal error ({type(exc).__name__}); the server keeps serving, and the "
            "model is unchanged",
            500,
        )

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 404:
            path = request.url.path
            message = f"no such resource: {request.method} {path}"
            meant = path.rstrip("/")
            if meant and meant != path and _routed(app, request.scope, meant):
                message += f"; the resource is {meant}, without the trailing slash"
        elif exc.status_code == 405:
            message = f"{request.method} is not allowed on {request.url.path}"
            allow = (exc.headers or {}).get("Allow")
            message += f"; use {allow}" if allow else ""
        else:
            message = str(exc.detail)
        return error(message, exc.status_code, dict(exc.headers or {}))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:  # save what was learned and release the journal
            await asyncio.to_thread(service.state.close)

    handlers = {
        HTTPException: http_error,
        RequestError: refused,
        LearnError: refused,
        BayeskitError: refused,
        Exception: failed,
    }
    app = Starlette(
        routes=[
            Route("/", service.index, methods=["GET"]),
            Route("/ping", service.ping, methods=["GET"]),
            Route("/health", service.health, methods=["GET"]),
            Route("/version", service.version, methods=["GET"]),
            Route("/metadata", service.metadata, methods=["GET"]),
            Route("/invocations", service.invocations, methods=["POST"]),
            Route("/check", service.check, methods=["POST"]),
            Route("/verdict", service.verdict, methods=["POST"]),
            Route("/learn/{label:path}", service.learn, methods=["POST"]),
            Route("/unlearn/{label:path}", service.unlearn, methods=["POST"]),
        ],
        exception_handlers=handlers,
        lifespan=lifespan,
    )
    # Starlette answers /metadata/ with a redirect to a URL built from the Host header (an
    # empty 307, which a client following it sends its body again for): answered as any
    # other unknown path instead, naming the one meant
    app.router.redirect_slashes = False
    app.state.service = service
    # POST /check, the request sent for every message, without Starlette's layers
    routed = CheckRoute(app, service.check, handlers)
    limited = InFlightLimit(routed, config.max_in_flight)
    checked = AnswerHeaders(HostCheck(limited, config.host, config.allow_hosts))
    checked.service = service  # type: ignore[attr-defined]
    return checked


def _routed(app: Starlette, scope: Scope, path: str) -> bool:
    """Whether one of ``app``'s routes serves ``path`` (by any method)."""
    probe = {**scope, "path": path}
    return any(route.matches(probe)[0] != Match.NONE for route in app.routes)


def app_from_environment() -> ASGIApp:
    """The app of a worker process started by ``bayeskit serve --workers N``."""
    stop_with_supervisor()
    return create_app(ServeConfig.from_json(os.environ[CONFIG_ENV]))
