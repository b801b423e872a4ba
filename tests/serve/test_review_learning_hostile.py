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
from pathlib import Path

import pytest

import bayeskit.serve.journal as journal_module
import bayeskit.serve.state as state_module

from .conftest import SPAMMY, TOKEN

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
