"""CPU time of one ``POST /check`` inside the service's ASGI app, without sockets or clients.

Usage (from the project root)::

    python benchmarks/serve_check_cpu.py              # 8,000 checks of SMS messages, 3 rounds

It trains a SpamFilter on the bundled SMS Spam Collection, saves it, builds the app as
``bayeskit serve`` does (:func:`bayeskit.serve.create_app`, learning on) and sends it checks
of SMS messages one after the other through the ASGI interface, in an event loop of this
process (uvloop when installed, as the server uses). It reports the process's CPU time per
check in each round and their median: what the app costs a check (routing, reading the body,
scoring, the JSON answer), without uvicorn's HTTP parsing or the network, which the load test
(``serve_load.py``) adds. CPU time hardly depends on what else runs on a shared machine.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any


async def post(app: Any, path: str, body: bytes, headers: Any = ()) -> int:
    """One POST through the ASGI app, as uvicorn makes it (the body already received), and
    the status it answered (also what the service's tests send through the app)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-length", str(len(body)).encode()), *headers],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:  # the app never asks again for a body it has whole
            await asyncio.sleep(3600)
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    statuses: list[int] = []

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    await app(scope, receive, send)
    return statuses[0]


async def _check(app: Any, body: bytes) -> None:
    status = await post(app, "/check", body)
    if status != 200:
        raise RuntimeError(f"/check answered {status}")


async def _rounds(app: Any, bodies: list[bytes], rounds: int) -> list[float]:
    for body in bodies[:200]:  # the scorer's lookups and caches, not counted
        await _check(app, body)
    per_check = []
    for _ in range(rounds):
        start = time.process_time()
        for body in bodies:
            await _check(app, body)
        per_check.append(1e6 * (time.process_time() - start) / len(bodies))
    return per_check


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checks", type=int, default=8000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)

    import bayeskit as bk
    from bayeskit.datasets import load_sms_spam
    from bayeskit.serve import ServeConfig, create_app
    from bayeskit.text import SpamFilter

    texts, labels = load_sms_spam()
    rng = random.Random(0)
    bodies = [rng.choice(texts).encode() for _ in range(args.checks)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sms.bk"
        bk.save(SpamFilter().fit(texts, labels), path)
        (Path(tmp) / "token").write_text("serve-check-cpu-token\n")
        app = create_app(ServeConfig(str(path), token_file=str(Path(tmp) / "token")))
        try:
            import uvloop

            per_check = uvloop.run(_rounds(app, bodies, args.rounds))
        except ImportError:
            per_check = asyncio.run(_rounds(app, bodies, args.rounds))
        finally:
            app.service.state.close()  # type: ignore[attr-defined]
    print(f"{args.checks} checks of SMS messages through the ASGI app, {args.rounds} rounds")
    print()
    print("| round | CPU µs per check |")
    print("| --- | ---: |")
    for i, us in enumerate(per_check, 1):
        print(f"| {i} | {us:.1f} |")
    print(f"| median | {statistics.median(per_check):.1f} |")


if __name__ == "__main__":
    main()
