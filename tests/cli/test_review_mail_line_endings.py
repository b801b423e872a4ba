"""The headers ``bayeskit filter`` adds are written in the message's own line ending, and
every byte of the message goes on: for a message it scores and for one it passes on as
Unsure (``--exit-zero``: no header lines)."""

from __future__ import annotations

import os
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from bayeskit.cli import mail_headers as mh

from .._spam_corpus import SRC


def _added_lines(out: bytes, raw: bytes) -> list[bytes]:
    assert out.endswith(raw)
    return out[: len(out) - len(raw)].splitlines(keepends=True)


def test_text_without_headers_in_crlf_gets_crlf_headers(tmp_path):
    # It got LF ones ("X-Bayeskit-Spam: Unsure\n...\n\n" before "hello\r\n..."): a message
    # of two line endings, where only one that starts with a blank CRLF line got CRLF.
    raw = b"hello there, no headers\r\nsecond line\r\n"
    got = subprocess.run(
        [sys.executable, "-m", "bayeskit", "filter", "no-model.bk", "--exit-zero"],
        input=raw,
        capture_output=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        timeout=120,
    )
    assert got.returncode == 0, got.stderr
    assert _added_lines(got.stdout, raw) == [
        b"X-Bayeskit-Spam: Unsure\r\n",
        b"X-Bayeskit-Reason: not an RFC 822 message\r\n",
        b"\r\n",
    ]
    lf = b"hello there\nsecond line\n"
    assert all(
        line.endswith(b"\n") and not line.endswith(b"\r\n")
        for line in _added_lines(mh.unsure_of_content(lf, "an empty message"), lf)
    )


_LINE = st.binary(max_size=20).map(lambda b: b.replace(b"\n", b"").replace(b"\r", b""))


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(_LINE, max_size=6), crlf=st.booleans(), lead=st.booleans())
def test_unsure_of_content_keeps_the_message_and_its_line_ending(lines, crlf, lead):
    newline = b"\r\n" if crlf else b"\n"
    raw = (newline if lead else b"") + newline.join(lines) + (newline if lines else b"")
    out = mh.unsure_of_content(raw, "not an RFC 822 message (no header lines)")
    added = _added_lines(out, raw)
    own = newline if newline in raw else b"\n"  # (one line: no line ending of its own)
    assert added[:2] == [
        b"X-Bayeskit-Spam: Unsure" + own,
        b"X-Bayeskit-Reason: not an RFC 822 message" + own,
    ]
    assert all(line.endswith(own) for line in added)
    if own == b"\n":
        assert b"\r" not in b"".join(added)


@settings(max_examples=300, deadline=None)
@given(
    headers=st.lists(
        st.sampled_from([b"Subject: a", b"From: b@c", b"To: d", b" folded"]), min_size=1, max_size=5
    ),
    body=st.lists(_LINE, max_size=4),
    crlf=st.booleans(),
)
def test_scored_headers_keep_every_byte_and_the_line_ending(headers, body, crlf):
    newline = b"\r\n" if crlf else b"\n"
    if headers[0].startswith(b" "):
        headers = [b"Subject: x", *headers]
    raw = newline.join(headers) + newline + newline + newline.join(body)
    head = mh.header_end(raw)
    assert head is not None
    status, out = mh.stamped(raw, head, 0.5, "unsure")
    assert status == mh.UNSURE
    added = b"X-Bayeskit-Spam: Unsure" + newline + b"X-Bayeskit-Score: 0.500000" + newline
    assert out == raw[:head] + added + raw[head:]
