"""A message that is one plain-text part is read straight to its header tokens and text (what
analyzer="auto" reads), without the MIME tree: the same tokens, subject and text as the
reader's other paths, counted as the fast path; everything else is left to them."""

from __future__ import annotations

import pytest

from bayeskit.text import _mail_words
from bayeskit.text import email as email_module
from bayeskit.text._count_matrices import mail_mask
from bayeskit.text.auto_count import read_auto
from bayeskit.text.email import (
    MAX_TEXT_CHARS,
    _read_bytes,
    plain_tokens,
    reader_counts,
    reset_reader_counts,
    tokens_of,
)

POST = (
    b"From: Ann Lee <ann@cs.example.edu>\nTo: a@x.org, b@y.org\nSubject: Re: a faster bus\n"
    b"X-Mailer: Mutt 1.2\nContent-Type: text/plain; charset=iso-8859-1\n"
    b"Content-Transfer-Encoding: quoted-printable\n\n"
    b"Caf=E9 at http://www.example.com/bus now.\n"
)


@pytest.fixture
def kernels_in_use(monkeypatch):
    """The reader as it is once it has turned to its kernels (a corpus, past its first
    megabyte)."""
    monkeypatch.setattr(_mail_words, "_warm_up", _mail_words.WARM_UP_CHARS)


def _parsed(raw: bytes) -> tuple[list[str], str, str]:
    fields = _read_bytes(raw, fast=False)
    return tokens_of(fields, text=""), fields.subject, fields.text


@pytest.mark.parametrize(
    "raw",
    [
        POST,
        b"From ann@x.org  Thu Aug 22 12:36:23 2002\n" + POST,  # an mbox envelope line
        POST.replace(b"\n", b"\r\n"),
        b"Subject: no type\n\n\n  \n",  # a body of blanks: no text
        b"Subject: bare\n\nhello",
        b"Subject: odd type\nContent-Type: plain\n\nread as text/plain\n",
        b"Subject: binary\n\n" + b"\x00\x01\x02\x03" * 40,  # looks binary: no text
        b"Subject: b64\nContent-Transfer-Encoding: base64\n\naGVsbG8gd29ybGQ=\n",
        b'Content-Type: text/plain; charset="x-unknown"\n\nNa\xefve\n',
        b"Subject: utf\nContent-Type: text/plain; charset=utf-8\n\ncaf\xc3\xa9 \xe2\x82\xac\n",
    ],
)
def test_plain_messages_read_as_the_parser_reads_them(kernels_in_use, raw):
    reset_reader_counts()
    assert plain_tokens(raw) == _parsed(raw)
    assert reader_counts()["fast"] == 1


@pytest.mark.parametrize(
    "raw",
    [
        POST.replace(b"text/plain", b"text/html"),
        POST.replace(b"Subject: Re: a faster bus", b"Subject: =?utf-8?q?caf=C3=A9?="),
        POST.replace(b"Ann Lee", b"Ann L\xe9e"),  # raw 8-bit bytes among the headers
        POST.replace(b"X-Mailer", b"Content-Disposition: attachment\nX-Mailer"),
        POST.replace(b"quoted-printable", b"x-uuencode"),
        POST.replace(b"\n", b"\r"),
        b'Content-Type: multipart/mixed; boundary="b"\n\n--b\n\ntext\n--b--\n',
        b"Content-Type: message/rfc822\n\nSubject: in\n\nbody\n",
        b" continuation first\nSubject: x\n\nbody\n",
        b"Subject: long\n\n" + b"word " * (MAX_TEXT_CHARS // 5 + 1),  # a text the reader cuts
    ],
)
def test_other_messages_are_left_to_the_reader(kernels_in_use, raw):
    reset_reader_counts()
    assert plain_tokens(raw) is None
    assert reader_counts()["fast"] == 0


def test_a_process_reading_its_first_messages_does_not_read_them_so(monkeypatch):
    """Before the reader turns to its kernels (a mail filter's one message) the message
    goes the reader's other way: nothing loads the kernels for it."""
    monkeypatch.setattr(_mail_words, "_warm_up", 0)
    monkeypatch.setattr(_mail_words, "_numba_loaded", lambda: False)
    assert plain_tokens(POST) is None


def test_auto_reading_gives_what_the_message_path_gives(kernels_in_use, monkeypatch):
    """analyzer="auto"'s reading of posts and mail, plain or not, in order: the same header
    tokens and texts with and without the straight reading."""
    docs = [
        POST.decode("latin-1"),
        POST.replace(b"text/plain", b"text/html").decode("latin-1"),
        "not an e-mail at all",
        POST,
        POST.decode("latin-1").replace("now", "now \u0394"),  # a text beyond latin-1
        b"From ann@x.org  Thu Aug 22 12:36:23 2002\n" + POST,
    ] * 3
    mail = mail_mask(docs)
    read_straight = []

    def spy(raw):
        found = plain_tokens(raw)
        read_straight.append(found is not None)
        return found

    monkeypatch.setattr(email_module, "plain_tokens", spy)
    straight = read_auto(docs, mail, True, "utf-8", processes=1)
    assert sum(read_straight) == 12  # the plain posts, latin-1, UTF-8 or bytes, with envelope
    monkeypatch.setattr(email_module, "plain_tokens", lambda raw: None)
    other = read_auto(docs, mail, True, "utf-8", processes=1)
    assert straight.heads == other.heads
    assert straight.texts == other.texts
