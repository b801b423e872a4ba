"""``bayeskit filter --learn ... --from PATH`` as a mail user's cron job runs it over the
mailboxes they keep: a folder of mbox files (mutt's ``~/Mail``), a Maildir holding a file that
cannot be read. Every message is learned once, as a message, and a file that cannot be read
is named, not the end of the whole learn."""

from __future__ import annotations

from pathlib import Path

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
