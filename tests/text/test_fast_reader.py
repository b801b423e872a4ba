"""The e-mail reader's fast path reads every message as :mod:`email`'s parser path does.

Each check reads a raw message twice, ``_read_bytes(raw)`` (the compiled fast path, which may
decline) and ``_read_bytes(raw, fast=False)`` (the parser and :class:`html.parser.HTMLParser`),
and asks for the same :class:`Message`, field for field: real corpora (every SpamAssassin
message and every 20 Newsgroups post in the slow run, a spread sample by default), generated
messages (folded headers, RFC 2047 encoded words, raw 8-bit headers, nested multiparts with
preambles, epilogues and missing boundaries, broken base64 and quoted-printable, unknown
charsets, attachments) and generated HTML. The fast path's share of the corpora is checked
too, so a fast path that declined everything would fail. A message that is one plain-text
part is also read straight to its tokens (``plain_tokens``, what the analyzers read), and
gives the parser path's tokens, subject and text.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bayeskit.datasets.shared import load_20newsgroups
from bayeskit.text import _mail_words, _mailread, _mime
from bayeskit.text.email import (
    _read_bytes,
    email_tokens,
    plain_tokens,
    plain_tokens_of,
    reader_counts,
    reset_reader_counts,
    tokens_of,
)


def _same(raw: bytes) -> tuple[list[str], str, str] | None:
    """The message's tokens, subject and text read straight (one plain-text part; else
    None), after checking that every path reads it alike."""
    fast, parsed = _read_bytes(raw), _read_bytes(raw, fast=False)
    assert fast == parsed
    assert email_tokens(fast) == email_tokens(parsed)
    kept = _mailread.raw_counts()  # (the straight reading is counted apart from the fast path)
    with pytest.MonkeyPatch.context() as patch:  # as once the reader's kernels are in use
        patch.setattr(_mail_words, "_warm_up", _mail_words.WARM_UP_CHARS)
        plain = plain_tokens(raw)
    reset_reader_counts()
    _mailread.add_counts(kept)
    if plain is not None:
        assert plain == (tokens_of(parsed, text=""), parsed.subject, parsed.text)
    return plain


def _fast_share(raws: list[bytes], plain_share: float) -> float:
    """The share of ``raws`` the fast path reads, after checking every path reads each alike
    and that a batch of them (one kernel call for their header blocks) reads each plain
    message straight as reading it alone does."""
    reset_reader_counts()
    plains = [_same(raw) for raw in raws]
    assert sum(plain is not None for plain in plains) >= plain_share * len(raws)
    counts = reader_counts()
    assert counts["fast"] + counts["fallback"] == len(raws)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_mail_words, "_warm_up", _mail_words.WARM_UP_CHARS)
        assert plain_tokens_of(raws) == plains
    return counts["fast"] / len(raws)


# --- real messages ------------------------------------------------------------------------


def _spamassassin(shared_data: Path) -> list[Path]:
    root = shared_data / "spamassassin-public-corpus"
    if not root.is_dir():
        pytest.skip("the SpamAssassin corpus is not in the shared data folder")
    paths = [p for p in sorted(root.glob("*/*")) if p.is_file() and p.name != "cmds"]
    assert len(paths) > 6000
    return paths


def _newsgroups(shared_data: Path) -> list[bytes]:
    try:
        train, _ = load_20newsgroups("train", shared_data)
        test, _ = load_20newsgroups("test", shared_data)
    except FileNotFoundError as exc:
        pytest.skip(f"20 Newsgroups not in the shared data folder: {exc}")
    return [post.encode("latin-1") for post in train + test]


def test_spamassassin_sample_reads_the_same(shared_data):
    paths = _spamassassin(shared_data)[::40]  # ~150, spread over the five folders
    assert _fast_share([p.read_bytes() for p in paths], 0.3) > 0.9


def test_20newsgroups_sample_reads_the_same(shared_data):
    posts = _newsgroups(shared_data)[::300]  # ~60
    assert _fast_share(posts, 0.95) > 0.95


@pytest.mark.slow
def test_every_spamassassin_message_reads_the_same(shared_data):
    paths = _spamassassin(shared_data)
    paths = [p.read_bytes() for p in paths]
    assert _fast_share(paths, 0.3) > 0.99  # 6,005 of 6,046 measured
    assert reader_counts()["html_fast"] > 1000  # of 1,213 HTML parts


@pytest.mark.slow
def test_every_20newsgroups_post_reads_the_same(shared_data):
    assert _fast_share(_newsgroups(shared_data), 0.99) > 0.99  # 18,823 of 18,846 measured


# --- what the fast path declines ----------------------------------------------------------

_PLAIN = b"Subject: hi\nContent-Type: text/plain\n\nbody\n"
_ALTERNATIVE = (
    b'Subject: alt\nContent-Type: multipart/alternative; boundary="b"\n\npreamble\n'
    b"--b\nContent-Type: text/plain\n\nplain words\n--b\nContent-Type: text/html\n\n"
    b"<p>rich <a href='http://example.com/x'>words</a></p>\n--b--\nepilogue\n"
)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (_PLAIN.replace(b"\n", b"\r"), "bare CR line ends"),
        (b"Subject: x\nnot a header\n\nbody", "a line that is not a header among the headers"),
        (b" folded first\nSubject: x\n\nbody", "continuation line first among the headers"),
        (b"Subject: x", "no blank line after the headers"),
        (b"Content-Type: message/rfc822\n\nSubject: in\n\nbody", "a message/rfc822 part"),
        (
            _ALTERNATIVE.replace(
                b"--b\nContent-Type: text/html", b"--c\nContent-Type: text/html"
            ).replace(b"\n--b\n", b"\n--c\n"),
            "the first multipart boundary is missing",
        ),
        (_ALTERNATIVE.replace(b'boundary="b"', b""), "a multipart boundary missing, unusual"),
        (
            b"Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGVsbG8gd29ybGQ\n",
            "base64 of impossible length",
        ),
        (
            b"Content-Type: text/plain\nContent-Transfer-Encoding: base64\n\naGVs*bG8gd29\n",
            "characters outside the base64 alphabet",
        ),
        (b"Content-Type: text/plain\nContent-type: text/html\n\nx", "content-type given twice"),
        (b"Content-Transfer-Encoding: x-uuencode\n\nbegin 644 x\n", "an unusual Content-Tra"),
    ],
)
def test_unusual_messages_go_to_the_parser(raw, reason):
    reset_reader_counts()
    _same(raw)
    counts = reader_counts()
    assert counts["fast"] == 0
    assert [r for r in counts["reasons"] if r.startswith(reason)]


def test_a_missing_closing_boundary_is_read_with_the_parsers_defect():
    raw = _ALTERNATIVE.replace(b"--b--\nepilogue\n", b"")
    reset_reader_counts()
    _same(raw)
    assert reader_counts()["fast"] == 1
    assert _read_bytes(raw).defects == [
        "message: the closing multipart boundary is missing (truncated?)"
    ]


def test_common_messages_take_the_fast_path_and_are_counted():
    reset_reader_counts()
    for raw in (_PLAIN, _ALTERNATIVE, b"From a@b  Thu Aug 22 12:36:23 2002\n" + _PLAIN):
        _same(raw)
    assert reader_counts() == {
        "fast": 3,
        "fallback": 0,
        "reasons": {},
        "html_fast": 1,
        "html_parser": 0,
    }
    message = _read_bytes(_ALTERNATIVE)
    assert message.text == "plain words"
    assert message.urls == ["http://example.com/x"]
    reset_reader_counts()
    assert reader_counts()["fast"] == 0


# --- generated messages -------------------------------------------------------------------

_WORDS = st.sampled_from(["free", "café", "naïve", "Grüße", "€5", "дом", "offer", "", " "])
_CHARSETS = st.sampled_from(
    ["", "us-ascii", "utf-8", '"UTF-8"', "iso-8859-1", "windows-1252", "koi8-r", "x-unknown"]
)
_ENDS = st.sampled_from([b"\n", b"\r\n"])


def _encode(text: str, charset: str) -> bytes:
    codec = _mime.codec_of(charset) if charset else None
    try:
        return text.encode(codec or "utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8")


@st.composite
def _header_value(draw: st.DrawFn) -> bytes:
    """A header value: plain, raw 8-bit, RFC 2047 Q or B encoded words (known, unknown or
    broken charsets, malformed words), folded or not."""
    words = draw(st.lists(_WORDS, min_size=1, max_size=4))
    pieces = []
    for word in words:
        kind = draw(st.sampled_from(["plain", "raw", "q", "b", "bad"]))
        charset = draw(st.sampled_from(["utf-8", "iso-8859-1", "x-unknown", "gb2312"]))
        data = _encode(word, charset)
        if kind == "plain":
            pieces.append(word.encode("ascii", "ignore"))
        elif kind == "raw":
            pieces.append(data)
        elif kind == "q":
            pieces.append(
                b"=?" + charset.encode() + b"?q?" + binascii.b2a_qp(data, header=True) + b"?="
            )
        elif kind == "b":
            pieces.append(b"=?" + charset.encode() + b"?B?" + base64.b64encode(data) + b"?=")
        else:
            pieces.append(b"=?" + charset.encode() + b"?x?" + data + b"?=")
    fold = draw(st.sampled_from([b" ", b"\n ", b"\n\t", b"  \t"]))
    return fold.join(pieces)


@st.composite
def _leaf(draw: st.DrawFn) -> bytes:
    ctype = draw(st.sampled_from(["text/plain", "text/html", "image/gif", "text/x-weird", ""]))
    charset = draw(_CHARSETS)
    words = draw(st.lists(_WORDS, max_size=6))
    text = " ".join(words)
    if ctype == "text/html":
        text = f'<html><body><p>{text} &amp; <a href="http://example.org/{len(words)}">link</a></p></body></html>'
    data = _encode(text, charset) + draw(st.sampled_from([b"", b"\xe9\xff", b"\x00\x01\x02" * 5]))
    cte = draw(st.sampled_from(["", "7bit", "8bit", "quoted-printable", "base64", "BASE64 "]))
    if cte.strip().lower() == "base64":
        body = base64.encodebytes(data)
        body = body[: len(body) - draw(st.sampled_from([0, 0, 1, 2, 3]))]  # maybe truncated
        if draw(st.booleans()):
            body = body.replace(b"A", b"A*", 1)  # a character outside the alphabet
    elif cte == "quoted-printable":
        body = binascii.b2a_qp(data) + draw(st.sampled_from([b"", b"=", b"=Z9", b"=\n"]))
    else:
        body = data
    head = []
    if ctype:
        params = f"; charset={charset}" if charset else ""
        params += draw(st.sampled_from(["", '; name="photo.gif"', "; format=flowed;"]))
        head.append(f"Content-Type: {ctype}{params}".encode())
    if cte:
        head.append(f"Content-Transfer-Encoding: {cte}".encode())
    disposition = draw(
        st.sampled_from(["", "attachment", 'attachment; filename="a b.txt"', "inline"])
    )
    if disposition:
        head.append(f"Content-Disposition: {disposition}".encode())
    return b"\n".join(head) + b"\n\n" + body


@st.composite
def _part(draw: st.DrawFn, depth: int = 0) -> bytes:
    if depth >= 3 or draw(st.integers(0, 2)) < 2:
        return draw(_leaf())
    boundary = draw(st.sampled_from(["b1", "==_x=", "----=_Part_1.2", "with space", "b1"]))
    kind = draw(st.sampled_from(["alternative", "mixed", "related"]))
    children = draw(st.lists(_part(depth + 1), min_size=1, max_size=3))
    mark = b"--" + boundary.encode()
    lines = [f'Content-Type: multipart/{kind}; boundary="{boundary}"'.encode(), b""]
    lines.append(draw(st.sampled_from([b"", b"This is a multi-part message.", mark + b"x"])))
    for child in children:
        lines.append(mark + draw(st.sampled_from([b"", b"  ", b"\t"])))
        lines.append(child)
    close = draw(st.sampled_from([mark + b"--", mark + b"-- ", b"", mark]))
    lines.append(close)
    lines.append(draw(st.sampled_from([b"", b"epilogue", mark + b"--"])))
    return b"\n".join(lines)


@st.composite
def _message(draw: st.DrawFn) -> bytes:
    end = draw(_ENDS)
    head = [b"From: " + draw(_header_value()) + b" <ann@example.org>"]
    head.append(b"Subject: " + draw(_header_value()))
    head.append(draw(st.sampled_from([b"To: a@x.org, b@y.org", b"X-Mailer: Mutt 1.2", b"X-A:b"])))
    if draw(st.booleans()):
        head.insert(0, b"From ann@example.org  Thu Aug 22 12:36:23 2002")
    raw = b"\n".join(head) + b"\n" + draw(_part())
    return raw.replace(b"\n", end)


@given(_message())
@example(_ALTERNATIVE)
@example(_ALTERNATIVE.replace(b"\n", b"\r\n"))
@example(b"Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\n =?x-unknown?b?Y2Fm6Q==?=\n\n\xe9t\xe9\n")
@example(b'Content-Type: text/plain; charset="x-unknown"\n\nNa\xefve\n')
def test_generated_messages_read_the_same(raw):
    _same(raw)


def _parsed(raw: bytes, kernel: bool) -> object:
    """What ``_mailread.parse`` finds, as plain values (a reason, or the tree's fields)."""
    found = _mailread.parse(raw, kernel=kernel)
    if isinstance(found, str):
        return found

    def part(p: _mailread.FastPart) -> tuple[object, ...]:
        children = None if p.children is None else [part(c) for c in p.children]
        fields = (p.ctype, p.charset, p.cte, p.disposition, p.filename, p.payload)
        return (*fields, [type(d) for d in p.defects], children)

    root, block, headers = found
    return part(root), block, headers


_HEADER_LINES = st.sampled_from(
    [
        b"Subject: hi", b"Subject:hi  there ", b"X-A:", b"X-B: \t", b"X-C: a \x0b\x0c b\x1f c",
        b"\tfolded  on", b" ", b"  more\t", b"Content-Type: text/html; charset=utf-8",
        b"content-TYPE:  text/plain;\n charset=koi8-r", b"cONTENT-Type: text/html",
        b"CONTENT-TRANSFER-ENCODING: quoted-printable ", b"Content-Disposition: attachment;",
        b"Content-Transfer-Encoding:\n\tbase64", b"Content-Type: text/plain; name=caf\xe9",
        b"Content-Type: text/x; charset=\"a\"", b"not a header", b":no name", b"From a@b x",
        b"X-Raw: caf\xe9 \xff", b"Name With Space: x", b"X-Enc: =?utf-8?q?caf=C3=A9?=",
        b"Content-Type: multipart/mixed", b"X-D: a\r", b"",
    ]
)  # fmt: skip


@given(st.lists(_HEADER_LINES, max_size=8), _ENDS, st.sampled_from([b"\n", b"\r\n", b""]))
@example([b"Subject: a", b"\tb"], b"\n", b"\n")
@example([b"Content-Type: text/html", b"cONTENT-type: text/plain"], b"\n", b"\n")
def test_header_blocks_read_by_the_kernel_as_by_the_regular_expressions(lines, end, blank):
    raw = end.join(lines) + end + blank + b"body <b>bold</b> =41\n"
    assert _parsed(raw, kernel=True) == _parsed(raw, kernel=False)
    _same(raw)


@given(_message())
def test_generated_messages_parse_the_same_by_the_kernel(raw):
    assert _parsed(raw, kernel=True) == _parsed(raw, kernel=False)


def test_content_headers_in_any_case_are_read():
    raw = b"cONTENT-Type: text/html\n\n<p>bold <b>words</b>\n"
    for kernel in (False, True):
        found = _mailread.parse(raw, kernel=kernel)
        assert not isinstance(found, str)
        assert found[0].ctype == "text/html"
    _same(raw)
    assert _read_bytes(raw).text == "bold words"


# --- HTML ---------------------------------------------------------------------------------

_HTML_PIECES = st.sampled_from(
    [
        "<p>", "</p>", "<br>", "<br/>", "<BR />", "<td nowrap>", "</TD>", "<img src=x.gif>",
        '<img src="http://example.com/a.gif"/>', "<input type=text>", "<o:p>", "</o:p>",
        '<a href="http://example.com/?a=1&amp;b=2">', "<a href=http://x.org/p>", "</a>",
        "<a\nhref='www.example.org'target=_blank>", '<font face=Arial, Helvetica size=2>',
        "<!-- hidden <b>words</b> -->", "<!---- double ---->", "<!-->", "<!-- a --!>",
        "<!DOCTYPE html>", "<?xml version='1.0'?>", "<![if !vml]>", "<![endif]>",
        "<script>var a = '</b>' < 1;</script>", "<style>p { x: 1 }</STYLE >",
        "<script src='http://cdn.example.com/s.js'></script>", "<script>unclosed",
        "<title>a title</title>", "<title><b>x</b></title>", "<iframe>in</iframe>",
        "<template><p>t</p></template>", "</ p>", "<a b", "a < b", "x<3", "<", "&amp", "&lt;",
        "&#65;", "&#x42", "&nbsp;", "&bogus;", "&am", "p;", "caf\xe9", "\xa0", "words", " ",
        "\n", "\t", "<span style=\"a\">", "</span>", "<table><tr><td>", "<li>", "<div\xa0a=b>",
        "<a href=\"x\"class=y>", "<a title=\"<b>\">", "</td msimagelist>", "<p\x0b>",
        # malformed tags as newsletters write them: read by the parser between fast runs
        '<img src="http://example.com/b.gif"">', '<div align=center style="a: 3px;>',
        '<hr size=1 width="80% noshade align="left">', "<img src=x width=1", "<<b>", "</>",
        "<td\n", '<a href="http://example.com/\n',
        # quoted values holding "<" and ">" with blanks around "=", link names near misses
        '<td title= "a > b < c">', "<a title ='x > <b>y</b>' href=http://example.com/t>",
        '<img ſrc="http://example.com/s.gif">', '<a href2="http://example.com/h">',
        "<a bac\u212aground=http://example.com/k>", "<ſcript>x</ſcript>", "<scrıpt>",
    ]
)  # fmt: skip


@given(st.lists(_HTML_PIECES, max_size=30).map("".join))
@example('<p>Fish &amp; chips&nbsp;&pound;5</p><p><a href="http://example.com/">Order</a>')
@example("&am<b>p; &lt<i>x</i> &#12<br>3;")
def test_generated_html_reads_as_the_parser_reads_it(markup):
    assert _mime.html_to_text(markup) == _mime.html_to_text(markup, fast=False)


_PARSER_READS = [
    # html.parser fed a piece ending inside a quoted value after "= " (or " =") reads the
    # value as an empty one and its quote as an attribute name: the tag ends at the ">"
    '<td title= "a > b < c">cell text</td>',
    "<td title ='a > b < c'>cell text</td>",
    '<p>Win <a title = "cash > 100 <b>now</b>" href="http://x.com/">here</a></p>',
    '<b x=1 y <td title= "a > <i>b</i>">cell</td><p>after <i>it</i> <a href="http://y.org/">',
    "<a b=x<y title= 'r > s <t'>z</a>",
    "<p>it's <a title= '<b>' x=\"a > b <c\">z</a> <b>bold</b>",
    # link attributes' names: whole, and lower-cased by str.lower, not re.IGNORECASE
    '<a href2="http://tracker.example.com/x">friend</a> <img src-x="http://e.net/p.gif">',
    "<a hrefx=http://x.com/ href_=http://y.com/ action1=http://z.com/>go</a>",
    '<img ſrc="http://img.example.net/p.gif"> <a actİon="http://a.com/" actıon=http://b.com/>',
    "<a bac\u212aground='http://k.example.com/' HREF=http://h.example.com/>x</a>",
    # element names: ASCII case only (html.parser's), not ſcript, scrıpt, scrİpt
    "<ſcript>x</ſcript>y", "<scrıpt>x</scrıpt>y", "<script>a</scrİpt>b", "<style>a</ſtyle>b",
    "<script>a</scrİpt>b</script>c <p>d",
]  # fmt: skip


@pytest.mark.parametrize("kernels", [False, True])
@pytest.mark.parametrize("markup", _PARSER_READS)
def test_html_reads_as_the_parser_reads_it_whole(markup, kernels, monkeypatch):
    """Markup the fast reader once read otherwise than html.parser given it whole: in runs
    (``_read_in_runs`` fed the parser pieces cut inside a quoted value), or by the compiled
    tag kernel (``kernels``; the first MiB of a process is read by its regex spec)."""
    monkeypatch.setattr(_mail_words, "_warm_up", _mail_words.WARM_UP_CHARS if kernels else 0)
    if not kernels:  # (once numba is loaded, by an earlier test, the kernels are in use)
        monkeypatch.setattr(_mail_words, "_numba_loaded", lambda: False)
    assert _mime.html_to_text(markup) == _mime.html_to_text(markup, fast=False)
    raw = b"Subject: t\nContent-Type: text/html; charset=utf-8\n\n" + markup.encode() + b"\n"
    _same(raw)


def test_well_formed_html_takes_the_fast_path():
    reset_reader_counts()
    markup = (
        "<!DOCTYPE html><html><head><title>t</title><style>p {}</style></head><body>"
        "<p class=a>one &amp; two</p><!-- c --><img src='http://example.com/i.gif'></body></html>"
    )
    assert _mime.html_to_text(markup) == ("t\none & two", ["http://example.com/i.gif"], "")
    assert _mime.html_to_text(markup, fast=False)[:2] == (
        "t\none & two",
        ["http://example.com/i.gif"],
    )
    assert reader_counts()["html_fast"] == 1


def test_auto_analyzer_counts_are_those_of_the_parser_path(shared_data, monkeypatch):
    from bayeskit.text import TextVectorizer, _fasthtml
    from bayeskit.text import email as email_module

    raws = [p.read_bytes() for p in _spamassassin(shared_data)[::60]]
    vectorizer = TextVectorizer(analyzer="auto", ngram_range=(1, 2))
    terms, counts = vectorizer.fit(raws)._count(raws)
    monkeypatch.setattr(email_module, "parse", lambda data: "turned off")
    monkeypatch.setattr(_fasthtml, "fast_html_to_text", lambda *args: None)  # (html_to_text's)
    parsed_terms, parsed_counts = vectorizer._count(raws)
    assert terms.tolist() == parsed_terms.tolist()
    assert (counts != parsed_counts).nnz == 0
