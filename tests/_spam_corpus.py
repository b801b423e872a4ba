"""The SpamAssassin corpus as the spam filter's tests read it (``bayeskit filter``, the token
store), and a small filter trained on it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import bayeskit as bk
from bayeskit.datasets.shared import data_dir
from bayeskit.text import SpamFilter

try:
    CORPUS = data_dir() / "spamassassin-public-corpus"
except Exception:
    CORPUS = None
#: Mark a test module that reads the corpus (skipped where it is not).
needs_corpus = pytest.mark.skipif(
    CORPUS is None or not CORPUS.is_dir(), reason="the SpamAssassin corpus is not here"
)
#: The package's source, for the PYTHONPATH of the commands the tests run.
SRC = Path(__file__).resolve().parents[1] / "src"


def files(folder: str | None = None) -> list[Path]:
    """The message files of one folder of the corpus (None: of every folder), in name order."""
    assert CORPUS is not None
    folders = [folder] if folder else sorted(p.name for p in CORPUS.iterdir() if p.is_dir())
    return [p for name in folders for p in sorted((CORPUS / name).iterdir()) if p.is_file()]


def messages(folder: str, n: int) -> list[bytes]:
    """The first ``n`` raw messages of a folder of the corpus."""
    return [p.read_bytes() for p in files(folder)[:n]]


def trained_filter(path: Path, n: int, **params: Any) -> Path:
    """A SpamFilter(**params) fitted on the first ``n`` spam and ``n`` easy_ham messages,
    saved to ``path``."""
    spam, ham = messages("spam", n), messages("easy_ham", n)
    bk.save(SpamFilter(**params).fit(spam + ham, ["spam"] * n + ["ham"] * n), path)
    return path


@contextmanager
def served(model: str | Path, cwd: Path | None = None) -> Iterator[str]:
    """The URL of ``bayeskit serve MODEL`` run in a process on a free port of this machine,
    once it answers ``/ping``; stopped on leaving."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "bayeskit", "serve", str(model), "--port", str(port)]
    server = subprocess.Popen(
        command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"{url}/ping", timeout=5).read()
                break
            except OSError:
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=60)
