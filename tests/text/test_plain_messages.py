"""A message that is one plain-text part is read straight to its header tokens and text (what
analyzer="auto" reads), without the MIME tree: the same tokens, subject and text as the
reader's other paths, counted as the fast path; everything else is left to them."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bayeskit.text import _mail_words, _plain_batch
from bayeskit.text import email as email_module
from bayeskit.text._count_matrices import mail_mask
from bayeskit.text.auto_count import read_auto
from bayeskit.text.email import (
    MAX_TEXT_CHARS,
    _read_bytes,
    plain_tokens,
    plain_tokens_of,
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

    def spy(raws):
        found = plain_tokens_of(raws)
        read_straight.extend(one is not None for one in found)
        return found

    monkeypatch.setattr(email_module, "plain_tokens_of", spy)
    straight = read_auto(docs, mail, True, "utf-8", processes=1)
    assert sum(read_straight) == 12  # the plain posts, latin-1, UTF-8 or bytes, with envelope
    monkeypatch.setattr(email_module, "plain_tokens_of", lambda raws: [None] * len(raws))
    other = read_auto(docs, mail, True, "utf-8", processes=1)
    assert straight.heads == other.heads
    assert straight.texts == other.texts


# --- a batch read by one kernel call ------------------------------------------------------

_LINES = st.sampled_from(
    [
        b"Subject: hi", b"SUBJECT:  two  words ", b"subject:", b"From: Ann <ann@x.org>",
        b"from: bob@y.org (Bob)", b"FROM:", b"To: a@x.org, b@y.org", b"tO: c@z.org",
        b"X-Mailer: Mutt 1.2", b"x-mailer:", b"User-Agent: Gnus/5.8", b"USER-AGENT: Pine",
        b"\tfolded  on", b"  more\t", b"X-A: a \x0b\x0c b", b"Content-Type: text/plain",
        b"content-type: text/plain; charset=iso-8859-1", b"Content-Type: text/html",
        b"Content-Transfer-Encoding: quoted-printable", b"Content-Disposition: inline",
        b"X-Raw: caf\xe9", b"X-Enc: =?utf-8?q?caf=C3=A9?=", b"not a header", b"Subjects: no",
        b"Fromage: no", b"To-Do: no", b"",
    ]
)  # fmt: skip
_BODIES = st.sampled_from(
    [b"Caf=E9 at http://www.example.com/bus now.\n", b"", b"  \n", b"plain words\n", b"\x00\x01"]
)


@st.composite
def _raw(draw: st.DrawFn) -> bytes:
    end = draw(st.sampled_from([b"\n", b"\r\n"]))
    lines = draw(st.lists(_LINES, max_size=8))
    raw = end.join(lines) + end + draw(st.sampled_from([b"\n", b"\r\n", b""])) + draw(_BODIES)
    if draw(st.booleans()):
        raw = b"From ann@x.org  Thu Aug 22 12:36:23 2002\n" + raw
    return raw


@settings(max_examples=300, deadline=None)
@given(st.lists(_raw(), max_size=6), st.sampled_from([1 << 23, 1, 60, 200]))
@example([POST, POST.replace(b"text/plain", b"text/html"), b"From ann@x.org  Thu\n" + POST], 1)
@example([b"Subject: a\nSubject: b\nX-Mailer:\nUser-Agent: Gnus\n\nx\n", b"", b"\n\nbody"], 60)
@example([b"user-agent: Gnus\nX-MAILER: Mutt\nFROM: b@y\nfrom: a@x\n\nx\n"], 1 << 23)
def test_a_batch_reads_each_message_as_it_alone_is_read(raws, batch_bytes):
    """One kernel call for a batch's header blocks (several for a batch of more than
    ``batch_bytes``): each message's tokens, subject and text as reading it alone gives (the
    first of each named field, in any case; the mailer from X-Mailer, else User-Agent), the
    same messages left to the reader, the same counts."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_mail_words, "_warm_up", _mail_words.WARM_UP_CHARS)
        patch.setattr(_plain_batch, "PLAIN_BATCH_BYTES", batch_bytes)
        reset_reader_counts()
        alone = [plain_tokens(raw) for raw in raws]
        counted = reader_counts()["fast"]
        reset_reader_counts()
        assert plain_tokens_of(raws) == alone
        assert reader_counts()["fast"] == counted == sum(found is not None for found in alone)


def test_a_batch_of_a_process_first_messages_is_left_to_the_reader(monkeypatch):
    monkeypatch.setattr(_mail_words, "_warm_up", 0)
    monkeypatch.setattr(_mail_words, "_numba_loaded", lambda: False)
    assert plain_tokens_of([POST, POST]) == [None, None]


def test_auto_reading_in_several_batches_keeps_the_documents_in_order(kernels_in_use, monkeypatch):
    """More documents than one batch (``READ_BATCH``) of the reading: each batch's plain
    messages read together, the documents' tokens and texts in order all the same."""
    from bayeskit.text import _auto_read

    monkeypatch.setattr(_auto_read, "READ_BATCH", 7)
    docs = [
        POST.replace(b"a faster bus", b"bus %d" % i) if i % 3 else f"text number {i}"
        for i in range(50)
    ]
    mail = mail_mask(docs)
    batched = read_auto(docs, mail, True, "utf-8", processes=1)
    monkeypatch.setattr(email_module, "plain_tokens_of", lambda raws: [None] * len(raws))
    one_by_one = read_auto(docs, mail, True, "utf-8", processes=1)
    assert batched.heads == one_by_one.heads
    assert batched.texts == one_by_one.texts
    assert [text.split("\n")[0] for text in batched.texts[1:3]] == ["Re: bus 1", "Re: bus 2"]
