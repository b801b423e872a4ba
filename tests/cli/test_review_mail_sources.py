"""``bayeskit filter --learn ... --from PATH`` as a mail user's cron job runs it over the
mailboxes they keep: a folder of mbox files (mutt's ``~/Mail``), a Maildir holding a file that
cannot be read. Every message is learned once, as a message, and a file that cannot be read
is named, not the end of the whole learn."""

from __future__ import annotations

from pathlib import Path

import pytest

import bayeskit as bk
from bayeskit.cli import filter_cmd

from .._spam_corpus import needs_corpus, trained_filter

ENVELOPE = b"From a@b Mon Jan  1 00:00:00 2024\n"
ONE = b"From: ann@example.org\nSubject: lunch\n\nLunch at noon tomorrow?\n"
TWO = b"From: bob@example.org\nSubject: minutes\n\nThe minutes of the meeting.\n"
THREE = b"From: cy@example.org\nSubject: report\n\nThe quarterly report is attached.\n"


def _folder_of_mboxes(tmp_path: Path) -> Path:
    folder = tmp_path / "Mail"
    folder.mkdir()
    (folder / "archive.mbox").write_bytes(ENVELOPE + ONE + b"\n" + ENVELOPE + TWO)
    (folder / "sent").write_bytes(ENVELOPE + ONE + b"\n" + ENVELOPE + THREE)  # no suffix
    (folder / "saved.eml").write_bytes(ENVELOPE + THREE)  # one message with its envelope
    return folder


def test_a_folder_of_mbox_files_gives_each_of_their_messages(tmp_path):
    # Each mbox file of a folder was one "message" of all its messages' words: learned as one
    # (the count line said "3 of 3 messages learned" for 5 messages), every word counted once.
    got = filter_cmd.named_messages(_folder_of_mboxes(tmp_path))
    names = [Path(name).name for name, _ in got]
    assert names == ["archive.mbox#1", "archive.mbox#2", "saved.eml", "sent#1", "sent#2"]
    bodies = [raw for _, raw in got]
    assert bodies[0].startswith(ONE.rstrip(b"\n"))
    assert bodies[1].startswith(TWO.rstrip(b"\n"))
    assert bodies[2] == ENVELOPE + THREE  # a lone message is read whole, as before
    assert bodies[4].startswith(THREE.rstrip(b"\n"))


@needs_corpus
def test_learning_a_folder_of_mbox_files_counts_every_message(tmp_path):
    model = trained_filter(tmp_path / "m.bk", 10)
    before = bk.load(model).class_count_.tolist()
    folder = _folder_of_mboxes(tmp_path)
    messages = [raw for _, raw in filter_cmd.named_messages(folder)]
    assert filter_cmd._change(str(model), messages, "ham", True, False) == 5
    after = bk.load(model).class_count_.tolist()
    assert sum(after) - sum(before) == 5


def _maildir_with_a_locked_file(tmp_path: Path) -> Path:
    box = tmp_path / "Junk"
    for sub in ("cur", "new", "tmp"):
        (box / sub).mkdir(parents=True)
    (box / "cur" / "1.host:2,S").write_bytes(ONE)
    (box / "cur" / "2.host:2,S").write_bytes(TWO)  # another user's file, mode 000 (below)
    (box / "new" / "3.host").write_bytes(THREE)
    return box


def _failing(monkeypatch, name: str, error: OSError) -> None:
    """Reading files called ``name`` (``Path.read_bytes``, ``Path.open``) raises ``error``."""
    real_bytes, real_open = Path.read_bytes, Path.open

    def read_bytes(self: Path) -> bytes:
        if self.name == name:
            raise error
        return real_bytes(self)

    def open_(self: Path, *args, **kwargs):
        if self.name == name:
            raise error
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    monkeypatch.setattr(Path, "open", open_)


def _unreadable(monkeypatch, name: str) -> None:
    """Reading files called ``name`` fails as a file of mode 000 does for anyone but root
    (the tests may run as root, who reads it anyway)."""
    _failing(monkeypatch, name, PermissionError(13, "Permission denied", name))


def test_a_file_that_cannot_be_read_is_named_and_the_rest_is_read(tmp_path, monkeypatch):
    # One unreadable file of a Maildir (or a folder) ended the whole learn with status 3:
    # a cron job learning ~/Maildir/.Junk learned nothing from then on.
    box = _maildir_with_a_locked_file(tmp_path)
    _unreadable(monkeypatch, "2.host:2,S")
    unreadable: list[str] = []
    got = filter_cmd.named_messages(box, unreadable=unreadable)
    assert [raw for _, raw in got] == [ONE, THREE]
    assert unreadable == [f"{box / 'cur' / '2.host:2,S'} (Permission denied)"]
    with pytest.raises(PermissionError):  # asked for without a list: the error, as before
        filter_cmd.named_messages(box)
    flat = tmp_path / "flat"
    flat.mkdir()
    for name, raw in (("a", ONE), ("b", TWO), ("c", THREE)):
        (flat / name).write_bytes(raw)
    _unreadable(monkeypatch, "b")
    unreadable = []
    assert [raw for _, raw in filter_cmd.named_messages(flat, unreadable=unreadable)] == [
        ONE,
        THREE,
    ]
    assert unreadable == [f"{flat / 'b'} (Permission denied)"]


@needs_corpus
def test_learning_a_maildir_with_a_file_that_cannot_be_read(tmp_path, monkeypatch, capsys):
    model = trained_filter(tmp_path / "m.bk", 10)
    before = int(bk.load(model).class_count_.sum())
    box = _maildir_with_a_locked_file(tmp_path)
    _unreadable(monkeypatch, "2.host:2,S")
    progress = filter_cmd._Progress()
    status = filter_cmd._learn(str(model), "spam", None, False, str(box), progress)
    assert status == 0
    err = capsys.readouterr().err
    assert "2 of 3 messages learned; 1 refused, files that cannot be read: " in err
    assert "2.host:2,S (Permission denied)" in err
    assert int(bk.load(model).class_count_.sum()) == before + 2


def test_a_file_gone_since_the_folder_was_listed_is_left_out(tmp_path, monkeypatch):
    flat = tmp_path / "flat"
    flat.mkdir()
    for name, raw in (("a", ONE), ("b", TWO)):
        (flat / name).write_bytes(raw)
    # "a" moved away by the mail client after the listing
    _failing(monkeypatch, "a", FileNotFoundError(2, "No such file or directory", "a"))
    assert filter_cmd.messages_in(flat) == [TWO]
