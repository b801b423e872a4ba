"""``bayeskit filter`` at the edges of what a mail delivery agent gives it: a message with no
blank line after its headers or with bare CR line endings gets its verdict headers where its
header block ends (before its first body line, as procmail's formail puts its own), not
after its body."""

from __future__ import annotations

import os
import subprocess
import sys

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bayeskit.cli import mail_headers as mh

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
