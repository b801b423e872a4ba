"""What a hostile review of the service noticed and left: a full disk's 507 given to the
other learns of its group, a redirect built from the Host header, CSV headers and RFC 4180's
``header`` parameter, NaN in JSON, unknown ``dataframe_split`` keys, Python reprs in
answers, and a long journal replayed at start without a word.

Each is checked on a real server (uvicorn in a thread, :class:`ThreadServer`) or, for what
the HTTP layer does not change, through the app.
"""

from __future__ import annotations

import errno
import http.client
import json
import os
import threading
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import bayeskit as bk
import bayeskit.serve.journal as journal_module
from bayeskit.serve import ServeConfig

from .conftest import AUTH, HAMMY, SPAMMY, ThreadServer
from .test_server import call


@pytest.fixture(scope="module")
def categories_file(tmp_path_factory) -> Path:
    """A CategoricalNB fitted on two named columns of text categories."""
    rng = np.random.default_rng(0)
    frame = pl.DataFrame({"a": rng.choice(["x", "y", "z"], 120), "b": rng.choice(["p", "q"], 120)})
    model = bk.CategoricalNB().fit(frame, rng.choice(["no", "yes"], 120))
    path = tmp_path_factory.mktemp("models") / "cat.bk"
    bk.save(model, path)
    return path


@pytest.fixture(scope="module")
def measures_file(tmp_path_factory) -> Path:
    """A GaussianNB fitted on two named columns of numbers."""
    rng = np.random.default_rng(1)
    frame = pl.DataFrame({"u": rng.normal(size=80), "v": rng.normal(size=80)})
    path = tmp_path_factory.mktemp("models") / "gauss.bk"
    bk.save(bk.GaussianNB().fit(frame, rng.choice(["no", "yes"], 80)), path)
    return path


@pytest.fixture(scope="module")
def codes_file(tmp_path_factory) -> Path:
    """A CategoricalNB fitted on two columns of integer codes."""
    rng = np.random.default_rng(2)
    frame = pl.DataFrame({"a": rng.integers(0, 3, 90), "b": rng.integers(0, 3, 90)})
    path = tmp_path_factory.mktemp("models") / "codes.bk"
    bk.save(bk.CategoricalNB().fit(frame, rng.choice(["no", "yes"], 90)), path)
    return path


def _says(response, status: int, parts: list[str]) -> None:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    for part in parts:
        assert part in message, (part, message)


# ------------------------------------------------------------------ 1. a full disk in a group
def _learn(port: int, path: str, text: str) -> tuple[int, dict]:
    return call(port, "POST", path, text.encode(), AUTH)


def test_a_full_disk_leaves_the_other_answers_of_its_group_as_they_are(
    sms_file, model_copy, token_file, monkeypatch
):
    """A learn refused for a full disk (507) turned every other request queued behind it
    into a 507 too, a duplicate learn and an unlearn of a message never learned included,
    which need no journal line: each now keeps its own answer."""
    model = model_copy(sms_file)
    config = ServeConfig(model=str(model), token_file=str(token_file), save_interval=3600)
    server = ThreadServer(config)  # (no save meanwhile: its checkpoint would fsync too)
    state = server._server.config.app.service.state
    try:
        assert _learn(server.port, "/learn/spam", SPAMMY)[0] == 200  # durable
        entered, release = threading.Event(), threading.Event()
        real_fsync = journal_module._fsync

        def full(fd: int) -> None:
            entered.set()
            release.wait(30)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(journal_module, "_fsync", full)
        answers: dict[str, tuple[int, dict]] = {}

        def send(name: str, path: str, text: str) -> threading.Thread:
            thread = threading.Thread(
                target=lambda: answers.__setitem__(name, _learn(server.port, path, text))
            )
            thread.start()
            return thread

        threads = [send("first", "/learn/ham", HAMMY)]
        assert entered.wait(30)  # its group's fsync is under way: the others queue behind
        threads += [
            send("new", "/learn/ham", f"{HAMMY} and more"),
            send("duplicate", "/learn/spam", SPAMMY),
            send("never learned", "/unlearn/ham", "a message nobody sent"),
            send("other label", "/unlearn/ham", SPAMMY),
        ]
        deadline = time.monotonic() + 30
        while state._queue.qsize() < 4 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert state._queue.qsize() == 4
        release.set()
        for thread in threads:
            thread.join(30)
        monkeypatch.setattr(journal_module, "_fsync", real_fsync)
        assert answers["first"][0] == 507
        assert answers["new"][0] == 507
        status, got = answers["duplicate"]
        assert status == 200, got
        assert got["duplicate"] is True
        assert got["learned"] is False
        status, got = answers["never learned"]
        assert status == 409, got
        assert "never learned" in got["error"]
        status, got = answers["other label"]
        assert status == 409, got
        assert "learned as 'spam', not 'ham'" in got["error"]
        # nothing of the refused learns was kept, and learning goes on
        assert call(server.port, "GET", "/health")[1]["learned_messages"] == 1
        assert _learn(server.port, "/learn/ham", HAMMY)[0] == 200
    finally:
        server.kill()


# ------------------------------------------------------------------ 2. a trailing slash
@pytest.mark.parametrize(
    ("method", "path", "meant"),
    [("GET", "/metadata/", "/metadata"), ("POST", "/invocations/", "/invocations"),
     ("GET", "/health//", "/health"), ("GET", "/nothing/", None)],
)  # fmt: skip
def test_a_trailing_slash_is_no_redirect_to_the_host_header(
    topics_file, model_copy, method, path, meant
):
    """``GET /metadata/`` was a 307 with an empty body whose Location was built from the
    request's Host header; now a 404 as other unknown paths get, naming the path meant."""
    server = ThreadServer(ServeConfig(model=str(model_copy(topics_file)), allow_hosts=("*",)))
    try:
        headers = {"Host": "elsewhere.example", "Content-Type": "application/json"}
        conn = http.client.HTTPConnection("127.0.0.1", server.port)
        conn.request(method, path, body=b'{"inputs": ["hi"]}', headers=headers)
        response = conn.getresponse()
        body = response.read()
        conn.close()
        assert response.status == 404, body
        assert response.getheader("location") is None
        message = json.loads(body)["error"]
        assert message.startswith(f"no such resource: {method} {path}")
        if meant:
            assert f"the resource is {meant}, without the trailing slash" in message
        else:
            assert "trailing slash" not in message
        assert "elsewhere.example" not in message
    finally:
        server.kill()
