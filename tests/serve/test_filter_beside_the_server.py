"""The mail filter's learner (``bayeskit filter MODEL --learn``) beside a server that learns
into the same model: it refuses at once while the server runs (it used to wait, silently,
as long as the server lived), refuses while the server's journal holds learns the model
file lacks (acknowledged, they exist nowhere else), and otherwise learns and names its new
model file in the journal, so the server starts from it (it used to refuse to start: "the
journal belongs to another version of the model file")."""

from __future__ import annotations

import os
import time

import numpy as np
from typer.testing import CliRunner

import bayeskit as bk
from bayeskit.cli.app import app
from bayeskit.serve.journal import file_sha256
from bayeskit.serve.state import ModelState

from .conftest import SPAMMY
from .test_journal import MESSAGES, _abandon, _learn, model  # noqa: F401 (a fixture)

MESSAGE = b"From: a@example.org\nSubject: offer\n\nwin a prize now, click here\n"


def _filter_learn(path, label="spam"):
    return CliRunner().invoke(app, ["filter", str(path), "--learn", label], input=MESSAGE)


def test_a_running_server_is_named_at_once(model):  # noqa: F811
    state = ModelState(str(model), learning=True, save_interval=3600)
    try:
        before = file_sha256(model)
        start = time.monotonic()
        result = _filter_learn(model)
        assert time.monotonic() - start < 10
        assert result.exit_code == 3
        assert "is being learned by a running bayeskit serve" in result.stderr
        assert result.stdout.encode() == MESSAGE  # the mail passed on all the same
        assert file_sha256(model) == before
    finally:
        state.close()
    # the server stopped: its mark is stale, and the filter learns
    assert _filter_learn(model).exit_code == 0


def test_learns_the_server_did_not_save_are_never_overwritten(model, sms_file):  # noqa: F811
    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES)
    _abandon(state)  # killed before saving: the journal alone holds the six learns
    before = file_sha256(model)
    refused = _filter_learn(model)
    assert refused.exit_code == 3
    assert "holds 6 message(s) learned through bayeskit serve" in refused.stderr
    assert file_sha256(model) == before
    # the server, started once, replays and saves them; then the filter learns
    again = ModelState(str(model), learning=True, save_interval=3600)
    assert again.replayed == len(MESSAGES)
    again.close()
    assert _filter_learn(model).exit_code == 0


def test_the_server_starts_from_the_filters_model_file(model, sms_file):  # noqa: F811
    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES)
    learned = dict(state.snapshot.learned)
    state.close()  # a clean stop: everything saved
    assert _filter_learn(model).exit_code == 0
    assert _filter_learn(model, "ham").exit_code == 0
    again = ModelState(str(model), learning=True, save_interval=3600)
    try:
        assert again.replayed == 0
        assert again.snapshot.learned == learned  # the index of its own learns kept
        expected = bk.load(sms_file)
        expected.partial_fit([t for t, _ in MESSAGES], [y for _, y in MESSAGES])
        expected.partial_fit([MESSAGE, MESSAGE], ["spam", "ham"])
        probe = [SPAMMY, "lunch at noon", MESSAGE.decode()]
        np.testing.assert_allclose(
            again.snapshot.model.predict_proba(probe), expected.predict_proba(probe), rtol=1e-9
        )
    finally:
        again.close()


def test_a_mark_left_by_a_killed_server_does_not_refuse_a_learner(model):  # noqa: F811
    """SIGKILL leaves the server's mark in MODEL.lock; a learner that finds the lock held by
    another learner (or a scorer writing the token store) then waits for it as usual."""
    import fcntl
    import subprocess
    import sys
    import threading

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    lock = f"{model}.lock"
    with open(lock, "wb") as f:
        f.write(b"bayeskit serve " + dead.encode() + b"\n")
    holder = os.open(lock, os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)  # another learner, for a moment
    threading.Timer(1.0, os.close, [holder]).start()
    result = _filter_learn(model)
    assert result.exit_code == 0, result.stderr
    assert "running bayeskit serve" not in result.stderr


def test_a_torn_last_line_is_cut_before_the_learners_checkpoint(model, monkeypatch):  # noqa: F811
    """A server killed in the middle of an append leaves a torn line; the learner's checkpoint
    glued to it made the journal unreadable for good (neither could start or learn)."""
    from bayeskit.cli import filter_cmd

    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES[:2])
    state.close()  # saved
    journal = f"{model}.journal"
    with open(journal, "ab") as f:
        f.write(b'{"type":"op","seq":3,"digest":"ab')  # torn: never acknowledged

    def killed_after_the_checkpoint(*args):  # the learner dies between checkpoint and replace
        raise KeyboardInterrupt

    real = filter_cmd._before_replace

    def then_killed(*args):
        real(*args)
        killed_after_the_checkpoint()

    monkeypatch.setattr(filter_cmd, "_before_replace", then_killed)
    _filter_learn(model)
    monkeypatch.undo()
    assert _filter_learn(model).exit_code == 0  # the journal is readable
    again = ModelState(str(model), learning=True, save_interval=3600)
    assert again.replayed == 0
    again.close()


def test_a_server_starting_while_a_learner_saves_waits_and_reads_its_file(model, monkeypatch):  # noqa: F811
    """The server read the model, then found the lock held by a learner that replaced the
    file meanwhile: it refused ("another bayeskit serve is learning", then "the journal
    belongs to another version"). It waits for the learner and reads the file it left."""
    import fcntl
    import threading

    from bayeskit.serve import state as state_module

    state = ModelState(str(model), learning=True, save_interval=3600)
    _learn(state, MESSAGES[:2])
    state.close()
    holder = os.open(f"{model}.lock", os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)  # a learner, under way
    real_load = state_module.load

    calls = []

    def learner_finishes_after_the_server_read(path):
        model_read = real_load(path)
        if not calls:  # the server's first read: the learner replaces the file meanwhile
            calls.append(path)
            assert _filter_learn_unlocked(path).exit_code == 0
            threading.Timer(0.5, os.close, [holder]).start()
        return model_read

    def _filter_learn_unlocked(path):
        from contextlib import nullcontext

        from bayeskit.cli import filter_cmd

        with monkeypatch.context() as patch:
            patch.setattr(filter_cmd, "locked", lambda p: nullcontext())  # it holds the lock
            return _filter_learn(path)

    monkeypatch.setattr(state_module, "load", learner_finishes_after_the_server_read)
    again = ModelState(str(model), learning=True, save_interval=3600)
    monkeypatch.undo()
    try:
        assert again.replayed == 0
        probe = [MESSAGE.decode()]
        np.testing.assert_allclose(
            again.snapshot.model.predict_proba(probe), bk.load(model).predict_proba(probe)
        )
    finally:
        again.close()


def test_the_learner_reads_the_journal_without_the_service_installed():
    """The journal's module imports neither starlette nor uvicorn (the ``serve`` extra): a
    mail filter's learner reads it, and learns, where only the base install is."""
    import subprocess
    import sys

    code = (
        "import sys; import bayeskit.serve.journal; "
        "print([m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn')])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
