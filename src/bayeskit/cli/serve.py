"""``bayeskit serve``: the model as an HTTP service (needs ``pip install 'bayeskit[serve]'``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated

import typer

#: The ranges of the numeric settings (checked before anything starts). The upper bounds
#: are far beyond any useful value but keep each one meaningful: a wait of more than an hour
#: for a request's headers holds connections open for whoever sends nothing; past a week
#: between saves the journal only grows; a thousand worker processes is a fork bomb.
MAX_TIMEOUT = 3600.0
MAX_SAVE_INTERVAL = 7 * 24 * 3600.0
MAX_WORKERS = 256


def said_when_stopped_while_starting() -> Callable[[], object] | None:
    """SIGTERM while the server starts (importing, loading the model, replaying its
    journal), before :func:`bayeskit.serve.server.run` stops it gracefully instead: said on
    standard error, and the command ends with exit status 0, as a stop once it serves does
    (a service manager stopping it is no failure). Nothing was acknowledged yet, so nothing
    is lost. Returns what puts the replaced handler back (None when it installed none)."""
    import signal

    from ..serve import STOPPED_WHILE_STARTING

    def stop(signum: int, frame: object) -> None:
        print(STOPPED_WHILE_STARTING, file=sys.stderr, flush=True)
        raise SystemExit(0)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread
        return None
    return lambda: signal.signal(signal.SIGTERM, previous)


def serve(
    model_file: Annotated[str, typer.Argument(metavar="MODEL", help="A model file.")],
    host: Annotated[
        str,
        typer.Option("--host", help="Address to listen on (default: this machine only)."),
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", help="Port to listen on; 0 picks a free one.")
    ] = 8000,
    token_file: Annotated[
        str | None,
        typer.Option(
            "--token-file",
            help="File whose first line is the bearer token that /learn and /unlearn need. "
            "Without it, learning is off.",
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            help="Worker processes. More than 1 turns learning off (user guide: the service).",
        ),
    ] = 1,
    max_body: Annotated[
        int, typer.Option("--max-body", help="Largest request body in bytes (413 above).")
    ] = 4 * 2**20,
    max_header: Annotated[
        int,
        typer.Option(
            "--max-header",
            help="Largest request line and headers together, in bytes (431 above, and the "
            "connection is closed).",
        ),
    ] = 64 * 2**10,
    timeout: Annotated[
        float,
        typer.Option("--timeout", help="Seconds a client has to send a request's headers or body."),
    ] = 10.0,
    max_in_flight: Annotated[
        int,
        typer.Option(
            "--max-in-flight", help="Requests served at once; 503 beyond (back-pressure)."
        ),
    ] = 256,
    save_interval: Annotated[
        float,
        typer.Option(
            "--save-interval",
            help="Seconds between background rewrites of MODEL with what was learned (the "
            "journal keeps every change meanwhile).",
        ),
    ] = 10.0,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allow-host",
            metavar="NAME",
            help="Another name the server answers to (NAME or NAME:PORT; repeatable; * for "
            "any). By default it answers to localhost, 127.0.0.1, [::1], the --host address "
            "and the address a request arrived at, and refuses other Host headers with 421 "
            "(DNS rebinding).",
        ),
    ] = None,
) -> None:
    """Serve MODEL over HTTP: MLflow's /invocations, /check and /learn for text models, and a
    web page at /. Learned messages go to MODEL.journal (fsync) before they are acknowledged;
    MODEL is rewritten atomically in the background."""
    try:
        import orjson  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise typer.BadParameter(
            f"the service needs the serve extra ({exc.name} is missing): "
            "pip install 'bayeskit[serve]'",
            param_hint="serve",
        ) from None
    from ..serve.app import ServeConfig, read_token
    from ..serve.hosts import allow_host_entry
    from ..serve.server import bind, run
    from .models import check_model_path, load_model

    for value, name in ((workers, "--workers"), (max_body, "--max-body"),
                        (max_in_flight, "--max-in-flight")):  # fmt: skip
        if value < 1:
            raise typer.BadParameter(f"must be at least 1, got {value}", param_hint=name)
    if workers > MAX_WORKERS:
        raise typer.BadParameter(
            f"at most {MAX_WORKERS} worker processes, got {workers}", param_hint="--workers"
        )
    if max_header < 1024:
        raise typer.BadParameter(
            f"must be at least 1024 bytes (a browser's request head alone takes several "
            f"hundred), got {max_header}",
            param_hint="--max-header",
        )
    if not 0 <= port <= 65535:
        raise typer.BadParameter(f"{port} is not a port (0-65535)", param_hint="--port")
    # (nan and inf never get here: every command refuses them)
    for seconds, name, top in ((timeout, "--timeout", MAX_TIMEOUT),
                               (save_interval, "--save-interval", MAX_SAVE_INTERVAL)):  # fmt: skip
        if not 0 < seconds <= top:
            raise typer.BadParameter(
                f"must be more than 0 and at most {top:g} seconds, got {seconds:g}",
                param_hint=name,
            )
    allowed = []
    for entry in allow_host or ():
        try:
            allowed.append(allow_host_entry(entry))
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--allow-host") from None
    if workers > 1:  # else the app loads it before binding: errors are one line, exit 2
        load_model(model_file)
    else:
        check_model_path(model_file)
    if token_file is not None:
        read_token(token_file)
    config = ServeConfig(
        model=model_file,
        token_file=token_file,
        workers=workers,
        max_body_bytes=max_body,
        max_header_bytes=max_header,
        timeout=timeout,
        max_in_flight=max_in_flight,
        save_interval=save_interval,
        host=host,
        allow_hosts=tuple(allowed),
    )
    try:
        sock = bind(host, port)
    except OSError as exc:
        raise typer.BadParameter(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    if host not in ("127.0.0.1", "localhost", "::1"):
        typer.echo(
            f"bayeskit serve: listening on {host}: anyone who can reach this machine can check "
            "messages (learning still needs the token); it answers requests sent to its IP "
            "address, and to a name given with --allow-host NAME",
            err=True,
        )
    with sock:  # closed however the server ends (a model that does not load, Ctrl+C)
        run(config, sock, announce=lambda text: typer.echo(text, err=True))
