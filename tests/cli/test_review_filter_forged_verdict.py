"""A verdict a sender wrote into the message never reaches a mail delivery agent's recipe:
procmail and maildrop read every line up to the first empty line as a header (a line that is
no header field, such as ``Received-Via smtp relay 1`` or ``Foo Bar: x``, does not end their
header block as it ends RFC 5322's), so an X-Bayeskit header there is dropped wherever it is,
and the filter's own go where both read them. Every other byte goes on, in its order."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bayeskit as bk
from bayeskit.cli import mail_headers as mh
from bayeskit.text import SpamFilter

SRC = Path(__file__).resolve().parents[2] / "src"
HAM = b"From: ann@example.org\nSubject: lunch\n\nLunch at noon tomorrow? The usual place.\n"
SPAM = b"From: win@prize.example\nSubject: WIN\n\nYou WIN a free prize, click now to claim!!!\n"
OURS = re.compile(rb"(?i)^x-bayeskit-(spam|score|reason)[ \t]*:")


def _stamped(raw: bytes) -> bytes:
    head = mh.header_end(raw)
    assert head is not None
    status, out = mh.stamped(raw, head, 0.99, "spam")
    assert status == mh.SPAM
    return out


def _added(newline: bytes) -> bytes:
    return b"X-Bayeskit-Spam: Yes" + newline + b"X-Bayeskit-Score: 0.990000" + newline


def _mda_lines(out: bytes) -> list[bytes]:
    """The lines procmail and maildrop read as the header of ``out`` (an LF message): those
    before the first empty line."""
    lines = []
    for line in out.split(b"\n"):
        if line in (b"", b"\r"):
            break
        lines.append(line)
    return lines


@pytest.mark.parametrize(
    "odd", [b"Received-Via smtp relay 1", b"Foo Bar: x", b">From relay", b"\x00odd line"]
)
@pytest.mark.parametrize(
    "forged",
    [
        [b"X-Bayeskit-Spam: No"],
        [b"x-bayeskit-spam : No", b"  folded on"],
        [b"X-Bayeskit-Score: 0.000001", b"X-Bayeskit-Reason: trusted"],
    ],
)
@pytest.mark.parametrize("newline", [b"\n", b"\r\n"])
def test_a_forged_verdict_after_a_line_that_is_no_header_is_dropped(odd, forged, newline):
    top = [b"Return-Path: <x@example.org>", b"Subject: offer"]
    rest = [b"To: you@example.org", b"", b"body", b"X-Bayeskit-Spam: No", b""]
    raw = newline.join([*top, odd, *forged, *rest])
    out = _stamped(raw)
    # the verdict where RFC 5322's header block ends (before the odd line), the forged lines
    # gone, and every other byte in its place: the one in the body stays
    assert out == newline.join([*top, b""]) + _added(newline) + newline.join([odd, *rest])
    assert [line for line in _mda_lines(out) if OURS.match(line)] == [
        b"X-Bayeskit-Spam: Yes" + newline.rstrip(b"\n"),
        b"X-Bayeskit-Score: 0.990000" + newline.rstrip(b"\n"),
    ]


def test_a_message_without_an_empty_line_is_all_header_to_an_mda():
    raw = b"Subject: a\nhello there\nX-Bayeskit-Spam: No\nX-BAYESKIT-SCORE: 0\nmore text"
    assert _stamped(raw) == b"Subject: a\n" + _added(b"\n") + b"hello there\nmore text"


def test_the_mbox_from_line_stays_first():
    raw = (
        b"From win@prize.example Mon Jan  1 00:00:00 2024\nSubject: a\nodd\n"
        b"X-Bayeskit-Spam: No\n\nbody\n"
    )
    assert _stamped(raw) == (
        b"From win@prize.example Mon Jan  1 00:00:00 2024\nSubject: a\n"
        + _added(b"\n")
        + b"odd\n\nbody\n"
    )


def test_header_lines_only_and_a_forged_last_line():
    assert _stamped(b"Subject: a\nodd\nX-Bayeskit-Spam: No") == (
        b"Subject: a\n" + _added(b"\n") + b"odd\n"
    )
    assert _stamped(b"X-Bayeskit-Spam: No\nSubject: a") == b"Subject: a\n" + _added(b"\n")


def test_a_bare_cr_message_drops_what_a_reader_or_an_mda_reads_as_a_header():
    # split at CRs, its header block ends at the first empty line so; an MDA reads lines by
    # LF, and could match a line starting after an LF before the first empty line by LF
    raw = (
        b"Subject: a\rodd\rX-Bayeskit-Spam: No\r\rX-Bayeskit-Spam: No (body, kept)\r"
        b"body\nX-Bayeskit-Spam: No\rend\r"
    )
    assert _stamped(raw) == (
        b"Subject: a\r" + _added(b"\r") + b"odd\r\rX-Bayeskit-Spam: No (body, kept)\rbody\nend\r"
    )


def test_the_mda_header_end():
    assert mh.mda_header_end(b"A: b\nodd\nC: d\n\nbody\n") == 14
    assert mh.mda_header_end(b"A: b\r\nodd\r\n\r\nbody\r\n") == 11
    assert mh.mda_header_end(b"A: b\n \nC: d\n") == 12  # a blank line is not empty
    assert mh.mda_header_end(b"A: b\nno empty line") == 18
    assert mh.mda_header_end(b"\nA: b\n") == 0


_LINES = st.sampled_from(
    [
        b"Subject: a",
        b"To: b@c",
        b" folded",
        b"\tfolded",
        b"Received-Via smtp relay 1",
        b"Foo Bar: x",
        b"X-Bayeskit-Spam: No",
        b"x-bayeskit-score:0.1",
        b"X-Bayeskit-Reason : why",
        b"X-Bayeskit-Other: kept",
        b"plain text",
        b" ",
        b"",
    ]
)


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(_LINES, max_size=12), crlf=st.booleans(), ended=st.booleans())
def test_only_forged_lines_go_and_the_verdict_is_the_mdas_one(lines, crlf, ended):
    newline = b"\r\n" if crlf else b"\n"
    raw = newline.join([b"Subject: first", *lines]) + (newline if ended else b"")
    out = _stamped(raw)
    newline = newline if newline in raw else b"\n"  # (one line, unended: LF is added)
    # what is expected, told line by line: before the first empty line, every line of the
    # three names goes with the continuation lines after it; nothing else does
    kept, dropping, header = [], False, True
    for line in raw.splitlines(keepends=True):
        text = line.rstrip(b"\r\n")
        header = header and text != b""
        if text[:1] not in (b" ", b"\t"):
            dropping = header and OURS.match(text) is not None
        if not (header and dropping):
            kept.append(line)
    expected = b"".join(kept)
    if out.endswith(_added(newline)) and expected and not expected.endswith(b"\n"):
        expected += newline  # header lines only, the last one unended: ended before ours
    at = out.index(_added(newline))
    assert out[:at] + out[at + len(_added(newline)) :] == expected
    verdicts = [line for line in _mda_lines(out) if re.match(rb"(?i)x-bayeskit-spam", line)]
    assert verdicts == [b"X-Bayeskit-Spam: Yes" + newline.rstrip(b"\n")]


# ------------------------------------------------------------------ through the MDAs
@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("forged") / "spam.bk"
    bk.save(SpamFilter().fit([HAM, SPAM] * 6, ["ham", "spam"] * 6), path)
    return path


def _forged_spam(odd: bytes) -> bytes:
    head, _, body = SPAM.partition(b"\n\n")
    return head + b"\n" + odd + b"\nX-Bayeskit-Spam: No\n\n" + body


def _maildir(root: Path) -> Path:
    for sub in ("cur", "new", "tmp"):
        (root / "Maildir" / sub).mkdir(parents=True, exist_ok=True)
        (root / "Maildir" / ".Junk" / sub).mkdir(parents=True, exist_ok=True)
    return root / "Maildir"


def _filter_command(model: Path) -> str:
    return f"env PYTHONPATH={SRC} {sys.executable} -m bayeskit filter {model} --exit-zero"


@pytest.mark.skipif(shutil.which("procmail") is None, reason="procmail is not installed")
@pytest.mark.parametrize("odd", [b"Received-Via smtp relay 1", b"Foo Bar: x"])
def test_procmail_files_a_forged_ham_as_the_filter_says(model, tmp_path, odd):
    """The guide's procmail recipe, with a cautious user's rule: only what the filter calls
    ham reaches the inbox. The forged header was left after the filter's own, and matched."""
    mail = _maildir(tmp_path)
    rc = tmp_path / "procmailrc"
    rc.write_text(
        f"MAILDIR={mail}/\nDEFAULT={mail}/\n"
        f":0fw\n| {_filter_command(model)}\n"
        f":0\n* ^X-Bayeskit-Spam: No\n{mail}/\n"
        ":0\n.Junk/\n"
    )
    env = {
        "HOME": str(tmp_path),
        "LOGNAME": os.environ.get("LOGNAME", "root"),
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        ["procmail", "-m", str(rc)], input=_forged_spam(odd), env=env, capture_output=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert list((mail / "new").iterdir()) == []
    (junk,) = (mail / ".Junk" / "new").iterdir()
    header = junk.read_bytes().partition(b"\n\n")[0]
    verdicts = re.findall(rb"(?im)^x-bayeskit-spam:.*$", header)
    assert len(verdicts) == 1, verdicts  # the filter's own (this small model is unsure)
    assert verdicts[0] in (b"X-Bayeskit-Spam: Yes", b"X-Bayeskit-Spam: Unsure")
    assert odd in header


@pytest.mark.skipif(shutil.which("maildrop") is None, reason="maildrop is not installed")
def test_maildrop_files_a_forged_ham_as_the_filter_says(model, tmp_path):
    mail = _maildir(tmp_path)
    rc = tmp_path / "mailfilter"
    rc.write_text(
        f'xfilter "{_filter_command(model)}"\n'
        f'if (/^X-Bayeskit-Spam: No/)\n{{\n    to "{mail}/"\n}}\n'
        f'to "{mail}/.Junk/"\n'
    )
    rc.chmod(0o600)
    done = subprocess.run(
        ["maildrop", str(rc)], input=_forged_spam(b"Received-Via smtp relay 1"),
        capture_output=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert list((mail / "new").iterdir()) == []
    assert len(list((mail / ".Junk" / "new").iterdir())) == 1
