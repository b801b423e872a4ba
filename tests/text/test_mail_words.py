"""The e-mail reader's compiled stages find what the regular expressions they replace find.

The words of a message's text (:func:`bayeskit.text._word_kernels.words`) against
``re.findall(r"(?u)\\b\\w\\w+\\b", text.lower())`` with SpamBayes' skip tokens, and the URL
search (:func:`bayeskit.text._mime.find_urls`) against the case-insensitive pattern it was:
generated text over all of Unicode (lone surrogates, characters that grow when lowercased,
long words), and the text of every SpamAssassin message.
"""

from __future__ import annotations

import re
import sys

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bayeskit.text import _mime, _word_kernels
from bayeskit.text._word_kernels import KERNEL_MIN_CHARS, words
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
    assert words(text, max_length) == _reference_words(text, max_length)
    # and by the kernel itself, however short the text
    padded = text + " " * KERNEL_MIN_CHARS
    assert words(padded, max_length) == _reference_words(padded, max_length)


def test_word_kernel_is_used_for_long_texts(monkeypatch):
    calls = []
    kernel = _word_kernels.word_runs

    def counted(*args):
        calls.append(len(args[0]))
        return kernel(*args)

    monkeypatch.setattr(_word_kernels, "word_runs", counted)
    assert words("short text", 40) == ["short", "text"]
    assert calls == []
    assert words("a long text " * 10, 40) == ["long", "text"] * 10
    assert calls == [120]


_URL_PIECES = [
    "http://", "HTTPS://", "httpſ://", "hTtP://", "ftp://", "FtP://", "www.", "WwW.", "wWw,",
    "x", "_", "é", " ", ".", ",", "a.b", "/", "(", "ſ", "ww", "hhttp://", "1", "\n", "<", "'",
    "-", "ĳ", "K",
]  # fmt: skip


@given(st.lists(st.sampled_from(_URL_PIECES), max_size=16).map("".join))
@example("See HTTP://x.org/a, or httpſ://long-s.example and _www.not.this www.yes.org.")
def test_url_search_finds_what_the_case_insensitive_pattern_finds(text):
    assert _mime.find_urls(text) == _reference_urls(text)


def test_url_search_letter_classes_hold_every_case_insensitive_match():
    # The classes are built from the first 0x180 code points; no later one matches.
    classes = (_mime._H, _mime._T, _mime._P, _mime._S, _mime._F, _mime._W)
    for letter, alike in zip("htpsfw", classes, strict=True):
        pattern = re.compile(letter, re.IGNORECASE)
        found = [chr(c) for c in range(sys.maxunicode + 1) if pattern.fullmatch(chr(c))]
        assert "[" + "".join(found) + "]" == alike


@pytest.mark.slow
def test_words_and_urls_of_every_spamassassin_message(shared_data):
    root = shared_data / "spamassassin-public-corpus"
    if not root.is_dir():
        pytest.skip("the SpamAssassin corpus is not in the shared data folder")
    paths = [p for p in sorted(root.glob("*/*")) if p.is_file() and p.name != "cmds"]
    assert len(paths) > 6000
    for path in paths:
        text = _read_bytes(path.read_bytes()).text
        assert words(text, 40) == _reference_words(text, 40), path.name
        assert _mime.find_urls(text) == _reference_urls(text), path.name
