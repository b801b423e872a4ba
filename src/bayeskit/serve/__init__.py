"""``bayeskit serve``: a fitted model as an HTTP service that learns (extra ``bayeskit[serve]``).

An adapter over a fitted model (DESIGN.md): it owns HTTP (:mod:`.app`, :mod:`.inputs`,
:mod:`.server`), the journal (:mod:`.journal`) and the atomic swap of model snapshots
(:mod:`.state`); the model's own methods (``predict_proba``, ``linear_form``, ``partial_fit``,
``unlearn``, a SpamFilter's cutoffs and costs) do the work. :mod:`.scoring` turns one message
into a verdict with its reasons; :mod:`.turns` orders the requests in the event loop (checks
in turn, learns first); ``assets/index.html`` is the page.

Limits (``docs/guide/service-limits.md``; every refusal is JSON ``{"error": ...}``):

- request line and headers: 64 KiB (``--max-header``) — 431, the connection closed;
- time to send the headers, and the body: 10 s (``--timeout``) — 408, the connection closed;
- request body: 4 MiB (``--max-body``) — 413;
- JSON nesting: 32 levels (:data:`.inputs.MAX_JSON_DEPTH`); a lone UTF-16 surrogate in a
  string or from a declared charset — 400;
- requests in progress: 256 (``--max-in-flight``) — 503 with ``Retry-After``;
- the journal's disk full — 507 with ``Retry-After``: nothing of the learn is kept, checks
  and predictions go on, learning resumes once there is room.

Importing :class:`ServeConfig` or :func:`create_app` imports starlette and uvicorn (on first
use: the package itself imports neither, so the mail filter's learner reads the journal,
:mod:`.journal`, without the ``serve`` extra installed).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ServeConfig", "create_app"]

#: what a server stopped by SIGTERM before it answered a request says (the command line's
#: handler while it starts, then :func:`.server.run`'s)
STOPPED_WHILE_STARTING = (
    "bayeskit serve: stopped by SIGTERM while starting, before it answered a request: "
    "nothing was learned, and what the journal holds is replayed at the next start"
)


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
