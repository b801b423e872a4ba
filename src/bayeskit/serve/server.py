"""Running the app on uvicorn: the listening socket, timeouts, limits and worker processes.

uvicorn closes idle keep-alive connections but waits for a request's headers forever and
reads headers of any size (httptools keeps them in memory until the last one). The protocol
below gives each request ``timeout`` seconds to send its headers (the body has the same
limit in the app), so slow clients cannot hold connections open, and refuses a request line
and headers of more than ``max_header_bytes`` with 431 (Request Header Fields Too Large),
closing the connection, so that neither many large headers nor one endless one can hold
memory.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import signal
import socket
import sys
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from . import STOPPED_WHILE_STARTING
from .app import CONFIG_ENV, ServeConfig, create_app, learning_off
from .headers import ANSWER_HEADERS
from .supervised import SUPERVISOR_ENV

__all__ = ["HeaderTimeoutProtocol", "bind", "run"]

log = logging.getLogger("bayeskit.serve")
#: Set in each worker process (uvicorn passes the protocol class, not its settings).
HEADER_TIMEOUT_ENV = "BAYESKIT_SERVE_HEADER_TIMEOUT"
HEADER_BYTES_ENV = "BAYESKIT_SERVE_MAX_HEADER_BYTES"
#: How long a connection refused for its head is read (and dropped) before it is closed.
LINGER_SECONDS = 2.0


class HeaderTimeoutProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol that answers 408 and closes the connection when a
    request's headers have not all arrived ``BAYESKIT_SERVE_HEADER_TIMEOUT`` seconds after
    the connection opened or the request began, and 431 when more than
    ``BAYESKIT_SERVE_MAX_HEADER_BYTES`` bytes arrived before the headers' end.

    The bytes are counted as they arrive (each chunk read from the socket while headers are
    awaited), so httptools never holds much more than the limit, and once more, exactly (the
    target and every header name and value, with their separators), when the last header
    has arrived: a head that came in one chunk is measured too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timeout = float(os.environ.get(HEADER_TIMEOUT_ENV, "10"))
        self._max_header_bytes = int(os.environ.get(HEADER_BYTES_ENV, str(64 * 2**10)))
        self._header_timer: Any = None
        self._head_bytes = 0
        self._refused = False  # answered 408 or 431: nothing more is read or answered

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._head_bytes = 0
        if self._header_timer is None:
            self._arm()

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        super().data_received(data)
        if self._header_timer is None or self.transport.is_closing():
            return  # no request's headers awaited: between requests, or reading a body
        self._head_bytes += len(data)
        if self._head_bytes > self._max_header_bytes:
            self._too_large()

    def on_headers_complete(self) -> None:
        self._disarm()
        head = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if head > self._max_header_bytes:
            self._too_large()
            return  # the app never sees this request
        if not self.url.startswith(b"/") and b"://" in self.url[:16]:
            # A request target in absolute form (http://NAME/path) names the host the
            # request is for, and the Host header is ignored (RFC 9112, section 3.2.2):
            # uvicorn keeps only the path, so the name is put where the Host check reads it.
            authority = self.url.split(b"://", 1)[1].split(b"/", 1)[0].split(b"?", 1)[0]
            authority = authority.rpartition(b"@")[2]
            self.headers[:] = [(n, v) for n, v in self.headers if n != b"host"]
            self.headers.append((b"host", authority))  # (the list the request's scope holds)
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        if not self._refused:
            super().on_body(body)

    def on_message_complete(self) -> None:
        if not self._refused:
            super().on_message_complete()

    def send_400_response(self, msg: str) -> None:
        # uvicorn's answer to bytes that are not an HTTP request (a TLS hello, a negative
        # Content-Length) is text; every answer of the service is JSON. The client may
        # still be sending (the parser stops at the first bad byte): a lingering close, so
        # that the rest does not reset the connection before the answer is read.
        self._refuse(
            b"400 Bad Request",
            b'{"error":"the bytes sent are not a valid HTTP/1.1 request (uvicorn: '
            + msg.rstrip(".").encode("ascii", "replace")
            + b'); send a well-formed request"}',
            linger=True,
        )

    def _too_large(self) -> None:
        self._disarm()
        self._refuse(
            b"431 Request Header Fields Too Large",
            b'{"error":"the request line and headers exceed '
            + str(self._max_header_bytes).encode()
            + b' bytes; send fewer or smaller headers"}',
            linger=True,
        )

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._header_timer = self.loop.call_later(self._header_timeout, self._timed_out)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _timed_out(self) -> None:
        self._header_timer = None
        if self.cycle and not self.cycle.response_complete:
            return  # an earlier response is being written: it ends the wait when it is done
        self._refuse(
            b"408 Request Timeout", b'{"error":"the request headers did not arrive in time"}'
        )

    def _refuse(self, status: bytes, body: bytes, *, linger: bool = False) -> None:
        """Answer ``status`` and close the connection; when an earlier response on it is
        still being written, close it without answering (the answer would be cut into it).

        ``linger``: the client is still sending (a head past its bound); closing a socket
        with unread data would reset the connection and lose the answer, so the answer is
        followed by the end of our side, what arrives is read and dropped, and the connection
        is closed :data:`LINGER_SECONDS` later (a lingering close, as nginx does)."""
        self._refused = True
        if self.transport.is_closing():
            return
        if not (self.cycle and not self.cycle.response_complete):
            self.transport.write(
                b"HTTP/1.1 " + status + b"\r\ncontent-type: application/json\r\n"
                b"connection: close\r\ncontent-length: "
                + str(len(body)).encode()
                + b"\r\n"
                + _ANSWER_HEAD
                + b"\r\n"
                + body
            )
            if linger and self.transport.can_write_eof():
                self.transport.write_eof()
                self.loop.call_later(LINGER_SECONDS, self.transport.close)
                return
        self.transport.close()


#: The headers every answer carries (:mod:`.headers`), as the protocol's own answers write them
_ANSWER_HEAD = b"".join(name + b": " + value + b"\r\n" for name, value in ANSWER_HEADERS)


def bind(host: str, port: int) -> socket.socket:
    """The listening socket (port 0: any free port; read it back with getsockname)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(2048)  # connections wait in the backlog until uvicorn accepts them
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def _config(app: Any, config: ServeConfig, **extra: Any) -> uvicorn.Config:
    os.environ[HEADER_TIMEOUT_ENV] = repr(config.timeout)
    os.environ[HEADER_BYTES_ENV] = str(config.max_header_bytes)
    # The saver's and journal's threads' Python work would hold the GIL for 5 ms slices
    # (the default) while checks wait in the event loop; 1 ms slices bound that wait.
    sys.setswitchinterval(0.001)
    return uvicorn.Config(
        app,
        http=HeaderTimeoutProtocol,
        loop="auto",
        lifespan="on",
        access_log=False,
        log_level="warning",
        timeout_keep_alive=5,
        timeout_graceful_shutdown=10,
        # uvicorn's own cap on connections + tasks: far above the app's in-flight limit,
        # which answers 503 first; past this uvicorn answers 503 itself.
        limit_concurrency=max(4 * config.max_in_flight, 2048),
        backlog=2048,
        server_header=False,
        **extra,
    )


def run(config: ServeConfig, sock: socket.socket, *, announce: Any = print) -> None:
    """Serve on ``sock`` until interrupted: in this process, or in ``config.workers``
    worker processes that share the socket."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    if config.workers <= 1:
        # loads the model and replays its journal (saying how far, when long) before listening
        app = create_app(config, announce)
        server = uvicorn.Server(_config(app, config))
        early = _stop_gracefully(server)
        announce(_banner(config, f"http://{shown}:{port}", app))
        # uvicorn re-raises the Ctrl+C it stopped for, after a clean shutdown
        with contextlib.suppress(KeyboardInterrupt):
            server.run(sockets=[sock])
        if early:
            announce(STOPPED_WHILE_STARTING)
        if not server.started:
            sys.exit(1)
        return
    from uvicorn.supervisors import Multiprocess

    os.environ[CONFIG_ENV] = config.to_json()
    os.environ[SUPERVISOR_ENV] = str(os.getpid())
    extra: dict[str, Any] = {}
    if "timeout_worker_healthcheck" in inspect.signature(uvicorn.Config).parameters:
        # A worker imports bayeskit and loads the model before it answers the supervisor's
        # pings; on a busy machine that exceeds uvicorn's 5 s and workers would be killed
        # and restarted forever.
        extra["timeout_worker_healthcheck"] = 120
    uv = _config(
        "bayeskit.serve.app:app_from_environment",
        config,
        factory=True,
        workers=config.workers,
        **extra,
    )
    announce(_banner(config, f"http://{shown}:{port}", None))
    _stop_quietly()
    with contextlib.suppress(KeyboardInterrupt):
        Multiprocess(uv, sockets=[sock]).run()


def _stop_gracefully(server: uvicorn.Server) -> list[bool]:
    """SIGTERM from now on stops ``server`` as uvicorn's own handler does once it runs: it
    finishes the requests under way and saves what was learned (the app's shutdown). Before
    uvicorn runs (the command line's handler ends the command then, which left the state's
    threads running and the model unsaved, and printed a coroutine "never awaited"),
    uvicorn starts, answers nothing, and stops at once. The list returned holds True when
    SIGTERM came before it served (said by :func:`run`); uvicorn re-raises the SIGTERM it
    stopped for after its shutdown, which ends here too, and the command with status 0."""
    early: list[bool] = []

    def stop(signum: int, frame: object) -> None:
        if not server.started and not early:
            early.append(True)
        server.should_exit = True

    with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
        signal.signal(signal.SIGTERM, stop)
    return early


def _stop_quietly() -> None:
    """After a clean shutdown uvicorn re-raises the signal that stopped it; SIGTERM (how
    service managers stop a daemon) then ends the process with exit status 0, like Ctrl+C."""
    with contextlib.suppress(ValueError):  # not the main thread: leave signals alone
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))


def _banner(config: ServeConfig, url: str, app: Any) -> str:
    lines = [f"bayeskit serve: {os.path.basename(config.model)} on {url}"]
    if app is not None and app.service.state.replayed:
        lines.append(f"  replayed {app.service.state.replayed} learned message(s) from the journal")
    if app is not None and app.service.state.dropped_tail:
        lines.append(
            "  dropped the journal's last line: a crash cut it short while it was written, "
            "before its learn was acknowledged"
        )
    if config.workers > 1:
        lines.append(f"  {config.workers} worker processes")
    # one process: the app's reason, which knows the model; workers: the settings' reason
    off = (
        app.service.learning_off
        if app is not None
        else learning_off(config, config.token_file is not None)
    )
    lines.append(
        "  learning: "
        + ("off — " + off.removeprefix("learning is off: ") if off else "on (bearer token)")
    )
    lines.append("  press Ctrl+C to stop")
    return "\n".join(lines)
