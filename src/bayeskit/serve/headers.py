"""The headers every answer carries, whatever answered it (a route, a refusal, the Host check,
the in-flight limit): the browser's defences for answers that hold a model's names and a
person's messages.

- ``X-Content-Type-Options: nosniff``: a JSON answer, which quotes a request's label or path,
  is never read as HTML or a script (the Fetch Standard, "X-Content-Type-Options").
- ``Cache-Control: no-store``: an answer (the reasons of a message, the model's classes) is
  kept by no cache, shared or the browser's (RFC 9111, section 5.2.2.5).
- ``Content-Security-Policy: default-src 'none'; frame-ancestors 'none'`` and
  ``X-Frame-Options: DENY`` (RFC 7034, for browsers without CSP Level 2): no answer runs
  anything or is shown in another site's frame. The page sets its own policy, which is kept.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ANSWER_HEADERS", "AnswerHeaders"]

ANSWER_HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"cache-control", b"no-store"),
    (b"content-security-policy", b"default-src 'none'; frame-ancestors 'none'"),
    (b"x-frame-options", b"DENY"),
)


class AnswerHeaders:
    """ASGI middleware adding :data:`ANSWER_HEADERS` that an answer does not set itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {name.lower() for name, _ in headers}
                headers += [(k, v) for k, v in ANSWER_HEADERS if k not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
