"""One message through ``bayeskit filter MODEL`` beside ``bogofilter -p``: what a mail delivery
agent pays per message.

A SpamFilter (defaults) and bogofilter (Debian's) are trained on the same SpamAssassin
training messages (``--train`` of easy_ham and of spam); then each of 50 messages of the test
folders (easy_ham_2, hard_ham, spam_2; seed 0) is piped through a fresh process of each, one
after the other, with ``python -c pass`` and ``python -c "import numpy"`` run beside them as
the machine's yardsticks (the same load for all). Printed: the median wall and CPU
(user + system, of the child) seconds per message of each, how many messages the token store
declined (scored by the full model instead), and whether every verdict is the model's. A few
messages also go through the full model (the path before the token store: numpy, scipy and
scikit-learn imported, the model file loaded), and each through a running ``bayeskit serve``
by ``bayeskit filter --server URL`` (its verdicts compared with the model's too), and the
server's own time per message is measured from this process (``POST /verdict`` on a fresh
connection, as the client sends it): the rest of that row is the client's start-up. Where
the ``bayeskit`` console script is installed beside this Python (what a mail delivery agent
runs), both commands are timed through it too (``python -m`` adds :mod:`runpy`'s imports).
bogofilter is skipped when absent.

    python benchmarks/filter_speed.py [--train 300] [--messages 50]

The bayeskit sources are byte-compiled first (as an installed package is), since this
machine sets PYTHONDONTWRITEBYTECODE (forced: a byte-code file is stale when its source's
size changed within the same second, which compileall alone does not check).
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import bayeskit as bk
from bayeskit.datasets.shared import data_dir
from bayeskit.text import SpamFilter, token_store

SRC = Path(bk.__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(SRC)}
STATUS = {0: "spam", 1: "ham", 2: "unsure"}


def timed(command: list[str], data: bytes) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall seconds, child CPU seconds, the finished process) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, input=data, capture_output=True, env=ENV, timeout=600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done


def _serve(model: Path) -> tuple[subprocess.Popen, str]:
    """A ``bayeskit serve MODEL`` on a free local port, answering."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "bayeskit", "serve", str(model), "--port", str(port)]
    server = subprocess.Popen(
        command, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            urllib.request.urlopen(f"{url}/ping", timeout=5).read()
            return server, url
        except OSError:
            time.sleep(0.5)
    server.terminate()
    raise RuntimeError("bayeskit serve did not answer")


def _server_time(url: str, raw: bytes) -> float:
    """Wall seconds of one ``POST /verdict`` of ``raw`` on a fresh connection."""
    host, port = url.removeprefix("http://").split(":")
    request = (
        f"POST /verdict HTTP/1.1\r\nHost: {host}\r\nContent-Type: message/rfc822\r\n"
        f"Content-Length: {len(raw)}\r\nConnection: close\r\n\r\n"
    ).encode() + raw
    start = time.perf_counter()
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(request)
        while sock.recv(65536):
            pass
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--train", type=int, default=300, help="messages of each class")
    parser.add_argument("--messages", type=int, default=50)
    parser.add_argument("--full", type=int, default=3, help="messages by the full model")
    args = parser.parse_args()
    root = data_dir() / "spamassassin-public-corpus"
    compileall.compile_dir(str(SRC / "bayeskit"), quiet=1, force=True)
    spam = sorted((root / "spam").iterdir())[: args.train]
    ham = sorted((root / "easy_ham").iterdir())[: args.train]
    tests = [p for d in ("easy_ham_2", "hard_ham", "spam_2") for p in sorted((root / d).iterdir())]
    picked = random.Random(0).sample(tests, args.messages)
    with tempfile.TemporaryDirectory() as tmp:
        model = Path(tmp) / "spam.bk"
        filt = SpamFilter().fit(
            [p.read_bytes() for p in spam + ham], ["spam"] * len(spam) + ["ham"] * len(ham)
        )
        bk.save(filt, model)
        token_store.rebuild(bk.load(model), model, token_store.model_stamp(model))
        bogo = shutil.which("bogofilter")
        if bogo:
            subprocess.run([bogo, "-d", tmp, "-s", "-B", *map(str, spam)], check=True)
            subprocess.run([bogo, "-d", tmp, "-n", "-B", *map(str, ham)], check=True)
        rows: dict[str, list[tuple[float, float]]] = {}
        declined = disagree = 0
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            'python -c "import numpy"': [sys.executable, "-c", "import numpy"],
            "bayeskit filter MODEL": [
                sys.executable, "-m", "bayeskit", "filter", str(model), "--verbose",
            ],
        }  # fmt: skip
        if bogo:
            commands["bogofilter -p"] = [bogo, "-d", tmp, "-p", "-e"]
        server, url = _serve(model)
        commands["bayeskit filter --server"] = [
            sys.executable, "-m", "bayeskit", "filter", "--server", url,
        ]  # fmt: skip
        script = Path(sys.executable).with_name("bayeskit")
        if script.exists():
            commands["console script: MODEL"] = [str(script), "filter", str(model)]
            commands["console script: --server"] = [str(script), "filter", "--server", url]
        server_disagree = 0
        for path in picked:
            raw = path.read_bytes()
            expected = str(filt.classify([raw[: 4 << 20]])[0])
            for name, command in commands.items():
                wall, cpu, done = timed(command, raw)
                rows.setdefault(name, []).append((wall, cpu))
                if name == "bayeskit filter MODEL":
                    declined += b"scored from the token store" not in done.stderr
                    disagree += STATUS.get(done.returncode) != expected
                if name == "bayeskit filter --server":
                    server_disagree += STATUS.get(done.returncode) != expected
            wall = _server_time(url, raw)
            rows.setdefault("server's answer (in-process)", []).append((wall, float("nan")))
        server.terminate()
        server.wait(timeout=60)
        full = (
            "from bayeskit.cli.filter_full import classify_message; import sys; "
            f"classify_message({str(model)!r}, sys.stdin.buffer.read())"
        )
        for path in picked[: args.full]:
            wall, cpu, _ = timed([sys.executable, "-c", full], path.read_bytes())
            rows.setdefault("full model (no store)", []).append((wall, cpu))
    print(f"{len(picked)} messages, model of {len(spam)} + {len(ham)} messages")
    print(f"{'per message (median)':<28} {'wall s':>8} {'CPU s':>8}")
    for name, times in rows.items():
        wall = statistics.median(t[0] for t in times)
        cpu = statistics.median(t[1] for t in times)
        print(f"{name:<28} {wall:8.3f} {cpu:8.3f}")
    if not shutil.which("bogofilter"):
        print("bogofilter not installed: its row is skipped")
    print(f"declined by the token store: {declined} of {len(picked)}")
    print(f"verdicts unlike the model's: {disagree} of {len(picked)}")
    print(f"verdicts of --server unlike the model's: {server_disagree} of {len(picked)}")
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
