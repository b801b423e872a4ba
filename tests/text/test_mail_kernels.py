"""The e-mail reader's compiled stages find what the regular expressions they replace find.

The words of a message's text (:func:`bayeskit.text._mail_words.words`) against
``re.findall(r"(?u)\\b\\w\\w+\\b", text.lower())`` with SpamBayes' skip tokens, the URL
search (:func:`bayeskit.text._mime.find_urls`) against the case-insensitive pattern it was,
and HTML's tags and links (:func:`bayeskit.text._html_kernels.marked`) against the regular
expressions it implements (``_fasthtml.marked_by_regex``), and the white space of HTML's text
tidied by splits and joins against the substitutions it was: generated text over all of
Unicode (lone surrogates, characters that grow when lowercased, long words, near-tags), and
the text and HTML of every SpamAssassin message.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
import textwrap

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bayeskit.text import _fasthtml, _html_kernels, _mail_kernels, _mail_words, _mime
from bayeskit.text import email as email_module
from bayeskit.text._mail_kernels import kernel_words
from bayeskit.text._mail_words import WARM_UP_CHARS, words
from bayeskit.text.email import _read_bytes

_REFERENCE = re.compile(r"(?u)\b\w\w+\b")


def _reference_words(text: str, max_length: int) -> list[str]:
    return [
        word if len(word) <= max_length else f"skip:{word[0]} {len(word) // 10 * 10}"
        for word in _REFERENCE.findall(text.lower())
    ]


def _reference_urls(text: str) -> list[str]:
    if "://" not in text and "www." not in text.lower():
        return []
    found = (m.group().rstrip(_mime._TRAILING_PUNCT) for m in _mime._URL_RE.finditer(text))
    return [url for url in found if len(url) > 7]


# Characters the kernel must class as re does: ASCII, latin-1 (the one-byte route), letters
# that lowercase to two characters or to another script, digits of other scripts, marks,
# surrogates, and characters beyond the BMP.
_SPECIAL = "İΣσςẞÅǅﬁ١٢_\u0301\u200d\xa0\xb5\xdf\xff\ud800\udfff\U0001d400\U00010400-.@ \n\t"
_CHARS = st.one_of(
    st.characters(max_codepoint=0x7F),
    st.characters(max_codepoint=0xFF),
    st.characters(),
    st.sampled_from(list(_SPECIAL)),
)
_TEXTS = st.lists(
    st.one_of(st.text(_CHARS, max_size=12), st.sampled_from(["word ", "x" * 45, "é" * 41])),
    max_size=40,
).map("".join)


@given(_TEXTS, st.integers(2, 50))
@example("Grüße from CAFÉ a1 " + "x" * 45 + ", again" * 10, 40)
@example("ΣΑΣ ΟΔΟΣ İstanbul " * 8, 40)
@example("\ud800ab\udfffcd " * 20, 2)
@example("é" * 200 + " " + "a" * 9 + "ǅ" * 100, 3)
def test_words_are_the_regular_expressions_words(text, max_length):
    expected = _reference_words(text, max_length)
    assert words(text, max_length) == expected
    assert kernel_words(text, max_length) == expected  # however short the text


def test_word_kernel_is_used_for_long_texts_once_numba_is_loaded_or_warmed_up(monkeypatch):
    calls = []
    kernel = _mail_kernels.word_runs

    def counted(*args):
        calls.append(len(args[0]))
        return kernel(*args)

    monkeypatch.setattr(_mail_kernels, "word_runs", counted)
    # numba loaded (whatever this process ran before: alone, this test loads none)
    monkeypatch.setattr(_mail_words, "_numba_loaded", lambda: True)
    assert words("short text", 40) == ["short", "text"]
    assert calls == []
    assert words("a long text " * 10, 40) == ["long", "text"] * 10
    assert calls == [120]
    # without numba loaded, the first WARM_UP_CHARS characters are read by the expression
    monkeypatch.setattr(_mail_words, "_numba_loaded", lambda: False)
    monkeypatch.setattr(_mail_words, "_warm_up", WARM_UP_CHARS - 200)
    assert words("a long text " * 10, 40) == ["long", "text"] * 10
    assert words("a long text " * 10, 40) == ["long", "text"] * 10
    assert calls == [120]
    assert words("a long text " * 10, 40) == ["long", "text"] * 10
    assert calls == [120, 120]


def test_one_html_message_read_into_tokens_loads_no_compiled_code():
    """A mail filter reads one message a process: the reader's kernels would cost more
    (importing numpy and numba, loading them) than the regular expressions they implement."""
    body = "<html><body><p>" + "Cheap offers " * 200 + '<a href="http://x.org/">go</a></p>'
    raw = (
        "From: a@x.org\nSubject: " + "long subject words " * 10 + "\n"
        "Content-Type: text/html\n\n" + body + "</body></html>\n"
    )
    code = textwrap.dedent(
        f"""
        import sys
        from bayeskit.text.email import email_tokens, read_message
        tokens = email_tokens(read_message({raw!r}.encode()))
        assert "url:x.org" in tokens and "cheap" in tokens, tokens
        print(sorted(name for name in ("numba", "numpy") if name in sys.modules))
        """
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["[]"]


_URL_PIECES = [
    "http://", "HTTPS://", "httpſ://", "hTtP://", "ftp://", "FtP://", "www.", "WwW.", "wWw,",
    "x", "_", "é", " ", ".", ",", "a.b", "/", "(", "ſ", "ww", "hhttp://", "1", "\n", "<", "'",
    "-", "ĳ", "K",
]  # fmt: skip


@given(st.lists(st.sampled_from(_URL_PIECES), max_size=16).map("".join))
@example("See HTTP://x.org/a, or httpſ://long-s.example and _www.not.this www.yes.org.")
@example("a://b http://x.org/a ftp://y.org/b hTTpſ://z.org/c")
def test_url_search_finds_what_the_case_insensitive_pattern_finds(text):
    assert _mime.find_urls(text) == _reference_urls(text)


def test_url_search_letter_classes_hold_every_case_insensitive_match():
    # The classes are built from the first 0x180 code points; no later one matches.
    classes = (_mime._H, _mime._T, _mime._P, _mime._S, _mime._F, _mime._W)
    for letter, alike in zip("htpsfw", classes, strict=True):
        pattern = re.compile(letter, re.IGNORECASE)
        found = [chr(c) for c in range(sys.maxunicode + 1) if pattern.fullmatch(chr(c))]
        assert "[" + "".join(found) + "]" == alike


@given(st.text(st.one_of(st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000ab"), _CHARS)))
@example(" a \t\n\xa0\n b\u2028c\r\nd  ")
def test_html_text_white_space_is_tidied_as_the_regular_expressions_did(text):
    spaced = _mime._SPACES.sub(" ", text.replace("\xa0", " "))
    assert _mime._tidy(text) == _mime._BLANK_LINES.sub("\n", spaced).strip()


def _tidied_by_python(text: str) -> str:
    return _mime._tidy(text.replace("\x00", "").replace("\x01", "\n").replace("\x02", " "))


@given(
    st.text(
        st.one_of(st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2028\u3000ab\x00\x01\x02"), _CHARS)
    )
)
@example(" a \t\n\xa0\x01\n b\u2028c\r\nd\x00e\x02f  \x01")
@example("\x01\x02 x\ud800 \U0001d400\x00")
def test_html_text_markers_and_white_space_by_the_kernel(text):
    assert _html_kernels.tidied(text) == _tidied_by_python(text)


def _marked(markup: str) -> tuple[str, list[str]]:
    return _html_kernels.marked(markup, _fasthtml.BLOCK_TAGS, _fasthtml.URL_ATTRS)


# Pieces of near-tags: every branch of the tag grammar and the characters it refuses.
_TAG_PIECES = [
    "<", "</", ">", "/>", "/", "=", " = ", '"', "'", " ", "\t", "\n", "\r", "\f", "\x0b",
    "\xa0", "\u2003", "\x1c", "\x00", "\x01", "\x02", "x", "é", "1", "-", ":", "_", ".",
    "a", "A", "p", "P", "br", "BR", "img", "Img", "input", "td", "div", "blockquote", "o:p",
    "href", "HREF", "hReF", "src", "ſrc", "SRC", "action", "background", "bacKground",
    "lowsrc", "dynsrc", "dynſrc", "ıd", "href=", "src='http://x.org/'", 'href="www.y.org"',
    "href2", "hrefx", "src-x", "href_", "action1", "srcſ", "bac\u212aground", "actİon", "ſ",
    "=v", "=\"\"", "='<'", "<a ", "<img ", "</p", "</td ", "<br/>", "<a href=x>",
]  # fmt: skip


_BLANKS = st.sampled_from(["", " ", "\n\t", "\x0b", "\xa0", "\r\n"])
_NEAR = st.sampled_from(["", "x", "é", "<", "/", "=", '"', "\x01", "\u2003"])
_GOOD_BLANKS = st.sampled_from(["", " ", "\n\t", "\r\n"])
_VALUES = ["http://x.org/a", "www.y.org", "v", "a b"]


@st.composite
def _near_tag(draw: st.DrawFn, broken: bool) -> str:
    """A well-formed tag, or (``broken``) one perhaps broken at one place or another."""
    blanks, near = (_BLANKS, _NEAR) if broken else (_GOOD_BLANKS, st.just(""))
    name = draw(st.sampled_from(["a", "IMG", "input", "p", "Br", "td", "o:p", "x-y", "1a", ""]))
    pieces = ["<", draw(st.sampled_from(["", "", "/"])), name]
    for _ in range(draw(st.integers(0, 3))):
        pieces.append(draw(st.sampled_from([" ", "\t", "", "\x0b"] if broken else [" ", "\n"])))
        pieces.append(draw(st.sampled_from([*_fasthtml.URL_ATTRS, "SRC", "ſrc", "alt", "b"])))
        pieces.append(draw(st.sampled_from(["", "", "", "2", "x", "-x", "_", "ſ", "İ"])))
        if draw(st.booleans()):
            pieces += [draw(blanks), "=", draw(blanks)]
            value = draw(st.sampled_from(_VALUES + (["<", ""] if broken else [])))
            quote = draw(st.sampled_from(["", '"', "'"] if broken or " " not in value else ['"']))
            pieces.append(quote + value + quote)
        pieces.append(draw(near))
    pieces += [draw(blanks), draw(st.sampled_from(["", "/"])), draw(st.sampled_from([">", ""]))]
    return "".join(pieces)


_MARKUP = st.lists(
    st.one_of(_near_tag(broken=True), _near_tag(broken=False), st.sampled_from(_TAG_PIECES)),
    max_size=30,
).map("".join)


@given(_MARKUP)
@example('<a href="http://x.org/"target=_blank>x</A ><img src=y.gif/><p\x0b>')
@example("<a x=1 ſrc=z bacKground='w'><td nowrap><a href=x <b href=y>")
@example("<a b=c/>< a><a\xa0b><a b = 'c'd=e>")
@example("<a href2=x hrefx='y' src-x=z><img ſrc=w>")
def test_tags_and_links_are_those_of_the_regular_expressions(markup):
    assert _marked(markup) == _fasthtml.marked_by_regex(markup)


def _parsed_links(markup: str) -> list[str]:
    """The link attributes' values of the start tags, as html.parser reads them."""
    found = []

    class Links(_fasthtml.HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.extend(value for name, value in attrs if name in _fasthtml.URL_ATTRS)

    parser = Links()
    parser.feed(markup)
    parser.close()
    return found


def _unquoted(values: list[str]) -> list[str]:
    return [value[1:-1] if value[:1] in ("'", '"') else value for value in values]


@pytest.mark.parametrize(
    ("markup", "links"),
    [
        ('<a href2="http://x.org/" hrefx=y src-x="z" href_=w action1=v SRC=u>', ["u"]),
        ("<img srcſ=a ſrc='http://x.org/' dynſrc=b actİon=c actıon=d bac\u212aground=e>", ["e"]),
        ("<form ACTION=a><body BackGround=b><img lowsrc=c DynSrc=d src=e href=f>", list("abcdef")),
    ],
)
def test_link_names_are_matched_whole_and_as_str_lower_reads_them(markup, links):
    # The kernel's case table is padded with 0, to which it folds every character outside
    # the link names' letters: href2 was href. re.IGNORECASE (the spec's and the table's
    # source) took ſrc for src and actİon, actıon for action; html.parser reads names by
    # str.lower, which maps only K, KELVIN SIGN, to a letter of theirs beyond ASCII.
    assert _parsed_links(markup) == links
    assert _unquoted(_fasthtml.marked_by_regex(markup)[1]) == links
    assert _unquoted(_marked(markup)[1]) == links


def test_link_case_tables_are_str_lower():
    """The kernel's table and the regex spec's classes take a character for a letter of a
    link attribute's name when str.lower (html.parser's) maps it to that letter: ``K`` and
    U+212A KELVIN SIGN for k, not U+017F LONG S for s nor U+0130/U+0131 for i, where
    re.IGNORECASE takes them."""
    _, _, fold, _ = _html_kernels._tables(_fasthtml.BLOCK_TAGS, _fasthtml.URL_ATTRS)
    letters = set("".join(_fasthtml.URL_ATTRS))
    assert fold[0x212A] == ord("k")
    assert fold[0x17F] == fold[0x130] == fold[0x131] == 0
    every: dict[str, list[int]] = {letter: [] for letter in letters}
    for code in range(sys.maxunicode + 1):
        lowered = chr(code).lower()
        if lowered in every:
            every[lowered].append(code)
    for letter, found in every.items():
        assert max(found) < _html_kernels.FOLD_SIZE
        assert found == [code for code in range(fold.size) if fold[code] == ord(letter)]
    for letter, found in every.items():
        assert "".join(map(chr, found)) == _fasthtml._LINK_CASES[letter]


@pytest.mark.slow
def test_words_urls_and_html_of_every_spamassassin_message(shared_data, monkeypatch):
    root = shared_data / "spamassassin-public-corpus"
    if not root.is_dir():
        pytest.skip("the SpamAssassin corpus is not in the shared data folder")
    paths = [p for p in sorted(root.glob("*/*")) if p.is_file() and p.name != "cmds"]
    assert len(paths) > 6000
    markups = []
    html_to_text = _mime.html_to_text

    def kept(markup, **kwargs):
        markups.append(markup)
        return html_to_text(markup, **kwargs)

    monkeypatch.setattr(_mime, "html_to_text", kept)
    monkeypatch.setattr(email_module, "html_to_text", kept)
    for path in paths:
        text = _read_bytes(path.read_bytes()).text
        assert words(text, 40) == _reference_words(text, 40), path.name
        assert _mime.find_urls(text) == _reference_urls(text), path.name
    assert len(markups) > 1000
    for markup in markups:
        flat = _fasthtml._OPAQUE.sub(_fasthtml._opaque, markup)
        assert _marked(flat) == _fasthtml.marked_by_regex(flat)
        text = html.unescape(_marked(flat)[0])
        assert _html_kernels.tidied(text) == _tidied_by_python(text)
