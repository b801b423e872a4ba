"""``bayeskit filter`` at the edges of what a mail delivery agent gives it: a message larger
than the filter reads is learned as far as it is scored, never read whole; a mailbox is
learned in batches, never read whole; a learner whose output fails has learned nothing (the
mail system will give it the message again); and a message with no blank line after its
headers or with bare CR line endings gets its verdict headers where its header block ends
(before its first body line, as procmail's formail puts its own), not after its body."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.cli import filter_cmd, mail_sources
from bayeskit.cli import mail_headers as mh
from bayeskit.text import SpamFilter

from .._spam_corpus import SRC, needs_corpus, trained_filter

ENVELOPE = b"From sender@example.org  Mon Jan  1 00:00:00 2024\n"
OURS = [(b"X-Bayeskit-Spam", b"Yes"), (b"X-Bayeskit-Score", b"0.999000")]

# ------------------------------------------------------------ where the headers end
_VALUE = st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b""))
_FIELD = st.tuples(
    st.sampled_from([b"Subject", b"From", b"To", b"Received", b"X-Mailer", b"content-type"]),
    st.sampled_from([b": ", b":", b" : "]),
    _VALUE,
).map(b"".join)
_CONTINUATION = _VALUE.map(lambda v: b" " + v)
#: a line no header block holds: neither a field (no colon after a name) nor a continuation
_BODY_START = st.sampled_from(
    [b"Hello there", b"hi, this is plain text", b"-- ", b"<html>", b"a:b c", b"To whom: it"]
).filter(lambda line: mh.header_end(line + b"\n") is None)
#: any line of a body, one that looks like a header field too
_BODY_LINE = st.one_of(_VALUE, _FIELD)


@st.composite
def _messages(draw):
    """(message, where its header block ends) in one of LF, CRLF and bare CR line endings:
    header fields (and continuation lines), maybe an mbox envelope line first (ended by LF,
    as procmail adds it), then an empty line, or a body line straight after the headers, or
    no body at all."""
    newline = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    lines = [draw(_FIELD)]
    for _ in range(draw(st.integers(0, 5))):
        lines.append(draw(st.one_of(_FIELD, _CONTINUATION)))
    envelope = ENVELOPE if draw(st.booleans()) else b""
    head = envelope + b"".join(line + newline for line in lines)
    ending = draw(st.sampled_from(["blank", "body", "none"]))
    if ending == "none":
        return head, len(head)
    first = b"" if ending == "blank" else draw(_BODY_START)
    body = [first, *draw(st.lists(_BODY_LINE, max_size=4))]
    return head + newline.join(body) + draw(st.sampled_from([b"", newline])), len(head)


@settings(max_examples=500, deadline=None)
@given(_messages())
@example((b"Subject: a\rFrom: b\r\rbody line: x\rmore\r", 19))  # old Macintosh mail
@example((b"Subject: a\nFrom: b\nHello there\nFrom: c\n", 19))  # no blank line
@example((b"From a@b x\nSubject: a\rTo: b\rHello\r", 28))  # bare CR after the envelope
def test_the_verdict_headers_come_before_the_first_body_line(case):
    # They went after the body: the header block ended at the first empty line only (LF or
    # CRLF), so a message without one before its body, or whose lines end in bare CR (no LF
    # anywhere), was all headers, and the verdict was appended at its very end.
    raw, head = case
    assert mh.header_end(raw) == head
    out = mh.with_headers(raw, head, OURS)
    newline = b"\r" if raw[head - 1 : head] == b"\r" else b"\n"
    if raw[head - 2 : head] == b"\r\n":
        newline = b"\r\n"
    added = b"".join(name + b": " + value + newline for name, value in OURS)
    assert out == raw[:head] + added + raw[head:]  # every other byte as it came


def _filter(*args: object, data: bytes) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = [sys.executable, "-m", "bayeskit", "filter", *map(str, args)]
    return subprocess.run(command, input=data, capture_output=True, env=env, timeout=300)


@needs_corpus
def test_the_filter_puts_its_verdict_before_the_body_of_such_messages(tmp_path):
    model = trained_filter(tmp_path / "m.bk", 10)
    for raw, head in [
        (b"Subject: lunch\rFrom: ann@example.org\r\rLunch at noon?\rAnn\r", 37),
        (b"Subject: lunch\nFrom: ann@example.org\nLunch at noon?\nAnn\n", 37),
    ]:
        got = _filter(model, "--exit-zero", data=raw)
        assert got.returncode == 0, got.stderr
        added = got.stdout[head : len(got.stdout) - len(raw) + head]
        assert got.stdout == raw[:head] + added + raw[head:]
        assert added.startswith(b"X-Bayeskit-Spam: ")
        assert b"X-Bayeskit-Score: " in added


# ------------------------------------------------------------ learning: how much is read
HAM = [
    b"From: ann@example.org\nSubject: lunch\n\nLunch at noon tomorrow? The usual place.\n",
    b"From: bob@example.org\nSubject: minutes\n\nThe minutes of the meeting are attached.\n",
    b"From: cy@example.org\nSubject: report\n\nThe quarterly report, as promised.\n",
]
SPAM = [
    b"From: win@prize.example\nSubject: WIN\n\nYou WIN a free prize, click now!!!\n",
    b"From: cash@loans.example\nSubject: cash\n\nFast cash loans, no credit check, apply now\n",
    b"From: pills@shop.example\nSubject: offer\n\nCheap pills, best offer, order now\n",
]
#: the start of a big message's body, and what follows the part the filter reads
FILLER = b"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod\n"
TAIL = b"zebra quagga okapi\n"


@pytest.fixture
def model(tmp_path) -> Path:
    path = tmp_path / "m.bk"
    bk.save(SpamFilter().fit(HAM + SPAM, ["ham"] * 3 + ["spam"] * 3), path)
    return path


def _stats(model: Any) -> tuple[list[float], dict[str, tuple[float, ...]]]:
    """The filter's class counts and each term's count in each class."""
    vec, nb = model.fitted_parts()
    counts = np.asarray(nb.feature_count_)
    terms = {str(t): tuple(counts[:, j].tolist()) for j, t in enumerate(vec.terms_)}
    return model.class_count_.tolist(), terms


def _calibration(model: Any) -> tuple[list[list[float]], tuple[float, float]]:
    """The held-out score counts the filter's probability scale is fitted on, and the scale."""
    return model.score_counts().tolist(), tuple(model.calibration_)


def _learned_as(path: Path, messages: list[bytes], label: str) -> Any:
    """The model file ``path`` with ``messages`` learned all at once by the library."""
    model = bk.load(path)
    own = model.spam_label if label == "spam" else model.ham_label
    return model.partial_fit(messages, [own] * len(messages))


class _Input(io.RawIOBase):
    """Standard input holding ``data``, which refuses to be read whole at once."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), len(self.data) - self.at)
        buffer[:n] = self.data[self.at : self.at + n]
        self.at += n
        return n

    def readall(self) -> bytes:
        raise AssertionError("standard input was read whole, at once")


class _Output(io.RawIOBase):
    """Standard output that keeps what is written and the largest single write; from
    ``fail_after`` bytes on it fails as a full disk does."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.parts: list[bytes] = []
        self.largest = 0
        self.fail_after = fail_after

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        data = bytes(data)
        if self.fail_after is not None and sum(map(len, self.parts)) + len(data) > self.fail_after:
            raise OSError(28, "No space left on device")
        self.parts.append(data)
        self.largest = max(self.largest, len(data))
        return len(data)


def _std(monkeypatch, data: bytes, out: _Output) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(_Input(data))))
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BufferedWriter(out)))


def _big(limit: int, tail: int) -> bytes:
    head = b"From: big@example.org\nSubject: a big one\n\n"
    return head + FILLER * (limit // len(FILLER) + 1) + TAIL * (tail // len(TAIL) + 1)


def test_learning_reads_and_learns_what_the_filter_scores():
    # One constant: the scorer's limit is the learner's (it read all of a message, 745 MB
    # for one of 50 MB, and learned words the scorer never reads).
    assert filter_cmd.SCORED_BYTES is mh.SCORED_BYTES


@pytest.mark.parametrize("limit", [4096, 65536])
def test_a_message_larger_than_the_limit_is_learned_as_its_prefix(
    model, monkeypatch, capsys, limit
):
    # (The scorer's 4 MiB made small, as a message a thousand times the limit would be.)
    monkeypatch.setattr(filter_cmd, "SCORED_BYTES", limit)
    raw = _big(limit, 1 << 20)
    expected = _stats(_learned_as(model, [raw[:limit]], "spam"))
    out = _Output()
    _std(monkeypatch, raw, out)
    assert filter_cmd._learning(str(model), "spam", None, False, None) == 0
    assert b"".join(out.parts) == raw  # passed on whole
    assert out.largest <= max(limit, 1 << 16) < len(raw)  # in pieces, never all at once
    learned = _stats(bk.load(model))
    assert learned == expected
    assert "zebra" not in learned[1]
    assert "lorem" in learned[1]
    assert "1 of 1 messages learned" in capsys.readouterr().err


@pytest.mark.slow
def test_a_message_larger_than_the_real_limit_is_learned_as_its_prefix(model, monkeypatch):
    raw = _big(mh.SCORED_BYTES, 1 << 20)
    expected = _stats(_learned_as(model, [raw[: mh.SCORED_BYTES]], "spam"))
    out = _Output()
    _std(monkeypatch, raw, out)
    assert filter_cmd._learning(str(model), "spam", None, False, None) == 0
    assert b"".join(out.parts) == raw
    assert _stats(bk.load(model)) == expected


def _maildir(path: Path, messages: list[bytes]) -> Path:
    for sub in ("cur", "new", "tmp"):
        (path / sub).mkdir(parents=True)
    for i, raw in enumerate(messages):
        (path / "new" / f"{i:04d}.host").write_bytes(raw)
    return path


def test_a_mailbox_is_learned_as_far_as_each_message_is_scored(model, tmp_path, monkeypatch):
    limit = 4096
    monkeypatch.setattr(filter_cmd, "SCORED_BYTES", limit)
    monkeypatch.setattr(mail_sources, "SCORED_BYTES", limit)  # (the mailboxes' reader)
    big = _big(limit, 1 << 16)
    box = _maildir(tmp_path / "Junk", [big, SPAM[0]])
    mbox = tmp_path / "junk.mbox"
    mbox.write_bytes(b"".join(b"From a@b Mon Jan  1 00:00:00 2024\n" + m + b"\n" for m in [big]))
    assert [len(raw) for raw in filter_cmd.messages_in(box)] == [limit, len(SPAM[0])]
    assert [len(raw) for raw in filter_cmd.messages_in(mbox)] == [limit]
    expected = _stats(_learned_as(model, [big[:limit], SPAM[0]], "spam"))
    assert filter_cmd._learning(str(model), "spam", None, False, str(box)) == 0
    assert _stats(bk.load(model)) == expected


# ------------------------------------------------------------ learning: in batches
def _corpus_like(n: int) -> list[bytes]:
    words = [b"meeting", b"lunch", b"report", b"invoice", b"project", b"friday", b"budget"]
    return [
        b"From: u%d@example.org\nSubject: note %d\n\n" % (i, i)
        + b" ".join(words[(i + k) % len(words)] + b"%d" % (i % (k + 2)) for k in range(12))
        + b"\n"
        for i in range(n)
    ]


def test_a_folder_is_learned_in_batches_as_it_would_be_all_at_once(
    model, tmp_path, monkeypatch, capsys
):
    # It read the whole folder before learning (about ten times the mail's size in memory).
    messages = _corpus_like(40)
    box = _maildir(tmp_path / "Archive", [*messages[:20], b"", *messages[20:]])
    original = _stats(bk.load(model))
    at_once = _learned_as(model, messages, "ham")
    expected = _stats(at_once)
    sizes: list[int] = []
    learn = SpamFilter.partial_fit

    def recorded(self, X, *args, **kwargs):
        sizes.append(len(X))
        return learn(self, X, *args, **kwargs)

    monkeypatch.setattr(SpamFilter, "partial_fit", recorded)
    monkeypatch.setattr(filter_cmd, "LEARN_BATCH_BYTES", 2000, raising=False)
    assert filter_cmd._learning(str(model), "ham", None, False, str(box)) == 0
    assert sum(sizes) == 40
    assert max(sizes) < 40  # in batches
    learned = bk.load(model)
    assert _stats(learned) == expected  # the same counts
    assert _calibration(learned) == _calibration(at_once)  # and the same probability scale
    said = capsys.readouterr().err.strip().splitlines()[-1]
    assert said == (
        "40 of 41 messages learned; 1 refused, no messages (empty, or no header lines): "
        f"{box}/new/0020.host"
    )
    # and unlearned in batches, back to the counts it had
    assert filter_cmd._learning(str(model), None, "ham", False, str(box)) == 0
    classes, terms = _stats(bk.load(model))
    assert (classes, {t: c for t, c in terms.items() if any(c)}) == original


def test_an_unlearn_refused_in_a_later_batch_leaves_the_model_as_it_was(
    model, tmp_path, monkeypatch, capsys
):
    messages = _corpus_like(30)
    learned = _maildir(tmp_path / "Learned", messages[:20])
    assert filter_cmd._learning(str(model), "ham", None, False, str(learned)) == 0
    before = model.read_bytes()
    box = _maildir(tmp_path / "Mixed", messages)  # the last 10 never learned
    monkeypatch.setattr(filter_cmd, "LEARN_BATCH_BYTES", 2000, raising=False)
    capsys.readouterr()
    assert filter_cmd._learning(str(model), None, "ham", False, str(box)) == mh.ERROR
    assert "not every one of these 30 messages was not learned as ham" in capsys.readouterr().err
    assert model.read_bytes() == before


# ------------------------------------------------------------ learning: after the output
@pytest.mark.parametrize("fail_after", [0, 100, 70_000])
def test_a_learner_whose_output_fails_learns_nothing(model, monkeypatch, capsys, fail_after):
    # It learned first and wrote the message out after: an output that failed (status 3,
    # so the MDA keeps the mail and tries again) left the message learned, and learned twice
    # by the next try.
    raw = SPAM[1] + b"more words\n" * 10_000  # (70,000 bytes: past the first piece of 64 KiB)
    before = model.read_bytes()
    _std(monkeypatch, raw, _Output(fail_after=fail_after))
    assert filter_cmd._learning(str(model), "spam", None, False, None) == mh.ERROR
    assert model.read_bytes() == before
    said = capsys.readouterr().err
    assert "<stdout>: the message could not be written" in said
    assert "nothing was learned" in said


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize("redirect", ["> /dev/full", ">&-"])
def test_a_learner_writing_to_a_full_disk_or_closed_output_leaves_the_model(
    model, tmp_path, redirect
):
    (tmp_path / "mail").write_bytes(SPAM[1])
    shutil.copy(model, tmp_path / "before.bk")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    command = f"{sys.executable} -m bayeskit filter m.bk --learn spam < mail {redirect}"
    got = subprocess.run(
        ["sh", "-c", command], cwd=tmp_path, capture_output=True, env=env, timeout=300
    )
    assert got.returncode == mh.ERROR, got.stderr
    assert b"Traceback" not in got.stderr
    assert model.read_bytes() == (tmp_path / "before.bk").read_bytes()
