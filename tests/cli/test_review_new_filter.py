"""``bayeskit filter --learn`` beside a server's journal when the token store fails (a file that
is no store, a full disk: RLIMIT_FSIZE), learners at once, and a learner killed while saving:
the model is saved whole or not at all, the mail is passed on as it came, and the journal
still names the model file, so the server starts and the next learner learns."""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bayeskit as bk
from bayeskit.cli.output import save_model
from bayeskit.serve.journal import file_sha256
from bayeskit.serve.state import ModelState
from bayeskit.text import SpamFilter, token_store

SRC = Path(__file__).resolve().parents[2] / "src"
MESSAGE = b"From: a@example.org\nSubject: offer\n\nwin a prize now, click here\n"


def _big(n: int, tag: str = "w") -> bytes:
    words = " ".join(f"{tag}{i}" for i in range(n))
    return f"From: b@example.org\nSubject: long\n\n{words}\n".encode()


def _served_model(folder: Path) -> Path:
    """A spam filter that a learning ``bayeskit serve`` has run on (a journal beside it)."""
    path = folder / "m.bk"
    docs = ["win money now prize", "lunch at noon tomorrow", "cheap pills win", "notes attached"]
    save_model(SpamFilter().fit(docs, ["spam", "ham", "spam", "ham"]), str(path))
    ModelState(str(path), learning=True, save_interval=3600).close()
    assert os.path.exists(f"{path}.journal")
    return path


def _learn(path: Path, message: bytes, label: str = "spam", limit_kb: int | None = None):
    command = f"exec {sys.executable} -m bayeskit filter {path} --learn {label}"
    if limit_kb is not None:
        command = f"ulimit -f {limit_kb}; " + command
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(["sh", "-c", command], input=message, capture_output=True, env=env)


def _server_starts(path: Path) -> None:
    ModelState(str(path), learning=True, save_interval=3600).close()


def test_a_store_that_is_no_store_leaves_the_journal_naming_the_model(tmp_path):
    from typer.testing import CliRunner

    from bayeskit.cli.app import app

    def learn():
        return CliRunner().invoke(app, ["filter", str(path), "--learn", "spam"], input=MESSAGE)

    path = _served_model(tmp_path)
    Path(token_store.store_path(path)).write_bytes(b"not a SQLite database " * 200)
    result = learn()
    assert result.exit_code == 0, result.stderr
    assert result.stdout.encode() == MESSAGE
    assert "the token store was not updated" in result.stderr
    _server_starts(path)  # was: "the journal belongs to another version of the model file"
    again = learn()
    assert again.exit_code == 0, again.stderr
    assert bk.load(path).class_count_.sum() == pytest.approx(6)


@pytest.mark.slow  # processes of their own
def test_a_full_disk_under_the_store_leaves_the_journal_naming_the_model(tmp_path):
    # the size limit (RLIMIT_FSIZE) between the new model file's size and the store's: the
    # model is written, the store's rows are not (its commit fails, after the model is in place)
    (tmp_path / "probe").mkdir()
    probe = _served_model(tmp_path / "probe")
    assert _learn(probe, _big(20000)).returncode == 0
    model_kb = os.path.getsize(probe) // 1024 + 1
    store_kb = os.path.getsize(token_store.store_path(probe)) // 1024
    assert store_kb > 2 * model_kb
    path = _served_model(tmp_path)
    assert _learn(path, MESSAGE, "ham").returncode == 0  # a store to update
    result = _learn(path, _big(20000), limit_kb=(model_kb + store_kb) // 2)
    assert result.returncode == 0, result.stderr
    assert b"the token store was not updated" in result.stderr
    assert result.stdout == _big(20000)
    _server_starts(path)
    assert _learn(path, MESSAGE).returncode == 0


@pytest.mark.slow  # processes of their own
def test_a_full_disk_under_the_model_changes_nothing(tmp_path):
    path = _served_model(tmp_path)
    assert _learn(path, MESSAGE, "ham").returncode == 0
    before = {p: file_sha256(p) for p in glob.glob(f"{path}*") if not p.endswith(".lock")}
    result = _learn(path, _big(20000), limit_kb=8)
    assert result.returncode == 3
    assert result.stdout == _big(20000)  # the mail passed on all the same
    assert b"m.bk: cannot be written" in result.stderr
    after = {p: file_sha256(p) for p in glob.glob(f"{path}*") if not p.endswith(".lock")}
    assert after.keys() == before.keys()
    assert after[str(path)] == before[str(path)]
    assert not glob.glob(str(tmp_path / ".m.bk.*.tmp"))
    _server_starts(path)


@pytest.mark.slow  # processes of their own
def test_learners_at_once_lose_no_message(tmp_path):
    path = _served_model(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    learners = [
        subprocess.Popen(
            [sys.executable, "-m", "bayeskit", "filter", str(path), "--learn", label],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        for label in ["spam", "ham"] * 3
    ]
    for i, learner in enumerate(learners):
        out, err = learner.communicate(_big(200, f"t{i}x"), timeout=300)
        assert learner.returncode == 0, err
        assert out == _big(200, f"t{i}x")
    model = bk.load(path)
    assert model.class_count_.sum() == pytest.approx(4 + 6)
    _server_starts(path)


@pytest.mark.slow  # processes of their own
def test_a_learner_killed_while_saving_leaves_a_model_that_loads(tmp_path):
    path = _served_model(tmp_path)
    before = file_sha256(path)
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    learner = subprocess.Popen(
        [sys.executable, "-m", "bayeskit", "filter", str(path), "--learn", "spam"],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )  # fmt: skip
    assert learner.stdin is not None
    learner.stdin.write(_big(60000))
    learner.stdin.close()
    # killed once its temporary model file exists (or once it is done: then nothing to see)
    while learner.poll() is None and not glob.glob(str(tmp_path / ".m.bk.*.tmp")):
        time.sleep(0.001)
    if learner.poll() is None:
        os.kill(learner.pid, signal.SIGKILL)
    learner.wait(60)
    bk.load(path)  # the old model or the new one, whole
    if file_sha256(path) == before:
        assert bk.load(path).class_count_.sum() == pytest.approx(4)
    _server_starts(path)
    assert _learn(path, MESSAGE).returncode == 0
