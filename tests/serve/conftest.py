"""Models, token files and clients for the service's tests.

The API tests use Starlette's TestClient (the app in this process); the end-to-end tests run
``bayeskit serve`` in a subprocess on a free port of 127.0.0.1 through ``ServerProcess`` from
``benchmarks/serve_load.py`` (one copy of that helper for the benchmark and the tests).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

import bayeskit as bk
from bayeskit.datasets import load_sms_spam
from bayeskit.text import SpamFilter, TextClassifier, TextVectorizer

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("uvicorn", reason="the serve extra is not installed")

from starlette.testclient import TestClient

from bayeskit.serve import ServeConfig, create_app
from bayeskit.serve.server import HEADER_BYTES_ENV, HEADER_TIMEOUT_ENV

TOKEN = "test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SPAMMY = "Congratulations! You have won a free prize, call now to claim your cash"
HAMMY = "see you at lunch tomorrow, I will bring the notes"


def _benchmark_module(name: str) -> Any:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


serve_load = _benchmark_module("serve_load")
ServerProcess = serve_load.ServerProcess
#: the in-process check benchmark; its ``post`` sends one request through an ASGI app
serve_check_cpu = _benchmark_module("serve_check_cpu")


_SERVER_ENV = (HEADER_TIMEOUT_ENV, HEADER_BYTES_ENV)  # what _config sets for the protocol


class ThreadServer:
    """The app on uvicorn, configured as ``bayeskit serve`` configures it, in a thread of this
    process on a free port of 127.0.0.1: a real socket, without the seconds a ``bayeskit
    serve`` process spends starting Python, bayeskit and the model (``ServerProcess`` runs
    the command itself)."""

    def __init__(self, config: ServeConfig) -> None:
        import uvicorn

        from bayeskit.serve.server import _config, bind

        self._env = {name: os.environ.get(name) for name in _SERVER_ENV}
        switch = sys.getswitchinterval()
        self._sock = bind("127.0.0.1", 0)
        self.port = self._sock.getsockname()[1]
        self._server = uvicorn.Server(_config(create_app(config), config))
        sys.setswitchinterval(switch)  # the server's setting for its own process, not ours
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 60
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.kill()
                raise RuntimeError("the server thread did not start")
            time.sleep(0.01)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        self._server.should_exit = True
        self._thread.join(30)
        self._sock.close()
        for name, value in self._env.items():  # the server's settings, set by _config
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


@pytest.fixture(scope="session")
def sms() -> tuple[list[str], np.ndarray]:
    texts, labels = load_sms_spam()
    return list(texts), np.asarray(labels)


@pytest.fixture(scope="session")
def sms_filter(sms) -> SpamFilter:
    texts, labels = sms
    # A lost ham costs 5 passed spams: the two-way decision differs from the 0.5 rule. Word
    # counts (scikit-learn's pipeline): the tests colour and explain single words.
    return SpamFilter.sklearn_defaults(lost_ham_cost=5.0).fit(texts, labels)


@pytest.fixture(scope="session")
def sms_file(tmp_path_factory, sms_filter) -> Path:
    path = tmp_path_factory.mktemp("models") / "sms.bk"
    bk.save(sms_filter, path)
    return path


EMAILS = [
    (b"From: Deals <deals@cheap.example>\nSubject: FREE money now\n\nClaim your free cash "
     b"prize at http://cheap.example/win now", "spam"),
    (b"From: Win <win@lottery.example>\nSubject: You won\n\nYou won the lottery, send your "
     b"bank details to claim the prize", "spam"),
    (b"From: Ann <ann@work.example>\nSubject: meeting notes\n\nHere are the notes from "
     b"today's meeting, see you tomorrow", "ham"),
    (b"From: Bob <bob@work.example>\nSubject: lunch\n\nShall we have lunch at noon? The "
     b"usual place", "ham"),
]  # fmt: skip


@pytest.fixture(scope="session")
def email_file(tmp_path_factory) -> Path:
    model = SpamFilter(vectorizer=TextVectorizer(analyzer="email"))
    model.fit([m for m, _ in EMAILS], [y for _, y in EMAILS])
    path = tmp_path_factory.mktemp("models") / "mail.bk"
    bk.save(model, path)
    return path


@pytest.fixture(scope="session")
def char_file(tmp_path_factory, sms) -> Path:
    """A spam filter over character n-grams (char_wb, 2 to 4 characters)."""
    texts, labels = sms
    model = SpamFilter(vectorizer=TextVectorizer(analyzer="char_wb", ngram_range=(2, 4)))
    path = tmp_path_factory.mktemp("models") / "chars.bk"
    bk.save(model.fit(texts, labels), path)
    return path


@pytest.fixture(scope="session")
def topics_file(tmp_path_factory) -> Path:
    """A text model with three classes that is not a spam filter."""
    model = TextClassifier().fit(
        ["the striker scored a goal", "a late goal won the match", "the court ruled today",
         "the judge read the ruling", "rain and wind tonight", "sunny weather tomorrow"],
        ["sport", "sport", "law", "law", "weather", "weather"],
    )  # fmt: skip
    path = tmp_path_factory.mktemp("models") / "topics.bk"
    bk.save(model, path)
    return path


def wine_frame() -> tuple[pl.DataFrame, np.ndarray]:
    from sklearn.datasets import load_wine

    data = load_wine()
    frame = pl.DataFrame(data.data, schema=[str(n) for n in data.feature_names], orient="row")
    # A text column too, so the table is mixed (the model picks a family per column).
    frame = frame.with_columns(
        pl.when(pl.col("alcohol") > 13).then(pl.lit("strong")).otherwise(pl.lit("light"))
        .alias("strength")
    )  # fmt: skip
    return frame, data.target.astype(str)


@pytest.fixture(scope="session")
def wine_file(tmp_path_factory) -> Path:
    frame, y = wine_frame()
    model = bk.MixedNB().fit(frame, y)
    path = tmp_path_factory.mktemp("models") / "wine.bk"
    bk.save(model, path)
    return path


@pytest.fixture(scope="session")
def numeric_file(tmp_path_factory) -> Path:
    """A GaussianNB fitted on a bare matrix: no column names."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    path = tmp_path_factory.mktemp("models") / "iris.bk"
    bk.save(bk.GaussianNB().fit(X, y), path)
    return path


def write_token(folder: Path) -> Path:
    path = folder / "token"
    path.write_text(TOKEN + "\n")
    return path


def served_copy(folder: Path, source: Path) -> Path:
    """A private copy of a model file (learning rewrites it, and writes a journal beside)."""
    target = folder / "served" / source.name
    target.parent.mkdir(exist_ok=True)
    shutil.copyfile(source, target)
    return target


@pytest.fixture
def token_file(tmp_path) -> Path:
    return write_token(tmp_path)


@pytest.fixture
def model_copy(tmp_path) -> Callable[[Path], Path]:
    return lambda source: served_copy(tmp_path, source)


@pytest.fixture
def serve(model_copy, token_file) -> Iterator[Callable[..., TestClient]]:
    """``serve(model_file, token=True, **config)``: a TestClient over a private copy."""
    clients: list[TestClient] = []

    def start(source: Path, *, token: bool = True, copy: bool = True, **config: Any) -> TestClient:
        path = model_copy(source) if copy else source
        settings = ServeConfig(
            model=str(path), token_file=str(token_file) if token else None, **config
        )
        # the name a browser on this machine sends (TestClient's own, testserver, is not
        # one the server answers to)
        client = TestClient(create_app(settings), base_url="http://localhost")
        client.__enter__()
        clients.append(client)
        return client

    yield start
    for client in clients:
        client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def categories_file(tmp_path_factory) -> Path:
    """A CategoricalNB fitted on two named columns of text categories."""
    rng = np.random.default_rng(0)
    frame = pl.DataFrame({"a": rng.choice(["x", "y", "z"], 120), "b": rng.choice(["p", "q"], 120)})
    model = bk.CategoricalNB().fit(frame, rng.choice(["no", "yes"], 120))
    path = tmp_path_factory.mktemp("models") / "cat.bk"
    bk.save(model, path)
    return path
