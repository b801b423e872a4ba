"""A hostile review of the service while it learns: a full disk and SIGTERM while it starts,
a reader started beside a learning server while that one saves, a long journal to replay,
and a journal whose last line a crash cut short.

(The crash at each step of a save, SIGKILL in a group's fsync, damaged and foreign journals,
the token and the bodies a learn refuses are tested in test_journal, test_group_commit,
test_server, test_hostile, test_api and test_learn_requests.)
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import bayeskit as bk
import bayeskit.serve.journal as journal_module
import bayeskit.serve.state as state_module
from bayeskit.serve.journal import file_sha256
from bayeskit.serve.state import ModelState, digest_of

from .conftest import SPAMMY, TOKEN
from .test_journal import _abandon

MESSAGES = [
    (f"review {i}: {SPAMMY if i % 2 else 'lunch at noon'}", "spam" if i % 2 else "ham")
    for i in range(4)
]


@pytest.fixture
def model(sms_file, tmp_path) -> Path:
    path = tmp_path / "sms.bk"
    shutil.copyfile(sms_file, path)
    return path


def _token(folder: Path) -> Path:
    path = folder / "token"
    path.write_text(TOKEN + "\n")
    return path


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class _FullDiskFile:
    """A file whose buffered writes cannot reach a full disk (its flush fails)."""

    def __init__(self, handle) -> None:
        self._handle = handle

    def flush(self) -> None:
        _no_space()

    def __getattr__(self, name):
        return getattr(self._handle, name)


def _serve(model: Path, capsys) -> tuple[int, str]:
    from bayeskit.cli import main

    code = main(["serve", str(model), "--token-file", str(_token(model.parent)), "--port", "0"])
    return code, capsys.readouterr().err


def test_a_full_disk_at_start_names_the_journal_and_is_no_bug(model, monkeypatch, capsys):
    """No journal yet and no room for one: the server does not start, saying which file
    could not be written and why (it said "internal error … a bug in bayeskit": the failed
    write named no file)."""
    monkeypatch.setattr(journal_module.os, "fsync", _no_space)
    code, err = _serve(model, capsys)
    assert code == 2, err
    assert f"{model}.journal: No space left on device" in err
    assert "bug" not in err
    assert not (model.parent / "sms.bk.journal").exists()
    assert not (model.parent / "sms.bk.journal.tmp").exists()


def test_a_full_disk_for_the_lock_mark_names_the_lock_file(model, monkeypatch, capsys):
    real_open = open

    def full_open(path, mode="r", *args, **kwargs):
        handle = real_open(path, mode, *args, **kwargs)
        return _FullDiskFile(handle) if str(path).endswith(".lock") else handle

    monkeypatch.setattr(state_module, "open", full_open, raising=False)
    code, err = _serve(model, capsys)
    assert code == 2, err
    assert f"{model}.lock: No space left on device" in err
    assert "bug" not in err


def _journaled(model: Path, messages) -> None:
    """``messages`` learned and journaled, then a crash: the model file lacks them."""
    state = ModelState(str(model), learning=True, save_interval=3600)
    for text, label in messages:
        assert state.submit(text, label, unlearn=False).result(30)["learned"]
    _abandon(state)


#: ``bayeskit serve`` in a child process that sends itself SIGTERM at one moment of its start:
#: while it loads the model (``load``: before the server runs), or once it is loaded and
#: announced, just before uvicorn runs (``run``)
SIGTERM_CHILD = """
import os, signal, sys
import uvicorn
import bayeskit.serve.state as state
from bayeskit.cli import main

when, model, token = sys.argv[1:4]

def term():
    os.kill(os.getpid(), signal.SIGTERM)

if when == "load":
    real_load = state.load
    def load(path):
        term()
        return real_load(path)
    state.load = load
else:
    real_run = uvicorn.Server.run
    def run(self, *args, **kwargs):
        term()
        return real_run(self, *args, **kwargs)
    uvicorn.Server.run = run
sys.exit(main(["serve", model, "--token-file", token, "--port", "0"]))
"""


@pytest.mark.parametrize("when", ["load", "run"])
def test_sigterm_while_starting_says_so_and_loses_nothing(model, sms_file, when):
    """SIGTERM while the server starts ended it silently: while loading the model, killed
    by the signal (status -15, not a word); once announced, before uvicorn ran, with a
    "coroutine ... was never awaited" warning and its state never closed. Now it says it
    stopped before it answered a request, ends with status 0 (as a stop once it serves
    does), and every journaled learn is still there; stopped after loading, the server
    stops as a running one does, saving the replayed learns into the model file."""
    _journaled(model, MESSAGES)
    before = file_sha256(model)
    child = subprocess.run(
        [sys.executable, "-c", SIGTERM_CHILD, when, str(model), str(_token(model.parent))],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONWARNINGS": "default"},
    )
    assert child.returncode == 0, child.stderr[-2000:]
    assert "stopped by SIGTERM while starting, before it answered a request" in child.stderr
    assert "never awaited" not in child.stderr
    again = ModelState(str(model), learning=False)
    learned = again.snapshot.learned
    assert [learned.get(digest_of(t)) for t, _ in MESSAGES] == [y for _, y in MESSAGES]
    if when == "run":  # stopped as a running server stops: the learns saved, none to replay
        assert again.replayed == 0
        assert file_sha256(model) != before
        assert (model.parent / "sms.bk.lock").read_bytes() == b""  # no server holds it
    else:
        assert again.replayed == len(MESSAGES)
    expected = bk.load(sms_file).partial_fit([t for t, _ in MESSAGES], [y for _, y in MESSAGES])
    assert again.snapshot.model.class_count_.tolist() == expected.class_count_.tolist()


@pytest.mark.parametrize("compacted", [True, False], ids=["compacted", "checkpointed"])
def test_a_reader_started_while_the_learning_server_saves(model, sms_file, monkeypatch, compacted):
    """A server without a token beside a learning one (user guide: several workers) read
    the model file's sha256, then the file, then the journal. When the learning server's
    save replaced the file between those reads, the reader refused to start (the journal,
    compacted for the new file, "belongs to another version of the model file") or, before
    the compaction, replayed onto the new file the learns it already holds: each counted
    twice. Now it reads again until the model file is the one it hashed."""
    learner = ModelState(str(model), learning=True, save_interval=3600)
    for text, label in MESSAGES:
        assert learner.submit(text, label, unlearn=False).result(30)["learned"]
    real_load = state_module.load
    saved: list[bool] = []

    def load(path):
        if not saved:  # the learning server's save, between the reader's hash and its load
            assert learner.journal is not None
            with monkeypatch.context() as patch:
                if not compacted:  # saved and named by its checkpoint, not compacted yet
                    patch.setattr(learner.journal, "compact", lambda *args: None)
                saved.append(learner.save_now())
        return real_load(path)

    monkeypatch.setattr(state_module, "load", load)
    reader = ModelState(str(model), learning=False)
    assert saved == [True]
    expected = bk.load(sms_file).partial_fit([t for t, _ in MESSAGES], [y for _, y in MESSAGES])
    served = reader.snapshot.model
    assert served.class_count_.tolist() == expected.class_count_.tolist()
    assert reader.snapshot.learned == {digest_of(t): y for t, y in MESSAGES}
    assert reader.replayed == 0  # the file it serves holds them all
    learner.close()


def test_replaying_a_long_journal_reads_the_models_classes_a_fixed_number_of_times(
    sms_file, monkeypatch
):
    """apply_ops looked each operation's label up in ``model.classes_``, a property that
    checks the fitted model each time it is read (0.7 ms for the SMS filter): 200,000
    journaled learns took 85 s to replay at start, three quarters of it there, and every
    learn paid it on the event loop. The labels are now looked up once per call."""
    model = bk.load(sms_file)
    cls = type(model)
    real = cls.classes_
    reads: list[int] = []

    def counted(self):
        reads.append(1)
        return real.fget(self)

    monkeypatch.setattr(cls, "classes_", property(counted))
    counts = []
    for n in (10, 100):
        reads.clear()
        ops = [(f"replayed {i} {SPAMMY}", "spam", None) for i in range(n)]
        ops += [(f"replayed {i} {SPAMMY}", None, "spam") for i in range(n // 2)]
        state_module.apply_ops(model, ops)
        counts.append(len(reads))
    assert counts[0] == counts[1], counts


def test_a_torn_last_line_is_dropped_and_said(model, token_file):
    """A journal whose last line a crash cut short: its learn was never acknowledged, and
    it was dropped without a word (the banner said only what was replayed); now the server
    says it dropped it."""
    from bayeskit.serve import ServeConfig, create_app
    from bayeskit.serve.server import _banner

    _journaled(model, MESSAGES[:2])
    journal = model.parent / "sms.bk.journal"
    journal.write_bytes(journal.read_bytes() + b'{"type":"op","seq":3,"dig')
    app = create_app(ServeConfig(model=str(model), token_file=str(token_file)))
    try:
        banner = _banner(app.service.config, "http://127.0.0.1:8000", app)
    finally:
        app.service.state.close()
    assert "replayed 2 learned message(s) from the journal" in banner
    assert "dropped the journal's last line: a crash cut it short" in banner
    whole = ModelState(str(model), learning=False)  # the torn line was cut: nothing to say
    assert not whole.dropped_tail
    assert len(whole.snapshot.learned) == 2


def test_two_saves_never_run_at_once(model, sms_file, monkeypatch):
    """close() saves after waiting (30 s at most) for the saver thread, which may still be
    saving then (a large model on a slow disk). Two saves at once wrote the same
    MODEL.saving: one could hash the other's file and name it, in its checkpoint and the
    compacted journal, as holding fewer operations than it does, and a restart would replay
    those onto it, counted twice. A save now waits for the one under way."""
    state = ModelState(str(model), learning=True, save_interval=3600)
    for text, label in MESSAGES[:2]:
        assert state.submit(text, label, unlearn=False).result(30)["learned"]
    real_save = state_module.save
    inside: list[str] = []
    overlap: list[bool] = []
    second_called = threading.Event()
    second_inside = threading.Event()

    def save(m, path):
        inside.append(path)
        overlap.append(len(inside) > 1)
        if len(inside) > 1:
            second_inside.set()
        elif second_called.wait(30):  # the first save: the second one is called meanwhile
            second_inside.wait(1)  # before the fix it got in; with it, it waits for this one
        real_save(m, path)
        inside.pop()

    monkeypatch.setattr(state_module, "save", save)
    first = threading.Thread(target=state.save_now)
    first.start()
    for text, label in MESSAGES[2:]:  # learned while the first save runs
        assert state.submit(text, label, unlearn=False).result(30)["learned"]

    def second_save() -> None:
        second_called.set()
        state.save_now()

    second = threading.Thread(target=second_save)
    second.start()
    first.join(60)
    second.join(60)
    assert overlap == [False, False]
    _abandon(state)
    again = ModelState(str(model), learning=False)
    expected = bk.load(sms_file).partial_fit([t for t, _ in MESSAGES], [y for _, y in MESSAGES])
    assert again.snapshot.model.class_count_.tolist() == expected.class_count_.tolist()
    assert again.replayed == 0


def test_the_leftovers_of_a_save_are_found_by_the_model_files_own_name(model, tmp_path):
    """At start a learning server removes what a crash in the middle of its save left
    (MODEL.saving and save's temporary .MODEL.saving.*.tmp), found by a shell pattern
    built from the model file's name: a name holding [ab] matched another model's
    temporary file in the same folder (that server's save under way) and removed it, and
    missed its own. The name is now matched as it is."""
    odd = tmp_path / "sms[ab].bk"
    shutil.copyfile(model, odd)
    own = tmp_path / ".sms[ab].bk.saving.1234.tmp"
    other = tmp_path / ".sma.bk.saving.5678.tmp"  # sma.bk's save, under way
    own.write_bytes(b"partial")
    other.write_bytes(b"partial")
    ModelState(str(odd), learning=True, save_interval=3600).close()
    assert not own.exists()
    assert other.exists()


def test_a_save_that_fails_as_the_server_stops_is_said(model, sms_file, monkeypatch, caplog):
    """The last save, as the server stops, failed without a word (a full disk): the learns
    are safe in the journal, and the server now says so."""
    state = ModelState(str(model), learning=True, save_interval=3600)
    for text, label in MESSAGES:
        assert state.submit(text, label, unlearn=False).result(30)["learned"]
    monkeypatch.setattr(state_module, "save", _no_space)
    with caplog.at_level("WARNING", logger="bayeskit.serve"):
        state.close()
    said = " ".join(record.getMessage() for record in caplog.records)
    assert f"saving {model} as the server stops failed (No space left on device)" in said
    assert "the next start replays them" in said
    again = ModelState(str(model), learning=False)
    assert again.replayed == len(MESSAGES)
